package tree

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLazyIndex: a view's lookups give the same nodes by binary search
// (the first lazyLookups) as through the hash index built after them,
// and as a scan of the nodes, for every node's path and for names that
// are no node's.
func TestLazyIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"a", "b", "a-b", "a.b", "a0", "c", "é", "x y", ".x"}
	for round := range 50 {
		var es []Entry
		for range r.IntN(200) {
			var elems []string
			for range 1 + r.IntN(4) {
				elems = append(elems, names[r.IntN(len(names))])
			}
			es = append(es, Entry{Slug: strings.Join(elems, "/"), Size: -1, IsPublic: true})
		}
		if round == 0 {
			es = GenEntries(1500, 1)
		}
		v := New(es).All()
		probe := []string{".", "", "/", "./a", "a/", "a//b", "zz", "\xff"}
		for i := range v.nodes {
			probe = append(probe, v.nodes[i].Path, v.nodes[i].Path+"/x", v.nodes[i].Path+"x", v.nodes[i].Path+"-")
		}
		at := map[string]int{}
		for i := range v.nodes {
			at[v.nodes[i].Path] = i
		}
		want := make([]int, len(probe))
		for k, name := range probe {
			want[k] = -1
			if i, ok := at[name]; ok {
				want[k] = i
			}
		}
		for pass, ready := range []bool{false, true} {
			x := &lazyIndex{}
			if ready {
				x.lookups.Store(lazyLookups)
			}
			for k, name := range probe {
				if !ready {
					x.lookups.Store(0) // stay on binary search
				}
				if got := x.find(v.nodes, name); got != want[k] {
					t.Fatalf("round %d pass %d: find(%q) = %d, want %d", round, pass, name, got, want[k])
				}
			}
			if ready != (x.ready.Load() != nil) {
				t.Fatalf("round %d: index built %v, want %v", round, x.ready.Load() != nil, ready)
			}
		}
	}
}
