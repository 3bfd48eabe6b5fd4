package chromafs

import (
	"github.com/chromafs/chromafs/internal/coarse"
	"github.com/chromafs/chromafs/tree"
)

// Coarse results: what the store answered to Candidates' queries, kept per
// page (a coarse.Bits in Shared.coarse) so that a repeated search asks
// nothing and the views of different users (which scope their queries to
// different pages) share what they have in common. The tree version names
// the pages' content as it does for the page cache (see session.cacheKey).

// coarseKey names the answers of Candidates for the non-empty literal set
// lits (as coarse.UniqueLiterals returns it) with fold, in this session
// (see coarse.Key).
func (s *session) coarseKey(lits []string, fold bool, regexLimit int) string {
	return coarse.Key{
		Collection:  s.store.CollectionID(),
		Version:     s.version,
		Sep:         s.sep,
		SlugField:   s.layout.SlugField,
		IndexField:  s.layout.IndexField,
		LineAligned: s.lineAligned,
		Fold:        fold,
		RegexLimit:  regexLimit,
		Literals:    lits,
	}.String()
}

// entryIndex returns the index of e in the tree's entries (which are in
// path order), or false if e is not one of them. A view's nodes point
// into the tree's entries, so the index is e's offset in that array: no
// search by slug, which was a measurable part of a cold grep's bookkeeping.
func entryIndex(t *tree.Tree, n *tree.Node) (int, bool) {
	return t.NodePosition(n)
}
