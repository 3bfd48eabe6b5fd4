package pageload

import (
	"context"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/tree"
)

// learnSize remembers the size of a page whose tree entry has none, for
// KnownSize.
func (l *Loader) learnSize(n *tree.Node, size int) {
	if n.Entry.Size >= 0 {
		return
	}
	if _, ok := l.sizes.Load(n.Path); !ok {
		l.sizes.Store(n.Path, int64(size))
	}
}

// KnownSize returns the size of a page if it is known without a read:
// the tree records it, or this Loader read the page before.
func (l *Loader) KnownSize(n *tree.Node) (int64, bool) {
	if n.Entry.Size >= 0 {
		return n.Entry.Size, true
	}
	if v, ok := l.sizes.Load(n.Path); ok {
		return v.(int64), true
	}
	return 0, false
}

// Size returns the size of a page, reading it (Load) if it is not known.
func (l *Loader) Size(ctx context.Context, n *tree.Node) (int64, error) {
	if sz, ok := l.KnownSize(n); ok {
		return sz, nil
	}
	data, err := l.Load(ctx, n)
	if err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// LocalSize learns the size of page n from the memory part of the page
// cache, if it is there, and reports whether it did (KnownSize then has
// it). It never asks a remote cache or the store.
func (l *Loader) LocalSize(ctx context.Context, n *tree.Node) bool {
	c := l.c.Cache
	if t, ok := c.(*cachepkg.Tiered); ok {
		c = t.Front // never the shared back tier
	}
	local, ok := c.(cachepkg.Local)
	if !ok {
		return false
	}
	key := l.CacheKey(n)
	if !local.HasLocal(key) {
		return false
	}
	data, ok, err := c.Get(ctx, key)
	if err != nil || !ok {
		return false
	}
	l.learnSize(n, len(data))
	return true
}
