package chromafs

import (
	"context"
	"fmt"
	"io"

	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

func redact(raw string) string { return pointer.RedactURL(raw) }

// resolve fetches a pointer page through the session's resolver and
// checks it.
func (s *session) resolve(ctx context.Context, n *tree.Node) ([]byte, error) {
	if s.resolver == nil {
		return nil, fmt.Errorf("%w: %s", pointer.ErrLazy, redact(n.Entry.URL))
	}
	data, err := s.resolver.Fetch(ctx, n.Entry)
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

// cached returns a page's content if the session's cache holds it,
// without fetching it.
func (s *session) cached(ctx context.Context, n *tree.Node) ([]byte, bool) {
	data, ok := s.cacheGet(ctx, s.cacheKey(n))
	if ok {
		s.learnSize(n, len(data))
	}
	return data, ok
}

// resolveRange fetches the want bytes at off of a pointer page through
// rr and checks the answer's length. If rr answers with the whole
// content instead (full), it is checked like a Fetch result and cached.
func (s *session) resolveRange(ctx context.Context, rr pointer.RangeResolver, n *tree.Node, off, want int64) ([]byte, bool, error) {
	e := n.Entry
	data, full, err := rr.FetchRange(ctx, e, off, want)
	if err != nil {
		if err == io.EOF { // not wrapped: a transport's EOF is another failure
			// The resolver says the content ends before the size the
			// tree declares.
			return nil, false, fmt.Errorf("%w: page %q: %s: end of content at %d; the tree declares %d bytes", pointer.ErrBroken, e.Slug, redact(e.URL), off, e.Size)
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
		s.cachePut(ctx, s.cacheKey(n), data)
		s.learnSize(n, len(data))
		return data, true, nil
	}
	if int64(len(data)) != want {
		return nil, false, fmt.Errorf("%w: page %q: %s: the resolver returned %d bytes for a range of %d at %d", pointer.ErrBroken, e.Slug, redact(e.URL), len(data), want, off)
	}
	return data, false, nil
}

// IsLazy reports whether name is a lazy file pointer visible to the
// session: a page whose content is fetched through the pointer.Resolver
// when read.
// It does no I/O. Package grepx uses it to leave pointers out of a search
// (grepx.Query.SkipLazy, chromafs grep --no-pointers).
//
// IsLazy implements fscap.IsLazyFS, through which grepx and search find it
// by type assertion, as io/fs finds fs.ReadFileFS; other callers rarely
// need it.
func (fsys *FS) IsLazy(name string) bool {
	n, err := fsys.lookup("stat", name)
	return err == nil && !n.IsDir && n.Entry != nil && n.Entry.URL != ""
}
