package chromafs

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/errgroup"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/coarse"
	"github.com/chromafs/chromafs/tree"
)

// Candidates returns the names, among names, of the files whose content
// may contain at least one of literals: the coarse filter of grep. The
// names are those of fsys (which may be a Sub view); literals are
// compared exactly, or, with fold, case-insensitively under Unicode
// simple case folding (as Go's regexp (?i) compares).
//
// The result keeps the order of names (without repeats) and is a subset
// of them: every visible file whose content contains one of literals is
// in it, and it may hold files that contain none. Names that are not
// valid, that do not exist in this view, that are hidden from its user or
// that are directories are dropped silently, as if they did not exist.
// Files whose content is stored outside the collection (lazy pointers),
// and the pages of a collection that another tool wrote (adopted pages,
// whose chunks carry no slug of this layout), are always returned. With no literals (or an empty one), or when the
// store does not implement [collection.Searcher], every visible file
// among names is returned. When no file needs a query, none is sent.
//
// The store is asked, with one [collection.Searcher.Search] per
// condition, restricted to the visible files among names, for the chunks that contain a literal
// ($contains) or, with fold, match a regex that spells each literal's
// case variants (Go's and Rust's (?i) for ASCII literals; explicit
// classes of each rune's case-folding orbit otherwise).
//
// Chroma sees one chunk at a time, so a literal that straddles two chunks
// is found by no such query. A page needs no more when it is one chunk
// (per the tree), when the collection declares collection.LineAlignedKey
// and the page's entry does not have SplitLines (a literal without a newline
// cannot cross a line end), or when the separator is made of newlines
// only (as "\n", the Python package's). With the default empty separator, the other pages get three
// more queries: chunks that end with a non-empty proper prefix of a
// literal ((?:p1|p2|…)$), chunks that start with the rest (^(?:s1|s2|…)),
// paired on (page, k, k+1), and chunks too short to hold more than a
// literal's inside ((?s)^.{0,n}$, n being the longest literal's length in
// runes less two), through which a literal may span three chunks or more:
// a page is a candidate when chunk k ends with a prefix, chunk k+m starts
// with a suffix and the chunks between are short. This needs no chunk
// count, so it also covers pages whose tree entry has none. With a separator that is not newline-bounded,
// such pages are always candidates (a literal may straddle the separator
// or lie inside it), as they are when the boundary regexes would be too
// large (literals of more than 1000 runes, or very many).
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
// The store's answers are checked (see coarsecheck.go): until a search
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
	s := fsys.s
	type item struct {
		name string
		node *tree.Node
	}
	var scope []item
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		// No fs.ValidPath check (it cost this loop time for nothing): the
		// view holds only valid, clean paths, and an invalid name, with or
		// without a Sub prefix, matches none of them.
		n, ok := s.view.Lookup(fsys.full(name))
		if !ok || n.IsDir || seen[n.Path] {
			continue
		}
		seen[n.Path] = true
		scope = append(scope, item{name, n})
	}
	all := func() []string {
		out := make([]string, len(scope))
		for i, it := range scope {
			out[i] = it.name
		}
		return out
	}
	lits := coarse.UniqueLiterals(literals, fold)
	if len(lits) == 0 || slices.Contains(lits, "") {
		return all(), nil
	}
	searcher, ok := s.store.(collection.Searcher)
	if !ok {
		return all(), nil
	}
	plan, ok := coarse.NewPlan(lits, fold, s.regexLimit())
	if !ok {
		return all(), nil
	}
	health := s.health()
	if health.Off() {
		return all(), nil
	}

	newline := slices.ContainsFunc(lits, func(l string) bool { return strings.Contains(l, "\n") })
	// A separator of newlines only holds no literal, nor part of one.
	sepAligned := s.sep != "" && !newline && strings.Trim(s.sep, "\n") == ""
	// What an earlier search learned of these literals, in any session of
	// this Shared: its answers are reused, only the other pages are asked.
	key := s.coarseKey(lits, fold, s.regexLimit())
	known, _ := s.shared.coarse.GetIfPresent(key)
	hit := make(map[string]bool, len(scope))
	ask := make([]asked, 0, len(scope)) // pages to search
	needOf := func(e *tree.Entry) need {
		switch {
		case e.URL != "" || e.Parts != "":
			// A lazy pointer, or a page of an adopted collection (its
			// chunks have no slug of this layout, and overlap): read.
			return needNothing
		case e.Chunks == 1 || sepAligned:
			return needAsk
		case s.sep == "" && s.lineAligned && !e.SplitLines && !newline:
			return needAsk
		case s.sep != "" || !plan.Straddle:
			// Not line-aligned, and no boundary queries can cover it.
			return needNothing
		}
		return needSplit
	}
	for _, it := range scope {
		switch needOf(it.node.Entry) {
		case needNothing:
			hit[it.node.Entry.Slug] = true
		case needAsk:
			ask = append(ask, s.asked(it.node, false))
		case needSplit:
			ask = append(ask, s.asked(it.node, true))
		}
	}
	dropKnown := func(known *coarse.Bits) {
		ask = slices.DeleteFunc(ask, func(a asked) bool {
			if a.index < 0 {
				return false
			}
			k, h := known.Has(a.index)
			if h {
				hit[a.entry.Slug] = true
			}
			return k
		})
	}
	dropKnown(known)
	// What other processes shared through the page cache's shared tier.
	if len(ask) > 0 {
		if sharedBits := s.loadSharedCoarse(ctx, key); sharedBits != nil {
			known = known.Merge(sharedBits)
			s.shared.coarse.Set(key, known)
			dropKnown(sharedBits)
		}
	}
	// Pages that a shared tier of the page cache holds are read from
	// there (and, without fold, checked for the literals): no question to
	// the store about them.
	var decided []asked
	ask, decided = s.dropShared(ctx, ask, hit, lits, fold)
	// The self-check (coarsecheck.go): a page held in memory that
	// contains a literal is checked against an earlier answer, or rides
	// along with the search.
	class := coarse.ClassOf(plan, lits)
	pr, probing := s.probe(ctx, health, class, ask, hit, known, lits, fold, needOf)
	if probing && pr.missed {
		s.probed(health, class, pr, hit)
		return all(), nil
	}
	if len(ask) > 0 {
		search := ask
		if probing && !pr.inAsk {
			search = append(slices.Clip(ask), pr.asked)
		}
		s.fg.enter()
		err := s.search(ctx, searcher, plan, search, hit)
		s.fg.leave()
		if err != nil {
			return nil, err
		}
		if probing && !s.probed(health, class, pr, hit) {
			return all(), nil
		}
	}
	if learned := append(ask, decided...); len(learned) > 0 {
		s.remember(key, learned, hit)
		if b, ok := s.shared.coarse.GetIfPresent(key); ok {
			s.storeSharedCoarse(ctx, key, b)
		}
	}
	out := make([]string, 0, len(hit))
	for _, it := range scope {
		if hit[it.node.Path] {
			out = append(out, it.name)
		}
	}
	return out, nil
}

// need is what Candidates does for a page: nothing (it is a candidate
// without a question), ask the store about it, or ask with the boundary
// queries.
type need int

const (
	needNothing need = iota
	needAsk
	needSplit
)

// asked is a page that Candidates asks the store about: split when it
// needs the boundary queries.
type asked struct {
	node  *tree.Node
	entry *tree.Entry
	index int // in the tree's entries (entryIndex); -1: none
	split bool
}

func (s *session) asked(n *tree.Node, split bool) asked {
	i, ok := entryIndex(s.tree, n)
	if !ok {
		i = -1
	}
	return asked{node: n, entry: n.Entry, index: i, split: split}
}

// dropShared returns the pages of ask that a shared tier of the page cache
// (cachepkg.SharedHas) does not hold, and decides the others: reading a
// page from there (batched reads from Redis) costs less than a pass of
// the store over the collection. Without fold,
// it reads them and looks for lits in their content (checkHeld), and
// returns those it decided as decided; with fold, they are candidates,
// and their answer is not remembered (it is the cache's state, not the
// store's answer). When the cache cannot tell, every page is kept.
func (s *session) dropShared(ctx context.Context, ask []asked, hit map[string]bool, lits []string, fold bool) (rest, decided []asked) {
	sh, ok := s.cache.(cachepkg.SharedHas)
	if !ok || len(ask) == 0 {
		return ask, nil
	}
	keys := make([]string, len(ask))
	for i, a := range ask {
		keys[i] = s.cacheKey(a.node)
	}
	has, err := sh.HasShared(ctx, keys)
	if err != nil {
		s.log.Warn("chromafs: page cache check failed; asking the store", "err", err)
	}
	if len(has) != len(ask) {
		return ask, nil
	}
	var held []asked
	for i, a := range ask {
		if has[i] {
			held = append(held, a)
		} else {
			rest = append(rest, a)
		}
	}
	if fold {
		for _, a := range held {
			hit[a.entry.Slug] = true
		}
		return rest, nil
	}
	return rest, s.checkHeld(ctx, held, lits, hit)
}

// remember records the answers for the pages asked under key, merged with
// what the Shared holds.
func (s *session) remember(key string, ask []asked, hit map[string]bool) {
	var idx []int
	var ans []bool
	for _, a := range ask {
		if a.index >= 0 {
			idx = append(idx, a.index)
			ans = append(ans, hit[a.entry.Slug])
		}
	}
	if len(idx) == 0 {
		return
	}
	s.shared.coarse.Compute(key, func(old *coarse.Bits, _ bool) (*coarse.Bits, otter.ComputeOp) {
		return old.With(s.tree.Len(), idx, func(k int) bool { return ans[k] }), otter.WriteOp
	})
}

// search asks the store which of the pages of ask may contain a literal
// of plan and sets hit for those.
func (s *session) search(ctx context.Context, searcher collection.Searcher, plan coarse.Plan, ask []asked, hit map[string]bool) error {
	var main, split []string // slugs to search; of those, the ones that need boundary queries
	for _, a := range ask {
		main = append(main, a.entry.Slug)
		if a.split {
			split = append(split, a.entry.Slug)
		}
	}
	var mainHits, ends, starts, short []collection.Chunk
	g, gctx := errgroup.WithContext(ctx)
	search := func(dst *[]collection.Chunk, slugs []string, sc collection.Scope, f collection.TextFilter) {
		g.Go(func() error {
			got, err := searcher.Search(gctx, s.layout, sc, f)
			if err != nil {
				return fmt.Errorf("chromafs: search %d pages: %w", len(slugs), err)
			}
			// Ids that are not of the declared form cannot be placed;
			// they are dropped (chromafs validate reports them).
			placed := got[:0]
			for _, c := range got {
				if coarse.FromID(&c) {
					placed = append(placed, c)
				}
			}
			*dst = placed
			return nil
		})
	}
	// The set of main serves its scope and the answers' check; split's,
	// when every page is split (split is a subsequence of main), is the
	// same, and the three boundary queries share main's scope.
	var mainScope collection.Scope
	inMain := setOf(main)
	if len(main) > 0 {
		mainScope = s.searchScopeOf(main, inMain)
		search(&mainHits, main, mainScope, plan.Filter)
	}
	inSplit := inMain
	boundaries := len(split) > 0 && plan.MaxRunes >= 2
	if boundaries {
		sc := mainScope
		if len(split) != len(main) {
			inSplit = setOf(split)
			sc = s.searchScopeOf(split, inSplit)
		}
		search(&ends, split, sc, collection.TextFilter{Regexes: []string{plan.Ends}})
		search(&starts, split, sc, collection.TextFilter{Regexes: []string{plan.Starts}})
		search(&short, split, sc, collection.TextFilter{Regexes: []string{plan.Short}})
	}
	if err := g.Wait(); err != nil {
		return err
	}

	// Every slug the store returns is checked against the slugs asked
	// for, which are visible files of this view (the answers are few: a
	// set of them, not of the slugs asked for).
	// A page's chunks often come one after another: its slug is looked
	// up once for them.
	prev := ""
	for _, c := range mainHits {
		if c.Slug == prev {
			continue
		}
		prev = c.Slug
		if !hit[c.Slug] && inMain[c.Slug] {
			hit[c.Slug] = true
		}
	}
	if boundaries {
		coarse.Straddles(inSplit, ends, starts, short, hit)
	}
	return nil
}

func setOf(values []string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// scopeOf); chromastore sends it as one $nin list.
const maxExcluded = 16384

// regexLimit and excludedLimit are coarse.MaxRegexBytes and maxExcluded, or the
// store's lower limits (see collection.Limiter).
func (s *session) regexLimit() int {
	if l, ok := s.store.(collection.Limiter); ok {
		if r, _ := l.Limits(); r > 0 {
			return min(r, coarse.MaxRegexBytes)
		}
	}
	return coarse.MaxRegexBytes
}

func (s *session) excludedLimit() int {
	if l, ok := s.store.(collection.Limiter); ok {
		if _, e := l.Limits(); e > 0 {
			return min(e, maxExcluded)
		}
	}
	return maxExcluded
}

// scopeOf returns the collection.Scope that searches exactly slugs among the pages
// of the tree: slugs itself, or, when that is shorter and fits one
// request, every other page of the tree (which includes every page hidden
// from this view) left out. Records of pages outside the tree (orphans)
// may then come back; callers keep only the slugs they asked for.
func (s *session) scopeOf(slugs []string) collection.Scope {
	return s.scopeIn(slugs, nil)
}

// scopeIn is scopeOf(slugs), given the set of slugs when not nil.
func (s *session) scopeIn(slugs []string, in map[string]bool) collection.Scope {
	others := s.tree.Len() - len(slugs)
	if others >= len(slugs) || others > s.excludedLimit() {
		return collection.Scope{Slugs: slugs}
	}
	out := make([]string, 0, max(others, 0))
	entries := s.tree.Entries()
	if in == nil {
		in = setOf(slugs)
	}
	for i := range entries {
		if !in[entries[i].Slug] {
			out = append(out, entries[i].Slug)
		}
	}
	return collection.Scope{Slugs: out, Exclude: true}
}

// searchScopeOf is scopeIn(slugs, in), asking for ids only when the collection
// declares that chunk ids follow collection.ChunkID: the slug and index are then read
// from the ids (see coarse.FromID), and Chroma answers a common literal much
// faster without the metadata (BENCHMARKS.md, "grep").
func (s *session) searchScopeOf(slugs []string, in map[string]bool) collection.Scope {
	sc := s.scopeIn(slugs, in)
	sc.IDsOnly = s.byID != nil
	return sc
}
