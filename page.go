package chromafs

import (
	"context"
	"errors"

	"github.com/chromafs/chromafs/internal/pageload"
	"github.com/chromafs/chromafs/tree"
)

var (
	errIsDir  = errors.New("is a directory")
	errNotDir = errors.New("not a directory")
)

// Page loading is package internal/pageload's: the session's Loader
// (session.pages) reads pages from the page cache, the store or the
// resolver. The methods below are the FS's doors to it.

// lookupFunc returns the pageload.Lookup of fsys's names.
func (fsys *FS) lookupFunc() pageload.Lookup {
	return func(name string) (*tree.Node, bool) { return fsys.s.view.Lookup(fsys.full(name)) }
}

// Prefetch loads the named pages into the cache with as few store
// requests as possible. Names that are not visible files are ignored, so
// that a caller cannot learn anything from the result about hidden pages.
// Lazy pointers among them are fetched through the resolver, up to
// 4 at a time, while the store is read (with no resolver they are
// skipped). It returns the first error met; pages loaded before it stay
// cached.
//
// Prefetch implements fscap.PrefetchFS, through which grepx and search
// find it by type assertion, as io/fs finds fs.ReadFileFS; other callers
// rarely need it.
func (fsys *FS) Prefetch(ctx context.Context, names []string) error {
	return fsys.PrefetchEach(ctx, names, nil)
}

// PrefetchEach is Prefetch that also hands over each page it loads: it
// calls loaded, when not nil, with the name (as given in names) and the
// content of each page as soon as that page is assembled and checked
// against the tree (size, chunk count, hash), before the rest of the
// pages and before the cache has it, so that a caller can work on one
// page while the next is assembled. loaded may be called from several
// goroutines at once (lazy pointers load concurrently) and must not keep
// Prefetch waiting long. The content is shared, as ReadFileShared's, and
// must not be modified. Pages that are already cached, not visible, or
// fail to load are not handed over; read them with ReadFile.
//
// It implements fscap.PrefetchEachFS, through which grepx finds it.
func (fsys *FS) PrefetchEach(ctx context.Context, names []string, loaded func(name string, data []byte)) error {
	return fsys.s.pages.PrefetchEach(ctx, names, fsys.lookupFunc(), loaded)
}
