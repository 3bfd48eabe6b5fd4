package treeindex_test

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// lazyOf returns the lazy tree of payload, failing the test if the
// payload is not a version 2 index.
func lazyOf(t testing.TB, payload []byte, onError func(error)) *tree.Tree {
	t.Helper()
	h, err := treeindex.ReadHeader(payload)
	if err != nil {
		t.Fatal(err)
	}
	ix, ok, err := h.Lazy(tree.Limits{}, onError)
	if err != nil || !ok {
		t.Fatalf("Lazy: %v, %v", ok, err)
	}
	return ix.Tree
}

// sameViews checks that the views of got and want for groups list,
// look up, date and walk alike.
func sameViews(t *testing.T, got, want *tree.Tree, groups []string) {
	t.Helper()
	gv, wv := got.View(groups), want.View(groups)
	if gv.Files() != wv.Files() {
		t.Fatalf("View(%q).Files() = %d, want %d", groups, gv.Files(), wv.Files())
	}
	type node struct {
		path  string
		dir   bool
		entry tree.Entry
		time  string
		kids  []string
	}
	collect := func(v *tree.View) []node {
		var out []node
		v.Walk(func(n *tree.Node) bool {
			x := node{path: n.Path, dir: n.IsDir, time: v.ModTime(n).String()}
			if n.Entry != nil {
				x.entry = *n.Entry
			}
			kids, _ := v.ReadDir(n.Path)
			for _, k := range kids {
				x.kids = append(x.kids, k.Name)
			}
			if l, ok := v.Lookup(n.Path); !ok || l != n {
				t.Fatalf("View(%q).Lookup(%q) is not the node Walk gave", groups, n.Path)
			}
			out = append(out, x)
			return true
		})
		return out
	}
	if g, w := collect(gv), collect(wv); !reflect.DeepEqual(g, w) {
		t.Fatalf("View(%q) differs: %d nodes, want %d", groups, len(g), len(w))
	}
	// Hidden and missing paths are not found.
	for _, e := range want.Entries() {
		_, gok := gv.Lookup(e.Slug)
		_, wok := wv.Lookup(e.Slug)
		if gok != wok {
			t.Fatalf("View(%q).Lookup(%q) = %v, want %v", groups, e.Slug, gok, wok)
		}
	}
}

// TestLazy: the lazy tree of an index gives exactly the views of the
// eagerly decoded one (and so of the JSON tree), for every group set of
// the generated entries, and decodes only what it needs.
func TestLazy(t *testing.T) {
	for _, n := range []int{0, 1, 300, 1200} {
		es := genEntries(n, 11)
		payload, err := treeindex.Encode(es, "v", nil)
		if err != nil {
			t.Fatal(err)
		}
		eager, err := treeindex.Decode(payload, tree.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		json := tree.New(es)
		sets := [][]string{nil, {"nobody"}}
		gs := json.Groups()
		for _, a := range gs {
			sets = append(sets, []string{a})
		}
		sets = append(sets, gs)
		for _, set := range sets {
			lz := lazyOf(t, payload, nil)
			sameViews(t, lz, json, set)
			sameViews(t, lz, eager.Tree, set)
			if lz.Err() != nil {
				t.Fatal(lz.Err())
			}
		}
		lz := lazyOf(t, payload, nil)
		if !reflect.DeepEqual(lz.Entries(), json.Entries()) || !slices.Equal(lz.Groups(), json.Groups()) {
			t.Fatalf("%d entries: the lazy tree's entries or groups differ", n)
		}
	}
}

// TestLazyVersion1 reads an index that an earlier chromafs wrote (format
// version 1, no summary): Lazy declines it and Decode still reads it.
func TestLazyVersion1(t *testing.T) {
	payload, err := os.ReadFile("testdata/v1.index")
	if err != nil {
		t.Fatal(err)
	}
	h, err := treeindex.ReadHeader(payload)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := h.Lazy(tree.Limits{}, nil); ok || err != nil {
		t.Fatalf("Lazy of a version 1 index: %v, %v; want false, nil", ok, err)
	}
	ix, err := treeindex.Decode(payload, tree.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Stamp != "v1-stamp" {
		t.Fatalf("stamp %q", ix.Stamp)
	}
	// Version 1 predates the parts field.
	want := genEntries(300, 7)
	for i := range want {
		want[i].Parts = ""
	}
	sameEntries(t, ix.Tree.Entries(), tree.New(want).Entries())
}

// TestLazyCorruptBlock: a block that does not inflate is reported when a
// lookup first needs it, and its pages are served nowhere; the rest of
// the tree is.
func TestLazyCorruptBlock(t *testing.T) {
	es := genEntries(2000, 12)
	payload, err := treeindex.Encode(es, "v", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := tree.New(es).Entries()
	// Spoil a byte in the middle of the blocks (past the header, before
	// the checksum) and reseal.
	bad := reseal(flip(unseal(payload), len(payload)*3/4))
	var reported atomic.Int32 // OnError may be told from several goroutines
	lz := lazyOf(t, bad, func(error) { reported.Add(1) })
	if _, err := treeindex.Decode(bad, tree.Limits{}); err == nil {
		t.Fatal("Decode accepted the spoiled index")
	}
	found := 0
	for _, e := range want {
		if _, ok := lz.All().Lookup(e.Slug); ok {
			found++
		}
	}
	if found == 0 || found == len(want) {
		t.Fatalf("%d of %d pages found; want all but a block's", found, len(want))
	}
	if reported.Load() == 0 || !errors.Is(lz.Err(), treeindex.ErrCorrupt) {
		t.Fatalf("Err() = %v; OnError told %d times", lz.Err(), reported.Load())
	}
	if got := len(lz.Entries()); got != found {
		t.Fatalf("Entries has %d, lookups found %d", got, found)
	}
}

// TestLazyLimits: a lazy tree keeps Decode's limits on what its blocks
// declare.
func TestLazyLimits(t *testing.T) {
	payload, err := treeindex.Encode(genEntries(3000, 13), "v", nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := treeindex.ReadHeader(payload)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.Lazy(tree.Limits{MaxBytes: 1000}, nil); !errors.Is(err, tree.ErrTooLarge) {
		t.Fatalf("Lazy within 1000 bytes: %v, want ErrTooLarge", err)
	}
	if _, ok, err := h.Lazy(tree.Limits{MaxBytes: 4 << 20}, nil); !ok || err != nil {
		t.Fatalf("Lazy within 4 MiB: %v, %v", ok, err)
	}
}
