package coarse

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// filterPages are the chunks of the test collection's pages, by slug.
// "world" straddles a.md's two chunks; b.md has it in no chunk.
var filterPages = map[string][]string{
	"a.md":     {"hello wor", "ld again\n"},
	"b.md":     {"nothing here\n"},
	"d/c.md":   {"world peace\n"},
	"d/e.md":   {"Hello World\n"},
	"hide.txt": {"world, hidden\n"},
}

// filterTree is the tree of the test collection: filterPages, hide.txt
// visible to group staff only, a lazy pointer and a page of an adopted
// collection (no chunk of either has its slug).
const filterTree = `{
	"a.md": {"isPublic": true, "chunks": 2},
	"b.md": {"isPublic": true, "chunks": 1},
	"d/c.md": {"isPublic": true, "chunks": 1},
	"d/e.md": {"isPublic": true, "chunks": 1},
	"hide.txt": {"isPublic": false, "groups": ["staff"], "chunks": 1},
	"lazy.md": {"isPublic": true, "url": "https://example.com/lazy.md"},
	"adopted.md": {"isPublic": true, "parts": "doc-1#0-12"}
}`

// countingStore counts the searches of a memstore; with blind, it
// answers every search with nothing (a store whose text index fails).
type countingStore struct {
	*memstore.Store
	searches atomic.Int32
	blind    bool
}

func (c *countingStore) Search(ctx context.Context, layout collection.Layout, sc collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	c.searches.Add(1)
	if c.blind {
		return nil, nil
	}
	return c.Store.Search(ctx, layout, sc, f)
}

// plainStore is a store without text search.
type plainStore struct{ collection.Store }

// keyFunc is a Config.Keys.
type keyFunc func(n *tree.Node) string

func (f keyFunc) CacheKey(n *tree.Node) string { return f(n) }

func pageKey(n *tree.Node) string { return "page\x00" + n.Path }

// sharedMem is a page cache tier that says it is shared.
type sharedMem struct{ *cachepkg.Memory }

func (m sharedMem) HasShared(ctx context.Context, keys []string) ([]bool, error) {
	has := make([]bool, len(keys))
	for i, k := range keys {
		has[i], _ = m.Has(ctx, k)
	}
	return has, nil
}

func filterStore(t *testing.T) *countingStore {
	t.Helper()
	mem := memstore.New("filter-test")
	var recs []collection.Record
	for slug, chunks := range filterPages {
		for i, text := range chunks {
			recs = append(recs, collection.Record{
				ID:       fmt.Sprintf("%s:%d", slug, i),
				Document: text,
				Metadata: map[string]any{"page_slug": slug, "chunk_index": i},
			})
		}
	}
	if err := mem.Upsert(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return &countingStore{Store: mem}
}

// newFilter returns a Filter over store for groups (the view), with
// cache as its page cache and a Shared of its own unless sh is given.
func newFilter(t *testing.T, store collection.Store, groups []string, cache cachepkg.Cache, sharedTier cachepkg.Cache, sh *Shared, log *slog.Logger) (*Filter, *tree.View) {
	t.Helper()
	tr, err := tree.Parse([]byte(filterTree))
	if err != nil {
		t.Fatal(err)
	}
	if sh == nil {
		sh = NewShared(1 << 20)
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	v := tr.View(groups)
	return NewFilter(Config{
		Store:      store,
		Layout:     collection.DefaultLayout(),
		Tree:       tr,
		View:       v,
		Version:    "v1",
		Cache:      cache,
		Keys:       keyFunc(pageKey),
		SharedTier: sharedTier,
		Shared:     sh,
		Log:        log,
	}), v
}

// viewPages returns the files of v in path order.
func viewPages(v *tree.View) []*tree.Node {
	var out []*tree.Node
	v.Walk(func(n *tree.Node) bool {
		if !n.IsDir {
			out = append(out, n)
		}
		return true
	})
	return out
}

func kept(pages []*tree.Node, keep []bool) []string {
	var out []string
	for i, n := range pages {
		if keep[i] {
			out = append(out, n.Path)
		}
	}
	return out
}

// TestFilterCandidates: Filter.Candidates keeps every page whose content
// holds a literal (also across a chunk boundary, and with fold), keeps
// lazy pointers and adopted pages without a question, keeps everything
// when there is nothing to search for or no text search, and asks the
// store nothing about pages an earlier call with the same literals asked
// about.
func TestFilterCandidates(t *testing.T) {
	ctx := context.Background()
	always := []string{"adopted.md", "lazy.md"}
	all := []string{"a.md", "adopted.md", "b.md", "d/c.md", "d/e.md", "lazy.md"}
	for _, tc := range []struct {
		name   string
		lits   []string
		fold   bool
		groups []string
		plain  bool // a store without text search
		want   []string
	}{
		{name: "exact", lits: []string{"world"}, want: []string{"a.md", "adopted.md", "d/c.md", "lazy.md"}},
		{name: "fold", lits: []string{"WORLD"}, fold: true, want: []string{"a.md", "adopted.md", "d/c.md", "d/e.md", "lazy.md"}},
		{name: "several", lits: []string{"peace", "nothing"}, want: []string{"adopted.md", "b.md", "d/c.md", "lazy.md"}},
		{name: "none", lits: []string{"zebra"}, want: always},
		{name: "no literals", want: all},
		{name: "empty literal", lits: []string{"zebra", ""}, want: all},
		{name: "no text search", lits: []string{"world"}, plain: true, want: all},
		{name: "group", lits: []string{"hidden"}, groups: []string{"staff"}, want: []string{"adopted.md", "hide.txt", "lazy.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := filterStore(t)
			var store collection.Store = cs
			if tc.plain {
				store = plainStore{cs}
			}
			f, v := newFilter(t, store, tc.groups, cachepkg.NewMemory(0), nil, nil, nil)
			pages := viewPages(v)
			for round := range 2 {
				keep, err := f.Candidates(ctx, pages, tc.lits, tc.fold)
				if err != nil {
					t.Fatal(err)
				}
				if got := kept(pages, keep); !slices.Equal(got, tc.want) {
					t.Fatalf("round %d: Candidates(%q, fold %v) kept %q; want %q", round, tc.lits, tc.fold, got, tc.want)
				}
				if n := cs.searches.Swap(0); round == 1 && n != 0 {
					t.Errorf("the same search again sent %d searches; want 0 (the answers are remembered)", n)
				}
			}
		})
	}
}

// TestFilterSelfCheck: a store whose text search answers nothing is
// caught by a page in memory that holds the literal: the filter turns off
// (Health().Off), warns once and keeps every page, this call and later.
// Without such a page, the store's answer is taken as it is.
func TestFilterSelfCheck(t *testing.T) {
	ctx := context.Background()
	for _, inMemory := range []bool{false, true} {
		t.Run(fmt.Sprintf("in memory %v", inMemory), func(t *testing.T) {
			cs := filterStore(t)
			cs.blind = true
			cache := cachepkg.NewMemory(0)
			var logs strings.Builder
			log := slog.New(slog.NewTextHandler(&logs, nil))
			f, v := newFilter(t, cs, nil, cache, nil, nil, log)
			pages := viewPages(v)
			if inMemory {
				c, _ := v.Lookup("d/c.md")
				if err := cache.Put(ctx, pageKey(c), []byte("world peace\n")); err != nil {
					t.Fatal(err)
				}
			}
			want := []string{"adopted.md", "lazy.md"}
			if inMemory {
				want = []string{"a.md", "adopted.md", "b.md", "d/c.md", "d/e.md", "lazy.md"}
			}
			for round := range 2 {
				keep, err := f.Candidates(ctx, pages, []string{"world"}, false)
				if err != nil {
					t.Fatal(err)
				}
				if got := kept(pages, keep); !slices.Equal(got, want) {
					t.Fatalf("round %d: kept %q; want %q", round, got, want)
				}
			}
			if off := f.Health().Off(); off != inMemory {
				t.Errorf("Health().Off() = %v; want %v", off, inMemory)
			}
			warnings := strings.Count(logs.String(), "did not name a page")
			if want := map[bool]int{false: 0, true: 1}[inMemory]; warnings != want {
				t.Errorf("%d warnings; want %d:\n%s", warnings, want, logs.String())
			}
		})
	}
}

// TestFilterSharedTier: the pages a shared tier of the page cache holds
// are decided from their content there, without a question to the store,
// and the answers shared there serve a process with an empty Shared.
func TestFilterSharedTier(t *testing.T) {
	ctx := context.Background()
	cs := filterStore(t)
	back := sharedMem{cachepkg.NewMemory(0)}
	tr, err := tree.Parse([]byte(filterTree))
	if err != nil {
		t.Fatal(err)
	}
	for slug, chunks := range filterPages {
		n, _ := tr.View(nil).Lookup(slug)
		if n == nil {
			continue // hidden
		}
		if err := back.Put(ctx, pageKey(n), []byte(strings.Join(chunks, ""))); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"a.md", "adopted.md", "d/c.md", "lazy.md"}
	for process := range 2 {
		f, v := newFilter(t, cs, nil, cachepkg.NewTiered(cachepkg.NewMemory(0), back), back, nil, nil)
		pages := viewPages(v)
		keep, err := f.Candidates(ctx, pages, []string{"world"}, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := kept(pages, keep); !slices.Equal(got, want) {
			t.Errorf("process %d: kept %q; want %q", process, got, want)
		}
		if n := cs.searches.Load(); n != 0 {
			t.Errorf("process %d: %d searches; want 0 (every page is in the shared tier)", process, n)
		}
		if process == 0 {
			// Empty the pages in the shared tier: the second process
			// keeps the same pages only if it reads the answers the
			// first shared there.
			for slug := range filterPages {
				if n, ok := v.Lookup(slug); ok {
					if err := back.Put(ctx, pageKey(n), []byte{}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// TestFilterScope: Scope lists the slugs asked for, or, when the others
// are fewer, the others left out.
func TestFilterScope(t *testing.T) {
	f, _ := newFilter(t, filterStore(t), nil, cachepkg.NewMemory(0), nil, nil, nil)
	for _, tc := range []struct {
		slugs []string
		want  collection.Scope
	}{
		{[]string{"a.md"}, collection.Scope{Slugs: []string{"a.md"}}},
		{[]string{"a.md", "b.md", "d/c.md"}, collection.Scope{Slugs: []string{"a.md", "b.md", "d/c.md"}}},
		{[]string{"a.md", "b.md", "d/c.md", "d/e.md", "lazy.md"}, collection.Scope{Slugs: []string{"adopted.md", "hide.txt"}, Exclude: true}},
	} {
		got := f.Scope(tc.slugs)
		slices.Sort(got.Slugs)
		if !slices.Equal(got.Slugs, tc.want.Slugs) || got.Exclude != tc.want.Exclude {
			t.Errorf("Scope(%q) = %+v; want %+v", tc.slugs, got, tc.want)
		}
	}
}

// TestSharedDrop: Drop forgets the answers and health of one collection
// (not of another whose id it prefixes), Reset of all.
func TestSharedDrop(t *testing.T) {
	sh := NewShared(1 << 20)
	key := func(coll string) string {
		return Key{Collection: coll, Version: "v1", Literals: []string{"x"}}.String()
	}
	b := (*Bits)(nil).With(1, []int{0}, func(int) bool { return true })
	for _, c := range []string{"a", "ab"} {
		sh.answers.Set(key(c), b)
		sh.Health(c, "v1").Disable()
	}
	has := func(c string) (answers, off bool) {
		_, answers = sh.answers.GetIfPresent(key(c))
		return answers, sh.Health(c, "v1").Off()
	}
	sh.Drop("a")
	if a, off := has("a"); a || off {
		t.Errorf("after Drop(a): a's answers kept %v, health off %v; want both forgotten", a, off)
	}
	if a, off := has("ab"); !a || !off {
		t.Errorf("after Drop(a): ab's answers kept %v, health off %v; want both kept", a, off)
	}
	sh.Reset()
	if a, off := has("ab"); a || off {
		t.Errorf("after Reset: ab's answers kept %v, health off %v; want both forgotten", a, off)
	}
}
