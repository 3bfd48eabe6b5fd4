package adopt

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// adoptAll reads st and writes its tree.
func adoptAll(t *testing.T, st Target, opt WriteOptions) (*Result, *Report) {
	t.Helper()
	ctx := context.Background()
	res, err := Read(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Write(ctx, st, res, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, rep
}

// readBack reads every page of the tree st holds the way a reader does:
// the tree, then each page's chunks by id, built by its recipe.
func readBack(t *testing.T, st *memstore.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	doc, err := collection.ReadTree(ctx, st, "__path_tree__")
	if err != nil {
		t.Fatal(err)
	}
	if w := doc.Metadata[ingest.MetaWriter]; w != WriterName {
		t.Errorf("tree record writer %v, want %s", w, WriterName)
	}
	tr, err := tree.Parse(doc.Document)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range tr.Entries() {
		r, err := collection.ParseRecipe(e.Parts)
		if err != nil {
			t.Fatalf("%s: %v", e.Slug, err)
		}
		chunks, err := st.DocumentsByID(ctx, r.IDs())
		if err != nil {
			t.Fatal(err)
		}
		data, err := collection.AssembleRecipe(&e, r, chunks)
		if err != nil {
			t.Fatalf("%s: %v", e.Slug, err)
		}
		got[e.Slug] = string(data)
	}
	return got
}

func TestWrite(t *testing.T) {
	ctx := context.Background()
	st := memstore.New("lc")
	for _, p := range slices.Sorted(maps.Keys(readDocs)) {
		writers["langchain.js"](st, p, readDocs[p])
	}
	rules, err := ingest.ParseRules(strings.NewReader("api/** groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}

	// A dry run writes nothing.
	before := st.Requests()
	res, err := Read(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Write(ctx, st, res, WriteOptions{DryRun: true, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	if after := st.Requests(); after.Upsert != before.Upsert || after.Delete != before.Delete || len(rep.Added) != 3 {
		t.Fatalf("dry run: counts %+v -> %+v, added %q", before, after, rep.Added)
	}

	res, rep = adoptAll(t, st, WriteOptions{Rules: rules})
	if len(rep.Added) != 3 || len(rep.Changed)+len(rep.Removed)+len(rep.Unchanged) != 0 {
		t.Errorf("first adopt: %+v, want 3 added", rep)
	}
	got := readBack(t, st)
	for _, p := range res.Pages {
		if got[p.Slug] != string(p.Content) {
			t.Errorf("%s: read back %q, adopted %q", p.Slug, got[p.Slug], p.Content)
		}
	}
	doc, _ := collection.ReadTree(ctx, st, "__path_tree__")
	tr, _ := tree.Parse(doc.Document)
	if e, _ := tr.Entry("api/users.md"); e == nil || e.IsPublic || !slices.Equal(e.Groups, []string{"staff"}) {
		t.Errorf("api/users.md entry %+v: want the rules' access, staff only", e)
	}
	if v, _ := st.TreeVersion(ctx); v != collection.TreeVersionOf(doc.Document) {
		t.Errorf("tree version marker %q, want the tree's version", v)
	}

	// Again, nothing changed: every page unchanged.
	_, rep = adoptAll(t, st, WriteOptions{Rules: rules})
	if len(rep.Unchanged) != 3 || len(rep.Added)+len(rep.Changed)+len(rep.Removed) != 0 {
		t.Errorf("second adopt: %+v, want 3 unchanged", rep)
	}

	// The writer re-ingests: intro.md changed, api/users.md gone, a new
	// page. adopt updates exactly those; the access of a page it keeps
	// stays without --rules.
	var drop []string
	ids, _ := st.IDs(ctx)
	for _, id := range ids {
		if strings.HasPrefix(id, "intro.md-") || strings.HasPrefix(id, "api/users.md-") {
			drop = append(drop, id)
		}
	}
	if err := st.Delete(ctx, drop); err != nil {
		t.Fatal(err)
	}
	writers["langchain.js"](st, "intro.md", "# Intro\n\nwelcome, changed\n")
	writers["langchain.js"](st, "new.md", "# New\n")
	_, rep = adoptAll(t, st, WriteOptions{})
	if !slices.Equal(rep.Added, []string{"new.md"}) || !slices.Equal(rep.Changed, []string{"intro.md"}) ||
		!slices.Equal(rep.Removed, []string{"api/users.md"}) || !slices.Equal(rep.Unchanged, []string{"guides/auth.md"}) {
		t.Errorf("after re-ingest: %+v", rep)
	}
	got = readBack(t, st)
	if got["intro.md"] != "# Intro\n\nwelcome, changed\n" || len(got) != 3 {
		t.Errorf("read back after re-ingest: %q", got)
	}
}

func TestWriteRefusesIngested(t *testing.T) {
	ctx := context.Background()
	st := memstore.New("ingested")
	if _, err := ingest.Run(ctx, st, mapFS{"a.md": "# A\n"}.fs(), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := Read(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Layout.Name != Chromafs.Name {
		t.Fatalf("layout %s, want chromafs", res.Layout.Name)
	}
	if _, err := Write(ctx, st, res, WriteOptions{}); !errors.Is(err, ErrIngested) {
		t.Errorf("Write over an ingested collection: %v, want ErrIngested", err)
	}
}

// mapFS is a docs folder in memory.
type mapFS map[string]string

func (m mapFS) fs() fstest.MapFS {
	f := fstest.MapFS{}
	for k, v := range m {
		f[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return f
}
