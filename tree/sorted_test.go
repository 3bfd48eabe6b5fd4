package tree_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// checkNewSorted checks NewSorted against New on entries: it accepts
// exactly the entries that New keeps whole and in the order given, and
// then builds the same tree (entries, groups, views).
func checkNewSorted(t *testing.T, es []tree.Entry, groupSets ...[]string) {
	t.Helper()
	want := tree.New(es)
	valid := len(want.Problems()) == 0 && len(want.Entries()) == len(es)
	for i := 0; valid && i < len(es); i++ {
		valid = want.Entries()[i].Slug == es[i].Slug
	}
	got, err := tree.NewSorted(slices.Clone(es))
	if !valid {
		if err == nil || !errors.Is(err, tree.ErrUnsorted) {
			t.Fatalf("NewSorted accepted entries that New sorts or rejects (%v): %q", want.Problems(), slugsOf(es))
		}
		return
	}
	if err != nil {
		t.Fatalf("NewSorted refused valid sorted entries %q: %v", slugsOf(es), err)
	}
	if !reflect.DeepEqual(got.Entries(), want.Entries()) || !slices.Equal(got.Groups(), want.Groups()) || len(got.Problems()) != 0 {
		t.Fatalf("NewSorted built another tree:\n got %+v %q\nwant %+v %q", got.Entries(), got.Groups(), want.Entries(), want.Groups())
	}
	for _, gs := range groupSets {
		checkPruned(t, got, gs)
	}
}

func slugsOf(es []tree.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Slug)
	}
	return out
}

// TestNewSorted compares NewSorted with New on random entries as they
// come (mostly unsorted, with clashes and duplicates), sorted by New, and
// sorted with one slug broken; and on trees large enough to be checked in
// parts.
func TestNewSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	breaks := []func(string) string{
		func(s string) string { return s + "/" },
		func(s string) string { return s + "/.." },
		func(s string) string { return s + "/./x" },
		func(s string) string { return s + "\x00" },
		func(s string) string { return s + "\\" },
		func(s string) string { return s + "\xff" },
		func(s string) string { return s + "/\u0085" },
		func(s string) string { return s + "//x" },
		func(string) string { return "" },
	}
	for range 400 {
		es := randomEntries(r, r.IntN(40))
		checkNewSorted(t, es)
		sorted := slices.Clone(tree.New(es).Entries())
		checkNewSorted(t, sorted, randomGroups(r), randomGroups(r))
		if len(sorted) > 0 {
			i := r.IntN(len(sorted))
			sorted[i].Slug = breaks[r.IntN(len(breaks))](sorted[i].Slug)
			checkNewSorted(t, sorted)
		}
	}
	big := tree.New(tree.GenEntries(9000, 3)).Entries()
	checkNewSorted(t, slices.Clone(big), []string{"admin"})
	for _, i := range []int{0, 4095, 4096, 4500, 8999} {
		for _, swap := range []bool{false, true} {
			es := slices.Clone(big)
			if swap && i > 0 {
				es[i-1], es[i] = es[i], es[i-1]
			} else {
				es[i].Slug += "/../x"
			}
			if _, err := tree.NewSorted(es); !errors.Is(err, tree.ErrUnsorted) {
				t.Errorf("entry %d broken (swap %v): %v", i, swap, err)
			}
		}
	}
	// Other fields get New's checks and normalisation.
	loc := time.FixedZone("x", 3600)
	for _, e := range []tree.Entry{
		{Slug: "a", Size: -2},
		{Slug: "a", Chunks: -1},
		{Slug: "a", ModTime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Slug: "a", ModTime: time.Date(2020, 1, 2, 3, 4, 5, 6, loc), IsPublic: true, Groups: []string{"g", ""}},
	} {
		checkNewSorted(t, []tree.Entry{e})
	}
}

// FuzzNewSorted compares NewSorted with New on slugs the fuzzer makes
// (one per line), as given and sorted.
func FuzzNewSorted(f *testing.F) {
	f.Add("a\na/b")
	f.Add("a/b\na/b")
	f.Add("a/b/c\na/b.md\na-b")
	f.Add("a/.-x\na/../y")
	f.Add("é/x\n\xc3\xff")
	f.Fuzz(func(t *testing.T, s string) {
		var es []tree.Entry
		for i, slug := range strings.Split(s, "\n") {
			es = append(es, tree.Entry{Slug: slug, Size: -1, IsPublic: i%2 == 0, Groups: []string{"g"}})
		}
		checkNewSorted(t, es)
		checkNewSorted(t, slices.Clone(tree.New(es).Entries()), nil, []string{"g"})
	})
}
