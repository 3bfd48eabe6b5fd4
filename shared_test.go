package chromafs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// sharedFiles is a small site for the Shared tests.
var sharedFiles = map[string]string{
	"index.md":          "# home\n",
	"guides/start.md":   "start here\n",
	"guides/deep/x.txt": "deep\n",
}

// TestSharedReusesParsedTrees: the sessions of one Shared parse a tree
// version once, whatever their groups; another Shared parses it again;
// Drop forgets one collection (its parsed tree and its last fetch, which
// WithTreeMaxAge reuses) and Reset everything.
func TestSharedReusesParsedTrees(t *testing.T) {
	ctx := context.Background()
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			target := b.New(t)
			ingested(t, target, sharedFiles)
			store := &treeCounter{Store: target}
			sh := chromafs.NewShared(0)
			with := chromafs.WithShared(sh)
			for _, groups := range [][]string{nil, {"staff"}, nil} {
				fsys, err := chromafs.New(ctx, store, with, chromafs.WithGroups(groups...))
				if err != nil {
					t.Fatal(err)
				}
				if got, err := fs.ReadFile(fsys, "guides/start.md"); err != nil || string(got) != sharedFiles["guides/start.md"] {
					t.Fatalf("ReadFile = %q, %v", got, err)
				}
			}
			if got := chromafs.TreeParses(sh); got != 1 || store.calls.Load() != 3 {
				t.Fatalf("3 News: %d parses, %d tree fetches; want 1, 3", got, store.calls.Load())
			}

			other := chromafs.NewShared(0)
			mustNew(t, store, chromafs.WithShared(other))
			if chromafs.TreeParses(other) != 1 || chromafs.TreeParses(sh) != 1 {
				t.Fatalf("a second Shared: %d parses there, %d in the first; want 1, 1", chromafs.TreeParses(other), chromafs.TreeParses(sh))
			}

			// The last fetch is reused within WithTreeMaxAge, until Drop.
			age := chromafs.WithTreeMaxAge(time.Hour)
			mustNew(t, store, with, age)
			calls := store.calls.Load()
			mustNew(t, store, with, age)
			if store.calls.Load() != calls {
				t.Fatalf("New within WithTreeMaxAge fetched the tree")
			}
			sh.Drop("not-" + store.CollectionID())
			mustNew(t, store, with, age)
			if store.calls.Load() != calls || chromafs.TreeParses(sh) != 1 {
				t.Fatalf("Drop of another collection: %d tree fetches, %d parses; want %d, 1", store.calls.Load(), chromafs.TreeParses(sh), calls)
			}
			sh.Drop(store.CollectionID())
			mustNew(t, store, with, age)
			if store.calls.Load() != calls+1 || chromafs.TreeParses(sh) != 2 {
				t.Fatalf("after Drop: %d tree fetches, %d parses; want %d, 2", store.calls.Load(), chromafs.TreeParses(sh), calls+1)
			}
			sh.Reset()
			mustNew(t, store, with, age)
			if store.calls.Load() != calls+2 || chromafs.TreeParses(sh) != 3 {
				t.Fatalf("after Reset: %d tree fetches, %d parses; want %d, 3", store.calls.Load(), chromafs.TreeParses(sh), calls+2)
			}
			if chromafs.TreeParses(other) != 1 {
				t.Fatalf("Drop and Reset of one Shared made the other parse again")
			}
		})
	}
}

// TestSharedBound: the trees a Shared keeps stay within their part of its
// bound (8/9 of what NewShared is given); a tree heavier than that is
// never kept, so each New parses it and WithTreeMaxAge has nothing to
// reuse; sessions keep their tree.
func TestSharedBound(t *testing.T) {
	stores := make([]*treeCounter, 4)
	for i := range stores {
		s := memstore.New(fmt.Sprintf("%s-%d", t.Name(), i))
		ingested(t, s, sharedFiles)
		stores[i] = &treeCounter{Store: s}
	}

	big := chromafs.NewShared(0)
	mustNew(t, stores[0], chromafs.WithShared(big))
	w := chromafs.TreeBytes(big)
	if w == 0 {
		t.Fatal("a kept tree weighs nothing")
	}

	// Room for one and a half trees: never more than that is kept.
	sh := chromafs.NewShared(int64(w * 3 / 2 * 9 / 8))
	for _, s := range stores {
		mustNew(t, s, chromafs.WithShared(sh))
		if got := chromafs.TreeBytes(sh); got < w || got > w*3/2 {
			t.Fatalf("%d bytes of trees kept; want one tree of %d within the bound %d", got, w, w*3/2)
		}
	}

	// Less room than one tree: none is kept.
	tiny := chromafs.NewShared(int64((w - 1) * 9 / 8))
	age := chromafs.WithTreeMaxAge(time.Hour)
	var sessions []*chromafs.FS
	for i := range 3 {
		sessions = append(sessions, mustNew(t, stores[1], chromafs.WithShared(tiny), age))
		if got := chromafs.TreeParses(tiny); got != int64(i+1) {
			t.Fatalf("New %d over the bound: %d parses; want %d", i+1, got, i+1)
		}
	}
	if got := stores[1].calls.Load(); got != 3+1 {
		t.Fatalf("%d tree fetches; want 4 (every New over the bound, and the one of the first Shared)", got)
	}
	if got := chromafs.TreeBytes(tiny); got != 0 {
		t.Fatalf("%d bytes of trees kept over the bound; want 0", got)
	}
	for _, fsys := range sessions {
		if got, err := fs.ReadFile(fsys, "index.md"); err != nil || string(got) != sharedFiles["index.md"] {
			t.Fatalf("a session whose tree was not kept: ReadFile = %q, %v", got, err)
		}
	}
}

// TestSharedDropForgetsFailure: a tree failure is remembered for its
// backoff, so a fixed tree is not seen until it ends; Drop forgets it.
func TestSharedDropForgetsFailure(t *testing.T) {
	ctx := context.Background()
	store := memstore.New(t.Name())
	if err := store.Upsert(ctx, []collection.Record{treeRecord(`{"../bad": {"isPublic": true}}`)}); err != nil {
		t.Fatal(err)
	}
	sh := chromafs.NewShared(0)
	chromafs.SetTreeRetry(sh, time.Hour, time.Hour)
	with := chromafs.WithShared(sh)
	if _, err := chromafs.New(ctx, store, with); !errors.Is(err, tree.ErrNoEntries) {
		t.Fatalf("New on a tree without valid entries: %v", err)
	}
	doc, err := tree.Encode([]tree.Entry{{Slug: "a.md", IsPublic: true, Size: -1}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Upsert(ctx, append(recs("a.md", 0), treeRecord(string(doc)))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromafs.New(ctx, store, with); !errors.Is(err, tree.ErrNoEntries) {
		t.Fatalf("New within the backoff: %v; want the remembered failure", err)
	}
	// Another Shared never saw the failure.
	mustNew(t, store, chromafs.WithShared(chromafs.NewShared(0)))
	sh.Drop(store.CollectionID())
	fsys := mustNew(t, store, with)
	if got, err := fs.ReadFile(fsys, "a.md"); err != nil || string(got) != "c0" {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
}

// TestSharedConcurrent runs News of several collections on one Shared
// while it drops and resets them (for the race detector): every New
// succeeds and sees its own collection.
func TestSharedConcurrent(t *testing.T) {
	ctx := context.Background()
	sh := chromafs.NewShared(0)
	var stores []*memstore.Store
	for i := range 3 {
		s := memstore.New(fmt.Sprintf("%s-%d", t.Name(), i))
		files := map[string]string{fmt.Sprintf("only-%d.md", i): "x\n"}
		ingested(t, s, files)
		stores = append(stores, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				k := (g + i) % len(stores)
				fsys, err := chromafs.New(ctx, stores[k], chromafs.WithShared(sh), chromafs.WithTreeMaxAge(time.Duration(i%2)*time.Hour))
				if err == nil {
					_, err = fs.ReadFile(fsys, fmt.Sprintf("only-%d.md", k))
				}
				if err != nil {
					errs <- err
					return
				}
				switch i % 7 {
				case 3:
					sh.Drop(stores[k].CollectionID())
				case 6:
					sh.Reset()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
