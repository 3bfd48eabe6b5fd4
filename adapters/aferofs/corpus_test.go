package aferofs_test

// The corpus and its loaders follow the root package's fstest_test.go.

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// corpus is examples/docs plus edge cases: empty, dotfile, extensionless,
// deep, unicode names, a page of many chunks, staff-only pages.
func corpus(t testing.TB) map[string]string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(root, "examples", "docs")
	files := map[string]string{}
	err = fs.WalkDir(os.DirFS(docs), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join(docs, filepath.FromSlash(p)))
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	files["empty.md"] = ""
	files[".well-known/security.txt"] = "Contact: security@acme.example\n"
	files["deep/a/b/c/d/leaf.md"] = "# Leaf\nfive levels down\n"
	files["i18n/café/résumé.md"] = "# Résumé\nnaïve café\n"
	files["api/users"] = "no extension\n"
	files["internal/secret/plan.md"] = "# Plan\nthe access_token rotation plan\n"
	var big strings.Builder
	for i := range 400 {
		big.WriteString(strings.Repeat("line ", i%17))
		big.WriteString("end\n")
	}
	files["reference/big.md"] = big.String()
	return files
}

// access: internal/ is for staff only.
func access(slug string) (bool, []string) {
	if strings.HasPrefix(slug, "internal/") {
		return false, []string{"staff"}
	}
	return true, nil
}

// visible returns the files a user without groups may see.
func visible(files map[string]string) map[string]string {
	out := map[string]string{}
	for slug, content := range files {
		if pub, _ := access(slug); pub {
			out[slug] = content
		}
	}
	return out
}

// hiddenDirs returns the directories that hold only hidden pages.
func hiddenDirs(files, want map[string]string) []string {
	dirs := map[string]bool{}
	for slug := range files {
		if _, ok := want[slug]; !ok {
			for d := path.Dir(slug); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
	}
	for slug := range want {
		for d := path.Dir(slug); d != "."; d = path.Dir(d) {
			delete(dirs, d)
		}
	}
	out := make([]string, 0, len(dirs))
	for d := range dirs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// foreign loads files as other writers do: chunks cut mid-line, shuffled,
// a compressed tree without sizes or hashes.
func foreign(t testing.TB, dst chromafs.Writer, files map[string]string) {
	t.Helper()
	mem := memstore.New("foreign")
	err := memstore.Load(mem, chromafs.DefaultLayout, files, memstore.LoadOptions{
		ChunkSize:  97,
		Shuffle:    rand.New(rand.NewPCG(1, 2)),
		Access:     access,
		Compressed: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Upsert(context.Background(), mem.Records()); err != nil {
		t.Fatal(err)
	}
}

// ingested loads files with chromafs's own ingest (sizes, hashes).
func ingested(t testing.TB, dst ingest.Target, files map[string]string) {
	t.Helper()
	src := fstest.MapFS{}
	for slug, content := range files {
		src[slug] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	rules, err := ingest.ParseRules(strings.NewReader("** public\ninternal/** private groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), dst, src, ingest.Options{Rules: rules, MaxChunk: 256, Compressed: true}); err != nil {
		t.Fatal(err)
	}
}

type target interface {
	chromafs.Store
	chromafs.Writer
}

// views returns, for each backend (memstore, real Chroma) and writer
// (ingest, foreign), a public view of files.
func views(t *testing.T, files map[string]string) []struct {
	name string
	fsys *chromafs.FS
} {
	t.Helper()
	type backend struct {
		name string
		new  func() target
	}
	backends := []backend{
		{"memstore", func() target { return memstore.New(t.Name()) }},
		{"chroma", func() target {
			srv := testenv.Chroma(t)
			c, err := chromastore.Open(context.Background(), chromastore.Config{
				URL: srv.URL, Collection: testenv.CollectionName(t), Create: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}},
	}
	var out []struct {
		name string
		fsys *chromafs.FS
	}
	for _, b := range backends {
		for _, w := range []struct {
			name  string
			write func(testing.TB, target, map[string]string)
		}{
			{"ingest", func(t testing.TB, d target, f map[string]string) { ingested(t, d, f) }},
			{"foreign", func(t testing.TB, d target, f map[string]string) { foreign(t, d, f) }},
		} {
			store := b.new()
			w.write(t, store, files)
			fsys, err := chromafs.New(context.Background(), store)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, struct {
				name string
				fsys *chromafs.FS
			}{b.name + "/" + w.name, fsys})
		}
	}
	return out
}
