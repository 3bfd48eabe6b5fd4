package chromafs_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/memstore"
)

// corpus is the docs tree the conformance tests serve (package
// internal/testcorpus, shared with the adapters' tests); access its rule,
// foreign and ingested its two writers.
var (
	corpus   = testcorpus.Files
	access   = testcorpus.Access
	foreign  = testcorpus.Foreign
	ingested = testcorpus.Ingest
)

// visible returns the corpus files a user with groups may see.
func visible(files map[string]string, groups []string) map[string]string {
	return testcorpus.Visible(files, groups...)
}

type target interface {
	collection.Store
	collection.Writer
}

var writers = []struct {
	name  string
	write func(testing.TB, ingest.Target, map[string]string)
}{
	{"ingest", ingested},
	{"sharded", testcorpus.IngestSharded},
	{"foreign", func(t testing.TB, dst ingest.Target, files map[string]string) { foreign(t, dst, files) }},
}

// TestFS runs testing/fstest on every view — full (staff), pruned (public),
// Sub and empty — for each backend and each writer, and checks that every
// visible file reads back byte for byte and every hidden one does not
// exist.
func TestFS(t *testing.T) {
	files := corpus(t)
	for _, b := range testbackend.Backends() {
		for _, w := range writers {
			t.Run(b.Name+"/"+w.name, func(t *testing.T) {
				store := b.New(t)
				w.write(t, store, files)
				ctx := context.Background()
				for _, view := range []struct {
					name   string
					groups []string
				}{{"staff", []string{"staff"}}, {"public", nil}, {"other", []string{"sales"}}} {
					t.Run(view.name, func(t *testing.T) {
						fsys, err := chromafs.New(ctx, store, chromafs.WithGroups(view.groups...))
						if err != nil {
							t.Fatal(err)
						}
						want := visible(files, view.groups)
						checkView(t, fsys, want)
						checkHidden(t, fsys, files, want)
						sub, err := fs.Sub(fsys, "guides")
						if err != nil {
							t.Fatal(err)
						}
						if err := fstest.TestFS(sub, "quickstart.md", "auth/oauth.mdx"); err != nil {
							t.Errorf("Sub(guides): %v", err)
						}
					})
				}
			})
		}
	}
}

func checkView(t *testing.T, fsys fs.FS, want map[string]string) {
	t.Helper()
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	if err := fstest.TestFS(fsys, names...); err != nil {
		t.Fatal(err)
	}
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
	if !slices.Equal(got, names) {
		t.Fatalf("WalkDir files = %q\nwant %q", got, names)
	}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatalf("ReadFile(%q): %v", name, err)
		}
		if !bytes.Equal(data, []byte(want[name])) {
			t.Fatalf("ReadFile(%q) = %q\nwant %q", name, data, want[name])
		}
		fi, err := fs.Stat(fsys, name)
		if err != nil || fi.Size() != int64(len(want[name])) {
			t.Fatalf("Stat(%q) = %v, %v; want size %d", name, fi, err, len(want[name]))
		}
	}
}

// checkHidden asserts that every page outside the view, and every
// directory holding only such pages, behaves like a missing file.
func checkHidden(t *testing.T, fsys fs.FS, all, want map[string]string) {
	t.Helper()
	hiddenDirs := map[string]bool{}
	for slug := range all {
		if _, ok := want[slug]; ok {
			continue
		}
		for d := path.Dir(slug); d != "."; d = path.Dir(d) {
			hiddenDirs[d] = true
		}
		assertNotExist(t, fsys, slug)
	}
	for slug := range want {
		for d := path.Dir(slug); d != "."; d = path.Dir(d) {
			delete(hiddenDirs, d)
		}
	}
	for d := range hiddenDirs {
		assertNotExist(t, fsys, d)
		if m, err := fs.Glob(fsys, d+"/*"); err != nil || len(m) != 0 {
			t.Errorf("Glob(%q/*) = %q, %v; want nothing", d, m, err)
		}
	}
}

func assertNotExist(t *testing.T, fsys fs.FS, name string) {
	t.Helper()
	if _, err := fsys.Open(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(%q) error = %v; want fs.ErrNotExist", name, err)
	}
	if _, err := fs.Stat(fsys, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(%q) error = %v; want fs.ErrNotExist", name, err)
	}
	if _, err := fs.ReadFile(fsys, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(%q) error = %v; want fs.ErrNotExist", name, err)
	}
	if _, err := fs.ReadDir(fsys, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(%q) error = %v; want fs.ErrNotExist", name, err)
	}
	if m, err := fs.Glob(fsys, name); err != nil || len(m) != 0 {
		t.Errorf("Glob(%q) = %q, %v; want nothing", name, m, err)
	}
}

// TestEmptyView: a collection whose every page is private is an empty
// directory for a user without groups.
func TestEmptyView(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			mem := memstore.New("private")
			err := memstore.Load(mem, collection.DefaultLayout(), map[string]string{"a/b.md": "x", "c.md": "y"},
				memstore.LoadOptions{Access: func(string) (bool, []string) { return false, []string{"staff"} }})
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Upsert(context.Background(), mem.Records()); err != nil {
				t.Fatal(err)
			}
			fsys, err := chromafs.New(context.Background(), store)
			if err != nil {
				t.Fatal(err)
			}
			if err := fstest.TestFS(fsys); err != nil {
				t.Fatal(err)
			}
			entries, err := fs.ReadDir(fsys, ".")
			if err != nil || len(entries) != 0 {
				t.Fatalf("ReadDir(.) = %v, %v; want empty", entries, err)
			}
			assertNotExist(t, fsys, "a")
			assertNotExist(t, fsys, "c.md")
		})
	}
}
