package coarse

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/errgroup"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// Config is what a [Filter] needs of a session of the root package: one
// user's view of one collection at one tree version, its page cache and
// the Shared it meets other sessions in. The session fills it once, in
// chromafs.New.
type Config struct {
	// Store is the collection's store. Filter.Candidates asks it when it
	// implements collection.Searcher (else every page is a candidate),
	// within its collection.Limiter limits if it has them.
	Store  collection.Store
	Layout collection.Layout
	// Sep is the separator between a page's chunks; LineAligned that the
	// tree record declares collection.LineAlignedKey (chunks end at line
	// ends).
	Sep         string
	LineAligned bool
	// IDsOnly: chunk ids follow collection.ChunkID (the tree record says
	// so and the store is a collection.IDReader), so searches ask for
	// ids only and read the slug and index from them (see FromID).
	IDsOnly bool
	// Tree is the session's tree, View its user's view of it, Version
	// the tree version (it names the pages' content).
	Tree    *tree.Tree
	View    *tree.View
	Version string
	// Cache is the page cache; Keys gives a page's key in it
	// (pageload.Loader.CacheKey). SharedTier is the part of Cache that
	// processes share (the back of a cachepkg.Tiered that is not a
	// process's memory), or nil: the filter shares its answers there.
	Cache      cachepkg.Cache
	Keys       interface{ CacheKey(n *tree.Node) string }
	SharedTier cachepkg.Cache
	// Shared holds the answers and the self-check's records that the
	// sessions of one chromafs.Shared share.
	Shared *Shared
	// Log gets the self-check's warning and the page cache's failures.
	Log *slog.Logger
	// Gate, when not nil, is entered for the duration of the store's
	// searches (the session's pageload.Gate: they are foreground
	// requests).
	Gate interface {
		Enter()
		Leave()
	}
}

// Filter is the coarse filter of one session: Candidates decides which
// pages of the view may contain a literal, with as few questions to the
// store as it can. A Filter is safe for concurrent use.
type Filter struct {
	store       collection.Store
	layout      collection.Layout
	sep         string
	lineAligned bool
	idsOnly     bool
	tree        *tree.Tree
	view        *tree.View
	version     string
	cache       cachepkg.Cache
	keys        interface{ CacheKey(n *tree.Node) string }
	sharedTier  cachepkg.Cache
	shared      *Shared
	log         *slog.Logger
	gate        interface {
		Enter()
		Leave()
	}
	recipes sync.Map // *tree.Entry -> *collection.Recipe or nil (see recipe)
}

// NewFilter returns the Filter of the session that c describes. Store,
// Tree, View, Cache, Keys, Shared and Log must not be nil.
func NewFilter(c Config) *Filter {
	gate := c.Gate
	if gate == nil {
		gate = noGate{}
	}
	return &Filter{
		store:       c.Store,
		layout:      c.Layout,
		sep:         c.Sep,
		lineAligned: c.LineAligned,
		idsOnly:     c.IDsOnly,
		tree:        c.Tree,
		view:        c.View,
		version:     c.Version,
		cache:       c.Cache,
		keys:        c.Keys,
		sharedTier:  c.SharedTier,
		shared:      c.Shared,
		log:         c.Log,
		gate:        gate,
	}
}

type noGate struct{}

func (noGate) Enter() {}
func (noGate) Leave() {}

// Health returns the self-check's record for the session's collection and
// tree version (see check.go).
func (f *Filter) Health() *Health {
	return f.shared.Health(f.store.CollectionID(), f.version)
}

// Candidates reports which of pages may contain at least one of literals,
// compared exactly or, with fold, under Unicode simple case folding (as
// Go's regexp (?i) compares): keep[i] is true for every page i whose
// content contains one, and may be for pages that contain none. pages are
// distinct files of the view (no directories), which the caller looked up
// in it; they are the only pages asked about. It implements the root's
// FS.Candidates, whose doc comment is the contract: every page is kept
// when the literals are empty or hold "", when the store is not a
// collection.Searcher, when the literals cannot be searched for within the
// regex limit, or when the self-check turned the filter off; lazy
// pointers (tree.Entry.URL) are always kept, without a question; pages of
// an adopted collection (tree.Entry.Parts) are searched by the ids of
// their chunks, and kept without a question when a match could lie
// where no search can see it (see adopted.go).
//
// The steps, in order: which queries each page needs (none, the main
// filter, or with the boundary queries: see Plan); the answers an earlier
// search with the same Key left in the Shared, then those other processes
// shared in SharedTier; the pages SharedTier holds, read from there
// (see share.go); the self-check's probe (see check.go); one search of the
// store for the pages still undecided; and the answers remembered, in the
// Shared and in SharedTier. An error is the store's, and nothing is
// remembered of that search.
func (f *Filter) Candidates(ctx context.Context, pages []*tree.Node, literals []string, fold bool) (keep []bool, err error) {
	all := func() []bool {
		keep := make([]bool, len(pages))
		for i := range keep {
			keep[i] = true
		}
		return keep
	}
	lits := UniqueLiterals(literals, fold)
	if len(lits) == 0 || slices.Contains(lits, "") {
		return all(), nil
	}
	searcher, ok := f.store.(collection.Searcher)
	if !ok {
		return all(), nil
	}
	plan, ok := NewPlan(lits, fold, f.regexLimit())
	if !ok {
		return all(), nil
	}
	health := f.Health()
	if health.Off() {
		return all(), nil
	}

	newline := slices.ContainsFunc(lits, func(l string) bool { return strings.Contains(l, "\n") })
	// A separator of newlines only holds no literal, nor part of one.
	sepAligned := f.sep != "" && !newline && strings.Trim(f.sep, "\n") == ""
	// What an earlier search learned of these literals, in any session of
	// this Shared: its answers are reused, only the other pages are asked.
	key := f.key(lits, fold, f.regexLimit())
	known, _ := f.shared.answers.GetIfPresent(key)
	hit := make(map[string]bool, len(pages))
	ask := make([]asked, 0, len(pages)) // pages to search
	var lr literalRunes
	if slices.ContainsFunc(pages, func(n *tree.Node) bool { return n.Entry.Parts != "" }) {
		lr = newLiteralRunes(lits, fold)
	}
	needOf := func(e *tree.Entry) need {
		switch {
		case e.URL != "":
			// A lazy pointer: read.
			return needNothing
		case e.Parts != "":
			// A page of an adopted collection: searched by the ids of
			// its chunks (see adopted.go).
			return f.adoptedNeed(e, lr, plan)
		case e.Chunks == 1 || sepAligned:
			return needAsk
		case f.sep == "" && f.lineAligned && !e.SplitLines && !newline:
			return needAsk
		case f.sep != "" || !plan.Straddle:
			// Not line-aligned, and no boundary queries can cover it.
			return needNothing
		}
		return needSplit
	}
	for _, n := range pages {
		switch needOf(n.Entry) {
		case needNothing:
			hit[n.Entry.Slug] = true
		case needAsk:
			ask = append(ask, f.asked(n, false))
		case needSplit:
			ask = append(ask, f.asked(n, true))
		}
	}
	dropKnown := func(known *Bits) {
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
		if sharedBits := f.loadShared(ctx, key); sharedBits != nil {
			known = known.Merge(sharedBits)
			f.shared.answers.Set(key, known)
			dropKnown(sharedBits)
		}
	}
	// Pages that a shared tier of the page cache holds are read from
	// there (and, without fold, checked for the literals): no question to
	// the store about them.
	var decided []asked
	ask, decided = f.dropShared(ctx, ask, hit, lits, fold)
	// The self-check (check.go): a page held in memory that contains a
	// literal is checked against an earlier answer, or rides along with
	// the search.
	class := ClassOf(plan, lits)
	pr, probing := f.probe(ctx, health, class, ask, hit, known, lits, fold, needOf)
	if probing && pr.missed {
		f.probed(health, class, pr, hit)
		return all(), nil
	}
	if len(ask) > 0 {
		search := ask
		if probing && !pr.inAsk {
			search = append(slices.Clip(ask), pr.asked)
		}
		f.gate.Enter()
		err := f.search(ctx, searcher, plan, search, hit)
		f.gate.Leave()
		if err != nil {
			return nil, err
		}
		if probing && !f.probed(health, class, pr, hit) {
			return all(), nil
		}
	}
	if learned := append(ask, decided...); len(learned) > 0 {
		f.remember(key, learned, hit)
		if b, ok := f.shared.answers.GetIfPresent(key); ok {
			f.storeShared(ctx, key, b)
		}
	}
	keep = make([]bool, len(pages))
	for i, n := range pages {
		keep[i] = hit[n.Path]
	}
	return keep, nil
}

// key names the answers of Candidates for the non-empty literal set lits
// (as UniqueLiterals returns it) with fold, in this session (see Key).
// The tree version names the pages' content as it does for the page
// cache's keys.
func (f *Filter) key(lits []string, fold bool, regexLimit int) string {
	return Key{
		Collection:  f.store.CollectionID(),
		Version:     f.version,
		Sep:         f.sep,
		SlugField:   f.layout.SlugField,
		IndexField:  f.layout.IndexField,
		LineAligned: f.lineAligned,
		Fold:        fold,
		RegexLimit:  regexLimit,
		Literals:    lits,
	}.String()
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
	index int // in the tree's entries (tree.Tree.NodePosition); -1: none
	split bool
}

func (f *Filter) asked(n *tree.Node, split bool) asked {
	i, ok := f.tree.NodePosition(n)
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
func (f *Filter) dropShared(ctx context.Context, ask []asked, hit map[string]bool, lits []string, fold bool) (rest, decided []asked) {
	sh, ok := f.cache.(cachepkg.SharedHas)
	if !ok || len(ask) == 0 {
		return ask, nil
	}
	keys := make([]string, len(ask))
	for i, a := range ask {
		keys[i] = f.keys.CacheKey(a.node)
	}
	has, err := sh.HasShared(ctx, keys)
	if err != nil {
		f.log.Warn("chromafs: page cache check failed; asking the store", "err", err)
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
	return rest, f.checkHeld(ctx, held, lits, hit)
}

// remember records the answers for the pages asked under key, merged with
// what the Shared holds.
func (f *Filter) remember(key string, ask []asked, hit map[string]bool) {
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
	f.shared.answers.Compute(key, func(old *Bits, _ bool) (*Bits, otter.ComputeOp) {
		return old.With(f.tree.Len(), idx, func(k int) bool { return ans[k] }), otter.WriteOp
	})
}

// search asks the store which of the pages of ask may contain a literal
// of plan and sets hit for those: the adopted pages by the ids of their
// chunks (searchAdopted), the others by slug, at the same time.
func (f *Filter) search(ctx context.Context, searcher collection.Searcher, plan Plan, ask []asked, hit map[string]bool) error {
	var adopted []asked
	ask = slices.DeleteFunc(slices.Clone(ask), func(a asked) bool {
		if a.entry.Parts != "" {
			adopted = append(adopted, a)
			return true
		}
		return false
	})
	if len(adopted) == 0 {
		return f.searchOwn(ctx, searcher, plan, ask, hit)
	}
	adoptedHit := make(map[string]bool, len(adopted))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return f.searchAdopted(gctx, searcher, plan, adopted, adoptedHit) })
	if len(ask) > 0 {
		g.Go(func() error { return f.searchOwn(gctx, searcher, plan, ask, hit) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for slug := range adoptedHit {
		hit[slug] = true
	}
	return nil
}

// searchOwn is search for pages in chromafs's layout (searched by slug).
func (f *Filter) searchOwn(ctx context.Context, searcher collection.Searcher, plan Plan, ask []asked, hit map[string]bool) error {
	var main, split []string // slugs to search; of those, the ones that need boundary queries
	for _, a := range ask {
		main = append(main, a.entry.Slug)
		if a.split {
			split = append(split, a.entry.Slug)
		}
	}
	var mainHits, ends, starts, short []collection.Chunk
	g, gctx := errgroup.WithContext(ctx)
	search := func(dst *[]collection.Chunk, slugs []string, sc collection.Scope, tf collection.TextFilter) {
		g.Go(func() error {
			got, err := searcher.Search(gctx, f.layout, sc, tf)
			if err != nil {
				return fmt.Errorf("chromafs: search %d pages: %w", len(slugs), err)
			}
			// Ids that are not of the declared form cannot be placed;
			// they are dropped (chromafs validate reports them).
			placed := got[:0]
			for _, c := range got {
				if FromID(&c) {
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
		mainScope = f.searchScopeOf(main, inMain)
		search(&mainHits, main, mainScope, plan.Filter)
	}
	inSplit := inMain
	boundaries := len(split) > 0 && plan.MaxRunes >= 2
	if boundaries {
		sc := mainScope
		if len(split) != len(main) {
			inSplit = setOf(split)
			sc = f.searchScopeOf(split, inSplit)
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
		Straddles(inSplit, ends, starts, short, hit)
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

// maxExcluded is the longest list of pages a search leaves out (see
// Filter.Scope); chromastore sends it as one $nin list.
const maxExcluded = 16384

// regexLimit and excludedLimit are MaxRegexBytes and maxExcluded, or the
// store's lower limits (see collection.Limiter).
func (f *Filter) regexLimit() int {
	if l, ok := f.store.(collection.Limiter); ok {
		if r, _ := l.Limits(); r > 0 {
			return min(r, MaxRegexBytes)
		}
	}
	return MaxRegexBytes
}

func (f *Filter) excludedLimit() int {
	if l, ok := f.store.(collection.Limiter); ok {
		if _, e := l.Limits(); e > 0 {
			return min(e, maxExcluded)
		}
	}
	return maxExcluded
}

// Scope returns the collection.Scope that searches exactly slugs among
// the pages of the tree: slugs itself, or, when that is shorter and fits
// one request (see collection.Limiter), every other page of the tree
// (which includes every page hidden from the view) left out. Records of
// pages outside the tree (orphans) may then come back; callers keep only
// the slugs they asked for. The root's Query scopes its searches with it.
func (f *Filter) Scope(slugs []string) collection.Scope {
	return f.scopeIn(slugs, nil)
}

// scopeIn is Scope(slugs), given the set of slugs when not nil.
func (f *Filter) scopeIn(slugs []string, in map[string]bool) collection.Scope {
	others := f.tree.Len() - len(slugs)
	if others >= len(slugs) || others > f.excludedLimit() {
		return collection.Scope{Slugs: slugs}
	}
	out := make([]string, 0, max(others, 0))
	entries := f.tree.Entries()
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
// from the ids (see FromID), and Chroma answers a common literal much
// faster without the metadata (BENCHMARKS.md, "grep").
func (f *Filter) searchScopeOf(slugs []string, in map[string]bool) collection.Scope {
	sc := f.scopeIn(slugs, in)
	sc.IDsOnly = f.idsOnly
	return sc
}
