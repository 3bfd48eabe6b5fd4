package pageload

import (
	"context"
	"fmt"
	"io"

	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// resolve fetches a pointer page through the resolver and checks it.
func (l *Loader) resolve(ctx context.Context, n *tree.Node) ([]byte, error) {
	if l.c.Resolver == nil {
		return nil, fmt.Errorf("%w: %s", pointer.ErrLazy, pointer.RedactURL(n.Entry.URL))
	}
	data, err := l.c.Resolver.Fetch(ctx, n.Entry)
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{}
	}
	if err := pointer.Check(n.Entry, data); err != nil {
		return nil, err
	}
	return data, nil
}

// Cached returns a page's content if the page cache holds it, without
// fetching it. The returned slice is shared and must not be modified.
func (l *Loader) Cached(ctx context.Context, n *tree.Node) ([]byte, bool) {
	data, ok := l.cacheGet(ctx, l.CacheKey(n))
	if ok {
		l.learnSize(n, len(data))
	}
	return data, ok
}

// ResolveRange fetches the want bytes at off of a pointer page through
// rr and checks the answer's length. If rr answers with the whole
// content instead (full), it is checked like a Fetch result and cached.
func (l *Loader) ResolveRange(ctx context.Context, rr pointer.RangeResolver, n *tree.Node, off, want int64) (data []byte, full bool, err error) {
	e := n.Entry
	data, full, err = rr.FetchRange(ctx, e, off, want)
	if err != nil {
		if err == io.EOF { // not wrapped: a transport's EOF is another failure
			// The resolver says the content ends before the size the
			// tree declares.
			return nil, false, fmt.Errorf("%w: page %q: %s: end of content at %d; the tree declares %d bytes", pointer.ErrBroken, e.Slug, pointer.RedactURL(e.URL), off, e.Size)
		}
		return nil, false, err
	}
	if full {
		if data == nil {
			data = []byte{}
		}
		if err := pointer.Check(e, data); err != nil {
			return nil, false, err
		}
		l.cachePut(ctx, l.CacheKey(n), data)
		l.learnSize(n, len(data))
		return data, true, nil
	}
	if int64(len(data)) != want {
		return nil, false, fmt.Errorf("%w: page %q: %s: the resolver returned %d bytes for a range of %d at %d", pointer.ErrBroken, e.Slug, pointer.RedactURL(e.URL), len(data), want, off)
	}
	return data, false, nil
}
