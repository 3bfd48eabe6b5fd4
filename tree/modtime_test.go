package tree_test

import (
	"testing"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// TestDirModTime: a directory's time is the newest time of the files of
// the view below it; hidden files do not count; undated files leave it
// zero.
func TestDirModTime(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	tr := tree.New([]tree.Entry{
		{Slug: "a/x.md", IsPublic: true, Size: -1, ModTime: day(3)},
		{Slug: "a/b/y.md", IsPublic: true, Size: -1, ModTime: day(5)},
		{Slug: "a/b/secret.md", Groups: []string{"staff"}, Size: -1, ModTime: day(20)},
		{Slug: "a/c/z.md", IsPublic: true, Size: -1, ModTime: day(1)},
		{Slug: "undated/u.md", IsPublic: true, Size: -1},
		{Slug: "private/p.md", Groups: []string{"staff"}, Size: -1, ModTime: day(9)},
	})
	for _, tc := range []struct {
		groups []string
		want   map[string]time.Time
	}{
		{nil, map[string]time.Time{".": day(5), "a": day(5), "a/b": day(5), "a/c": day(1), "undated": {}, "a/x.md": day(3)}},
		{[]string{"staff"}, map[string]time.Time{".": day(20), "a": day(20), "a/b": day(20), "a/c": day(1), "undated": {}, "private": day(9)}},
	} {
		v := tr.View(tc.groups)
		for name, want := range tc.want {
			n, ok := v.Lookup(name)
			if !ok {
				t.Fatalf("view %v: no %q", tc.groups, name)
			}
			// Twice: the first call computes, the second reads.
			for range 2 {
				if got := v.ModTime(n); !got.Equal(want) || got.Location() != want.Location() {
					t.Errorf("view %v: ModTime(%q) = %v, want %v", tc.groups, name, got, want)
				}
			}
		}
	}
	if got := tree.New(nil).View(nil).ModTime(mustLookup(t, tree.New(nil).View(nil), ".")); !got.IsZero() {
		t.Errorf("empty tree: root time %v", got)
	}
}

func mustLookup(t *testing.T, v *tree.View, name string) *tree.Node {
	t.Helper()
	n, ok := v.Lookup(name)
	if !ok {
		t.Fatalf("no %q", name)
	}
	return n
}
