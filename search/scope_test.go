package search_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/search"
)

// TestRequests counts the requests of semantic searches: one query, and
// nothing else, on a collection that chromafs ingest wrote (the lines come
// from chunk metadata); --path is part of that query's filter, which
// still gives k chunks, all in the subtree; on a collection without line
// metadata the pages read to place the hits are cached, so the same
// search again is one request; a query embedded in another dimension than
// the collection's is an error wrapping collection.ErrDimension, sent
// nowhere.
func TestRequests(t *testing.T) {
	pages := corpus(3)
	ctx := context.Background()
	ingested, cnt := collectionOf(t, pages, "", false)
	fsys, eng := newFS(t, ingested), engine(t, ingested)
	query := strings.Join(strings.Fields(pages["guides/auth/tokens.md"])[20:26], " ")
	count := func(c *counter, f func()) int64 {
		t.Helper()
		before := c.all.Load()
		f()
		return c.all.Load() - before
	}

	n := count(cnt, func() {
		if hits, err := eng.Search(ctx, fsys, query, search.Options{Vectors: true, K: 10}); err != nil || len(hits) == 0 {
			t.Fatalf("search: %v, %v", summaries(hits), err)
		}
	})
	if n != 1 {
		t.Errorf("search of an ingested collection: %d requests, want 1 (the query)", n)
	}

	vec, err := eng.Embedder.EmbedQuery(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	n = count(cnt, func() {
		found, err := fsys.Query(ctx, "guides", vec, 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 8 {
			t.Errorf("query under guides: %d chunks, want 8 (the subtree has more)", len(found))
		}
		for _, h := range found {
			if !strings.HasPrefix(h.Name, "guides/") {
				t.Errorf("query under guides: chunk of %s", h.Name)
			}
		}
	})
	if n != 1 {
		t.Errorf("query under guides: %d requests, want 1", n)
	}
	// A Sub view names its hits relative to itself, with the same filter.
	sub, err := fsys.Sub("guides")
	if err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Search(ctx, sub, query, search.Options{Vectors: true, K: 8})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search of a Sub view: %v, %v", summaries(hits), err)
	}
	for _, h := range hits {
		if _, ok := pages["guides/"+h.Path]; !ok {
			t.Errorf("search of the Sub view guides: hit %s is not a page under guides", h.Path)
		}
	}

	n = count(cnt, func() {
		_, err := (&search.Engine{Embedder: chromastore.NgramEmbedding(16)}).Search(ctx, fsys, query, search.Options{Vectors: true})
		if !errors.Is(err, collection.ErrDimension) || !strings.Contains(err.Error(), "16 dimensions, the collection's 512") {
			t.Errorf("a 16-dimension query of a 512-dimension collection: %v; want an error wrapping collection.ErrDimension that gives both", err)
		}
	})
	if n != 0 {
		t.Errorf("a query of the wrong dimension sent %d requests", n)
	}

	foreign, fcnt := collectionOf(t, pages, "", true)
	ffs := newFS(t, foreign)
	first := count(fcnt, func() {
		if _, err := eng.Search(ctx, ffs, query, search.Options{Vectors: true, K: 10}); err != nil {
			t.Fatal(err)
		}
	})
	again := count(fcnt, func() {
		if _, err := eng.Search(ctx, ffs, query, search.Options{Vectors: true, K: 10}); err != nil {
			t.Fatal(err)
		}
	})
	if first < 2 || again != 1 {
		t.Errorf("collection without line metadata: %d requests, then %d for the same search; want the pages read once (more than 1), then 1", first, again)
	}
}
