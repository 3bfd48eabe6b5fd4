package pageload

import (
	"context"
	"io/fs"
	"slices"

	"github.com/chromafs/chromafs/cachepkg"
)

// Uncached returns those of names whose content is not in the page
// cache's memory, as the root's FS.Uncached documents: names that lookup
// does not find as files, or that are not valid paths, are returned as
// they are. A cache without a local tier is asked which names it holds,
// in one bulk check when it implements cachepkg.SharedHas. It never
// touches the store.
func (l *Loader) Uncached(ctx context.Context, names []string, lookup Lookup) []string {
	cache := l.c.Cache
	if e, ok := cache.(cachepkg.LocalEmptier); ok && e.LocalEmpty() {
		// A new session's cache: every name is uncached.
		return slices.Clone(names)
	}
	local, _ := cache.(cachepkg.Local)
	if sh, ok := cache.(cachepkg.SharedHas); ok && local == nil {
		return l.unshared(ctx, sh, names, lookup)
	}
	var out []string
	for _, name := range names {
		if !fs.ValidPath(name) {
			out = append(out, name)
			continue
		}
		n, ok := lookup(name)
		if !ok || n.IsDir {
			out = append(out, name)
			continue
		}
		key := l.CacheKey(n)
		if local != nil {
			if !local.HasLocal(key) {
				out = append(out, name)
			}
			continue
		}
		if has, err := cache.Has(ctx, key); err != nil || !has {
			out = append(out, name)
		}
	}
	return out
}

// unshared is Uncached for a cache that is all shared (no local tier):
// the names it does not hold, asked in one bulk check rather than a
// request a name.
func (l *Loader) unshared(ctx context.Context, sh cachepkg.SharedHas, names []string, lookup Lookup) []string {
	keys := make([]string, 0, len(names))
	at := make([]int, 0, len(names)) // names[at[i]] has keys[i]
	for i, name := range names {
		if !fs.ValidPath(name) {
			continue
		}
		n, ok := lookup(name)
		if !ok || n.IsDir {
			continue
		}
		keys = append(keys, l.CacheKey(n))
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
