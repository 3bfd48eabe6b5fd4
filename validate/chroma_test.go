package validate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/validate"
)

// stringIndexRecords is a page whose chunks carry chunk_index as the
// strings "0" and "1", a page with a missing index, a page with duplicate
// slugs in the tree, and a good page.
func stringIndexRecords() []collection.Record {
	str := func(id, slug, index, text string) collection.Record {
		return collection.Record{ID: id, Document: text, Metadata: map[string]any{"page_slug": slug, "chunk_index": index}}
	}
	return []collection.Record{
		str("s#0", "s.md", "0", "hello "), str("s#1", "s.md", "1", "world\n"),
		{ID: "m#0", Document: "x", Metadata: map[string]any{"page_slug": "m.md"}},
		chunk("ok.md", 0, "fine\n"), chunk("d.md", 0, "dup\n"),
		treeRec(`{"s.md":{"isPublic":true},"m.md":{"isPublic":true},"ok.md":{"isPublic":true},"d.md":{"isPublic":false},"d.md":{"isPublic":true}}`),
	}
}

// TestStringIndex: validation names each chunk whose chunk_index is a
// string and says so; a missing index is named too; duplicate slugs stay
// errors. On memstore and a real Chroma.
func TestStringIndex(t *testing.T) {
	ctx := context.Background()
	for _, b := range []struct {
		name string
		new  func(t *testing.T) validate.Store
	}{
		{"memstore", func(t *testing.T) validate.Store { return memstore.New(t.Name()) }},
		{"chroma", func(t *testing.T) validate.Store {
			c := testbackend.Chroma(t)
			t.Cleanup(func() {
				_ = chromastore.DeleteCollection(context.Background(), chromastore.Config{URL: testenv.Chroma(t).URL, Collection: c.Name()})
			})
			return c
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			s := b.new(t)
			if err := s.(collection.Writer).Upsert(ctx, stringIndexRecords()); err != nil {
				t.Fatal(err)
			}
			rep, joined := runFindings(t, s)
			for _, want := range []string{
				`error: s.md: 2 chunks have no valid chunk index, so the page cannot be read: chunk "s#0": chunk_index is the string "0", not a number`,
				`chunk "s#1": chunk_index is the string "1", not a number`,
				`error: m.md: 1 chunk has no valid chunk index, so the page cannot be read: chunk "m#0": chunk_index is missing`,
				`error: d.md: tree entry skipped: duplicate slug`,
			} {
				if !strings.Contains(joined, want) {
					t.Errorf("findings do not contain %q:\n%s", want, joined)
				}
			}
			if strings.Contains(joined, "ok.md") || rep.OK() {
				t.Errorf("OK %v; findings:\n%s", rep.OK(), joined)
			}
		})
	}
}
