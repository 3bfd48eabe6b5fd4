package gen_test

import (
	"context"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

func TestPagesShape(t *testing.T) {
	const n = 5000
	pages := gen.Pages(n, 1)
	if len(pages) != n {
		t.Fatalf("len = %d, want %d", len(pages), n)
	}
	// Determinism and the seed on a smaller site: generating 5,000 pages
	// twice more costs two CPU seconds under -race, and what could make
	// the generator differ between runs (map order, shared state) shows
	// at any size.
	const m = 500
	if small := gen.Pages(m, 1); !maps.Equal(small, gen.Pages(m, 1)) {
		t.Fatal("Pages is not deterministic")
	} else if maps.Equal(small, gen.Pages(m, 2)) {
		t.Fatal("the seed changes nothing")
	}
	var total, private, wide int
	depths := map[int]int{}
	for slug, c := range pages {
		if reason := tree.New([]tree.Entry{{Slug: slug}}).Problems(); len(reason) > 0 {
			t.Fatalf("bad slug: %v", reason)
		}
		if len(c) < 2 || !strings.HasSuffix(c, "\n") {
			t.Fatalf("%s: content %q does not end in a newline", slug, c)
		}
		for l := range strings.Lines(c) {
			if len(l) > 120 {
				t.Fatalf("%s: line of %d bytes", slug, len(l))
			}
		}
		total += len(c)
		if pub, _ := gen.Access(slug); !pub {
			private++
		}
		if path.Dir(slug) == gen.WideDir {
			wide++
		}
		depths[strings.Count(slug, "/")+1]++
	}
	if mean := total / n; mean < 3500 || mean > 4700 {
		t.Errorf("mean page size = %d, want about 4 KB", mean)
	}
	if private != n/10 {
		t.Errorf("%d private pages, want %d", private, n/10)
	}
	if wide < n/50 {
		t.Errorf("%d pages in %s, want at least %d", wide, gen.WideDir, n/50)
	}
	for d := 1; d <= 5; d++ {
		if depths[d] == 0 {
			t.Errorf("no page at depth %d: %v", d, depths)
		}
	}
	if len(depths) != 5 {
		t.Errorf("depths = %v, want 1 to 5", depths)
	}
	large := gen.Large(n)
	if len(large) != 5 {
		t.Fatalf("Large = %q", large)
	}
	for _, slug := range large {
		if len(pages[slug]) != gen.LargeSize {
			t.Errorf("%s: %d bytes, want %d", slug, len(pages[slug]), gen.LargeSize)
		}
		if pub, _ := gen.Access(slug); !pub {
			t.Errorf("%s is private", slug)
		}
	}
}

func TestPagesSmall(t *testing.T) {
	for _, n := range []int{0, 1, 2, 10, 99} {
		if got := len(gen.Pages(n, 7)); got != n {
			t.Errorf("len(Pages(%d)) = %d", n, got)
		}
	}
}

// TestWriteReadBack writes a site into a memstore and reads every page
// back through chromafs.
func TestWriteReadBack(t *testing.T) {
	ctx := context.Background()
	pages := gen.Pages(300, 3)
	st := memstore.New("gen")
	stats, err := gen.Write(ctx, st, pages, gen.Options{BatchSize: 64, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Pages != len(pages) || stats.Chunks+2 != st.Len() { // the chunks, the tree and its index
		t.Fatalf("stats = %+v, store has %d records", stats, st.Len())
	}
	rec, ok := st.Get(collection.DefaultLayout().TreeID)
	if !ok || rec.Metadata["_system"] != true || !rec.System {
		t.Fatalf("tree record = %+v, %v", rec.Metadata, ok)
	}
	if strings.HasPrefix(rec.Document, "{") {
		t.Fatal("tree is not compressed")
	}
	for _, c := range st.Records() {
		if c.System { // the tree and its index
			continue
		}
		if len(c.Document) > 1024 || !strings.HasSuffix(c.Document, "\n") {
			t.Fatalf("chunk %s: %d bytes, not cut at a line end", c.ID, len(c.Document))
		}
	}
	for _, groups := range [][]string{nil, {gen.PrivateGroup}} {
		fsys, err := chromafs.New(ctx, st, chromafs.WithGroups(groups...))
		if err != nil {
			t.Fatal(err)
		}
		if p := fsys.Problems(); len(p) > 0 {
			t.Fatalf("problems: %v", p)
		}
		n := 0
		err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n++
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			if string(data) != pages[p] {
				t.Errorf("%s differs", p)
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if fi.ModTime().IsZero() || fi.Size() != int64(len(data)) {
				t.Errorf("%s: %v", p, fi)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := len(pages)
		if groups == nil {
			want -= len(pages) / 10
		}
		if n != want {
			t.Errorf("groups %v: %d files, want %d", groups, n, want)
		}
	}
}

func BenchmarkPages(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		gen.Pages(10_000, 1)
	}
}

func BenchmarkWriteMemstore(b *testing.B) {
	pages := gen.Pages(10_000, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gen.Write(context.Background(), memstore.New("b"), pages, gen.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWords: Words gives n distinct 12-letter lowercase words, the same
// for the same n and stream, others for another stream.
func TestWords(t *testing.T) {
	for _, n := range []int{0, 1, 500} {
		w := gen.Words(n, 5)
		if len(w) != n {
			t.Fatalf("Words(%d): %d words", n, len(w))
		}
		seen := map[string]bool{}
		for _, s := range w {
			if len(s) != 12 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") != "" || seen[s] {
				t.Fatalf("Words(%d): bad or repeated word %q", n, s)
			}
			seen[s] = true
		}
		if !slices.Equal(w, gen.Words(n, 5)) {
			t.Errorf("Words(%d, 5) differs between calls", n)
		}
		if n > 0 && slices.Equal(w, gen.Words(n, 3)) {
			t.Errorf("Words(%d, 3) = Words(%d, 5)", n, n)
		}
	}
}
