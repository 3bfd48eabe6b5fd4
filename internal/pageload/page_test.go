package pageload_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/pageload"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

var testFiles = map[string]string{
	"a.md":     "alpha alpha alpha\n",
	"d/b.md":   "beta\nbeta beta\n",
	"d/e/c.md": "gamma",
}

// loadStore writes testFiles into a new memstore, cut into chunks of 4
// bytes, with sizes, hashes and chunk counts in the tree. With chunkIDs
// the chunks' ids are collection.ChunkID's (as chromafs ingest writes
// them); else memstore.Load's "<slug>:<index>".
func loadStore(t *testing.T, chunkIDs bool) (*memstore.Store, *tree.View) {
	t.Helper()
	ctx := context.Background()
	layout := collection.DefaultLayout()
	s := memstore.New("pageload")
	if err := memstore.Load(s, layout, testFiles, memstore.LoadOptions{ChunkSize: 4, WithSizes: true}); err != nil {
		t.Fatal(err)
	}
	if chunkIDs {
		var renamed []collection.Record
		var old []string
		for _, r := range s.Records() {
			slug, ok := r.Metadata[layout.SlugField].(string)
			if !ok {
				continue
			}
			i := r.Metadata[layout.IndexField].(int)
			renamed = append(renamed, collection.Record{ID: collection.ChunkID(slug, i), Document: r.Document, Metadata: r.Metadata})
			old = append(old, r.ID)
		}
		if err := s.Delete(ctx, old); err != nil {
			t.Fatal(err)
		}
		if err := s.Upsert(ctx, renamed); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := collection.ReadTree(ctx, s, layout.TreeID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tree.Parse(doc.Document)
	if err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	return s, tr.All()
}

func newLoader(s *memstore.Store, byID bool, c pageload.Config) *pageload.Loader {
	c.Store = s
	c.Layout = collection.DefaultLayout()
	if c.Cache == nil {
		c.Cache = cachepkg.NewMemory(0)
	}
	c.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	if byID {
		c.ByID = s
	}
	return pageload.New(c)
}

func lookup(view *tree.View) pageload.Lookup {
	return func(name string) (*tree.Node, bool) { return view.Lookup(name) }
}

// TestLoad: Load assembles every page from its chunks, read by id when
// the loader has an IDReader and the ids follow collection.ChunkID, by
// slug otherwise or when the ids do not (one read by id, then one by
// slug); a second Load is served by the cache without a request.
func TestLoad(t *testing.T) {
	tests := []struct {
		name               string
		byID, chunkIDs     bool
		wantByID, wantSlug int // store requests for one page
	}{
		{name: "by slug", wantSlug: 1},
		{name: "by id", byID: true, chunkIDs: true, wantByID: 1},
		{name: "ids of another form", byID: true, wantByID: 1, wantSlug: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, view := loadStore(t, tt.chunkIDs)
			l := newLoader(s, tt.byID, pageload.Config{})
			for slug, want := range testFiles {
				n, _ := view.Lookup(slug)
				s.ResetRequests()
				got, err := l.Load(context.Background(), n)
				if err != nil {
					t.Fatalf("Load(%s): %v", slug, err)
				}
				if string(got) != want {
					t.Errorf("Load(%s) = %q; want %q", slug, got, want)
				}
				if r := s.Requests(); r.ChunksByID != tt.wantByID || r.Chunks != tt.wantSlug {
					t.Errorf("Load(%s): %d reads by id, %d by slug; want %d and %d", slug, r.ChunksByID, r.Chunks, tt.wantByID, tt.wantSlug)
				}
				s.ResetRequests()
				if again, err := l.Load(context.Background(), n); err != nil || string(again) != want {
					t.Errorf("second Load(%s) = %q, %v", slug, again, err)
				}
				if r := s.Requests(); r.Total() != 0 {
					t.Errorf("second Load(%s) sent %d requests; want 0 (cached)", slug, r.Total())
				}
			}
		})
	}
}

// TestLoadCancelled: a Load whose context has ended fails with its
// error and sends no request, every time (it used to race the fetch
// that a memory store ends at once); a page already cached is still
// served.
func TestLoadCancelled(t *testing.T) {
	s, view := loadStore(t, true)
	l := newLoader(s, true, pageload.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for slug := range testFiles {
		n, _ := view.Lookup(slug)
		for range 20 {
			if got, err := l.Load(ctx, n); !errors.Is(err, context.Canceled) {
				t.Fatalf("Load(%s) with an ended context = %q, %v; want context.Canceled", slug, got, err)
			}
		}
		// A fetch started in the background would have sent its
		// request by now.
		time.Sleep(20 * time.Millisecond)
		if r := s.Requests(); r.Total() != 0 {
			t.Errorf("Load(%s) with an ended context sent %d requests", slug, r.Total())
		}
		if _, err := l.Load(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		if got, err := l.Load(ctx, n); err != nil || string(got) != testFiles[slug] {
			t.Errorf("Load(%s) of a cached page with an ended context = %q, %v", slug, got, err)
		}
		s.ResetRequests()
	}
}

// TestLoadCorrupt: a page whose chunks do not match its tree entry fails
// to load with collection.ErrCorruptPage and is not cached.
func TestLoadCorrupt(t *testing.T) {
	s, view := loadStore(t, false)
	r, _ := s.Get("a.md:1")
	r2 := collection.Record{ID: r.ID, Document: "XXXX", Metadata: r.Metadata}
	if err := s.Upsert(context.Background(), []collection.Record{r2}); err != nil {
		t.Fatal(err)
	}
	cache := cachepkg.NewMemory(0)
	l := newLoader(s, false, pageload.Config{Cache: cache})
	n, _ := view.Lookup("a.md")
	if _, err := l.Load(context.Background(), n); !errors.Is(err, collection.ErrCorruptPage) {
		t.Fatalf("Load of a corrupt page: %v; want collection.ErrCorruptPage", err)
	}
	if cache.HasLocal(l.CacheKey(n)) {
		t.Error("the corrupt page was cached")
	}
}

// TestLoadShared: concurrent loads of one page by two Loaders of one
// Flights cost one fetch; with Flights of their own, two.
func TestLoadShared(t *testing.T) {
	for _, share := range []bool{true, false} {
		t.Run("share="+strconv.FormatBool(share), func(t *testing.T) {
			s, view := loadStore(t, false)
			release := make(chan struct{})
			s.SetHook(func(ctx context.Context, op string) error {
				if op == memstore.OpChunks {
					<-release
				}
				return nil
			})
			var f1, f2 pageload.Flights
			l1 := newLoader(s, false, pageload.Config{Flights: &f1})
			l2 := newLoader(s, false, pageload.Config{Flights: &f1})
			if !share {
				l2 = newLoader(s, false, pageload.Config{Flights: &f2})
			}
			n, _ := view.Lookup("d/b.md")
			var wg sync.WaitGroup
			for _, l := range []*pageload.Loader{l1, l2, l1, l2} {
				wg.Go(func() {
					if got, err := l.Load(context.Background(), n); err != nil || string(got) != testFiles["d/b.md"] {
						t.Errorf("Load = %q, %v", got, err)
					}
				})
			}
			// Let the loads reach the store before it answers.
			time.Sleep(50 * time.Millisecond)
			close(release)
			wg.Wait()
			want := 1
			if !share {
				want = 2
			}
			if got := s.Requests().Chunks; got != want {
				t.Errorf("%d reads of the page; want %d", got, want)
			}
		})
	}
}

// TestPrefetchEach: every visible page among the names is handed over
// once with its content, under the name given; names that are not
// visible files (missing, a directory) are skipped; pages already in the
// cache's memory are neither read nor handed over.
func TestPrefetchEach(t *testing.T) {
	s, view := loadStore(t, true)
	l := newLoader(s, true, pageload.Config{})
	n, _ := view.Lookup("a.md")
	if _, err := l.Load(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	var mu sync.Mutex
	got := map[string]string{}
	err := l.PrefetchEach(context.Background(), []string{"a.md", "d", "nope.md", "d/b.md", "d/e/c.md"}, lookup(view), func(name string, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[name]; dup {
			t.Errorf("%s handed over twice", name)
		}
		got[name] = string(data)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"d/b.md": testFiles["d/b.md"], "d/e/c.md": testFiles["d/e/c.md"]}
	if len(got) != len(want) || got["d/b.md"] != want["d/b.md"] || got["d/e/c.md"] != want["d/e/c.md"] {
		t.Errorf("handed over %q; want %q", got, want)
	}
	if r := s.Requests(); r.ChunksByID != 1 || r.Total() != 1 {
		t.Errorf("requests %+v; want one read by id", r)
	}
	// Now all cached: nothing is read.
	s.ResetRequests()
	if err := l.PrefetchEach(context.Background(), []string{"a.md", "d/b.md"}, lookup(view), nil); err != nil {
		t.Fatal(err)
	}
	if r := s.Requests(); r.Total() != 0 {
		t.Errorf("prefetch of cached pages sent %+v", r)
	}
}

// TestUncached: the names whose content is not in the cache's memory,
// in order, with names that are not visible files (invalid, missing, a
// directory) among them.
func TestUncached(t *testing.T) {
	s, view := loadStore(t, false)
	l := newLoader(s, false, pageload.Config{})
	n, _ := view.Lookup("d/b.md")
	if _, err := l.Load(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	names := []string{"a.md", "d/b.md", "../x", "d", "nope.md", "d/e/c.md"}
	got := l.Uncached(context.Background(), names, lookup(view))
	want := []string{"a.md", "../x", "d", "nope.md", "d/e/c.md"}
	if !slices.Equal(got, want) {
		t.Errorf("Uncached = %q; want %q", got, want)
	}
	if r := s.Requests(); r.Total() != 1 {
		t.Errorf("requests %+v; want the one Load's", r)
	}
}

// TestPreload: Preload loads every page below the prefix into the cache
// (none above it), within the budget; over the budget it loads nothing;
// a negative budget turns it off.
func TestPreload(t *testing.T) {
	total := 0
	for _, c := range testFiles {
		total += len(c)
	}
	tests := []struct {
		name   string
		prefix string
		budget int64
		want   []string // cached afterwards
	}{
		{name: "all", budget: 0, want: []string{"a.md", "d/b.md", "d/e/c.md"}},
		{name: "below d", prefix: "d", want: []string{"d/b.md", "d/e/c.md"}},
		{name: "over budget", budget: int64(total - 1)},
		{name: "off", budget: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, view := loadStore(t, false)
			cache := cachepkg.NewMemory(0)
			l := newLoader(s, false, pageload.Config{Cache: cache, PreloadBytes: tt.budget})
			if err := l.Preload(context.Background(), view, tt.prefix); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, slug := range []string{"a.md", "d/b.md", "d/e/c.md"} {
				n, _ := view.Lookup(slug)
				if cache.HasLocal(l.CacheKey(n)) {
					got = append(got, slug)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("cached %q; want %q", got, tt.want)
			}
		})
	}
}

// TestGate: Wait returns at once when no request is in progress, waits
// for the last Leave otherwise, and returns ctx's error when ctx ends
// first.
func TestGate(t *testing.T) {
	var g pageload.Gate
	if err := g.Wait(context.Background()); err != nil {
		t.Fatalf("Wait on an idle gate: %v", err)
	}
	g.Enter()
	g.Enter()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait while entered: %v; want the context's deadline", err)
	}
	done := make(chan error, 1)
	go func() { done <- g.Wait(context.Background()) }()
	g.Leave()
	select {
	case err := <-done:
		t.Fatalf("Wait returned %v with a request still in progress", err)
	case <-time.After(20 * time.Millisecond):
	}
	g.Leave()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait after the last Leave: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after the last Leave")
	}
}

// TestKnownSize: a page whose entry records no size has none known until
// it is read; Size reads it once and KnownSize then has it.
func TestKnownSize(t *testing.T) {
	s := memstore.New("sizes")
	layout := collection.DefaultLayout()
	if err := memstore.Load(s, layout, testFiles, memstore.LoadOptions{ChunkSize: 4}); err != nil {
		t.Fatal(err)
	}
	doc, err := collection.ReadTree(context.Background(), s, layout.TreeID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tree.Parse(doc.Document)
	if err != nil {
		t.Fatal(err)
	}
	l := newLoader(s, false, pageload.Config{})
	n, _ := tr.All().Lookup("d/b.md")
	if sz, ok := l.KnownSize(n); ok {
		t.Fatalf("KnownSize before a read = %d; want unknown", sz)
	}
	sz, err := l.Size(context.Background(), n)
	if err != nil || sz != int64(len(testFiles["d/b.md"])) {
		t.Fatalf("Size = %d, %v; want %d", sz, err, len(testFiles["d/b.md"]))
	}
	if sz, ok := l.KnownSize(n); !ok || sz != int64(len(testFiles["d/b.md"])) {
		t.Errorf("KnownSize after a read = %d, %v", sz, ok)
	}
}
