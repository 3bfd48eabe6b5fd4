package validate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/validate"
)

func chunk(slug string, i int, text string) chromafs.Record {
	return chromafs.Record{
		ID:       fmt.Sprintf("%s#%d", slug, i),
		Document: text,
		Metadata: map[string]any{"page_slug": slug, "chunk_index": i},
	}
}

func treeRec(doc string) chromafs.Record {
	return chromafs.Record{ID: "__path_tree__", Document: doc, System: true, Metadata: map[string]any{"_system": true}}
}

// schemeTree is a tree record that declares chunk ids slug#index.
func schemeTree(doc string) chromafs.Record {
	r := treeRec(doc)
	r.Metadata[chromafs.ChunkIDsKey] = chromafs.ChunkIDScheme
	return r
}

func TestRun(t *testing.T) {
	good := []chromafs.Record{chunk("a.md", 0, "hello "), chunk("a.md", 1, "world\n")}
	tests := []struct {
		name     string
		records  []chromafs.Record
		ok       bool
		findings []string // substrings, each must appear in some finding
	}{
		{"clean", append(good, treeRec(`{"a.md":{"isPublic":true,"size":12}}`)), true, nil},
		{"no tree", good, false, []string{`no path tree record "__path_tree__"`}},
		{"malformed tree", append(good, treeRec(`{"a.md":`)), false, []string{"path tree:"}},
		{"gap", []chromafs.Record{chunk("a.md", 0, "x"), chunk("a.md", 2, "z"), treeRec(`{"a.md":{"isPublic":true}}`)}, false, []string{"a.md", "missing chunk index 1"}},
		{"no chunks", []chromafs.Record{treeRec(`{"a.md":{"isPublic":true}}`)}, false, []string{"has no chunks"}},
		{"orphan", append(append(good, chunk("gone.md", 0, "x")), treeRec(`{"a.md":{"isPublic":true}}`)), false, []string{"gone.md", "orphan"}},
		{"size mismatch", append(good, treeRec(`{"a.md":{"isPublic":true,"size":3}}`)), false, []string{"tree records 3 bytes"}},
		{"hash mismatch", append(good, treeRec(`{"a.md":{"isPublic":true,"hash":"sha256:00"}}`)), false, []string{"does not match"}},
		{"bad slug", append(good, treeRec(`{"a.md":{"isPublic":true},"../x":{"isPublic":true}}`)), false, []string{"../x"}},
		{"missing isPublic warns", append(good, treeRec(`{"a.md":{"groups":["staff"]}}`)), true, []string{"warning: a.md: no isPublic"}},
		{"private without groups warns", append(good, treeRec(`{"a.md":{"isPublic":false}}`)), true, []string{"visible to nobody"}},
		{"ids follow the declared scheme", append(good, schemeTree(`{"a.md":{"isPublic":true}}`)), true, nil},
		{"id off the declared scheme", []chromafs.Record{chunk("a.md", 0, "hello "), {ID: "other", Document: "world\n", Metadata: map[string]any{"page_slug": "a.md", "chunk_index": 1}}, schemeTree(`{"a.md":{"isPublic":true}}`)},
			false, []string{`a.md: chunk 1 has id "other", not "a.md#1"`}},
		{"no _system marker warns", append(good, chromafs.Record{ID: "__path_tree__", Document: `{"a.md":{"isPublic":true}}`}), true, []string{"_system"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memstore.New(tt.name)
			if err := s.Upsert(context.Background(), tt.records); err != nil {
				t.Fatal(err)
			}
			rep, err := validate.Run(context.Background(), s, validate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, f := range rep.Findings {
				all = append(all, f.String())
			}
			joined := strings.Join(all, "\n")
			if rep.OK() != tt.ok {
				t.Errorf("OK() = %v; want %v; findings:\n%s", rep.OK(), tt.ok, joined)
			}
			for _, want := range tt.findings {
				if !strings.Contains(joined, want) {
					t.Errorf("findings do not mention %q:\n%s", want, joined)
				}
			}
			if tt.findings == nil && len(all) > 0 {
				t.Errorf("unexpected findings:\n%s", joined)
			}
		})
	}
}

func TestRunStoreError(t *testing.T) {
	s := memstore.New("down")
	s.SetFailure(fmt.Errorf("connection refused"))
	if _, err := validate.Run(context.Background(), s, validate.Options{}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Run on a failing store: %v; want the store's error", err)
	}
}
