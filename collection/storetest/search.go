package storetest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/collection"
)

// matches reports whether doc matches f as TextFilter says: it contains
// one of f.Contains or matches one of f.Regexes (Go's regexp is the
// judge); a zero f matches every document.
func matches(f collection.TextFilter, doc string) bool {
	if f.IsZero() {
		return true
	}
	for _, s := range f.Contains {
		if strings.Contains(doc, s) {
			return true
		}
	}
	for _, re := range f.Regexes {
		if regexp.MustCompile(re).MatchString(doc) {
			return true
		}
	}
	return false
}

// inScope returns a keep function for want: the chunks of scope's pages.
func inScope(scope collection.Scope) func(collection.Chunk, string) bool {
	return func(ch collection.Chunk, _ string) bool {
		return slices.Contains(scope.Slugs, ch.Slug) != scope.Exclude
	}
}

func (c *checker) searcher(t *testing.T) bool {
	r, ok := c.s.(collection.Searcher)
	if !ok {
		return false
	}
	ctx := context.Background()
	filters := []collection.TextFilter{
		{Contains: []string{"needle"}},
		{Contains: []string{"NEEDLE", "Needle"}},
		{Contains: []string{"# Intro\nHello"}},
		{Regexes: []string{`(?i)needle`}},
		{Contains: []string{"Bye"}, Regexes: []string{`^GET /`}},
		{Regexes: []string{`ünïcödé`, `(?s)Intro.Hello`}},
		{Regexes: []string{`here\.\n$`, `e{2}d`}},
		{Regexes: []string{`[A-Z][a-z]+ now`}},
		{},
	}
	scopes := []collection.Scope{
		{Slugs: []string{intro, users, cafe, empty, noIndex, missing}},
		{Slugs: []string{users}},
		{Slugs: []string{users, intro}, Exclude: true},
		{Exclude: true},
	}
	for _, scope := range scopes {
		for _, f := range filters {
			what := fmt.Sprintf("Search(%+v, %+v)", scope, f)
			want := c.want(layout, false, func(ch collection.Chunk, doc string) bool { return inScope(scope)(ch, doc) && matches(f, doc) })
			got, err := r.Search(ctx, layout, scope, f)
			if err == nil {
				err = equalChunks(what, got, want)
			}
			if err != nil {
				t.Error(err)
			}
			scope := scope
			scope.IDsOnly = true
			got, err = r.Search(ctx, layout, scope, f)
			if err != nil {
				t.Errorf("%s with IDsOnly: %v", what, err)
				continue
			}
			if err := c.checkIDsOnly(scope, got, want); err != nil {
				t.Errorf("%s with IDsOnly: %v", what, err)
			}
		}
	}
	// A scope of ids: the records with those ids whatever their
	// metadata (another layout's, none, the tree's), ids alone.
	ids := []string{collection.ChunkID(intro, 0), collection.ChunkID(users, 1), "other#1", layout.TreeID, "no-such-id", "other#1"}
	for _, f := range filters {
		what := fmt.Sprintf("Search(ids %q, %+v)", ids, f)
		var want []string
		for _, r := range c.recs {
			if slices.Contains(ids, r.ID) && matches(f, r.Document) {
				want = append(want, r.ID)
			}
		}
		got, err := r.Search(ctx, layout, collection.Scope{IDs: ids, Slugs: []string{cafe}}, f)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		var gotIDs []string
		for _, ch := range got {
			gotIDs = append(gotIDs, ch.ID)
			if ch.Slug != "" || ch.Index != collection.NoIndex || ch.Text != "" {
				t.Errorf("%s: %+v, want its id alone", what, ch)
			}
		}
		slices.Sort(gotIDs)
		slices.Sort(want)
		if !slices.Equal(gotIDs, want) {
			t.Errorf("%s = %q, want %q", what, gotIDs, want)
		}
	}
	scope := collection.Scope{Slugs: []string{"x.md"}}
	f := collection.TextFilter{Contains: []string{"needle"}}
	got, err := r.Search(ctx, other, scope, f)
	if err == nil {
		err = equalChunks("Search of another layout", got, c.want(other, false, inScope(scope)))
	}
	if err != nil {
		t.Error(err)
	}
	if _, err := r.Search(ctx, layout, collection.Scope{Slugs: []string{intro}}, collection.TextFilter{Regexes: []string{`(`}}); err == nil {
		t.Error("Search with a regex that does not compile succeeded")
	}
	return true
}

// checkIDsOnly checks the answer of an IDsOnly search whose full answer
// is want: the same ids for an including scope; for an excluding one,
// want's ids and perhaps ids of records without the slug field, never of
// an excluded page.
func (c *checker) checkIDsOnly(scope collection.Scope, got, want []collection.Chunk) error {
	var ids, wantIDs []string
	for _, ch := range got {
		ids = append(ids, ch.ID)
	}
	for _, ch := range want {
		wantIDs = append(wantIDs, ch.ID)
	}
	slices.Sort(ids)
	if !scope.Exclude {
		if !slices.Equal(ids, wantIDs) {
			return fmt.Errorf("ids %q, want %q", ids, wantIDs)
		}
		return nil
	}
	for _, id := range wantIDs {
		if !slices.Contains(ids, id) {
			return fmt.Errorf("ids %q lack %q", ids, id)
		}
	}
	for _, id := range ids {
		r, _ := c.record(id)
		if slug, ok := r.Metadata[layout.SlugField].(string); ok && slices.Contains(scope.Slugs, slug) {
			return fmt.Errorf("ids %q hold %q of the excluded page %q", ids, id, slug)
		}
	}
	return nil
}

func (c *checker) vectorQuerier(t *testing.T) bool {
	r, ok := c.s.(collection.VectorQuerier)
	if !ok {
		return false
	}
	if c.opts.Embed == nil {
		t.Skip("Options.Embed is nil: QueryVector is not checked")
	}
	ctx := context.Background()
	target, _ := c.record(collection.ChunkID(intro, 1))
	vec, err := c.opts.Embed(ctx, target.Document)
	if err != nil {
		t.Fatalf("Options.Embed: %v", err)
	}
	// A chunk ranks when its slug field is a string and its index field
	// a non-negative integer.
	ranks := func(ch collection.Chunk, _ string) bool { return ch.Index >= 0 }
	for _, tc := range []struct {
		scope collection.Scope
		k     int
	}{
		{collection.Scope{Slugs: []string{intro, users, cafe, empty, noIndex}}, 3},
		{collection.Scope{Slugs: []string{intro, users, cafe, empty, noIndex}}, 100},
		{collection.Scope{Slugs: []string{cafe}}, 10},
		{collection.Scope{Slugs: []string{noIndex, missing}}, 10},
		{collection.Scope{Slugs: []string{intro}, Exclude: true}, 100},
		{collection.Scope{Exclude: true}, 2},
	} {
		what := fmt.Sprintf("QueryVector(%+v, k %d)", tc.scope, tc.k)
		want := c.want(layout, true, func(ch collection.Chunk, doc string) bool { return ranks(ch, doc) && inScope(tc.scope)(ch, doc) })
		got, err := r.QueryVector(ctx, layout, tc.scope, vec, tc.k)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		if len(got) != min(tc.k, len(want)) {
			t.Errorf("%s: %d chunks, want %d of the %d in scope", what, len(got), min(tc.k, len(want)), len(want))
		}
		for i, sc := range got {
			if !slices.Contains(want, sc.Chunk) {
				t.Errorf("%s: %+v is not one of %v", what, sc.Chunk, want)
			}
			rec, _ := c.record(sc.ID)
			if line, _ := rec.Metadata[collection.LineKey].(int); sc.Line != line {
				t.Errorf("%s: %s: Line %d, want %d", what, sc.ID, sc.Line, line)
			}
			if i > 0 && sc.Distance < got[i-1].Distance {
				t.Errorf("%s: %s at %v after %s at %v: not nearest first", what, sc.ID, sc.Distance, got[i-1].ID, got[i-1].Distance)
			}
		}
		if slices.ContainsFunc(want, func(ch collection.Chunk) bool { return ch.ID == target.ID }) && len(got) > 0 && got[0].ID != target.ID {
			t.Errorf("%s: the vector of %s's text ranks %s first", what, target.ID, got[0].ID)
		}
	}
	bad := append(slices.Clone(vec), 0)
	if _, err := r.QueryVector(ctx, layout, collection.Scope{Slugs: []string{intro}}, bad, 3); !errors.Is(err, collection.ErrDimension) {
		t.Errorf("QueryVector of a %d-dimension vector in a collection of %d: %v, want an error wrapping collection.ErrDimension", len(bad), len(vec), err)
	}
	return true
}
