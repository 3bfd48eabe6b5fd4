package chromafs

import (
	"context"

	"github.com/chromafs/chromafs/tree"
)

// Candidates returns the names, among names, of the files whose content
// may contain at least one of literals: the coarse filter of grep. The
// names are those of fsys (which may be a Sub view); literals are
// compared exactly, or, with fold, case-insensitively under Unicode
// simple case folding (as Go's regexp (?i) compares).
//
// The result keeps the order of names (without repeats) and is a subset of
// them: every visible file whose content contains one of literals is in
// it, and it may hold files that contain none. Names that are not valid,
// that do not exist in this view, that are hidden from its user or that
// are directories are dropped silently, as if they did not exist. Files
// whose content is stored outside the collection (lazy pointers) are
// always returned. With no
// literals (or an empty one), or when the store does not implement
// [collection.Searcher], every visible file among names is returned. When
// no file needs a query, none is sent.
//
// The store is asked, with one [collection.Searcher.Search] per condition,
// restricted to the visible files among names, for the chunks that contain
// a literal ($contains) or, with fold, match a regex that spells each
// literal's case variants (Go's and Rust's (?i) for ASCII literals;
// explicit classes of each rune's case-folding orbit otherwise).
//
// Chroma sees one chunk at a time, so a literal that straddles two chunks
// is found by no such query. A page needs no more when it is one chunk
// (per the tree), when the collection declares collection.LineAlignedKey
// and the page's entry does not have SplitLines (a literal without a
// newline cannot cross a line end), or when the separator is made of
// newlines only (as "\n", the Python package's). With the default empty
// separator, the other pages get three more queries: chunks that end with
// a non-empty proper prefix of a literal ((?:p1|p2|…)$), chunks that start
// with the rest (^(?:s1|s2|…)), paired on (page, k, k+1), and chunks too
// short to hold more than a literal's inside ((?s)^.{0,n}$, n being the
// longest literal's length in runes less two), through which a literal may
// span three chunks or more: a page is a candidate when chunk k ends with
// a prefix, chunk k+m starts with a suffix and the chunks between are
// short. This needs no chunk count, so it also covers pages whose tree
// entry has none. With a separator that is not newline-bounded, such pages
// are always candidates (a literal may straddle the separator or lie
// inside it), as they are when the boundary regexes would be too large
// (literals of more than 1000 runes, or very many).
//
// The pages of a collection that another tool wrote (adopted pages, see
// package adopt) are asked about by the ids of their chunks, which carry
// no slug of this layout ([collection.Scope].IDs), with the same
// conditions, and the chunks named are mapped back to pages through the
// pages' recipes (tree.Entry.Parts). Their chunks may overlap, and text
// that no chunk holds may lie between them (a recipe's gaps: whitespace
// that a trimming writer removed). A page is a candidate when one of its
// chunks is named, or when a literal may straddle a junction of two of
// its chunks: a junction with a gap holding no rune of a literal (with
// fold, of their case orbits) cannot be straddled; one where the later
// chunk repeats at least the longest literal's length in bytes less one
// is straddled only by matches that lie inside one chunk (or straddle the
// next junction); one where the chunks neither overlap nor have a gap
// gets the boundary queries above. A page with a shorter overlap, or a
// gap (before its first chunk, between two, or its assumed final line
// break) that may hold part of a literal, is always returned.
//
// Pages whose content a shared tier of the page cache holds (the cache
// implements [cachepkg.SharedHas], as a cachepkg.Tiered in front of Redis
// does) are returned without a question to the store: one bulk existence
// check of their keys replaces the store's pass over the collection, and
// reading them from the shared tier costs less than that pass (see
// BENCHMARKS.md). Only the other pages are asked about, so that a second
// process whose every page in scope an earlier one cached sends the store
// nothing. When the check fails, the store is asked about every page.
//
// The answers are remembered, per page, in the session's Shared (see
// WithShared), by tree version and literal set: a later call with the same
// literals, in any session of the Shared (whatever its groups), asks the
// store only about the pages of its names that no earlier call asked
// about, and sends nothing when there are none.
//
// The store's answers are checked: until a search
// of the same kind ($regex or $contains, with a literal under 3
// characters or not) has named a page known to match, a search takes
// along a page of the view whose content is in this process's memory and
// contains a literal, in the same requests. An answer that misses it
// turns the coarse filter off for the collection at this tree version,
// with one warning on the logger (WithLogger): from then on every visible
// file among names is returned, and grep, reading them all, stays exact.
// A search that finds no such page in memory is not checked.
//
// Candidates implements fscap.CandidatesFS, through which grepx and search
// find it by type assertion, as io/fs finds fs.ReadFileFS; other callers
// rarely need it.
func (fsys *FS) Candidates(ctx context.Context, names []string, literals []string, fold bool) ([]string, error) {
	scope := make([]string, 0, len(names))
	pages := make([]*tree.Node, 0, len(names))
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		// No fs.ValidPath check (it cost this loop time for nothing): the
		// view holds only valid, clean paths, and an invalid name, with or
		// without a Sub prefix, matches none of them.
		n, ok := fsys.s.view.Lookup(fsys.full(name))
		if !ok || n.IsDir || seen[n.Path] {
			continue
		}
		seen[n.Path] = true
		scope = append(scope, name)
		pages = append(pages, n)
	}
	keep, err := fsys.s.coarse.Candidates(ctx, pages, literals, fold)
	if err != nil {
		return nil, err
	}
	out := scope[:0]
	for i, name := range scope {
		if keep[i] {
			out = append(out, name)
		}
	}
	return out, nil
}
