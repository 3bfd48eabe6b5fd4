package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/treeindex"
)

// shardIDs returns the ids of the tree shard records of s.
func shardIDs(t *testing.T, s *memstore.Store) []string {
	t.Helper()
	var ids []string
	for _, r := range s.Records() {
		if collection.IsShardID(collection.DefaultLayout().TreeID, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func manyFiles(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("dir%d/page-%03d.md", i%5, i)] = fmt.Sprintf("page %d\n", i)
	}
	return files
}

func TestShardedTree(t *testing.T) {
	s := memstore.New("c")
	files := manyFiles(120)
	opt := Options{TreeMaxBytes: 2048}

	// A dry run says how the tree would be written, and writes nothing.
	r, err := Run(ctx, s, mapFS(files), Options{TreeMaxBytes: 2048, DryRun: true})
	if err != nil || r.TreeShards < 2 || s.Len() != 0 {
		t.Fatalf("dry run: %v, %v, %d records", r, err, s.Len())
	}
	if !strings.Contains(r.String(), "shards") {
		t.Fatalf("report does not mention the shards:\n%s", r)
	}

	r, err = Run(ctx, s, mapFS(files), opt)
	if err != nil {
		t.Fatal(err)
	}
	first := shardIDs(t, s)
	if r.TreeShards < 2 || len(first) != r.TreeShards {
		t.Fatalf("%d shards reported, %d shard records", r.TreeShards, len(first))
	}
	for _, r := range s.Records() {
		if len(r.Document) > opt.TreeMaxBytes {
			t.Fatalf("record %q has a %d-byte document, over the limit", r.ID, len(r.Document))
		}
	}
	rec, err := collection.ReadTree(ctx, s, collection.DefaultLayout().TreeID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Metadata[MetaWriter] != WriterName || rec.Manifest == nil {
		t.Fatalf("manifest record metadata %v", rec.Metadata)
	}
	fsys, err := chromafs.New(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if got, err := fsys.ReadFile(name); err != nil || string(got) != content {
			t.Fatalf("%s: %q, %v", name, got, err)
		}
	}

	// Unchanged: the same shards, nothing written or deleted.
	r, err = Run(ctx, s, mapFS(files), opt)
	if err != nil || r.Unchanged != len(files) || r.Deleted != 0 || r.Chunks != 0 {
		t.Fatalf("re-ingest: %v\n%s", err, r)
	}
	if got := shardIDs(t, s); !equalSets(got, first) {
		t.Fatalf("shards changed on an unchanged re-ingest: %q -> %q", first, got)
	}

	// Changed: new shards, the old ones deleted.
	files["dir0/new.md"] = "new\n"
	if _, err = Run(ctx, s, mapFS(files), opt); err != nil {
		t.Fatal(err)
	}
	second := shardIDs(t, s)
	for _, id := range second {
		for _, old := range first {
			if id == old {
				t.Fatalf("shard %q of the previous tree survived", id)
			}
		}
	}
	if got, err := chromafs.New(ctx, s); err != nil {
		t.Fatal(err)
	} else if _, err := got.Stat("dir0/new.md"); err != nil {
		t.Fatal(err)
	}

	// A shard left by a run that failed before its manifest: --prune
	// deletes it, and nothing else.
	stray := collection.DefaultLayout().TreeID + "/shard/0123456789abcdef/0"
	if err := s.Upsert(ctx, []collection.Record{{ID: stray, Document: "x", System: true}}); err != nil {
		t.Fatal(err)
	}
	r, err = Run(ctx, s, mapFS(files), Options{TreeMaxBytes: 2048, Prune: true})
	if err != nil || r.Orphans != 1 {
		t.Fatalf("prune: %v\n%s", err, r)
	}
	if _, ok := s.Get(stray); ok {
		t.Fatal("prune kept the stray shard")
	}
	if got := shardIDs(t, s); !equalSets(got, second) {
		t.Fatalf("prune touched the current shards: %q -> %q", second, got)
	}

	// Without a limit: one tree record, no shards.
	if _, err = Run(ctx, s, mapFS(files), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := shardIDs(t, s); len(got) != 0 {
		t.Fatalf("%d shards left after an unsharded ingest", len(got))
	}
	for _, r := range s.Records() {
		if collection.IsShardID(treeindex.RecordID(collection.DefaultLayout().TreeID), r.ID) {
			t.Fatalf("index shard %s left after an unsharded ingest", r.ID)
		}
	}
	checkCollection(t, s, collection.DefaultLayout(), files)
}

func TestShardedTreeLimitTooSmall(t *testing.T) {
	s := memstore.New("c")
	_, err := Run(ctx, s, mapFS(manyFiles(3)), Options{TreeMaxBytes: 100})
	if err == nil || !strings.Contains(err.Error(), "below the minimum") || s.Len() != 0 {
		t.Fatalf("err = %v, %d records", err, s.Len())
	}
}

// TestShardedTreeFailure: a run that fails while writing shards leaves
// the previous tree readable, and the next run succeeds.
func TestShardedTreeFailure(t *testing.T) {
	s := memstore.New("c")
	files := manyFiles(120)
	opt := Options{TreeMaxBytes: 2048}
	if _, err := Run(ctx, s, mapFS(files), opt); err != nil {
		t.Fatal(err)
	}
	files["dir1/added.md"] = "added\n"
	boom := errors.New("boom")
	s.SetHook(func(_ context.Context, op string) error {
		if op == memstore.OpUpsert && len(shardIDs(t, s)) > 0 {
			for _, r := range s.Records() {
				if strings.HasPrefix(r.ID, "dir1/added.md#") {
					return boom // the new page's chunks are in; fail on the shards
				}
			}
		}
		return nil
	})
	if _, err := Run(ctx, s, mapFS(files), opt); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	s.SetHook(nil)
	fsys, err := chromafs.New(ctx, s)
	if err != nil {
		t.Fatalf("the previous tree is unreadable after a failed run: %v", err)
	}
	if _, err := fsys.Stat("dir1/added.md"); err == nil {
		t.Fatal("the failed run's page is visible")
	}
	if _, err := Run(ctx, s, mapFS(files), opt); err != nil {
		t.Fatal(err)
	}
	fsys, err = chromafs.New(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fsys.ReadFile("dir1/added.md"); err != nil || string(got) != "added\n" {
		t.Fatalf("after the next run: %q, %v", got, err)
	}
	index := 0 // the index record and its shards
	for _, r := range s.Records() {
		if isIndexRecord(collection.DefaultLayout().TreeID, r.ID) {
			index++
		}
	}
	if n := len(shardIDs(t, s)); n == 0 || index < 2 || s.Len() != n+1+index+len(files) {
		t.Fatalf("%d records, %d shards, %d files: stray records left", s.Len(), n, len(files))
	}
}

func equalSets(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}
