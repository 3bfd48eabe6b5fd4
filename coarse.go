package chromafs

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/maypok86/otter/v2"

	"github.com/chromafs/chromafs/tree"
)

// Coarse results: what the store answered to Candidates' queries, kept per
// page so that a repeated search asks nothing and the views of different
// users (which scope their queries to different pages) share what they
// have in common.
//
// An answer is a property of a page's content and of the query, not of
// the view: "may this page contain one of these literals". It is kept in
// a coarseBits under a key naming everything the answer depends on (the
// collection, the tree version, the separator and layout, the literal set
// and fold, and what decides which queries a page needs), with one bit
// per entry of the tree: whether the page was asked, and whether it may
// contain a literal. The tree version names the pages' content as it does
// for the page cache (see session.cacheKey).

// coarseBits is an immutable record of the answers for one key: bit i of
// known says that entry i of the tree (tree.Tree.Entries) was asked, bit i
// of hit that it may contain a literal.
type coarseBits struct {
	known, hit []uint64
}

func (b *coarseBits) has(i int) (known, hit bool) {
	if b == nil || i>>6 >= len(b.known) {
		return false, false
	}
	m := uint64(1) << (i & 63)
	return b.known[i>>6]&m != 0, b.hit[i>>6]&m != 0
}

// with returns a copy of b (which may be nil) that also records the
// answers for the entries asked; hit reports an asked entry's answer.
func (b *coarseBits) with(entries int, asked []int, hit func(k int) bool) *coarseBits {
	words := (entries + 63) >> 6
	out := &coarseBits{known: make([]uint64, words), hit: make([]uint64, words)}
	if b != nil {
		copy(out.known, b.known)
		copy(out.hit, b.hit)
	}
	for k, i := range asked {
		m := uint64(1) << (i & 63)
		out.known[i>>6] |= m
		if hit(k) {
			out.hit[i>>6] |= m
		} else {
			out.hit[i>>6] &^= m
		}
	}
	return out
}

func newCoarseCache(maxBytes int64) *otter.Cache[string, *coarseBits] {
	return otter.Must(&otter.Options[string, *coarseBits]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k string, b *coarseBits) uint32 {
			return uint32(min(int64(len(k))+16*int64(len(b.known))+128, math.MaxUint32))
		},
	})
}

// coarseKey names the answers of Candidates for the non-empty literal set
// lits (as uniqueLiterals returns it) with fold, in this session. Besides
// what the answers depend on, it holds what decides which queries a page
// gets (the separator, the line alignment, the regex limit), so that every
// answer under one key was reached the same way.
func (s *session) coarseKey(lits []string, fold bool, regexLimit int) string {
	var b strings.Builder
	for _, f := range []string{s.store.CollectionID(), s.version, s.sep, s.layout.SlugField, s.layout.IndexField} {
		b.WriteString(strconv.Itoa(len(f)))
		b.WriteByte(':')
		b.WriteString(f)
	}
	b.WriteString(strconv.FormatBool(s.lineAligned))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatBool(fold))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(regexLimit))
	sorted := slices.Clone(lits)
	slices.Sort(sorted)
	for _, l := range sorted {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(len(l)))
		b.WriteByte(':')
		b.WriteString(l)
	}
	return b.String()
}

// entryIndex returns the index of e in the tree's entries (which are in
// path order), or false if e is not one of them. A view's nodes point
// into the tree's entries, so the index is e's offset in that array: no
// search by slug, which was a measurable part of a cold grep's bookkeeping.
func entryIndex(t *tree.Tree, n *tree.Node) (int, bool) {
	return t.NodePosition(n)
}
