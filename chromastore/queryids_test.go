package chromastore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
)

// TestQueryIDsMissing: a vector query restricted to ids (Scope.IDs, as
// semantic search over an adopted collection sends it) whose list names
// records that do not exist ranks those that do, at once (Chroma answers
// such a query with 500 "Error finding id", which is not retried), and
// is a clear error naming the count when none of them exists.
func TestQueryIDsMissing(t *testing.T) {
	ctx := context.Background()
	rec := newRecorder(t)
	c, _ := open(t, rec)
	if err := c.Upsert(ctx, []collection.Record{
		{ID: "a", Document: "rotate the client credentials"},
		{ID: "b", Document: "install the tool and run it"},
		{ID: "c", Document: "the credentials rotate monthly"},
	}); err != nil {
		t.Fatal(err)
	}
	vs, err := chromastore.HashEmbedding(0).EmbedDocuments(ctx, []string{"rotate the client credentials"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ids  []string
		k    int
		want []string // ids ranked, in any order
	}{
		{[]string{"a", "b", "c"}, 10, []string{"a", "b", "c"}},
		{[]string{"a", "gone", "c"}, 10, []string{"a", "c"}},
		{[]string{"gone", "b", "gone2", "b"}, 10, []string{"b"}},
		{[]string{"gone", "a", "b", "c"}, 2, nil}, // two of a, b, c
	} {
		before := rec.count("query")
		start := time.Now()
		got, err := c.QueryVector(ctx, layout, collection.Scope{IDs: tc.ids}, vs[0], tc.k)
		if err != nil {
			t.Errorf("QueryVector(ids %q): %v", tc.ids, err)
			continue
		}
		var ids []string
		for _, sc := range got {
			ids = append(ids, sc.ID)
		}
		if tc.want == nil {
			if len(ids) != tc.k || slices.Contains(ids, "gone") {
				t.Errorf("QueryVector(ids %q, k %d) = %q, want %d of a, b, c", tc.ids, tc.k, ids, tc.k)
			}
		} else {
			slices.Sort(ids)
			if !slices.Equal(ids, tc.want) {
				t.Errorf("QueryVector(ids %q) = %q, want %q", tc.ids, ids, tc.want)
			}
		}
		if len(got) > 0 && tc.want != nil && slices.Contains(tc.want, "a") && got[0].ID != "a" {
			t.Errorf("QueryVector(ids %q): %s ranks first, want a (the query's own text)", tc.ids, got[0].ID)
		}
		// At most the failed query and the one of the ids that exist:
		// no retries of an answer that cannot change.
		if n := rec.count("query") - before; n > 2 {
			t.Errorf("QueryVector(ids %q): %d queries, want at most 2", tc.ids, n)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("QueryVector(ids %q) took %v", tc.ids, d)
		}
	}
	_, err = c.QueryVector(ctx, layout, collection.Scope{IDs: []string{"gone", "gone2"}}, vs[0], 3)
	if err == nil || !strings.Contains(err.Error(), "none of the 2 records") {
		t.Errorf("QueryVector of ids that do not exist: %v, want an error saying none of the 2 records exists", err)
	}
}

// TestSearchIDs: a Search restricted to ids finds the same records by
// id (a few ids: gets by id, several of them) and with one paged pass
// over the collection (more ids than SearchIDsDirect), records of any
// metadata, never one that was not asked for.
func TestSearchIDs(t *testing.T) {
	ctx := context.Background()
	c, _ := open(t, nil)
	var recs []collection.Record
	var ids, want []string
	for i := range 40 {
		doc := fmt.Sprintf("record %d says hello", i)
		if i%3 == 0 {
			doc = fmt.Sprintf("record %d holds a needle", i)
		}
		id := fmt.Sprintf("uuid-%02d", i)
		recs = append(recs, collection.Record{ID: id, Document: doc, Metadata: map[string]any{"source": "/x.md"}})
		if i%2 == 0 {
			ids = append(ids, id)
			if i%3 == 0 {
				want = append(want, id)
			}
		}
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, "no-such-id")
	f := collection.TextFilter{Regexes: []string{`ne{2}dle`}}
	for _, tc := range []struct {
		name           string
		direct, pageSz int
	}{
		{"by id", 1000, 1000},
		{"one pass", 3, 1000},
		{"one pass in pages", 3, 4},
	} {
		restore := chromastore.SetSearchIDsDirect(tc.direct)
		restorePage := chromastore.SetSearchPageSize(tc.pageSz)
		got, err := c.Search(ctx, layout, collection.Scope{IDs: ids}, f)
		restore()
		restorePage()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var gotIDs []string
		for _, ch := range got {
			gotIDs = append(gotIDs, ch.ID)
		}
		slices.Sort(gotIDs)
		if !slices.Equal(gotIDs, want) {
			t.Errorf("%s: Search(ids) = %q, want %q", tc.name, gotIDs, want)
		}
	}
}
