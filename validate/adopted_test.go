package validate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/adopt"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/validate"
)

// TestRunAdopted validates a collection in LangChain.js's layout after
// chromafs adopt: pages rebuilt with guesses are warnings; chunks changed
// or deleted since are errors.
func TestRunAdopted(t *testing.T) {
	ctx := context.Background()
	st := memstore.New("adopted")
	chunk := func(id, source, text string, line int) collection.Record {
		return collection.Record{ID: id, Document: text, Metadata: map[string]any{"source": source, "locFrom": line, "locTo": line + strings.Count(text, "\n")}}
	}
	if err := st.Upsert(ctx, []collection.Record{
		chunk("a1", "/docs/a.md", "# A\n\nfirst paragraph", 1),
		chunk("a2", "/docs/a.md", "first paragraph\nand more", 3),
		chunk("b1", "/docs/b.md", "# B", 1),
		chunk("b2", "/docs/b.md", "after a gap", 3),
		chunk("c1", "/docs/c.md", "# C", 1),
	}); err != nil {
		t.Fatal(err)
	}
	res, err := adopt.Read(ctx, st, adopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := adopt.Write(ctx, st, res, adopt.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := validate.Run(ctx, st, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("errors in a freshly adopted collection: %v", rep.Findings)
	}
	want := map[string]string{
		"a.md": "reassembled from trimmed chunks",
		"b.md": "reassembled inexactly, with guessed whitespace",
		"c.md": "reassembled from trimmed chunks",
	}
	for _, f := range rep.Findings {
		if w, ok := want[f.Slug]; ok && strings.Contains(f.Message, w) && f.Severity == validate.Warning {
			delete(want, f.Slug)
		}
	}
	if len(want) > 0 {
		t.Errorf("findings %v lack the warnings %v", rep.Findings, want)
	}

	// The other tool rewrites a chunk, and deletes another.
	if err := st.Upsert(ctx, []collection.Record{chunk("a2", "/docs/a.md", "first paragraph\nand less", 3)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, []string{"c1"}); err != nil {
		t.Fatal(err)
	}
	rep, err = validate.Run(ctx, st, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]string{}
	for _, f := range rep.Findings {
		if f.Severity == validate.Error {
			errs[f.Slug] = f.Message
		}
	}
	if !strings.Contains(errs["a.md"], "does not match") || !strings.Contains(errs["c.md"], `chunk "c1" is gone`) || len(errs) != 2 {
		t.Errorf("errors %v: want a.md's hash and c.md's missing chunk, each saying to adopt again", errs)
	}
	for _, m := range errs {
		if !strings.Contains(m, "adopt it again") {
			t.Errorf("error %q does not say how to fix it", m)
		}
	}
}
