package chromafs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/regex"
)

// countStore counts every request for content or a search, and records
// the slugs whose content it returned.
type countStore struct {
	testbackend.Target
	mu       sync.Mutex
	requests int
	fetched  map[string]bool
}

func (c *countStore) note(chunks []collection.Chunk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if c.fetched == nil {
		c.fetched = map[string]bool{}
	}
	for _, ch := range chunks {
		c.fetched[ch.Slug] = true
	}
}

func (c *countStore) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

func (c *countStore) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	got, err := c.Target.Chunks(ctx, l, slugs)
	c.note(got)
	return got, err
}

func (c *countStore) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	got, err := c.Target.ChunksByID(ctx, l, ids)
	c.note(got)
	return got, err
}

func (c *countStore) Search(ctx context.Context, l collection.Layout, sc collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	got, err := c.Target.Search(ctx, l, sc, f)
	c.note(nil)
	return got, err
}

// grepOut runs q recursively over fsys and renders what grep -rn prints.
func grepOut(t *testing.T, fsys fs.FS, q grepx.Query) string {
	t.Helper()
	q.Recursive = true
	var b strings.Builder
	_, err := grepx.Search(context.Background(), fsys, q, func(f *grepx.File) error {
		if f.Err != nil {
			fmt.Fprintf(&b, "%s: %v\n", f.Path, f.Err)
		}
		fmt.Fprintf(&b, "%s count %d\n", f.Path, f.Count)
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "%s:%d:%s\n", f.Path, l.Number, l.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPreload: after Preload, on every backend and writer and for every
// view (and a Sub view), grep and reads send no request to the store and
// give what a plain copy of the visible files gives; no hidden page is
// fetched.
func TestPreload(t *testing.T) {
	files := corpus(t)
	ctx := context.Background()
	queries := []grepx.Query{
		{Patterns: []string{"access_token"}},
		{Patterns: []string{"WEBHOOK"}, IgnoreCase: true},
		{Patterns: []string{"[[:upper:]][[:lower:]]{6,}"}, Syntax: regex.Extended, Mode: grepx.Count},
		{Patterns: []string{"the"}, Word: true, Mode: grepx.FilesWithMatches},
	}
	for _, b := range testbackend.Backends() {
		for _, w := range writers[:3:3] {
			if w.name == "sharded" {
				continue
			}
			t.Run(b.Name+"/"+w.name, func(t *testing.T) {
				store := b.New(t)
				w.write(t, store, files)
				for _, groups := range [][]string{{"staff"}, nil} {
					cs := &countStore{Target: store}
					want := visible(files, groups)
					plain := fstest.MapFS{}
					for slug, content := range want {
						plain[slug] = &fstest.MapFile{Data: []byte(content)}
					}
					fsys := mustNew(t, cs, chromafs.WithGroups(groups...), chromafs.WithShared(chromafs.NewShared(0)))
					if err := fsys.Preload(ctx); err != nil {
						t.Fatal(err)
					}
					if cs.count() == 0 {
						t.Fatal("Preload sent no request")
					}
					for slug := range cs.fetched {
						if _, ok := want[slug]; !ok {
							t.Errorf("groups %v: Preload fetched hidden page %s", groups, slug)
						}
					}
					before := cs.count()
					for _, q := range queries {
						if got, w := grepOut(t, fsys, q), grepOut(t, plain, q); got != w {
							t.Errorf("groups %v, %+v: got\n%s\nwant\n%s", groups, q, got, w)
						}
					}
					sub, err := fsys.Sub("guides")
					if err != nil {
						t.Fatal(err)
					}
					plainSub, _ := fs.Sub(plain, "guides")
					if got, w := grepOut(t, sub, queries[0]), grepOut(t, plainSub, queries[0]); got != w {
						t.Errorf("groups %v, Sub(guides): got\n%s\nwant\n%s", groups, got, w)
					}
					for slug, content := range want {
						data, err := fs.ReadFile(fsys, slug)
						if err != nil || string(data) != content {
							t.Errorf("ReadFile(%s) = %q, %v", slug, data, err)
						}
					}
					if n := cs.count() - before; n != 0 {
						t.Errorf("groups %v: %d store requests after Preload, want 0", groups, n)
					}
					// Once more: everything is cached, nothing is asked.
					if err := fsys.Preload(ctx); err != nil || cs.count() != before {
						t.Errorf("second Preload: %v, %d requests", err, cs.count()-before)
					}
				}
			})
		}
	}
}

// TestPreloadBudget: a view whose content exceeds the budget is not
// loaded; a negative budget turns Preload off; pages without a recorded
// size are loaded until the budget is reached; a Sub view loads its pages
// only.
func TestPreloadBudget(t *testing.T) {
	files := corpus(t)
	ctx := context.Background()
	total := 0
	for _, c := range visible(files, nil) {
		total += len(c)
	}
	mem := newMem(t, files, memstore.LoadOptions{ChunkSize: 50, WithSizes: true})
	for _, tc := range []struct {
		budget int64
		load   bool
	}{{int64(total) - 1, false}, {-1, false}, {int64(total), true}, {0, true}} {
		fsys := mustNew(t, mem, chromafs.WithPreload(tc.budget), chromafs.WithShared(chromafs.NewShared(0)))
		mem.ResetRequests()
		if err := fsys.Preload(ctx); err != nil {
			t.Fatal(err)
		}
		if got := mem.Requests().Total() > 0; got != tc.load {
			t.Errorf("budget %d (content %d bytes): loaded = %v, want %v", tc.budget, total, got, tc.load)
		}
	}

	// A Sub view loads its own pages only.
	cache := cachepkg.NewMemory(0)
	fsys := mustNew(t, mem, chromafs.WithCache(cache), chromafs.WithShared(chromafs.NewShared(0)))
	sub, err := fsys.Sub("guides")
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.(*chromafs.FS).Preload(ctx); err != nil {
		t.Fatal(err)
	}
	subFiles := 0
	for slug := range visible(files, nil) {
		if strings.HasPrefix(slug, "guides/") {
			subFiles++
		}
	}
	if cache.Len() != subFiles {
		t.Errorf("Sub(guides).Preload cached %d pages, want %d", cache.Len(), subFiles)
	}

	// Sizes unknown to the tree: loading stops once the budget is reached.
	big := map[string]string{}
	for i := range 1000 {
		big[fmt.Sprintf("p/%04d.md", i)] = strings.Repeat("line of text\n", 10)
	}
	nosize := memstore.New(t.Name() + "nosize")
	// Without WithSizes, the tree records no size.
	if err := memstore.Load(nosize, collection.DefaultLayout(), big, memstore.LoadOptions{ChunkSize: 60, Access: access, Compressed: true}); err != nil {
		t.Fatal(err)
	}
	cache = cachepkg.NewMemory(0)
	fsys = mustNew(t, nosize, chromafs.WithCache(cache), chromafs.WithPreload(1000), chromafs.WithShared(chromafs.NewShared(0)))
	if err := fsys.Preload(ctx); err != nil {
		t.Fatal(err)
	}
	if n := cache.Len(); n == 0 || n >= len(big) {
		t.Errorf("budget of 1000 bytes over pages of unknown size: %d of %d pages cached", n, len(big))
	}
}

// TestPreloadFailure: a store failure is logged once and returned, and
// reads afterwards work; a cancelled context returns its error and logs
// nothing.
func TestPreloadFailure(t *testing.T) {
	files := corpus(t)
	ctx := context.Background()
	mem := newMem(t, files, memstore.LoadOptions{ChunkSize: 50})
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	fsys := mustNew(t, mem, chromafs.WithLogger(log), chromafs.WithPreload(0), chromafs.WithShared(chromafs.NewShared(0)))
	boom := errors.New("boom")
	mem.SetFailure(boom)
	if err := fsys.Preload(ctx); !errors.Is(err, boom) {
		t.Errorf("Preload with a failing store = %v, want an error wrapping %v", err, boom)
	}
	if n := strings.Count(logged.String(), "preload failed"); n != 1 {
		t.Errorf("logged %d warnings, want 1:\n%s", n, logged.String())
	}
	mem.SetFailure(nil)
	readAll(t, fsys, visible(files, nil))

	logged.Reset()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	fresh := mustNew(t, mem, chromafs.WithLogger(log), chromafs.WithShared(chromafs.NewShared(0)))
	if err := fresh.Preload(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Preload(cancelled) = %v, want context.Canceled", err)
	}
	if logged.Len() != 0 {
		t.Errorf("cancelled Preload logged:\n%s", logged.String())
	}
}

// TestPreloadShared: concurrent Preloads of one view and cache, in many
// sessions, read each page once.
func TestPreloadShared(t *testing.T) {
	files := corpus(t)
	ctx := context.Background()
	mem := newMem(t, files, memstore.LoadOptions{ChunkSize: 50})
	sh := chromafs.NewShared(0)
	cache := cachepkg.NewMemory(0)
	var wg sync.WaitGroup
	for range 8 {
		fsys := mustNew(t, mem, chromafs.WithShared(sh), chromafs.WithCache(cache), chromafs.WithGroups("staff"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fsys.Preload(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got, want := cache.Len(), len(visible(files, []string{"staff"})); got != want {
		t.Errorf("cached %d pages, want %d", got, want)
	}
	if n := mem.Requests().ChunksByID + mem.Requests().Chunks; n != 1 {
		t.Errorf("%d content requests for %d pages, want 1", n, len(files))
	}
}
