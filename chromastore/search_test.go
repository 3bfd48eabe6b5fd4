package chromastore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
)

// TestSearch: Search pages past PageSize matches, batches past MaxIn
// slugs, combines conditions with $or, returns no text and never a page
// that was not asked for.
func TestSearch(t *testing.T) {
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()
	var recs []collection.Record
	var slugs []string
	for i := range 450 {
		slug := fmt.Sprintf("p/%03d.md", i)
		slugs = append(slugs, slug)
		text := "plain\n"
		switch i % 3 {
		case 0:
			text = "needle here\n"
		case 1:
			text = "NEEDLE THERE\n"
		}
		recs = append(recs, content(slug, 0, text), content(slug, 1, "and needle again\n"))
	}
	recs = append(recs, content("other.md", 0, "needle\n"), treeRecord("{}"))
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	defer chromastore.SetSearchPageSize(chromastore.PageSize)()
	gets := rec.count("get")
	got, err := c.Search(ctx, layout, collection.Scope{Slugs: slugs}, collection.TextFilter{Contains: []string{"needle"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 600 { // 150 pages with two matching chunks, 300 with one
		t.Errorf("Search returned %d chunks, want 600", len(got))
	}
	for _, ch := range got {
		if ch.Text != "" || ch.Slug == "other.md" || ch.Index == collection.NoIndex || ch.ID != ch.Slug+"#"+fmt.Sprint(ch.Index) {
			t.Errorf("chunk %+v", ch)
		}
	}
	// 450 slugs in one batch (SearchMaxIn), 600 matches: 3 pages of 300.
	if n := rec.count("get") - gets; n != 3 {
		t.Errorf("Search made %d gets, want 3", n)
	}

	for _, tc := range []struct {
		f    collection.TextFilter
		want int
	}{
		{collection.TextFilter{Regexes: []string{`(?i)needle (here|there)`}}, 300},
		{collection.TextFilter{Contains: []string{"here\n"}, Regexes: []string{`^NEEDLE`}}, 300},
		{collection.TextFilter{Contains: []string{"plain", "again"}}, 600},
		{collection.TextFilter{Regexes: []string{`^plain\n$`, `^p`}}, 150},
		{collection.TextFilter{}, 900},
	} {
		got, err := c.Search(ctx, layout, collection.Scope{Slugs: slugs}, tc.f)
		if err != nil || len(got) != tc.want {
			t.Errorf("Search(%+v) = %d chunks, %v; want %d", tc.f, len(got), err, tc.want)
		}
	}
	// Ids only.
	if got, err := c.Search(ctx, layout, collection.Scope{Slugs: slugs, IDsOnly: true}, collection.TextFilter{Contains: []string{"needle"}}); err != nil || len(got) != 600 {
		t.Errorf("Search with IDsOnly = %d chunks, %v; want 600", len(got), err)
	} else if got[0].ID == "" || got[0].Slug != "" || got[0].Index != collection.NoIndex {
		t.Errorf("Search with IDsOnly returned %+v", got[0])
	}
	// Excluding scopes: all pages but p/000.md and p/001.md, and all
	// pages (other.md included).
	if got, err := c.Search(ctx, layout, collection.Scope{Slugs: slugs[:2], Exclude: true}, collection.TextFilter{Contains: []string{"needle"}}); err != nil || len(got) != 600-3+1 {
		t.Errorf("Search excluding 2 pages = %d chunks, %v; want %d", len(got), err, 600-3+1)
	} else if slices.ContainsFunc(got, func(c collection.Chunk) bool { return c.Slug == slugs[0] || c.Slug == slugs[1] }) {
		t.Errorf("Search excluding %v returned them", slugs[:2])
	}
	if got, err := c.Search(ctx, layout, collection.Scope{Exclude: true}, collection.TextFilter{Contains: []string{"needle"}}); err != nil || len(got) != 601 {
		t.Errorf("Search excluding nothing = %d chunks, %v; want 601", len(got), err)
	}
	many := make([]string, chromastore.SearchMaxIn+1)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	if _, err := c.Search(ctx, layout, collection.Scope{Slugs: many, Exclude: true}, collection.TextFilter{Contains: []string{"x"}}); err == nil {
		t.Error("Search excluding more than SearchMaxIn pages: no error")
	}
	if got, err := c.Search(ctx, layout, collection.Scope{}, collection.TextFilter{Contains: []string{"needle"}}); err != nil || len(got) != 0 {
		t.Errorf("Search of no slugs = %v, %v", got, err)
	}
	_, err = c.Search(ctx, layout, collection.Scope{Slugs: slugs[:1]}, collection.TextFilter{Regexes: []string{`(`}})
	if err == nil {
		t.Error("Search with an invalid regex succeeded")
	}
	if !slices.Contains([]int{400, 500}, statusOf(err)) {
		t.Logf("invalid regex: %v", err)
	}
}

func statusOf(err error) int {
	var ae *chromastore.APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}
