package chromastore_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// TestRecordsByID reads records of any kind by id, in batches of at most
// PageSize ids, leaving out ids that do not exist.
func TestRecordsByID(t *testing.T) {
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()
	var recs []collection.Record
	var ids []string
	for i := range 650 {
		id := fmt.Sprintf("sys/%d", i)
		recs = append(recs, collection.Record{ID: id, Document: strings.Repeat("x", i%7) + id, Metadata: map[string]any{"n": i}, System: true})
		ids = append(ids, id)
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	before := rec.count("get")
	got, err := c.RecordsByID(ctx, append(ids, "missing", ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	if n := rec.count("get") - before; n != 3 {
		t.Fatalf("%d gets for 651 distinct ids; want 3 of at most %d", n, chromastore.PageSize)
	}
	if len(got) != len(ids) {
		t.Fatalf("%d records; want %d", len(got), len(ids))
	}
	for _, r := range recs {
		g, ok := got[r.ID]
		if !ok || string(g.Document) != r.Document || fmt.Sprint(g.Metadata["n"]) != fmt.Sprint(r.Metadata["n"]) {
			t.Fatalf("%s: %q %v", r.ID, g.Document, g.Metadata)
		}
	}
}

// TestCloudDocumentLimit: with CloudLimits, a document over Chroma Cloud's
// 16 KiB limit fails Upsert with an error naming the record, before any
// request.
func TestCloudDocumentLimit(t *testing.T) {
	rec := newRecorder(t)
	srv := testenv.Chroma(t)
	ctx := context.Background()
	c := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, HTTPClient: &http.Client{Transport: rec}, CloudLimits: true})
	before := rec.count("upsert")
	err := c.Upsert(ctx, []collection.Record{
		{ID: "ok", Document: "small", Metadata: map[string]any{"page_slug": "a.md", "chunk_index": 0}},
		{ID: "big", Document: strings.Repeat("x", chromastore.CloudMaxDocumentBytes+1), Metadata: map[string]any{"page_slug": "b.md", "chunk_index": 0}},
	})
	if err == nil || !strings.Contains(err.Error(), `"big"`) || !strings.Contains(err.Error(), "16384") {
		t.Fatalf("Upsert of a 16 KiB+1 document: %v", err)
	}
	if n := rec.count("upsert") - before; n != 0 {
		t.Fatalf("%d upsert requests sent; want 0", n)
	}
	if err := c.Upsert(ctx, []collection.Record{{ID: "edge", Document: strings.Repeat("x", chromastore.CloudMaxDocumentBytes), System: true}}); err != nil {
		t.Fatalf("Upsert of exactly 16 KiB: %v", err)
	}
}
