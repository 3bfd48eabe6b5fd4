package tree_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromafs/chromafs/tree"
)

// randomEntries returns n entries with random slugs over a few short
// names (so that directories are shared, and some slugs clash or repeat)
// and random access rules over the groups a to e, "" and unnamed ones.
func randomEntries(r *rand.Rand, n int) []tree.Entry {
	names := []string{"a", "b", "a-b", "a.b", "a0", "c", "é", "x y"}
	groups := []string{"a", "b", "c", "d", "e", "", "a"}
	entries := make([]tree.Entry, 0, n)
	for range n {
		var elems []string
		for range 1 + r.IntN(4) {
			elems = append(elems, names[r.IntN(len(names))])
		}
		e := tree.Entry{Slug: strings.Join(elems, "/"), Size: -1, IsPublic: r.IntN(4) == 0}
		for range r.IntN(3) {
			e.Groups = append(e.Groups, groups[r.IntN(len(groups))])
		}
		entries = append(entries, e)
	}
	return entries
}

// randomGroups returns a random group set for randomEntries: duplicates,
// "" and groups that no entry names included.
func randomGroups(r *rand.Rand) []string {
	var gs []string
	for range r.IntN(5) {
		gs = append(gs, []string{"a", "b", "c", "d", "e", "", "zz"}[r.IntN(7)])
	}
	if r.IntN(10) == 0 {
		gs = nil
	}
	return gs
}

// checkPruned compares the view of tr for groups with a reference: the
// unpruned view of a tree of the visible entries only. Nodes must match in
// Walk order, Lookup and ReadDir must agree on every path of the unpruned
// view of tr (hidden ones not found), files must be tr's entries.
func checkPruned(t testing.TB, tr *tree.Tree, groups []string) {
	t.Helper()
	var visible []tree.Entry
	for _, e := range tr.Entries() {
		if e.Visible(groups) {
			visible = append(visible, e)
		}
	}
	ref := tree.New(visible).All()
	v := tr.View(groups)

	type node struct {
		path, name string
		dir        bool
	}
	var got, want []node
	v.Walk(func(n *tree.Node) bool {
		got = append(got, node{n.Path, n.Name, n.IsDir})
		if !n.IsDir {
			if e, ok := tr.Entry(n.Path); !ok || e != n.Entry {
				t.Fatalf("View(%q): file %q has entry %p, want the tree's %p", groups, n.Path, n.Entry, e)
			}
		}
		return true
	})
	ref.Walk(func(n *tree.Node) bool {
		want = append(want, node{n.Path, n.Name, n.IsDir})
		return true
	})
	if !slices.Equal(got, want) {
		t.Fatalf("View(%q): Walk\n got %v\nwant %v", groups, got, want)
	}
	if v.Files() != ref.Files() {
		t.Fatalf("View(%q): Files() = %d, want %d", groups, v.Files(), ref.Files())
	}

	names := []string{"", "/", "zz", "a/", "./a", "a//b"}
	tr.All().Walk(func(n *tree.Node) bool {
		names = append(names, n.Path, n.Path+"/x")
		return true
	})
	for _, name := range names {
		n, ok := v.Lookup(name)
		rn, rok := ref.Lookup(name)
		if ok != rok || ok && (n.Path != rn.Path || n.Name != rn.Name || n.IsDir != rn.IsDir || (n.Entry == nil) != (rn.Entry == nil)) {
			t.Fatalf("View(%q): Lookup(%q) = %+v, %v; want %+v, %v", groups, name, n, ok, rn, rok)
		}
		kids, ok := v.ReadDir(name)
		rkids, rok := ref.ReadDir(name)
		if ok != rok || len(kids) != len(rkids) {
			t.Fatalf("View(%q): ReadDir(%q) = %d nodes, %v; want %d, %v", groups, name, len(kids), ok, len(rkids), rok)
		}
		for i := range kids {
			if kids[i].Path != rkids[i].Path || kids[i].IsDir != rkids[i].IsDir {
				t.Fatalf("View(%q): ReadDir(%q)[%d] = %q, want %q", groups, name, i, kids[i].Path, rkids[i].Path)
			}
			if k, _ := v.Lookup(kids[i].Path); k != kids[i] {
				t.Fatalf("View(%q): ReadDir(%q)[%d] is not the node Lookup returns", groups, name, i)
			}
		}
		// A second listing is the same.
		if again, _ := v.ReadDir(name); !slices.Equal(again, kids) {
			t.Fatalf("View(%q): ReadDir(%q) changed", groups, name)
		}
	}
	checkView(t, v)
}

// TestPrunedMatchesReference compares pruned views of random trees with
// views of trees built from the visible entries only.
func TestPrunedMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for round := range 300 {
		tr := tree.New(randomEntries(r, r.IntN(60)))
		for range 6 {
			groups := randomGroups(r)
			t.Run(fmt.Sprint(round), func(t *testing.T) { checkPruned(t, tr, groups) })
		}
	}
	// Realistic trees, every single group and pairs.
	tr := tree.New(tree.GenEntries(3000, 5))
	gs := tr.Groups()
	checkPruned(t, tr, nil)
	for i, a := range gs {
		checkPruned(t, tr, []string{a})
		for _, b := range gs[i+1:] {
			checkPruned(t, tr, []string{b, a})
		}
	}
}

// TestPrunedReadDirConcurrent lists the directories of fresh pruned views
// from several goroutines at once: each listing is filtered once.
func TestPrunedReadDirConcurrent(t *testing.T) {
	tr := tree.New(tree.GenEntries(2000, 9))
	var dirs []string
	tr.All().Walk(func(n *tree.Node) bool {
		if n.IsDir {
			dirs = append(dirs, n.Path)
		}
		return true
	})
	for _, groups := range [][]string{nil, {"admin"}, {"beta", "support"}} {
		v := tr.View(groups)
		var wg sync.WaitGroup
		results := make([][][]*tree.Node, 4)
		for g := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, d := range dirs {
					kids, _ := v.ReadDir(d)
					results[g] = append(results[g], kids)
				}
			}()
		}
		wg.Wait()
		for g := 1; g < len(results); g++ {
			for i := range dirs {
				if !slices.Equal(results[g][i], results[0][i]) {
					t.Fatalf("View(%q): ReadDir(%q) differs between goroutines", groups, dirs[i])
				}
			}
		}
		checkPruned(t, tr, groups)
	}
}

// FuzzView compares pruned views with the reference over trees and group
// sets that the fuzzer derives from bytes.
func FuzzView(f *testing.F) {
	f.Add(uint64(1), uint8(10), []byte("ab"))
	f.Add(uint64(2), uint8(40), []byte(""))
	f.Add(uint64(3), uint8(0), []byte("\x00e"))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, groups []byte) {
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		tr := tree.New(randomEntries(r, int(n)))
		var gs []string
		for _, c := range groups {
			gs = append(gs, string(rune('a'+c%8)))
		}
		checkPruned(t, tr, gs)
	})
}
