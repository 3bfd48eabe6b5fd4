package coarse

import (
	"context"
	"sync"
)

// Coarse answers shared between processes. A page cache with a shared
// tier (the back of a cachepkg.Tiered that is not a process's memory, as
// for shared trees: Redis) also keeps Candidates' answers, under a
// key derived from the coarse key (collection, tree version, literal set,
// ...), so that a later process asking about the same literals reads one
// value instead of asking the store or reading every page.
//
// Where the shared tier holds a page, Candidates reads it (it lands in
// the process's memory tier, where grep then finds it) and looks for the
// literals in its content: the answer is then exact, not the store's
// coarse one, and is kept like the store's. Searches with fold read no
// page here: the pages held stay candidates, as before.

// loadShared returns the answers other processes shared under key in the
// page cache's shared tier (Config.SharedTier), or nil.
func (f *Filter) loadShared(ctx context.Context, key string) *Bits {
	shared := f.sharedTier
	if shared == nil {
		return nil
	}
	v, ok, err := shared.Get(ctx, SharedKey(key))
	if err != nil || !ok {
		return nil
	}
	return Decode(v, f.tree.Len())
}

// storeShared shares b under key in the page cache's shared tier.
func (f *Filter) storeShared(ctx context.Context, key string, b *Bits) {
	shared := f.sharedTier
	if shared == nil || b == nil {
		return
	}
	// Sharing is an optimisation: a failure (the cache's page reads warn
	// already) is not worth a warning of its own.
	if err := shared.Put(ctx, SharedKey(key), b.Encode()); err != nil {
		f.log.Debug("chromafs: sharing coarse answers failed", "err", err)
	}
}

// checkHeld reads the pages of held from the page cache and sets hit for
// those whose content contains one of lits (compared byte for byte); it
// returns the pages it decided. A page the cache no longer has is a
// candidate, undecided. Up to checkParts reads run at once (a shared
// tier's round trips overlap, and pages are checked as they arrive).
func (f *Filter) checkHeld(ctx context.Context, held []asked, lits []string, hit map[string]bool) []asked {
	parts := min(checkParts, (len(held)+checkPart-1)/checkPart)
	if parts < 1 {
		return nil
	}
	type result struct {
		decided, candidates []asked
		err                 error
	}
	results := make([]result, parts)
	var wg sync.WaitGroup
	for p := range parts {
		part := held[p*len(held)/parts : (p+1)*len(held)/parts]
		wg.Go(func() {
			r := &results[p]
			keys := make([]string, len(part))
			for i, a := range part {
				keys[i] = f.keys.CacheKey(a.node)
			}
			got, err := f.cache.GetMany(ctx, keys)
			r.err = err
			for i, a := range part {
				data, ok := got[keys[i]]
				switch {
				case !ok:
					r.candidates = append(r.candidates, a)
				case ContainsAny(data, lits):
					r.candidates = append(r.candidates, a)
					r.decided = append(r.decided, a)
				default:
					r.decided = append(r.decided, a)
				}
			}
		})
	}
	wg.Wait()
	var decided []asked
	var warned bool
	for _, r := range results {
		if r.err != nil && !warned {
			f.log.Warn("chromafs: page cache read failed; reading from the store", "err", r.err)
			warned = true
		}
		for _, a := range r.candidates {
			hit[a.entry.Slug] = true
		}
		decided = append(decided, r.decided...)
	}
	return decided
}

// checkParts and checkPart bound checkHeld's concurrent reads: at most
// checkParts, of at least checkPart pages each.
const (
	checkParts = 4
	checkPart  = 128
)
