package chromafs

import (
	"context"
	"io/fs"
	"slices"

	"github.com/chromafs/chromafs/cachepkg"
)

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
	s := fsys.s
	if e, ok := s.cache.(cachepkg.LocalEmptier); ok && e.LocalEmpty() {
		// A new session's cache: every name is uncached.
		return slices.Clone(names)
	}
	local, _ := s.cache.(cachepkg.Local)
	if sh, ok := s.cache.(cachepkg.SharedHas); ok && local == nil {
		return s.unshared(ctx, fsys, sh, names)
	}
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
		key := s.cacheKey(n)
		if local != nil {
			if !local.HasLocal(key) {
				out = append(out, name)
			}
			continue
		}
		if has, err := s.cache.Has(ctx, key); err != nil || !has {
			out = append(out, name)
		}
	}
	return out
}

// unshared is Uncached for a cache that is all shared (no local tier):
// the names it does not hold, asked in one bulk check rather than a
// request a name.
func (s *session) unshared(ctx context.Context, fsys *FS, sh cachepkg.SharedHas, names []string) []string {
	keys := make([]string, 0, len(names))
	at := make([]int, 0, len(names)) // names[at[i]] has keys[i]
	for i, name := range names {
		if !fs.ValidPath(name) {
			continue
		}
		n, ok := s.view.Lookup(fsys.full(name))
		if !ok || n.IsDir {
			continue
		}
		keys = append(keys, s.cacheKey(n))
		at = append(at, i)
	}
	has, err := sh.HasShared(ctx, keys)
	if err != nil || len(has) != len(keys) {
		has = make([]bool, len(keys))
	}
	held := make(map[int]bool, len(keys))
	for i, h := range has {
		if h {
			held[at[i]] = true
		}
	}
	var out []string
	for i, name := range names {
		if !held[i] {
			out = append(out, name)
		}
	}
	return out
}
