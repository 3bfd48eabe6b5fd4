package ingest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

func treeEntries(n int) []tree.Entry {
	es := make([]tree.Entry, n)
	for i := range es {
		es[i] = tree.Entry{Slug: fmt.Sprintf("dir%d/page-%04d.md", i%7, i), HasIsPublic: true, IsPublic: true, Size: int64(i), Chunks: 1 + i%3}
	}
	return es
}

// TestBuildTree checks the records BuildTree makes: the tree record with
// the ingest metadata, System set, the encoded document (plain or
// gzip+base64) or the manifest of shards that carry collection.SystemKey.
func TestBuildTree(t *testing.T) {
	for _, tc := range []struct {
		name       string
		entries    int
		compressed bool
		maxBytes   int
		wantShards bool
		wantErr    bool
	}{
		{"plain", 10, false, 0, false, false},
		{"compressed", 10, true, 0, false, false},
		{"fits the limit", 10, false, 64 << 10, false, false},
		{"plain sharded", 500, false, collection.MinShardBytes, true, false},
		{"compressed sharded", 2000, true, collection.MinShardBytes, true, false},
		{"limit below minimum", 500, false, collection.MinShardBytes - 1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := treeEntries(tc.entries)
			tr, err := BuildTree("tree", entries, tc.compressed, tc.maxBytes)
			if tc.wantErr {
				if err == nil {
					t.Fatal("BuildTree succeeded, want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			doc, err := tree.Encode(entries, tc.compressed)
			if err != nil {
				t.Fatal(err)
			}
			if string(tr.Doc) != string(doc) {
				t.Fatal("Doc is not tree.Encode of the entries")
			}
			if got := strings.HasPrefix(string(tr.Doc), "{"); got == tc.compressed {
				t.Fatalf("document starts with %q, compressed = %v", tr.Doc[:1], tc.compressed)
			}
			if tr.Version() != collection.TreeVersionOf(doc) {
				t.Fatal("Version is not TreeVersionOf the document")
			}
			rec := tr.Record
			if rec.ID != "tree" || !rec.System || !reflect.DeepEqual(rec.Metadata, TreeMetadata()) {
				t.Fatalf("tree record %q, System %v, metadata %v", rec.ID, rec.System, rec.Metadata)
			}
			want := map[string]any{
				collection.SystemKey: true, MetaWriter: WriterName, collection.LineAlignedKey: true,
				MetaDirty: false, collection.ChunkIDsKey: collection.ChunkIDScheme,
			}
			if !reflect.DeepEqual(rec.Metadata, want) {
				t.Fatalf("tree metadata %v, want %v", rec.Metadata, want)
			}
			if (len(tr.Shards) > 0) != tc.wantShards {
				t.Fatalf("%d shards, want shards: %v", len(tr.Shards), tc.wantShards)
			}
			if !tc.wantShards {
				if rec.Document != string(doc) {
					t.Fatal("the tree record's document is not the tree document")
				}
				return
			}
			m, ok, err := collection.ParseManifest([]byte(rec.Document))
			if !ok || err != nil || m.Shards != len(tr.Shards) {
				t.Fatalf("tree record document is not a manifest of %d shards: %v %v", len(tr.Shards), ok, err)
			}
			var joined strings.Builder
			for i, s := range tr.Shards {
				if s.ID != m.ShardID(i) || !s.System || s.Metadata[collection.SystemKey] != true || s.Metadata[collection.ShardKey] != i {
					t.Fatalf("shard %d: %q, System %v, metadata %v", i, s.ID, s.System, s.Metadata)
				}
				if len(s.Document) > tc.maxBytes {
					t.Fatalf("shard %d holds %d bytes, over the limit of %d", i, len(s.Document), tc.maxBytes)
				}
				joined.WriteString(s.Document)
			}
			if joined.String() != string(doc) {
				t.Fatal("the shards do not assemble to the tree document")
			}
		})
	}
}

// TestTreeRecordsWrite checks the order of TreeRecords.Write (marker
// cleared, shards, index record, tree record, marker set) and what a failure at each
// step leaves: the previous tree and no marker before the tree record, the
// new tree after it.
func TestTreeRecordsWrite(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name        string
		failAt      int // 1-based call to fail, 0: none
		wantWritten bool
		wantMarker  string // "old", "new" or ""
		wantTree    string // "old" or "new"
	}{
		{"success", 0, true, "new", "new"},
		{"clear marker fails", 1, false, "old", "old"},
		{"shards fail", 2, false, "", "old"},
		{"index record fails", 4, false, "", "old"},
		{"tree record fails", 5, false, "", "old"},
		{"set marker fails", 6, true, "", "new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := memstore.New("c")
			old, err := BuildTree("tree", treeEntries(3), false, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := old.Write(ctx, s, 0); err != nil {
				t.Fatal(err)
			}
			tr, err := BuildTree("tree", treeEntries(500), false, collection.MinShardBytes)
			if err != nil {
				t.Fatal(err)
			}
			batch := (len(tr.Shards) + len(tr.IndexShards) + 1) / 2 // shards in two upserts
			var ops []string
			s.SetHook(func(_ context.Context, op string) error {
				ops = append(ops, op)
				if len(ops) == tc.failAt {
					return boom
				}
				return nil
			})
			written, err := tr.Write(ctx, s, batch)
			s.SetHook(nil)
			if (err == nil) != (tc.failAt == 0) || (err != nil && !errors.Is(err, boom)) {
				t.Fatalf("Write = %v, want failure at call %d", err, tc.failAt)
			}
			if written != tc.wantWritten {
				t.Fatalf("written = %v, want %v", written, tc.wantWritten)
			}
			if tc.failAt == 0 {
				want := []string{memstore.OpMetadata, memstore.OpUpsert, memstore.OpUpsert, memstore.OpUpsert, memstore.OpUpsert, memstore.OpMetadata}
				if !reflect.DeepEqual(ops, want) {
					t.Fatalf("calls %v, want %v", ops, want)
				}
			}
			marker := map[string]string{"old": old.Version(), "new": tr.Version(), "": ""}[tc.wantMarker]
			if v, _ := s.TreeVersion(ctx); v != marker {
				t.Fatalf("marker %q, want %s (%q)", v, tc.wantMarker, marker)
			}
			rec, err := collection.ReadTree(ctx, s, "tree")
			wantDoc := map[string][]byte{"old": old.Doc, "new": tr.Doc}[tc.wantTree]
			if err != nil || string(rec.Document) != string(wantDoc) {
				t.Fatalf("ReadTree: %v; want the %s tree", err, tc.wantTree)
			}
		})
	}
}
