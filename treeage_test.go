package chromafs_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/memstore"
)

// TestTreeMaxAge: with WithTreeMaxAge, sessions reuse the tree fetched
// last (no request) while it is young, and see a changed tree once it is
// older; without it, every New sees the current tree.
func TestTreeMaxAge(t *testing.T) {
	ctx := context.Background()
	store := memstore.New(t.Name())
	files := map[string]string{"a.md": "alpha\n"}
	ingested(t, store, files)
	newFS := func(opts ...chromafs.Option) *chromafs.FS {
		t.Helper()
		fsys, err := chromafs.New(ctx, store, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return fsys
	}
	const age = 300 * time.Millisecond
	newFS(chromafs.WithTreeMaxAge(age))
	before := store.Requests().Tree
	for _, groups := range [][]string{nil, {"staff"}, {"a", "b"}} {
		fsys := newFS(chromafs.WithTreeMaxAge(age), chromafs.WithGroups(groups...))
		if got, err := fs.ReadFile(fsys, "a.md"); err != nil || string(got) != files["a.md"] {
			t.Fatalf("ReadFile = %q, %v", got, err)
		}
	}
	if n := store.Requests().Tree - before; n != 0 {
		t.Fatalf("young tree: %d tree requests; want 0", n)
	}

	files["b.md"] = "beta\n"
	ingested(t, store, files)
	if _, err := newFS(chromafs.WithTreeMaxAge(time.Hour)).Stat("b.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("within the max age the old tree should be used: Stat(b.md) = %v", err)
	}
	time.Sleep(age)
	if _, err := newFS(chromafs.WithTreeMaxAge(age)).Stat("b.md"); err != nil {
		t.Fatalf("after the max age the new tree should be used: %v", err)
	}
	files["c.md"] = "gamma\n"
	ingested(t, store, files)
	if _, err := newFS().Stat("c.md"); err != nil {
		t.Fatalf("without a max age New fetches the tree: Stat(c.md) = %v", err)
	}
}
