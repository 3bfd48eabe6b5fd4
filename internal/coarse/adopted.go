package coarse

import (
	"context"
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// Pages of an adopted collection (tree.Entry.Parts, a collection.Recipe)
// are made of chunks that carry no slug of chromafs's layout, that may
// overlap (a part's Skip) and between which may lie text that no chunk
// holds (a part's Gap, the recipe's Tail). The store is searched by the
// ids of their chunks (collection.Scope.IDs), and the answers are mapped
// back to pages through the recipes.
//
// A match of a literal in such a page lies in one chunk's text (the
// search names that chunk), or it crosses a junction, the place where a
// part's contribution begins. Every part's chunk text, its first Skip
// bytes included, is the page's bytes from collection.Recipe.Offset (adopt
// checks that the bytes a chunk repeats are those that precede it). With
// m the most bytes a match takes, a junction is:
//
//   - blocked when its gap holds no rune of any literal (with fold, no
//     rune of their case-folding orbits): no match touches the gap, so
//     none crosses it (the line breaks between non-overlapping chunks);
//   - covered when it has no gap and the part repeats at least m-1 bytes
//     (an overlap of that many bytes): a match that crosses it starts
//     within the part's chunk text, so it lies in that chunk, or it
//     crosses the next junction too, which decides;
//   - joined otherwise when it has no gap (the chunks meet, or overlap by
//     fewer bytes): the boundary queries (Plan.Ends, Starts, Short, as
//     Straddles reads them) tell whether a match may straddle it. Take
//     the last chunk q whose text starts at or before the match: the
//     match runs past q's end (else q holds it), so q ends with a proper
//     prefix of it; every later chunk starts inside the match, and the
//     first that ends after it starts with a proper suffix of it, and
//     the ones before that lie strictly inside it (short), all meeting
//     at junctions without gaps (a gap would hold part of the match).
//     So a page is a candidate when part k's chunk ends with a prefix,
//     part j's starts with a suffix, the parts between are short and no
//     junction from k+1 to j has a gap;
//   - open when its gap may hold part of a match, or it has both a gap
//     and an overlap: the page is a candidate without a question.
//
// The text before the first part (its gap) and the recipe's Tail are
// treated as gaps: one that may hold a rune of a literal makes the page a
// candidate. A page whose recipe does not decode is a candidate (reading
// it reports why).

// recipe returns the decoded recipe of an adopted page, or nil when it
// does not decode. Recipes are decoded once per Filter.
func (f *Filter) recipe(e *tree.Entry) *collection.Recipe {
	if r, ok := f.recipes.Load(e); ok {
		return r.(*collection.Recipe)
	}
	r, err := collection.ParseRecipe(e.Parts)
	if err != nil || r.Parts[0].Skip != 0 {
		r = nil
	}
	f.recipes.Store(e, r)
	return r
}

// literalRunes is what a search knows of its literals for the junctions
// of adopted pages: their runes (fold keys with fold) and the most bytes
// a match takes.
type literalRunes struct {
	runes    map[rune]bool
	fold     bool
	maxBytes int
}

func newLiteralRunes(lits []string, fold bool) literalRunes {
	lr := literalRunes{runes: map[rune]bool{}, fold: fold}
	for _, l := range lits {
		n := 0
		for _, r := range l {
			w := utf8.RuneLen(r)
			if fold {
				for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
					w = max(w, utf8.RuneLen(o))
				}
				r = foldKey(r)
			}
			lr.runes[r] = true
			n += max(w, 1)
		}
		lr.maxBytes = max(lr.maxBytes, n)
	}
	return lr
}

// touches reports whether s holds a rune of a literal: a match may take
// bytes of s.
func (lr literalRunes) touches(s string) bool {
	for _, r := range s {
		if lr.fold {
			r = foldKey(r)
		}
		if lr.runes[r] {
			return true
		}
	}
	return false
}

// adoptedNeed is what Candidates does for the adopted page e (see above):
// needNothing (a candidate without a question), needAsk (its chunks are
// searched), or needSplit (with the boundary queries, which must be
// usable: plan.Straddle).
func (f *Filter) adoptedNeed(e *tree.Entry, lr literalRunes, plan Plan) need {
	r := f.recipe(e)
	if r == nil || lr.touches(r.Parts[0].Gap) || lr.touches(r.Tail) {
		return needNothing
	}
	nd := needAsk
	for _, p := range r.Parts[1:] {
		switch {
		case p.Gap != "":
			if p.Skip > 0 || lr.touches(p.Gap) {
				return needNothing
			}
		case p.Skip < lr.maxBytes-1:
			nd = needSplit
		}
	}
	if nd == needSplit && plan.MaxRunes >= 2 && !plan.Straddle {
		return needNothing
	}
	return nd
}

// partAt is a part of an adopted page: the page's slug and the part's
// index in its recipe.
type partAt struct {
	slug string
	part int
}

// searchAdopted asks the store which of the adopted pages of ask may
// contain a literal of plan, by the ids of their chunks, and sets hit
// for those.
func (f *Filter) searchAdopted(ctx context.Context, searcher collection.Searcher, plan Plan, ask []asked, hit map[string]bool) error {
	at := map[string][]partAt{} // chunk id -> where it is used
	recipes := map[string]*collection.Recipe{}
	var ids, splitIDs []string
	for _, a := range ask {
		r := f.recipe(a.entry)
		if r == nil { // not asked about (adoptedNeed)
			hit[a.entry.Slug] = true
			continue
		}
		recipes[a.entry.Slug] = r
		for i, p := range r.Parts {
			at[p.ID] = append(at[p.ID], partAt{a.entry.Slug, i})
			ids = append(ids, p.ID)
			if a.split {
				splitIDs = append(splitIDs, p.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var mainHits, ends, starts, short []collection.Chunk
	g, gctx := errgroup.WithContext(ctx)
	search := func(dst *[]collection.Chunk, ids []string, tf collection.TextFilter) {
		g.Go(func() error {
			got, err := searcher.Search(gctx, f.layout, collection.Scope{IDs: ids}, tf)
			if err != nil {
				return fmt.Errorf("chromafs: search the %d chunks of %d adopted pages: %w", len(ids), len(recipes), err)
			}
			*dst = got
			return nil
		})
	}
	search(&mainHits, ids, plan.Filter)
	boundaries := len(splitIDs) > 0 && plan.MaxRunes >= 2
	if boundaries {
		search(&ends, splitIDs, collection.TextFilter{Regexes: []string{plan.Ends}})
		search(&starts, splitIDs, collection.TextFilter{Regexes: []string{plan.Starts}})
		search(&short, splitIDs, collection.TextFilter{Regexes: []string{plan.Short}})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, c := range mainHits {
		for _, p := range at[c.ID] {
			hit[p.slug] = true
		}
	}
	if !boundaries {
		return nil
	}
	set := func(chunks []collection.Chunk) map[partAt]bool {
		m := make(map[partAt]bool, len(chunks))
		for _, c := range chunks {
			for _, p := range at[c.ID] {
				m[p] = true
			}
		}
		return m
	}
	head, inner := set(starts), set(short)
	joined := func(r *collection.Recipe, j int) bool {
		return j < len(r.Parts) && r.Parts[j].Gap == ""
	}
	// As Straddles: a match that straddles the junctions without gaps
	// before parts k+1..j leaves part k's chunk ending with a prefix of
	// it, part j's starting with a suffix, and every part between them
	// short (see above).
	for _, c := range ends {
		for _, p := range at[c.ID] {
			r := recipes[p.slug]
			if hit[p.slug] {
				continue
			}
			for j := p.part + 1; joined(r, j); j++ {
				if head[partAt{p.slug, j}] {
					hit[p.slug] = true
					break
				}
				if !inner[partAt{p.slug, j}] {
					break
				}
			}
		}
	}
	return nil
}
