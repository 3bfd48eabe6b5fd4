package ingest

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
)

// readFS checks that fsys serves exactly want: the same files with the
// same contents, and passes fstest.TestFS.
func readFS(t *testing.T, fsys fs.FS, want map[string]string) {
	t.Helper()
	var got []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			got = append(got, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if wantNames := slices.Sorted(maps.Keys(want)); !slices.Equal(got, wantNames) {
		t.Fatalf("files %q, want %q", got, wantNames)
	}
	for name, content := range want {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != content {
			t.Errorf("%s reads %q, want %q", name, data, content)
		}
	}
	if err := fstest.TestFS(fsys, slices.Sorted(maps.Keys(want))...); err != nil {
		t.Fatal(err)
	}
}

func without(m map[string]string, prefix string) map[string]string {
	out := maps.Clone(m)
	maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, prefix) })
	return out
}

var staffRules = "internal/** private groups=staff\n"

// TestThroughFS reads an ingested collection back through chromafs.
func TestThroughFS(t *testing.T) {
	rules, _ := ParseRules(strings.NewReader(staffRules))
	s := memstore.New("c")
	if _, err := Run(ctx, s, mapFS(docs), Options{Rules: rules, MaxChunk: 16, Compressed: true}); err != nil {
		t.Fatal(err)
	}
	staff, err := chromafs.New(ctx, s, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	readFS(t, staff, docs)
	public, err := chromafs.New(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	readFS(t, public, without(docs, "internal/"))
}

// TestChroma ingests into a real Chroma collection through chromastore,
// re-ingests a changed folder, and reads the result through chromafs.
func TestChroma(t *testing.T) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	col := testbackend.Chroma(t)
	if _, err := col.Tree(cctx, collection.DefaultLayout().TreeID); !errors.Is(err, collection.ErrNoTree) {
		t.Fatalf("new collection: Tree = %v, want ErrNoTree", err)
	}

	rules, _ := ParseRules(strings.NewReader(staffRules))
	v1 := maps.Clone(docs)
	v1["big.md"] = strings.Repeat("a line of the big page, with ünïcödé\n", 400) // ~16 KB
	opt := Options{Rules: rules, MaxChunk: 256, Compressed: true, BatchSize: 50}
	r, err := Run(cctx, col, mapFS(v1), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != len(v1) {
		t.Fatalf("first run:\n%s", r)
	}
	tr, err := col.Tree(cctx, collection.DefaultLayout().TreeID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Metadata[MetaWriter] != WriterName || tr.Metadata[MetaLineAligned] != true {
		t.Errorf("tree metadata %v", tr.Metadata)
	}
	fsys, err := chromafs.New(cctx, col, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	readFS(t, fsys, v1)

	v2 := maps.Clone(v1)
	delete(v2, "Makefile")
	v2["big.md"] = "now small\n"
	v2["added.md"] = "added\n"
	r, err = Run(cctx, col, mapFS(v2), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != 1 || r.Updated != 1 || r.Removed != 1 || r.Unchanged != len(v2)-2 || r.Chunks != 2 {
		t.Fatalf("second run:\n%s", r)
	}
	ids, err := col.IDs(cctx)
	if err != nil {
		t.Fatal(err)
	}
	var wantChunks int
	err = col.Scan(cctx, collection.DefaultLayout(), false, func(cs []collection.Chunk) error {
		for _, c := range cs {
			if _, ok := v2[c.Slug]; !ok {
				t.Errorf("stale chunk %s of %q", c.ID, c.Slug)
			}
			wantChunks++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != wantChunks+2 {
		t.Errorf("%d records, want %d chunks, the tree and its index", len(ids), wantChunks)
	}
	fsys, err = chromafs.New(cctx, col, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	readFS(t, fsys, v2)
	public, err := chromafs.New(cctx, col)
	if err != nil {
		t.Fatal(err)
	}
	readFS(t, public, without(v2, "internal/"))
}
