package storetest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/chromafs/chromafs/collection"
)

// testWriter checks the Writer of s, a new, empty store.
func testWriter(t *testing.T, s Store) {
	ctx := context.Background()
	rec := func(slug string, i int, text string) collection.Record {
		return collection.Record{ID: collection.ChunkID(slug, i), Document: text, Metadata: map[string]any{layout.SlugField: slug, layout.IndexField: i}}
	}
	written := map[string]collection.Record{}
	upsert := func(recs ...collection.Record) {
		t.Helper()
		if err := s.Upsert(ctx, recs); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
		for _, r := range recs {
			written[r.ID] = r
		}
	}
	// check compares the chunks of slugs with the records written.
	check := func(what string, slugs ...string) {
		t.Helper()
		var want []collection.Chunk
		for _, r := range written {
			slug, ok := r.Metadata[layout.SlugField].(string)
			if ok && slices.Contains(slugs, slug) {
				want = append(want, collection.Chunk{ID: r.ID, Slug: slug, Index: r.Metadata[layout.IndexField].(int), Text: r.Document})
			}
		}
		got, err := s.Chunks(ctx, layout, slugs)
		if err == nil {
			err = equalChunks(what+": Chunks", got, sortedChunks(want))
		}
		if err != nil {
			t.Error(err)
		}
	}

	upsert(rec("a.md", 0, "one\n"), rec("a.md", 1, "two\n"), rec("b.md", 0, "three\n"))
	check("after the first Upsert", "a.md", "b.md")
	if err := s.Upsert(ctx, nil); err != nil {
		t.Errorf("Upsert(nil): %v", err)
	}

	// Upsert replaces a record of the same id.
	upsert(rec("a.md", 0, "ONE\n"), rec("b.md", 1, "four\n"))
	check("after replacing a record", "a.md", "b.md")

	// A record with an empty id fails the call, and nothing is written.
	if err := s.Upsert(ctx, []collection.Record{rec("c.md", 0, "five\n"), {Document: "no id"}}); err == nil {
		t.Error("Upsert of a record with an empty id: no error")
	}
	check("after a failed Upsert", "c.md")

	// A record replaced with metadata that leaves a key out keeps it (the
	// metadata is merged, as Chroma merges it); a nil value removes its
	// key.
	r := rec("a.md", 1, "two\n")
	r.Metadata["keep"], r.Metadata["drop"] = "k", "d"
	upsert(r)
	r = rec("a.md", 1, "TWO\n")
	r.Metadata["drop"] = nil
	upsert(r)
	if rr, ok := s.(collection.RecordReader); ok {
		got, err := rr.RecordsByID(ctx, []string{r.ID})
		want := maps.Clone(r.Metadata)
		want["keep"] = "k"
		delete(want, "drop")
		if err == nil {
			err = checkRecord("RecordsByID after merging metadata", got[r.ID], collection.Record{Document: "TWO\n", Metadata: want})
		}
		if err == nil {
			if _, ok := got[r.ID].Metadata["drop"]; ok {
				err = fmt.Errorf("metadata %v kept the key set to nil", got[r.ID].Metadata)
			}
		}
		if err != nil {
			t.Error(err)
		}
	}
	check("after merging metadata", "a.md")

	// A System record reads back by Tree. (chromastore also sets
	// collection.SystemKey in its metadata, memstore does not: writers
	// set it themselves, as ingest does.)
	tree := collection.Record{ID: layout.TreeID, Document: "{}", System: true, Metadata: map[string]any{"format": "json"}}
	upsert(tree)
	if got, err := s.Tree(ctx, tree.ID); err != nil {
		t.Errorf("Tree of a System record: %v", err)
	} else if err := checkRecord("Tree of a System record", got, tree); err != nil {
		t.Error(err)
	}

	// ChunkIDs gives the ids of each page that has records.
	ids, err := s.ChunkIDs(ctx, layout, []string{"a.md", "b.md", missing, "a.md"})
	if err != nil {
		t.Fatalf("ChunkIDs: %v", err)
	}
	for _, ids := range ids {
		slices.Sort(ids)
	}
	want := map[string][]string{"a.md": {"a.md#0", "a.md#1"}, "b.md": {"b.md#0", "b.md#1"}}
	if !maps.EqualFunc(ids, want, slices.Equal) {
		t.Errorf("ChunkIDs = %v, want %v", ids, want)
	}
	if ids, err := s.ChunkIDs(ctx, layout, nil); err != nil || len(ids) != 0 {
		t.Errorf("ChunkIDs(nil) = %v, %v; want none", ids, err)
	}

	// Delete removes records and ignores unknown ids.
	if err := s.Delete(ctx, []string{"a.md#0", "b.md#1", "nope#0"}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	delete(written, "a.md#0")
	delete(written, "b.md#1")
	check("after Delete", "a.md", "b.md")
	if err := s.Delete(ctx, nil); err != nil {
		t.Errorf("Delete(nil): %v", err)
	}
	// A deleted id can be written again.
	upsert(rec("a.md", 0, "one again\n"))
	check("after writing a deleted id again", "a.md", "b.md")

	// Not checked: an Upsert that lists one id twice (chromastore
	// refuses it, memstore writes the last).
}

func (c *checker) treeVersioner(t *testing.T) bool {
	r, ok := c.s.(collection.TreeVersioner)
	if !ok {
		return false
	}
	ctx := context.Background()
	if v, err := r.TreeVersion(ctx); err != nil || v != "" {
		t.Errorf("TreeVersion of a collection whose writer recorded none = %q, %v; want \"\"", v, err)
	}
	ms, ok := c.s.(metadataSetter)
	if !ok {
		return true
	}
	tree, _ := c.record(layout.TreeID)
	for _, v := range []string{collection.TreeVersionOf([]byte(tree.Document)), ""} {
		if err := ms.SetMetadata(ctx, map[string]any{collection.TreeVersionKey: v}); err != nil {
			t.Fatalf("SetMetadata: %v", err)
		}
		if got, err := r.TreeVersion(ctx); err != nil || got != v {
			t.Errorf("TreeVersion after SetMetadata of %q = %q, %v", v, got, err)
		}
	}
	return true
}
