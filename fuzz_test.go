package chromafs_test

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/memstore"
)

// FuzzPaths: no name or pattern makes the filesystem panic; an invalid
// name is fs.ErrInvalid; a valid name either exists or is fs.ErrNotExist;
// a hidden page is never reachable; Glob agrees with path.Match's errors.
func FuzzPaths(f *testing.F) {
	for _, s := range []string{".", "a", "guides/quickstart.md", "/a", "a//b", "a/../b", `a\b`, "internal/oncall.md", "internal", "*", "[", "guides/*/*.md", "\x00", "é/ü"} {
		f.Add(s)
	}
	files := map[string]string{
		"guides/quickstart.md":  "# Quickstart\n",
		"guides/auth/oauth.mdx": "# OAuth\n",
		"internal/oncall.md":    "secret\n",
		"index.md":              "# Index\n",
	}
	fsys := mustNew(f, newMem(f, files, memstore.LoadOptions{ChunkSize: 3}))
	oracle := fstest.MapFS{}
	for name, content := range files {
		if _, ok := visible(files, nil)[name]; ok {
			oracle[name] = &fstest.MapFile{Data: []byte(content)}
		}
	}
	f.Fuzz(func(t *testing.T, name string) {
		_, err := fsys.Open(name)
		switch {
		case !fs.ValidPath(name):
			if !errors.Is(err, fs.ErrInvalid) {
				t.Fatalf("Open(%q) error = %v; want fs.ErrInvalid", name, err)
			}
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			t.Fatalf("Open(%q) error = %v; want nil or fs.ErrNotExist", name, err)
		}
		if name == "internal" || (len(name) > 9 && name[:9] == "internal/") {
			if err == nil {
				t.Fatalf("Open(%q) reached a hidden path", name)
			}
		}
		if _, err := fsys.Stat(name); err == nil && !fs.ValidPath(name) {
			t.Fatalf("Stat(%q) succeeded on an invalid path", name)
		}
		// fs.Glob on a MapFS of the visible files is the oracle.
		matches, gerr := fsys.Glob(name)
		want, werr := oracle.Glob(name)
		if (gerr != nil) != (werr != nil) || !slices.Equal(matches, want) {
			t.Fatalf("Glob(%q) = %q, %v; fs.Glob on the visible files = %q, %v", name, matches, gerr, want, werr)
		}
	})
}
