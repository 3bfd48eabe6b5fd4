package chromafs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
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

// coarseCacheKey is the page-cache key of the shared answers for the
// coarse key key: hashed, as a literal set may be long.
func coarseCacheKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return "chromafs-coarse\x00" + hex.EncodeToString(h[:])
}

// loadSharedCoarse returns the answers other processes shared under key
// in the page cache's shared tier (see sharedCache), or nil.
func (s *session) loadSharedCoarse(ctx context.Context, key string) *coarseBits {
	shared := sharedCache(s.cache)
	if shared == nil {
		return nil
	}
	v, ok, err := shared.Get(ctx, coarseCacheKey(key))
	if err != nil || !ok {
		return nil
	}
	return decodeCoarseBits(v, s.tree.Len())
}

// storeSharedCoarse shares b under key in the page cache's shared tier.
func (s *session) storeSharedCoarse(ctx context.Context, key string, b *coarseBits) {
	shared := sharedCache(s.cache)
	if shared == nil || b == nil {
		return
	}
	// Sharing is an optimisation: a failure (the cache's page reads warn
	// already) is not worth a warning of its own.
	if err := shared.Put(ctx, coarseCacheKey(key), b.encode()); err != nil {
		s.log.Debug("chromafs: sharing coarse answers failed", "err", err)
	}
}

// merge returns the answers of b and o together (b's where both know a
// page); either may be nil.
func (b *coarseBits) merge(o *coarseBits) *coarseBits {
	if o == nil {
		return b
	}
	if b == nil {
		return o
	}
	n := max(len(b.known), len(o.known))
	out := &coarseBits{known: make([]uint64, n), hit: make([]uint64, n)}
	for i := range n {
		var bk, bh, ok, oh uint64
		if i < len(b.known) {
			bk, bh = b.known[i], b.hit[i]
		}
		if i < len(o.known) {
			ok, oh = o.known[i], o.hit[i]
		}
		out.known[i] = bk | ok
		out.hit[i] = bh&bk | oh&ok&^bk
	}
	return out
}

// encode is b as bytes: known and hit, 8 bytes a word, little-endian.
func (b *coarseBits) encode() []byte {
	out := make([]byte, 0, 16*len(b.known))
	for _, w := range b.known {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	for _, w := range b.hit {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	return out
}

// decodeCoarseBits decodes what encode made for a tree of entries
// entries; nil when v does not have that shape.
func decodeCoarseBits(v []byte, entries int) *coarseBits {
	words := (entries + 63) >> 6
	if len(v) != 16*words {
		return nil
	}
	b := &coarseBits{known: make([]uint64, words), hit: make([]uint64, words)}
	for i := range words {
		b.known[i] = binary.LittleEndian.Uint64(v[8*i:])
		b.hit[i] = binary.LittleEndian.Uint64(v[8*(words+i):])
	}
	return b
}

// checkHeld reads the pages of held from the page cache and sets hit for
// those whose content contains one of lits (compared byte for byte); it
// returns the pages it decided. A page the cache no longer has is a
// candidate, undecided. Up to checkParts reads run at once (a shared
// tier's round trips overlap, and pages are checked as they arrive).
func (s *session) checkHeld(ctx context.Context, held []asked, lits []string, hit map[string]bool) []asked {
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
				keys[i] = s.cacheKey(a.node)
			}
			got, err := s.cache.GetMany(ctx, keys)
			r.err = err
			for i, a := range part {
				data, ok := got[keys[i]]
				switch {
				case !ok:
					r.candidates = append(r.candidates, a)
				case containsAny(data, lits):
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
			s.log.Warn("chromafs: page cache read failed; reading from the store", "err", r.err)
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

func containsAny(data []byte, lits []string) bool {
	for _, l := range lits {
		if bytes.Contains(data, []byte(l)) {
			return true
		}
	}
	return false
}
