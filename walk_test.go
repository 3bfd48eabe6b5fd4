package chromafs_test

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/memstore"
)

// plainFS hides every method of an fs.FS but those of fs.FS, fs.StatFS
// and fs.ReadDirFS, so that fs.WalkDir walks it through ReadDir.
type plainFS struct{ fsys *chromafs.FS }

func (p plainFS) Open(name string) (fs.File, error)          { return p.fsys.Open(name) }
func (p plainFS) Stat(name string) (fs.FileInfo, error)      { return p.fsys.Stat(name) }
func (p plainFS) ReadDir(name string) ([]fs.DirEntry, error) { return p.fsys.ReadDir(name) }

// walkLog runs walk with a WalkDirFunc that records every call and
// answers by policy, and returns the calls and walk's error.
func walkLog(walk func(string, fs.WalkDirFunc) error, root string, policy func(n int, name string, d fs.DirEntry) error) []string {
	var log []string
	n := 0
	err := walk(root, func(name string, d fs.DirEntry, err error) error {
		n++
		entry := "<nil>"
		if d != nil {
			entry = fmt.Sprintf("%s dir=%v type=%v", d.Name(), d.IsDir(), d.Type())
		}
		log = append(log, fmt.Sprintf("%s [%s] err=%v", name, entry, err))
		if err != nil {
			return err
		}
		return policy(n, name, d)
	})
	return append(log, fmt.Sprintf("returned %v", err))
}

// TestWalkDir checks that FS.WalkDir calls its function exactly as
// fs.WalkDir does over the same view through ReadDir: every view
// (public, staff, a Sub), roots that are the root, a directory, a file,
// missing or invalid, and functions that skip directories, skip the rest
// of a directory from a file, or stop.
func TestWalkDir(t *testing.T) {
	store := newMem(t, corpus(t), memstore.LoadOptions{ChunkSize: 64})
	public := mustNew(t, store)
	staff := mustNew(t, store, chromafs.WithGroups("staff"))
	sub, err := staff.Sub("guides")
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]*chromafs.FS{"public": public, "staff": staff, "sub": sub.(*chromafs.FS)}
	policies := map[string]func(n int, name string, d fs.DirEntry) error{
		"all": func(int, string, fs.DirEntry) error { return nil },
		"skip every third dir": func(n int, _ string, d fs.DirEntry) error {
			if d.IsDir() && n%3 == 0 {
				return fs.SkipDir
			}
			return nil
		},
		"skip the rest after a file": func(n int, _ string, d fs.DirEntry) error {
			if !d.IsDir() && n%4 == 0 {
				return fs.SkipDir
			}
			return nil
		},
		"stop at the tenth": func(n int, _ string, _ fs.DirEntry) error {
			if n == 10 {
				return fs.SkipAll
			}
			return nil
		},
		"fail at the seventh": func(n int, _ string, _ fs.DirEntry) error {
			if n == 7 {
				return fs.ErrPermission
			}
			return nil
		},
		"skip the root": func(n int, _ string, _ fs.DirEntry) error {
			if n == 1 {
				return fs.SkipDir
			}
			return nil
		},
	}
	roots := []string{".", "guides", "internal", "deep/a", "i18n/café", "guides/nope", "a/", "..", ""}
	for vname, fsys := range views {
		entries, err := fs.ReadDir(fsys, ".")
		if err != nil || len(entries) == 0 {
			t.Fatalf("%s: ReadDir(.) = %d entries, %v", vname, len(entries), err)
		}
		for _, e := range entries { // a file of each view as a root
			if !e.IsDir() {
				roots = append(roots, e.Name())
				break
			}
		}
		for _, root := range roots {
			for pname, policy := range policies {
				got := walkLog(fsys.WalkDir, root, policy)
				want := walkLog(func(root string, fn fs.WalkDirFunc) error { return fs.WalkDir(plainFS{fsys}, root, fn) }, root, policy)
				if !slices.Equal(got, want) {
					t.Errorf("%s: WalkDir(%q), %s:\n got %s\nwant %s", vname, root, pname, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
				}
			}
		}
	}
	// The walks above cover hidden pages: the public view has fewer.
	if a, b := len(walkLog(public.WalkDir, ".", policies["all"])), len(walkLog(staff.WalkDir, ".", policies["all"])); a >= b {
		t.Errorf("public walk has %d calls, staff %d: want fewer", a, b)
	}
}
