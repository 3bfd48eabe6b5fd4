package tree_test

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// walk returns the paths of a view in Walk order, directories with a
// trailing slash.
func walk(v *tree.View) []string {
	var s []string
	v.Walk(func(n *tree.Node) bool {
		if n.IsDir && n.Path != "." {
			s = append(s, n.Path+"/")
		} else {
			s = append(s, n.Path)
		}
		return true
	})
	return s
}

const pruneDoc = `{
	"index.md": {"isPublic": true, "groups": []},
	"guides/auth/oauth.md": {"isPublic": true, "groups": []},
	"guides/auth/internal.md": {"isPublic": false, "groups": ["admin"]},
	"internal/billing/plans.md": {"isPublic": false, "groups": ["admin", "billing"]},
	"internal/billing/raw/costs.csv": {"isPublic": false, "groups": ["billing"]},
	"internal/ops.md": {"groups": ["ops"]},
	"beta/new.md": {"isPublic": false, "groups": ["beta"]}
}`

func TestPrune(t *testing.T) {
	tr := mustParse(t, pruneDoc)
	for _, tc := range []struct {
		groups []string
		want   []string
	}{
		{nil, []string{".", "guides/", "guides/auth/", "guides/auth/oauth.md", "index.md"}},
		{[]string{}, []string{".", "guides/", "guides/auth/", "guides/auth/oauth.md", "index.md"}},
		{[]string{"nobody", ""}, []string{".", "guides/", "guides/auth/", "guides/auth/oauth.md", "index.md"}},
		{[]string{"billing"}, []string{".", "guides/", "guides/auth/", "guides/auth/oauth.md", "index.md",
			"internal/", "internal/billing/", "internal/billing/plans.md", "internal/billing/raw/", "internal/billing/raw/costs.csv"}},
		{[]string{"admin"}, []string{".", "guides/", "guides/auth/", "guides/auth/internal.md", "guides/auth/oauth.md", "index.md",
			"internal/", "internal/billing/", "internal/billing/plans.md"}},
		{[]string{"ops", "beta"}, []string{".", "beta/", "beta/new.md", "guides/", "guides/auth/", "guides/auth/oauth.md", "index.md",
			"internal/", "internal/ops.md"}},
	} {
		v := tr.View(tc.groups)
		if got := walk(v); !slices.Equal(got, tc.want) {
			t.Errorf("View(%q):\n got %q\nwant %q", tc.groups, got, tc.want)
		}
		checkView(t, v)
	}
	// A hidden directory does not exist, for Lookup and ReadDir alike.
	v := tr.View(nil)
	for _, name := range []string{"internal", "internal/billing", "internal/billing/plans.md", "beta", "beta/new.md", "guides/auth/internal.md"} {
		if n, ok := v.Lookup(name); ok {
			t.Errorf("public view: Lookup(%q) = %+v", name, n)
		}
		if _, ok := v.ReadDir(name); ok {
			t.Errorf("public view: ReadDir(%q) succeeded", name)
		}
	}
	kids, _ := v.ReadDir(".")
	if len(kids) != 2 || kids[0].Name != "guides" || kids[1].Name != "index.md" {
		t.Errorf("public ReadDir(.) = %v", kids)
	}

	all := walk(tr.All())
	if len(all) != 14 {
		t.Errorf("All() has %d nodes: %q", len(all), all)
	}
	if tr.All().Files() != 7 {
		t.Errorf("All().Files() = %d", tr.All().Files())
	}
	if got, want := tr.Groups(), []string{"admin", "beta", "billing", "ops"}; !slices.Equal(got, want) {
		t.Errorf("Groups() = %q, want %q", got, want)
	}
}

func TestEmptyView(t *testing.T) {
	tr := mustParse(t, `{"a/b.md": {"isPublic": false, "groups": ["x"]}, "c": {}}`)
	checkEmpty(t, tr.View(nil))
	checkEmpty(t, tr.View([]string{"y"}))
	checkEmpty(t, tree.New(nil).All())
}

func TestViewCache(t *testing.T) {
	tr := mustParse(t, pruneDoc)
	a := tr.View([]string{"billing", "admin"})
	if b := tr.View([]string{"admin", "billing", "admin", "unknown"}); a != b {
		t.Error("same group set gave a different view")
	}
	if b := tr.View([]string{"admin"}); a == b {
		t.Error("different group sets gave the same view")
	}
	if tr.View(nil) != tr.View([]string{"unknown"}) {
		t.Error("groups that no entry names changed the view")
	}
	// Everything visible: the unpruned view is shared.
	if tr.View([]string{"admin", "billing", "ops", "beta"}) != tr.All() {
		t.Error("a view of every entry is not All()")
	}
	// Eviction keeps views correct.
	gs := make([]string, 0, 200)
	for i := range 200 {
		gs = append(gs, fmt.Sprint("g", i))
	}
	entries := []tree.Entry{}
	for i, g := range gs {
		entries = append(entries, tree.Entry{Slug: fmt.Sprintf("d%d/p.md", i), Groups: []string{g}, Size: -1})
	}
	tr = tree.New(entries)
	for round := range 2 {
		for i, g := range gs {
			v := tr.View([]string{g})
			if v.Files() != 1 {
				t.Fatalf("round %d: view %s has %d files", round, g, v.Files())
			}
			if _, ok := v.Lookup(fmt.Sprintf("d%d/p.md", i)); !ok {
				t.Fatalf("round %d: view %s lacks its page", round, g)
			}
		}
	}
}

func TestViewConcurrent(t *testing.T) {
	tr := tree.New(tree.GenEntries(2000, 7))
	groups := [][]string{nil, {"admin"}, {"billing", "beta"}, {"beta", "billing"}, {"enterprise"}, {"internal", "support", "admin"}}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				gs := groups[(g+i)%len(groups)]
				if i%7 == 0 {
					gs = []string{fmt.Sprint("other", i)}
				}
				v := tr.View(gs)
				if _, ok := v.Lookup("."); !ok {
					t.Error("no root")
					return
				}
				if i%50 == 0 {
					tr.All().Files()
				}
			}
		}()
	}
	wg.Wait()
}

func TestLookupInvalid(t *testing.T) {
	v := mustParse(t, `{"a/b.md": {"isPublic": true}}`).View(nil)
	for _, name := range []string{"", "/", "/a", "a/", "./a", "a/./b.md", "a/../a", "a//b.md", `a\b.md`, "..", "a/b.md/", "A"} {
		if n, ok := v.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %+v", name, n)
		}
		if _, ok := v.ReadDir(name); ok {
			t.Errorf("ReadDir(%q) succeeded", name)
		}
	}
	if _, ok := v.ReadDir("a/b.md"); ok {
		t.Error("ReadDir of a file succeeded")
	}
	n, ok := v.Lookup("a/b.md")
	if !ok || n.IsDir || n.Name != "b.md" || n.Entry == nil || n.Entry.Slug != "a/b.md" {
		t.Errorf("Lookup(a/b.md) = %+v, %v", n, ok)
	}
	n, ok = v.Lookup("a")
	if !ok || !n.IsDir || n.Name != "a" || n.Entry != nil {
		t.Errorf("Lookup(a) = %+v, %v", n, ok)
	}
}

func TestWalkStops(t *testing.T) {
	v := mustParse(t, pruneDoc).All()
	n := 0
	v.Walk(func(*tree.Node) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("Walk visited %d nodes after stopping at 3", n)
	}
}

// TestViewMatchesMapFS compares views of generated trees with
// fstest.MapFS holding the same files: the same nodes in the same order
// (fs.WalkDir's) and the same directory listings.
func TestViewMatchesMapFS(t *testing.T) {
	entries := tree.GenEntries(3000, 3)
	// Names that sort around '/': "a-b" < "a/" < "a0" in byte order.
	for _, s := range []string{"x/a-b", "x/a/c", "x/a.b/c", "x/a0", "x/a b", "x/a!/c", "y.md", "y/z.md", "é/ü"} {
		entries = append(entries, tree.Entry{Slug: s, IsPublic: true, Size: -1})
	}
	tr := tree.New(entries)
	if got := problems(tr); len(got) != 0 {
		t.Fatalf("problems %q", got)
	}
	for _, groups := range [][]string{nil, {"admin"}, {"billing", "beta", "enterprise"}} {
		v := tr.View(groups)
		checkView(t, v)
		m := fstest.MapFS{}
		for _, e := range tr.Entries() {
			if e.Visible(groups) {
				m[e.Slug] = &fstest.MapFile{}
			}
		}
		var want []string
		err := fs.WalkDir(m, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != "." {
				p += "/"
			}
			want = append(want, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := walk(v); !slices.Equal(got, want) {
			t.Fatalf("View(%q): walk differs from MapFS: %d vs %d nodes", groups, len(got), len(want))
		}
		v.Walk(func(n *tree.Node) bool {
			if !n.IsDir {
				return true
			}
			kids, _ := v.ReadDir(n.Path)
			des, err := fs.ReadDir(m, n.Path)
			if err != nil {
				t.Fatal(err)
			}
			if len(kids) != len(des) {
				t.Fatalf("ReadDir(%q): %d entries, MapFS %d", n.Path, len(kids), len(des))
			}
			for i := range kids {
				if kids[i].Name != des[i].Name() || kids[i].IsDir != des[i].IsDir() {
					t.Fatalf("ReadDir(%q)[%d] = %s, MapFS %s", n.Path, i, kids[i].Name, des[i].Name())
				}
			}
			return true
		})
	}
}

// checkView checks the invariants of a view: valid paths, names that are
// the last element, every node found by Lookup, children sorted and
// consistent, a file count that matches.
func checkView(t testing.TB, v *tree.View) {
	t.Helper()
	files, nodes := 0, 0
	var prev string
	v.Walk(func(n *tree.Node) bool {
		nodes++
		if nodes == 1 {
			if n.Path != "." || n.Name != "." || !n.IsDir {
				t.Fatalf("first node %+v is not the root", n)
			}
		} else {
			if !fs.ValidPath(n.Path) || n.Path == "." {
				t.Fatalf("invalid node path %q", n.Path)
			}
			if n.Name != path.Base(n.Path) {
				t.Fatalf("node %q has name %q", n.Path, n.Name)
			}
			if prev != "." && pathLess(n.Path, prev) {
				t.Fatalf("walk order: %q after %q", n.Path, prev)
			}
			dir := path.Dir(n.Path)
			siblings, ok := v.ReadDir(dir)
			if !ok || !slices.Contains(siblings, n) {
				t.Fatalf("node %q not among the children of %q", n.Path, dir)
			}
		}
		prev = n.Path
		if got, ok := v.Lookup(n.Path); !ok || got != n {
			t.Fatalf("Lookup(%q) = %p, %v; want %p", n.Path, got, ok, n)
		}
		if n.IsDir {
			if n.Entry != nil {
				t.Fatalf("directory %q has an entry", n.Path)
			}
			kids, ok := v.ReadDir(n.Path)
			if !ok {
				t.Fatalf("ReadDir(%q) failed", n.Path)
			}
			if n.Path != "." && len(kids) == 0 {
				t.Fatalf("directory %q is empty", n.Path)
			}
			for i, k := range kids {
				if i > 0 && kids[i-1].Name >= k.Name {
					t.Fatalf("ReadDir(%q) not sorted: %q, %q", n.Path, kids[i-1].Name, k.Name)
				}
				if want := path.Join(n.Path, k.Name); k.Path != want {
					t.Fatalf("child %q of %q, want path %q", k.Path, n.Path, want)
				}
			}
		} else {
			files++
			if n.Entry == nil || n.Entry.Slug != n.Path {
				t.Fatalf("file %q has entry %+v", n.Path, n.Entry)
			}
		}
		return true
	})
	if files != v.Files() {
		t.Fatalf("Files() = %d, walked %d", v.Files(), files)
	}
}

// pathLess reports whether a sorts before b element by element.
func pathLess(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	return slices.Compare(as, bs) < 0
}

func TestVisible(t *testing.T) {
	for _, tc := range []struct {
		e      tree.Entry
		groups []string
		want   bool
	}{
		{tree.Entry{IsPublic: true}, nil, true},
		{tree.Entry{}, nil, false},
		{tree.Entry{Groups: []string{"a"}}, nil, false},
		{tree.Entry{Groups: []string{"a"}}, []string{"b", "a"}, true},
		{tree.Entry{Groups: []string{"a", "b"}}, []string{"c"}, false},
		{tree.Entry{Groups: []string{""}}, []string{""}, false},
		{tree.Entry{Groups: []string{"A"}}, []string{"a"}, false},
	} {
		if got := tc.e.Visible(tc.groups); got != tc.want {
			t.Errorf("%+v.Visible(%q) = %v, want %v", tc.e, tc.groups, got, tc.want)
		}
	}
}

func TestNew(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	in := []tree.Entry{
		{Slug: "b.md", Size: 5},
		{Slug: "b.md", IsPublic: true, Size: -1, ModTime: time.Date(2024, 1, 1, 1, 0, 0, 0, loc)},
		{Slug: "a/../b", Size: -1},
		{Slug: "c", Size: -2},
		{Slug: "d", Chunks: -1, Size: -1},
		{Slug: "e", ModTime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Slug: "a", Groups: []string{"g"}},
	}
	groups := in[6].Groups
	tr := tree.New(in)
	if got, want := slugs(tr), []string{"a", "b.md"}; !slices.Equal(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
	want := []string{`"a/../b": unsafe slug: .. element`, `"b.md": duplicate slug`, `"c": size: want a non-negative integer`,
		`"d": chunks: want a non-negative integer`, `"e": modTime: outside the years 0 to 9999`}
	if got := problems(tr); !slices.Equal(got, want) {
		t.Errorf("problems\n%q\nwant\n%q", got, want)
	}
	b, _ := tr.Entry("b.md")
	if !b.HasIsPublic || b.ModTime != time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) || b.Size != -1 {
		t.Errorf("b.md = %+v", b)
	}
	groups[0] = "changed"
	if a, _ := tr.Entry("a"); a.Groups[0] != "g" {
		t.Error("New did not copy groups")
	}
	// A monotonic clock reading is dropped.
	now := time.Now()
	tr = tree.New([]tree.Entry{{Slug: "x", ModTime: now}})
	if got := tr.Entries()[0].ModTime; got != now.UTC().Round(0) {
		t.Errorf("ModTime %#v not normalised", got)
	}
}
