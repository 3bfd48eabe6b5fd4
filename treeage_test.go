package chromafs_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
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

// TestTreeVersionMarker: after chromafs ingest, the collection's metadata
// names the tree's version, and a new session checks it (one metadata
// request) instead of fetching the tree record; a re-ingest changes it,
// and the next session sees the new tree. On Chroma as in memory.
func TestTreeVersionMarker(t *testing.T) {
	ctx := context.Background()
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			files := map[string]string{"a.md": "alpha\n"}
			ingested(t, store, files)
			tv, ok := store.(collection.TreeVersioner)
			if !ok {
				t.Fatalf("%T does not implement TreeVersioner", store)
			}
			rec, err := store.Tree(ctx, collection.DefaultLayout().TreeID)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := tv.TreeVersion(ctx); err != nil || v != collection.TreeVersionOf(rec.Document) {
				t.Fatalf("TreeVersion = %q, %v; want %q", v, err, collection.TreeVersionOf(rec.Document))
			}
			first, err := chromafs.New(ctx, store)
			if err != nil {
				t.Fatal(err)
			}
			if first.TreeVersion() != collection.TreeVersionOf(rec.Document) {
				t.Fatalf("FS.TreeVersion = %q", first.TreeVersion())
			}
			if mem, ok := store.(*memstore.Store); ok {
				before := mem.Requests()
				if _, err := chromafs.New(ctx, store); err != nil {
					t.Fatal(err)
				}
				after := mem.Requests()
				if after.Tree != before.Tree || after.Metadata != before.Metadata+1 {
					t.Fatalf("second session: %d tree and %d metadata requests; want 0 and 1",
						after.Tree-before.Tree, after.Metadata-before.Metadata)
				}
			}
			files["b.md"] = "beta\n"
			ingested(t, store, files)
			second, err := chromafs.New(ctx, store)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := second.Stat("b.md"); err != nil || second.TreeVersion() == first.TreeVersion() {
				t.Fatalf("after a re-ingest: Stat(b.md) = %v, version %s (was %s)", err, second.TreeVersion(), first.TreeVersion())
			}
		})
	}
}
