package coarse

import (
	"context"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/tree"
)

// The coarse filter's self-check. Candidates trusts the store's text
// search to name every chunk that contains a literal; not every Chroma
// does (distributed Chroma and Chroma Cloud document that their full-text
// index answers nothing for a $contains of fewer than 3 characters and,
// with the newer token index, for a $regex). A store that answers nothing
// would make grep print nothing, silently.
//
// So, until a search of the same class (Class: $regex or
// $contains, with a short literal or not) has once named such a page,
// each search that goes to the store takes along one probe: a page of
// the view whose content is in this process's memory (the memory part of
// the page cache: no request to read it) and contains one of the
// literals. It is a page the search asks about anyway when there is one,
// else a page added to the search's scope (the same requests: no round
// trip more); a page that an earlier answer for the same literals (kept
// in the Shared, see filter.go) left out is a fault found with no search
// at all. If the answer names the probe, the class is verified for
// the collection at this tree version and later searches of that class
// carry no probe. If it does not, the coarse filter is off for the
// collection at this tree version: one warning on the session's logger,
// and from then on Candidates returns every page in scope, so that grep
// reads the pages itself and stays exact. The record is kept in the
// session's Shared (Drop and Reset forget it); a new tree version is
// checked anew.
//
// The check needs a page in memory that matches: a search in a process
// that has read no matching page cannot be checked, and gets the store's
// answer as it is.

// Bounds of the search for a probe, per Candidates call: memory lookups
// of pages, and pages read from memory (and matched).
const (
	probeLookups = 4096
	probeReads   = 16
)

// probe is the page that a search takes along for the self-check.
type probe struct {
	asked
	inAsk  bool // one of the pages the search asks about anyway
	missed bool // an earlier answer said it does not match: a fault already
}

// probe returns a page for the self-check of a search of class over ask
// (see above), or false when class is verified or no page is found
// within the bounds. It reads only the memory part of the page cache.
// The probe's content contains one of lits (with fold: under Go's
// (?i), as grep compares, see Matcher); needOf says how
// Candidates treats a page (pages it does not ask about cannot be
// probes); hit holds the pages already decided to be candidates and
// known the earlier answers for the search's literals: a page that an
// earlier answer named, or that is a candidate for another reason,
// proves nothing, and a page that an earlier answer left out is a fault
// found without a search (missed).
func (f *Filter) probe(ctx context.Context, h *Health, class Class, ask []asked, hit map[string]bool, known *Bits, lits []string, fold bool, needOf func(*tree.Entry) need) (probe, bool) {
	if h.Verified(class) {
		return probe{}, false
	}
	c := f.cache
	if t, ok := c.(*cachepkg.Tiered); ok {
		c = t.Front // never the shared back tier
	}
	local, ok := c.(cachepkg.Local)
	if !ok {
		return probe{}, false
	}
	if e, ok := c.(cachepkg.LocalEmptier); ok && e.LocalEmpty() {
		return probe{}, false
	}
	match := Matcher(lits, fold)
	// Each of the two passes below looks up at most probeLookups pages;
	// both read at most probeReads in all.
	lookups, reads := 0, 0
	spent := func() bool { return lookups >= probeLookups || reads >= probeReads }
	matches := func(n *tree.Node) bool {
		lookups++
		key := f.keys.CacheKey(n)
		if !local.HasLocal(key) {
			return false
		}
		reads++
		data, ok, err := c.Get(ctx, key)
		return err == nil && ok && match(data)
	}
	// The pages the search asks about first (grep asks only about pages
	// that are not in memory, other callers may ask about any).
	for _, a := range ask {
		if spent() {
			break
		}
		if matches(a.node) {
			return probe{asked: a, inAsk: true}, true
		}
	}
	// Then the other pages of the view, in path order.
	lookups = 0
	var found *tree.Node
	var split, missed bool
	f.view.Walk(func(n *tree.Node) bool {
		if spent() {
			return false
		}
		if n.IsDir || hit[n.Entry.Slug] {
			return true
		}
		nd := needOf(n.Entry)
		if nd == needNothing {
			return true
		}
		i, ok := f.tree.NodePosition(n)
		if !ok {
			return true
		}
		k, h := known.Has(i)
		if k && h || !matches(n) {
			return true
		}
		found, split, missed = n, nd == needSplit, k
		return false
	})
	if found == nil {
		return probe{}, false
	}
	if missed {
		return probe{asked: f.asked(found, split), missed: true}, true
	}
	// The first pass may have stopped before it: it may be in ask.
	for _, a := range ask {
		if a.entry.Slug == found.Entry.Slug {
			return probe{asked: a, inAsk: true}, true
		}
	}
	return probe{asked: f.asked(found, split)}, true
}

// probed reads the answer for probe p of a search of class (hit, as the
// search left it): it verifies the class when the answer names p, and
// otherwise turns the coarse filter off, warns once and reports false.
func (f *Filter) probed(h *Health, class Class, p probe, hit map[string]bool) bool {
	if hit[p.entry.Slug] {
		h.Verify(class)
		return true
	}
	if h.Disable() {
		f.log.Warn("chromafs: the store's text search did not name a page that contains the searched text; "+
			"the coarse filter is off for this collection at this tree version, and grep reads every page itself "+
			"(distributed Chroma and Chroma Cloud answer nothing for $contains under 3 characters and, with the token index, for $regex)",
			"collection", f.store.CollectionID(), "version", f.version, "page", p.node.Path, "search", class.String())
	}
	return false
}
