package validate_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// TestIndex: Run checks the compact tree index against the tree record:
// an index that holds the record's entries and metadata is clean; one
// that differs, readers would use stale, or does not decode is reported.
func TestIndex(t *testing.T) {
	ctx := context.Background()
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	entries := []tree.Entry{
		{Slug: "a.md", IsPublic: true, Size: 12, Chunks: 2, ModTime: mtime, ContentType: "text/markdown"},
		{Slug: "private/b.md", Groups: []string{"staff"}, Size: 3, Chunks: 1},
	}
	chunks := []collection.Record{chunk("a.md", 0, "hello "), chunk("a.md", 1, "world\n"), chunk("private/b.md", 0, "b!\n")}
	for i := range chunks {
		idx := chunks[i].Metadata["chunk_index"].(int)
		chunks[i].ID = collection.ChunkID(chunks[i].Metadata["page_slug"].(string), idx)
	}
	built, err := ingest.BuildTree("__path_tree__", entries, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	version := collection.TreeVersionOf(built.Doc)
	index := func(es []tree.Entry, stamp string, meta map[string]any) collection.Record {
		t.Helper()
		read := make([]tree.Entry, len(es))
		copy(read, es)
		for i := range read {
			read[i].HasIsPublic = true
		}
		p, err := treeindex.Encode(read, stamp, meta)
		if err != nil {
			t.Fatal(err)
		}
		r := built.IndexRecord
		r.Document = string(treeindex.EncodeDocument(p))
		return r
	}
	meta := map[string]any{collection.ChunkIDsKey: collection.ChunkIDScheme, collection.LineAlignedKey: true}
	changed := append([]tree.Entry(nil), entries...)
	changed[1].Groups = []string{"admin"}
	extra := append(append([]tree.Entry(nil), entries...), tree.Entry{Slug: "z.md", IsPublic: true, Size: -1})
	tests := []struct {
		name     string
		index    *collection.Record // nil: none
		marker   string
		ok       bool
		findings []string
	}{
		{"as ingest writes it", &built.IndexRecord, version, true, nil},
		{"no index", nil, version, true, nil},
		{"index, no marker", &built.IndexRecord, "", true, nil},
		{"an entry differs", ptr(index(changed, version, meta)), version, false, []string{`private/b.md: the tree index "__path_tree__/index" differs from the tree record: groups ["admin"], not ["staff"]`}},
		{"an entry differs, marker unset", ptr(index(changed, version, meta)), "", false, []string{"differs from the tree record"}},
		{"an entry too many", ptr(index(extra, version, meta)), version, false, []string{"z.md: in the tree index", "not in the tree record"}},
		{"an entry missing", ptr(index(entries[:1], version, meta)), version, false, []string{"private/b.md: in the tree record, not in the tree index"}},
		{"metadata differs", ptr(index(entries, version, map[string]any{collection.ChunkIDsKey: collection.ChunkIDScheme})), version, false, []string{"metadata " + collection.LineAlignedKey}},
		{"stale, ignored", ptr(index(changed, "0123456789abcdef01234567", meta)), version, true, []string{"warning: tree index", "not the tree record's"}},
		{"stale, used", ptr(index(changed, "0123456789abcdef01234567", meta)), "0123456789abcdef01234567", false, []string{"readers serve the index's tree"}},
		{"marker names another version", &built.IndexRecord, "0123456789abcdef01234567", true, []string{"readers ignore the tree index"}},
		{"corrupt", &collection.Record{ID: "__path_tree__/index", Document: treeindex.DocumentHeader + "AAAA", System: true}, version, true, []string{"does not decode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memstore.New(tt.name)
			records := append(append([]collection.Record(nil), chunks...), built.Record)
			records[len(records)-1].Document = string(built.Doc)
			if tt.index != nil {
				records = append(records, *tt.index)
			}
			if err := s.Upsert(ctx, records); err != nil {
				t.Fatal(err)
			}
			if err := s.SetMetadata(ctx, map[string]any{collection.TreeVersionKey: tt.marker}); err != nil {
				t.Fatal(err)
			}
			rep, joined := runFindings(t, s)
			checkReport(t, rep, joined, tt.ok, tt.findings)
		})
	}
}

func ptr[T any](v T) *T { return &v }
