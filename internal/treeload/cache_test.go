package treeload_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/internal/treeload"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

var layout = collection.DefaultLayout()

func options(o treeload.Options) *treeload.Options {
	o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	if o.Cache == nil {
		o.Cache = cachepkg.NewMemory(0)
	}
	return &o
}

func newStore(t *testing.T, id string, files map[string]string) *memstore.Store {
	t.Helper()
	s := memstore.New(id)
	if err := memstore.Load(s, layout, files, memstore.LoadOptions{WithSizes: true}); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	return s
}

// TestCurrent: the first Current parses the tree record; a second one,
// with the record unchanged, fetches it again but does not parse it; with
// MaxAge it sends no request at all; after the record changes, the new
// tree is parsed; after Drop, the tree is fetched and parsed again.
func TestCurrent(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "current", map[string]string{"a.md": "alpha", "d/b.md": "beta"})
	c := treeload.NewCache(0)
	o := options(treeload.Options{})

	st, tr, err := c.Current(ctx, s, layout.TreeID, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.Entry("d/b.md"); !ok || tr.Len() != 2 || st.Version == "" {
		t.Fatalf("Current = version %q, %d entries; want the tree of two pages", st.Version, tr.Len())
	}
	if c.Parses() != 1 {
		t.Fatalf("%d parses; want 1", c.Parses())
	}

	st2, tr2, err := c.Current(ctx, s, layout.TreeID, o)
	if err != nil || tr2 != tr || st2.Version != st.Version {
		t.Fatalf("second Current = %p, %v; want the same tree %p", tr2, err, tr)
	}
	if c.Parses() != 1 {
		t.Errorf("%d parses after an unchanged fetch; want 1", c.Parses())
	}

	s.ResetRequests()
	if _, tr3, err := c.Current(ctx, s, layout.TreeID, options(treeload.Options{MaxAge: time.Hour})); err != nil || tr3 != tr {
		t.Fatalf("Current with MaxAge = %p, %v; want the same tree", tr3, err)
	}
	if r := s.Requests(); r.Total() != 0 {
		t.Errorf("Current with MaxAge sent %+v; want no request", r)
	}

	if err := memstore.Load(s, layout, map[string]string{"a.md": "alpha", "c.md": "gamma"}, memstore.LoadOptions{WithSizes: true}); err != nil {
		t.Fatal(err)
	}
	st4, tr4, err := c.Current(ctx, s, layout.TreeID, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr4.Entry("c.md"); !ok || st4.Version == st.Version {
		t.Errorf("after the record changed: version %q (was %q); want the new tree", st4.Version, st.Version)
	}

	before := c.Parses()
	c.Drop(s.CollectionID())
	if _, _, err := c.Current(ctx, s, layout.TreeID, o); err != nil {
		t.Fatal(err)
	}
	if c.Parses() != before+1 {
		t.Errorf("after Drop: %d parses; want %d", c.Parses(), before+1)
	}
}

// TestCurrentFailure: a tree record that does not parse fails with
// tree.ErrMalformed; the failure is remembered until its retry time (no
// request), after which the record is fetched again.
func TestCurrentFailure(t *testing.T) {
	ctx := context.Background()
	s := memstore.New("broken")
	if err := s.Upsert(ctx, []collection.Record{{ID: layout.TreeID, Document: "{not json", System: true}}); err != nil {
		t.Fatal(err)
	}
	c := treeload.NewCache(0)
	c.SetRetry(time.Hour, time.Hour)
	o := options(treeload.Options{})
	if _, _, err := c.Current(ctx, s, layout.TreeID, o); !errors.Is(err, tree.ErrMalformed) {
		t.Fatalf("Current of a broken record: %v; want tree.ErrMalformed", err)
	}
	s.ResetRequests()
	if _, _, err := c.Current(ctx, s, layout.TreeID, o); !errors.Is(err, tree.ErrMalformed) {
		t.Fatalf("second Current: %v; want the remembered failure", err)
	}
	if r := s.Requests(); r.Tree != 0 {
		t.Errorf("the remembered failure fetched the record %d times; want 0", r.Tree)
	}
	c.PassRetry(2 * time.Hour)
	if _, _, err := c.Current(ctx, s, layout.TreeID, o); !errors.Is(err, tree.ErrMalformed) {
		t.Fatalf("Current after the retry time: %v", err)
	}
	if r := s.Requests(); r.Tree == 0 {
		t.Error("after the retry time the record was not fetched again")
	}
	if c.Parses() != 1 {
		t.Errorf("%d parses; want 1 (the same document is not parsed again)", c.Parses())
	}
}

// TestCurrentStale: with MaxStale, an unreachable store gives the tree
// fetched last; without it, the store's error.
func TestCurrentStale(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, "stale", map[string]string{"a.md": "alpha"})
	c := treeload.NewCache(0)
	_, tr, err := c.Current(ctx, s, layout.TreeID, options(treeload.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	s.SetFailure(context.DeadlineExceeded) // a timeout
	if _, _, err := c.Current(ctx, s, layout.TreeID, options(treeload.Options{})); !fscap.IsUnavailable(err) {
		t.Fatalf("Current on a store that is down, without MaxStale: %v; want an unavailable error", err)
	}
	_, got, err := c.Current(ctx, s, layout.TreeID, options(treeload.Options{MaxStale: time.Hour}))
	if err != nil || got != tr {
		t.Fatalf("Current with MaxStale = %p, %v; want the tree fetched last", got, err)
	}
}

// TestSharedCache: the shared part of a page cache is none for memory,
// the back of a tiered cache, and any other cache itself.
func TestSharedCache(t *testing.T) {
	mem := cachepkg.NewMemory(0)
	back := cachepkg.NewMemory(0)
	other := struct{ cachepkg.Cache }{back}
	tests := []struct {
		name string
		in   cachepkg.Cache
		want cachepkg.Cache
	}{
		{"nil", nil, nil},
		{"memory", mem, nil},
		{"tiered over memory", &cachepkg.Tiered{Front: mem, Back: back}, nil},
		{"tiered over another", &cachepkg.Tiered{Front: mem, Back: other}, other},
		{"another", other, other},
	}
	for _, tt := range tests {
		if got := treeload.SharedCache(tt.in); got != tt.want {
			t.Errorf("%s: SharedCache = %v; want %v", tt.name, got, tt.want)
		}
	}
}

// TestStats: Stats counts the trees loaded, holds the one tree that fits
// the bound with its weight, and counts the one evicted to keep the
// bound; a tree reused is not loaded again.
func TestStats(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"a.md": "alpha", "d/b.md": "beta"}
	one := treeload.NewCache(0)
	if _, _, err := one.Current(ctx, newStore(t, "weigh", files), layout.TreeID, options(treeload.Options{})); err != nil {
		t.Fatal(err)
	}
	w := one.Stats().Bytes
	if st := one.Stats(); st.Loaded != 1 || st.Trees != 1 || w <= 0 || st.Evicted != 0 {
		t.Fatalf("after one tree: %+v", st)
	}

	c := treeload.NewCache(w * 3 / 2) // room for one such tree, not two
	a, b := newStore(t, "a", files), newStore(t, "b", files)
	for _, s := range []*memstore.Store{a, a, b} {
		if _, _, err := c.Current(ctx, s, layout.TreeID, options(treeload.Options{})); err != nil {
			t.Fatal(err)
		}
	}
	want := treeload.Stats{Loaded: 2, Evicted: 1, Trees: 1, Bytes: w}
	if got := c.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}
