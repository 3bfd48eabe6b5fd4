package chromafs

import (
	"context"
	"io/fs"
)

// Uncached returns those of names whose content is not in the page cache,
// so that reading them would cost a request to the store. Names that are
// not visible files are returned as they are (reading them fails without
// a request). It never touches the store; package grepx uses it to decide
// whether a coarse query is worth its cost.
func (fsys *FS) Uncached(ctx context.Context, names []string) []string {
	s := fsys.s
	var out []string
	for _, name := range names {
		if !fs.ValidPath(name) {
			out = append(out, name)
			continue
		}
		n, ok := s.view.Lookup(fsys.full(name))
		if !ok || n.IsDir {
			out = append(out, name)
			continue
		}
		if has, err := s.cache.Has(ctx, s.cacheKey(n)); err != nil || !has {
			out = append(out, name)
		}
	}
	return out
}
