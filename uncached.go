package chromafs

import "context"

// Uncached returns those of names whose content is not in the page cache's
// memory, so that reading them would cost a request (to the store, or to
// a shared cache such as Redis when the cache implements cachepkg.Local).
// A cache without a local tier is asked which names it holds, in one bulk
// check when it implements cachepkg.SharedHas (a rediscache.Cache does).
// Names that are not visible files are returned as they are (reading them
// fails without a request). It never touches the store; package grepx
// uses it to decide whether a coarse query is worth its cost.
//
// Uncached implements fscap.UncachedFS, through which grepx finds it by
// type assertion, as io/fs finds fs.ReadFileFS; other callers rarely need
// it.
func (fsys *FS) Uncached(ctx context.Context, names []string) []string {
	return fsys.s.pages.Uncached(ctx, names, fsys.lookupFunc())
}
