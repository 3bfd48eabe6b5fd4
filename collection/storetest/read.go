package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/collection"
)

// checkRecord reports, as an error, whether got holds r's document and
// every key of r's metadata with its value (numbers compared as printed:
// a store may read an int back as an int64). A store may add keys.
func checkRecord(what string, got collection.TreeRecord, r collection.Record) error {
	if string(got.Document) != r.Document {
		return fmt.Errorf("%s: document %q, want %q", what, got.Document, r.Document)
	}
	for k, v := range r.Metadata {
		if g, ok := got.Metadata[k]; !ok || fmt.Sprint(g) != fmt.Sprint(v) {
			return fmt.Errorf("%s: metadata %v, want the keys of %v", what, got.Metadata, r.Metadata)
		}
	}
	return nil
}

func (c *checker) tree(t *testing.T) {
	ctx := context.Background()
	// Tree returns any record by id: the tree record, a chunk, a record
	// without metadata.
	for _, id := range []string{layout.TreeID, collection.ChunkID(intro, 1), "no-metadata"} {
		r, _ := c.record(id)
		got, err := c.s.Tree(ctx, id)
		if err == nil {
			err = checkRecord(fmt.Sprintf("Tree(%q)", id), got, r)
		}
		if err != nil {
			t.Error(err)
		}
	}
	if _, err := c.s.Tree(ctx, other.TreeID); !errors.Is(err, collection.ErrNoTree) {
		t.Errorf("Tree(%q) of a missing record: %v, want an error wrapping collection.ErrNoTree", other.TreeID, err)
	}
}

func (c *checker) idReader(t *testing.T) bool {
	r, ok := c.s.(collection.IDReader)
	if !ok {
		return false
	}
	ctx := context.Background()
	var all []string
	for _, rec := range c.recs {
		all = append(all, rec.ID)
	}
	for _, tc := range []struct {
		name   string
		layout collection.Layout
		ids    []string
	}{
		// Every record: only those with a string slug field come back.
		{"all", layout, all},
		{"missing and repeated", layout, []string{collection.ChunkID(intro, 1), collection.ChunkID(missing, 0), collection.ChunkID(intro, 1), collection.ChunkID(users, 0)}},
		{"only missing", layout, []string{collection.ChunkID(missing, 0), collection.ChunkID(intro, 9)}},
		{"other layout", other, []string{"other#1", collection.ChunkID(intro, 0)}},
	} {
		got, err := r.ChunksByID(ctx, tc.layout, tc.ids)
		if err != nil {
			t.Errorf("%s: ChunksByID(%q): %v", tc.name, tc.ids, err)
			continue
		}
		want := c.want(tc.layout, true, func(ch collection.Chunk, _ string) bool { return slices.Contains(tc.ids, ch.ID) })
		if err := equalChunks(fmt.Sprintf("%s: ChunksByID(%q)", tc.name, tc.ids), got, want); err != nil {
			t.Error(err)
		}
	}
	return true
}

// each collects what read, a ChunksEach or ChunksByIDEach, hands over: it
// fails t when fn is called while another call runs or a record comes
// twice.
func each(t *testing.T, what string, read func(fn func([]collection.Chunk) error) error) []collection.Chunk {
	t.Helper()
	var all []collection.Chunk
	var running atomic.Int32
	seen := map[string]bool{}
	err := read(func(chunks []collection.Chunk) error {
		if running.Add(1) != 1 {
			t.Errorf("%s: fn called while another call runs", what)
		}
		defer running.Add(-1)
		for _, ch := range chunks {
			if seen[ch.ID] {
				t.Errorf("%s: record %s handed over twice", what, ch.ID)
			}
			seen[ch.ID] = true
		}
		all = append(all, chunks...)
		return nil
	})
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
	return all
}

func (c *checker) partReader(t *testing.T) bool {
	r, ok := c.s.(collection.PartReader)
	if !ok {
		return false
	}
	ctx := context.Background()
	slugs := []string{intro, users, cafe, missing, intro}
	got := each(t, "ChunksEach", func(fn func([]collection.Chunk) error) error { return r.ChunksEach(ctx, layout, slugs, fn) })
	if err := equalChunks(fmt.Sprintf("ChunksEach(%q)", slugs), got, c.want(layout, true, inSlugs(slugs...))); err != nil {
		t.Error(err)
	}
	ids := []string{collection.ChunkID(intro, 0), collection.ChunkID(intro, 2), collection.ChunkID(cafe, 0), layout.TreeID, collection.ChunkID(missing, 0)}
	got = each(t, "ChunksByIDEach", func(fn func([]collection.Chunk) error) error { return r.ChunksByIDEach(ctx, layout, ids, fn) })
	want := c.want(layout, true, func(ch collection.Chunk, _ string) bool { return slices.Contains(ids, ch.ID) })
	if err := equalChunks(fmt.Sprintf("ChunksByIDEach(%q)", ids), got, want); err != nil {
		t.Error(err)
	}
	// The first error of fn stops the read and comes back as it is.
	stop := errors.New("stop")
	fail := func([]collection.Chunk) error { return stop }
	if err := r.ChunksEach(ctx, layout, slugs, fail); err != stop {
		t.Errorf("ChunksEach with fn failing: %v, want fn's error as it is", err)
	}
	if err := r.ChunksByIDEach(ctx, layout, ids, fail); err != stop {
		t.Errorf("ChunksByIDEach with fn failing: %v, want fn's error as it is", err)
	}
	return true
}

func (c *checker) recordReader(t *testing.T) bool {
	r, ok := c.s.(collection.RecordReader)
	if !ok {
		return false
	}
	ids := []string{layout.TreeID, "no-slug", "no-metadata", collection.ChunkID(intro, 0), other.TreeID, layout.TreeID}
	got, err := r.RecordsByID(context.Background(), ids)
	if err != nil {
		t.Fatalf("RecordsByID(%q): %v", ids, err)
	}
	if len(got) != 4 {
		t.Errorf("RecordsByID(%q) returned %d records, want the 4 that exist", ids, len(got))
	}
	for _, id := range ids {
		rec, exists := c.record(id)
		g, ok := got[id]
		switch {
		case ok != exists:
			t.Errorf("RecordsByID(%q): record %q returned %v, exists %v", ids, id, ok, exists)
		case ok:
			if err := checkRecord(fmt.Sprintf("RecordsByID: %q", id), g, rec); err != nil {
				t.Error(err)
			}
		}
	}
	return true
}

func (c *checker) scanner(t *testing.T) bool {
	r, ok := c.s.(collection.Scanner)
	if !ok {
		return false
	}
	ctx := context.Background()
	for _, tc := range []struct {
		layout   collection.Layout
		withText bool
	}{{layout, true}, {layout, false}, {other, true}} {
		what := fmt.Sprintf("Scan(%s, withText %v)", tc.layout.SlugField, tc.withText)
		var got []collection.Chunk
		seen := map[string]bool{}
		err := r.Scan(ctx, tc.layout, tc.withText, func(batch []collection.Chunk) error {
			if len(batch) == 0 {
				t.Errorf("%s: an empty batch", what)
			}
			for _, ch := range batch {
				if seen[ch.ID] {
					t.Errorf("%s: record %s twice", what, ch.ID)
				}
				seen[ch.ID] = true
			}
			got = append(got, batch...)
			// fn may use the store.
			_, err := r.IDs(ctx)
			return err
		})
		if err == nil {
			err = equalChunks(what, got, c.want(tc.layout, tc.withText, nil))
		}
		if err != nil {
			t.Error(err)
		}
	}
	stop := errors.New("stop")
	calls := 0
	if err := r.Scan(ctx, layout, false, func([]collection.Chunk) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("Scan with fn failing: %v after %d calls, want fn's error as it is after 1", err, calls)
	}

	ids, err := r.IDs(ctx)
	if err != nil {
		t.Fatalf("IDs: %v", err)
	}
	var want []string
	for _, rec := range c.recs {
		want = append(want, rec.ID)
	}
	slices.Sort(ids)
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("IDs:\n got %q\nwant %q (every record once)", ids, want)
	}
	return true
}

func (c *checker) recordScanner(t *testing.T) bool {
	r, ok := c.s.(collection.RecordScanner)
	if !ok {
		return false
	}
	ctx := context.Background()
	seen := map[string]bool{}
	err := r.ScanRecords(ctx, func(batch []collection.Record) error {
		if len(batch) == 0 {
			t.Error("ScanRecords: an empty batch")
		}
		for _, got := range batch {
			if seen[got.ID] {
				t.Errorf("ScanRecords: record %s twice", got.ID)
			}
			seen[got.ID] = true
			want, exists := c.record(got.ID)
			if !exists {
				t.Errorf("ScanRecords: record %q, which was never written", got.ID)
				continue
			}
			tr := collection.TreeRecord{Document: []byte(got.Document), Metadata: got.Metadata}
			if err := checkRecord("ScanRecords: "+got.ID, tr, want); err != nil {
				t.Error(err)
			}
		}
		// fn may use the store.
		_, err := c.s.Tree(ctx, layout.TreeID)
		return err
	})
	if err != nil {
		t.Fatalf("ScanRecords: %v", err)
	}
	for _, rec := range c.recs {
		if !seen[rec.ID] {
			t.Errorf("ScanRecords never gave record %q", rec.ID)
		}
	}
	stop := errors.New("stop")
	calls := 0
	if err := r.ScanRecords(ctx, func([]collection.Record) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("ScanRecords with fn failing: %v after %d calls, want fn's error as it is after 1", err, calls)
	}
	return true
}

func (c *checker) documentReader(t *testing.T) bool {
	r, ok := c.s.(collection.DocumentReader)
	if !ok {
		return false
	}
	// Every record, whatever its metadata (the tree record, a record of
	// another layout, one without metadata), once though asked twice, and
	// nothing for an id that does not exist.
	var ids []string
	for _, rec := range c.recs {
		ids = append(ids, rec.ID)
	}
	ids = append(ids, ids[0], "no-such-record")
	got, err := r.DocumentsByID(context.Background(), ids)
	if err != nil {
		t.Fatalf("DocumentsByID: %v", err)
	}
	if len(got) != len(c.recs) {
		t.Errorf("DocumentsByID returned %d documents, want the %d records written", len(got), len(c.recs))
	}
	for _, rec := range c.recs {
		if d, ok := got[rec.ID]; !ok || d != rec.Document {
			t.Errorf("DocumentsByID: record %q: %q (%v), want %q", rec.ID, d, ok, rec.Document)
		}
	}
	return true
}

func (c *checker) limiter(t *testing.T) bool {
	r, ok := c.s.(collection.Limiter)
	if !ok {
		return false
	}
	if re, ex := r.Limits(); re < 0 || ex < 0 {
		t.Errorf("Limits() = %d, %d; want limits or 0 for none", re, ex)
	}
	return true
}
