package chromafs_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// bombDoc returns a gzip+base64 tree document that inflates to "{", n
// spaces and "}".
func bombDoc(t testing.TB, n int) string {
	t.Helper()
	return base64.StdEncoding.EncodeToString(testenv.GzipPadded(n, "{", "", "}"))
}

// treeCounter counts a store's Tree calls.
type treeCounter struct {
	collection.Store
	calls atomic.Int64
}

func (c *treeCounter) Tree(ctx context.Context, id string) (collection.TreeRecord, error) {
	c.calls.Add(1)
	return c.Store.Tree(ctx, id)
}

func treeRecord(doc string) collection.Record {
	return collection.Record{ID: collection.DefaultLayout().TreeID, Document: doc, System: true, Metadata: map[string]any{"_system": true}}
}

// TestTreeBomb: a tree record that inflates to 64 MiB of white space
// fails fast, with little memory, wrapping tree.ErrTooLarge; the failure
// is remembered, so further News neither fetch nor parse it until the
// backoff ends, and then fetch but do not parse it again while it is
// unchanged; a fixed tree is served after the backoff, which doubled.
// The backoff is a minute and its passing is simulated (PassTreeRetry),
// so that no wait of the test depends on the machine's speed.
func TestTreeBomb(t *testing.T) {
	bomb := bombDoc(t, 64<<20)
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sh := chromafs.NewShared(0)
			chromafs.SetTreeRetry(sh, time.Minute, 10*time.Minute)
			target := b.New(t)
			ctx := context.Background()
			if err := target.Upsert(ctx, []collection.Record{treeRecord(bomb)}); err != nil {
				t.Fatal(err)
			}
			store := &treeCounter{Store: target}
			parses := chromafs.TreeParses(sh)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := chromafs.New(ctx, store, chromafs.WithShared(sh))
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tree.ErrTooLarge) || !errors.Is(err, tree.ErrMalformed) {
				t.Fatalf("New on a bomb: %v; want tree.ErrTooLarge", err)
			}
			t.Logf("New on a %d-byte record inflating to 64 MiB: %v, %d bytes allocated", len(bomb), elapsed, after.TotalAlloc-before.TotalAlloc)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("New allocated %d bytes", alloc)
			}
			if got := chromafs.TreeParses(sh) - parses; got != 1 || store.calls.Load() != 1 {
				t.Fatalf("%d parses, %d Tree calls; want 1, 1", got, store.calls.Load())
			}
			// Remembered: no request, no parse, the same error.
			for range 3 {
				if _, err2 := chromafs.New(ctx, store, chromafs.WithShared(sh)); err2 == nil || err2.Error() != err.Error() {
					t.Fatalf("New within the backoff: %v; want %v", err2, err)
				}
			}
			if got := chromafs.TreeParses(sh) - parses; got != 1 || store.calls.Load() != 1 {
				t.Fatalf("within the backoff: %d parses, %d Tree calls; want 1, 1", got, store.calls.Load())
			}
			// After the backoff: fetched again, recognised, not parsed.
			chromafs.PassTreeRetry(sh, time.Minute)
			if _, err := chromafs.New(ctx, store, chromafs.WithShared(sh)); !errors.Is(err, tree.ErrTooLarge) {
				t.Fatalf("New after the backoff: %v", err)
			}
			if got := chromafs.TreeParses(sh) - parses; got != 1 || store.calls.Load() != 2 {
				t.Fatalf("after the backoff: %d parses, %d Tree calls; want 1, 2", got, store.calls.Load())
			}
			// The backoff doubled (2 minutes): a fixed tree is seen once
			// it ends.
			doc, err := tree.Encode([]tree.Entry{{Slug: "a.md", IsPublic: true, Size: -1}}, true)
			if err != nil {
				t.Fatal(err)
			}
			recs := append(recs("a.md", 0), treeRecord(string(doc)))
			if err := target.Upsert(ctx, recs); err != nil {
				t.Fatal(err)
			}
			chromafs.PassTreeRetry(sh, time.Minute+time.Second)
			if _, err := chromafs.New(ctx, store, chromafs.WithShared(sh)); !errors.Is(err, tree.ErrTooLarge) {
				t.Fatalf("New within the doubled backoff: %v", err)
			}
			chromafs.PassTreeRetry(sh, time.Minute)
			fsys, err := chromafs.New(ctx, store, chromafs.WithShared(sh))
			if err != nil {
				t.Fatalf("New after the tree was fixed: %v", err)
			}
			if got, err := fs.ReadFile(fsys, "a.md"); err != nil || string(got) != "c0" {
				t.Fatalf("ReadFile = %q, %v", got, err)
			}
		})
	}
}

// TestTreeNoEntries: a tree whose entries are all invalid is an error
// naming them, not an empty filesystem.
func TestTreeNoEntries(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			target := b.New(t)
			if err := target.Upsert(context.Background(), []collection.Record{treeRecord(`{"../etc/passwd": {"isPublic": true}}`)}); err != nil {
				t.Fatal(err)
			}
			_, err := chromafs.New(context.Background(), target, chromafs.WithShared(chromafs.NewShared(0)))
			if !errors.Is(err, tree.ErrNoEntries) || !strings.Contains(err.Error(), "../etc/passwd") {
				t.Fatalf("New = %v; want tree.ErrNoEntries naming the slug", err)
			}
		})
	}
}

// TestStaleTree stops a real Chroma: with WithStaleTree, New serves the
// tree fetched last, cached pages read, an uncached one fails with the
// network error (fscap.IsUnavailable, never ErrNotExist), one warning is
// logged per episode; without it, or past maxStale, New fails with an
// error that fscap.IsUnavailable reports.
func TestStaleTree(t *testing.T) {
	sh := chromafs.NewShared(0)
	srv := testenv.NewChroma(t)
	files := corpus(t)
	coll := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL})
	ingested(t, coll, files)
	ctx := context.Background()
	cache := cachepkg.NewMemory(0)
	var logs testenv.LogBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	opts := []chromafs.Option{chromafs.WithShared(sh), chromafs.WithStaleTree(time.Minute), chromafs.WithCache(cache), chromafs.WithLogger(logger)}
	fsys, err := chromafs.New(ctx, coll, opts...)
	if err != nil {
		t.Fatal(err)
	}
	const cached, uncached = "guides/quickstart.md", "reference/big.md"
	if _, err := fs.ReadFile(fsys, cached); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = chromafs.New(ctx, coll, chromafs.WithShared(sh), chromafs.WithCache(cache))
	if !fscap.IsUnavailable(err) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("New without WithStaleTree, Chroma down: %v; want an unavailable error", err)
	}
	for i := range 3 {
		stale, err := chromafs.New(ctx, coll, opts...)
		if err != nil {
			t.Fatalf("New %d with WithStaleTree, Chroma down: %v", i, err)
		}
		if stale.TreeVersion() != fsys.TreeVersion() {
			t.Fatalf("stale tree version %s, want %s", stale.TreeVersion(), fsys.TreeVersion())
		}
		if got, err := fs.ReadFile(stale, cached); err != nil || string(got) != files[cached] {
			t.Fatalf("cached page from a stale tree: %d bytes, %v", len(got), err)
		}
		if _, err := fs.Stat(stale, uncached); err != nil {
			t.Fatalf("Stat needs no network: %v", err)
		}
		_, err = fs.ReadFile(stale, uncached)
		if err == nil || errors.Is(err, fs.ErrNotExist) || !fscap.IsUnavailable(err) || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("uncached page from a stale tree: %v; want an unavailable error", err)
		}
		if i == 1 {
			time.Sleep(1100 * time.Millisecond) // past staleRetry: asks Chroma again
		}
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings for one episode; want 1:\n%s", n, logs.String())
	}
	if _, err := chromafs.New(ctx, coll, chromafs.WithShared(sh), chromafs.WithStaleTree(time.Millisecond)); !fscap.IsUnavailable(err) {
		t.Errorf("New with a tree older than maxStale: %v; want an unavailable error", err)
	}

	// Chroma is back: a fresh fetch ends the episode; a new outage warns
	// again.
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if _, err := chromafs.New(ctx, coll, opts...); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := chromafs.New(ctx, coll, opts...); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 2 {
		t.Errorf("%d warnings for two episodes; want 2:\n%s", n, logs.String())
	}
}

// hangingStore answers Tree only until it is told to hang; then every
// call waits for its context.
type hangingStore struct {
	collection.Store
	hang atomic.Bool
}

func (h *hangingStore) Tree(ctx context.Context, id string) (collection.TreeRecord, error) {
	if h.hang.Load() {
		<-ctx.Done()
		return collection.TreeRecord{}, ctx.Err()
	}
	return h.Store.Tree(ctx, id)
}

// TestStaleTreeTimeout: a store that stops answering (a deadline, not a
// refused connection) is unavailable too, and a stale tree is served.
func TestStaleTreeTimeout(t *testing.T) {
	sh := chromafs.NewShared(0)
	mem := memstore.New(t.Name())
	ingested(t, mem, map[string]string{"a.md": "alpha\n"})
	store := &hangingStore{Store: mem}
	if _, err := chromafs.New(context.Background(), store, chromafs.WithShared(sh)); err != nil {
		t.Fatal(err)
	}
	store.hang.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := chromafs.New(ctx, store, chromafs.WithShared(sh))
	if !fscap.IsUnavailable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("New on a hanging store: %v; want an unavailable error", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	fsys, err := chromafs.New(ctx, store, chromafs.WithShared(sh), chromafs.WithStaleTree(time.Hour), chromafs.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("New with WithStaleTree on a hanging store: %v", err)
	}
	if _, err := fs.Stat(fsys, "a.md"); err != nil {
		t.Fatal(err)
	}
}

// TestDirModTime: a directory's time is the newest time of the pages
// below it that the view shows, the same in Stat, ReadDir's Info, an open
// directory's Stat and Sub views; without dated pages, the tree record's
// TreeModTimeKey; fstest.TestFS agrees.
func TestDirModTime(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 3, d, 12, 0, 0, 0, time.UTC) }
	treeTime := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)
	entries := []tree.Entry{
		{Slug: "docs/a.md", IsPublic: true, Size: 4, ModTime: day(3)},
		{Slug: "docs/deep/b.md", IsPublic: true, Size: 4, ModTime: day(7)},
		{Slug: "docs/deep/secret.md", Groups: []string{"staff"}, Size: 4, ModTime: day(25)},
		{Slug: "old/u.md", IsPublic: true, Size: 4},
	}
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sh := chromafs.WithShared(chromafs.NewShared(0))
			target := b.New(t)
			doc, err := tree.Encode(entries, false)
			if err != nil {
				t.Fatal(err)
			}
			rec := treeRecord(string(doc))
			rec.Metadata[collection.TreeModTimeKey] = treeTime.Format(time.RFC3339)
			var all []collection.Record
			for _, e := range entries {
				all = append(all, recs(e.Slug, 0, 1)...)
			}
			if err := target.Upsert(context.Background(), append(all, rec)); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				groups []string
				want   map[string]time.Time
			}{
				{nil, map[string]time.Time{".": day(7), "docs": day(7), "docs/deep": day(7), "old": treeTime}},
				{[]string{"staff"}, map[string]time.Time{".": day(25), "docs": day(25), "docs/deep": day(25), "old": treeTime}},
			} {
				fsys := mustNew(t, target, sh, chromafs.WithGroups(tc.groups...))
				for dir, want := range tc.want {
					fi, err := fsys.Stat(dir)
					if err != nil || fi.ModTime() != want {
						t.Errorf("view %v: Stat(%q).ModTime() = %v, %v; want %v", tc.groups, dir, fi.ModTime(), err, want)
					}
					f, err := fsys.Open(dir)
					if err != nil {
						t.Fatal(err)
					}
					if fi, err := f.Stat(); err != nil || fi.ModTime() != want {
						t.Errorf("view %v: open %q: Stat().ModTime() = %v, %v; want %v", tc.groups, dir, fi.ModTime(), err, want)
					}
					f.Close()
					sub, err := fs.Sub(fsys, dir)
					if err != nil {
						t.Fatal(err)
					}
					if fi, err := fs.Stat(sub, "."); err != nil || fi.ModTime() != want {
						t.Errorf("view %v: Sub(%q).Stat(.).ModTime() = %v, %v; want %v", tc.groups, dir, fi.ModTime(), err, want)
					}
				}
				ents, err := fsys.ReadDir("docs")
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range ents {
					fi, err := e.Info()
					if err != nil {
						t.Fatal(err)
					}
					if want := tc.want["docs/"+e.Name()]; e.IsDir() && fi.ModTime() != want {
						t.Errorf("view %v: ReadDir(docs) %s: ModTime %v, want %v", tc.groups, e.Name(), fi.ModTime(), want)
					}
				}
				if err := fstest.TestFS(fsys, "docs/a.md", "old/u.md"); err != nil {
					t.Errorf("view %v: %v", tc.groups, err)
				}
			}
		})
	}
}

// TestDuplicateSlugLastWins: a tree that lists a slug twice is read as
// JSON tools read it, the last occurrence deciding its access rule.
func TestDuplicateSlugLastWins(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			for _, tc := range []struct {
				doc    string
				public bool
			}{
				{`{"a.md": {"isPublic": true}, "b.md": {"isPublic": true}, "a.md": {"isPublic": false, "groups": ["staff"]}}`, false},
				{`{"a.md": {"isPublic": false, "groups": ["staff"]}, "b.md": {"isPublic": true}, "a.md": {"isPublic": true}}`, true},
			} {
				sh := chromafs.WithShared(chromafs.NewShared(0))
				target := b.New(t)
				recs := append(append(recs("a.md", 0), recs("b.md", 0)...), treeRecord(tc.doc))
				if err := target.Upsert(context.Background(), recs); err != nil {
					t.Fatal(err)
				}
				fsys := mustNew(t, target, sh)
				_, err := fs.Stat(fsys, "a.md")
				if tc.public != (err == nil) || (err != nil && !errors.Is(err, fs.ErrNotExist)) {
					t.Errorf("%s: public Stat(a.md) = %v; want visible %v", tc.doc, err, tc.public)
				}
				staff := mustNew(t, target, sh, chromafs.WithGroups("staff"))
				if got, err := fs.ReadFile(staff, "a.md"); err != nil || string(got) != "c0" {
					t.Errorf("%s: staff ReadFile(a.md) = %q, %v", tc.doc, got, err)
				}
				if p := fsys.Problems(); len(p) != 1 || p[0].Slug != "a.md" || p[0].Reason != "duplicate slug" {
					t.Errorf("%s: problems %v", tc.doc, p)
				}
			}
		})
	}
}

// TestStringChunkIndexRead: a page one of whose chunks has chunk_index
// stored as a string is an error naming the page and the chunk, never
// content.
func TestStringChunkIndexRead(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			target := b.New(t)
			doc, err := tree.Encode([]tree.Entry{{Slug: "p.md", IsPublic: true, Size: -1}}, false)
			if err != nil {
				t.Fatal(err)
			}
			records := []collection.Record{
				{ID: "p#0", Document: "a", Metadata: map[string]any{"page_slug": "p.md", "chunk_index": "0"}},
				{ID: "p#1", Document: "b", Metadata: map[string]any{"page_slug": "p.md", "chunk_index": 1}},
				treeRecord(string(doc)),
			}
			if err := target.Upsert(context.Background(), records); err != nil {
				t.Fatal(err)
			}
			data, err := fs.ReadFile(mustNew(t, target, chromafs.WithShared(chromafs.NewShared(0))), "p.md")
			if !errors.Is(err, collection.ErrCorruptPage) || !strings.Contains(err.Error(), `chunk "p#0" has no valid chunk index`) || !strings.Contains(err.Error(), `"p.md"`) {
				t.Fatalf("ReadFile = %q, %v; want an error naming the page and chunk p#0", data, err)
			}
		})
	}
}
