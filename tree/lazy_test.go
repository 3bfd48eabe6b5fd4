package tree_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// lazySource returns the Source of a lazy tree that holds the entries of
// eager (a tree without problems), in blocks of size entries, and counts
// the blocks decoded in *decoded.
func lazySource(eager *tree.Tree, size int, decoded *atomic.Int32) tree.Source {
	es := eager.Entries()
	key := func(e *tree.Entry) string {
		return fmt.Sprintf("%t %t %t %q", e.IsPublic, e.HasIsPublic, e.Groups == nil, e.Groups)
	}
	ids := map[string]int32{}
	var rules []tree.Rule
	ruleOf := make([]int32, len(es))
	for i := range es {
		k := key(&es[i])
		r, ok := ids[k]
		if !ok {
			r = int32(len(rules))
			ids[k] = r
			rules = append(rules, tree.Rule{IsPublic: es[i].IsPublic, HasIsPublic: es[i].HasIsPublic, Groups: es[i].Groups})
		}
		ruleOf[i] = r
	}
	dirs, counts := tree.Summarize(es, ruleOf, len(rules))
	for r := range rules {
		rules[r].Count = counts[r]
	}
	var blocks, dirBlocks []tree.Block
	for lo := 0; lo < len(es); lo += size {
		blocks = append(blocks, tree.Block{First: es[lo].Slug, Start: lo})
	}
	for d := 1; d < len(dirs); d += size {
		dirBlocks = append(dirBlocks, tree.Block{First: dirs[d].Path, Start: d})
	}
	return tree.Source{
		Entries: len(es), Rules: rules, Blocks: blocks,
		Root: dirs[0], Dirs: len(dirs) - 1, DirBlocks: dirBlocks,
		Decode: func(b int, out []tree.Entry, rules []int32) error {
			if decoded != nil {
				decoded.Add(1)
			}
			lo := blocks[b].Start
			copy(out, es[lo:])
			copy(rules, ruleOf[lo:])
			return nil
		},
		DecodeDirs: func(b int, out []tree.Dir) error {
			copy(out, dirs[dirBlocks[b].Start:])
			return nil
		},
	}
}

func mustLazy(t testing.TB, src tree.Source) *tree.Tree {
	t.Helper()
	lz, err := tree.NewLazy(src)
	if err != nil {
		t.Fatal(err)
	}
	return lz
}

// compareViews checks that the views of got and want for groups answer
// alike: Files, Walk, and Lookup, ReadDir and ModTime of every path of
// want's unpruned view (and a few that are no path). It looks up and lists
// before it walks, so that a lazy got decodes on demand.
func compareViews(t *testing.T, got, want *tree.Tree, groups []string) {
	t.Helper()
	gv, wv := got.View(groups), want.View(groups)
	names := []string{".", "", "/", "zz", "a/", "./a", "a//b"}
	want.All().Walk(func(n *tree.Node) bool {
		names = append(names, n.Path, n.Path+"/x")
		return true
	})
	for _, name := range names {
		g, gok := gv.Lookup(name)
		w, wok := wv.Lookup(name)
		if gok != wok || gok && (g.Path != w.Path || g.Name != w.Name || g.IsDir != w.IsDir || !reflect.DeepEqual(g.Entry, w.Entry)) {
			t.Fatalf("View(%q).Lookup(%q) = %+v, %v; want %+v, %v", groups, name, g, gok, w, wok)
		}
		if gok && !gv.ModTime(g).Equal(wv.ModTime(w)) {
			t.Fatalf("View(%q).ModTime(%q) = %v, want %v", groups, name, gv.ModTime(g), wv.ModTime(w))
		}
		gk, gok := gv.ReadDir(name)
		wk, wok := wv.ReadDir(name)
		if gok != wok || len(gk) != len(wk) {
			t.Fatalf("View(%q).ReadDir(%q) = %d nodes, %v; want %d, %v", groups, name, len(gk), gok, len(wk), wok)
		}
		for i := range gk {
			if gk[i].Path != wk[i].Path || gk[i].Name != wk[i].Name || gk[i].IsDir != wk[i].IsDir {
				t.Fatalf("View(%q).ReadDir(%q)[%d] = %q, want %q", groups, name, i, gk[i].Path, wk[i].Path)
			}
			if n, _ := gv.Lookup(gk[i].Path); n != gk[i] {
				t.Fatalf("View(%q).ReadDir(%q)[%d] is not the node Lookup returns", groups, name, i)
			}
		}
	}
	if gv.Files() != wv.Files() {
		t.Fatalf("View(%q).Files() = %d, want %d", groups, gv.Files(), wv.Files())
	}
	var gw, ww []string
	gv.Walk(func(n *tree.Node) bool { gw = append(gw, n.Path); return true })
	wv.Walk(func(n *tree.Node) bool { ww = append(ww, n.Path); return true })
	if !slices.Equal(gw, ww) {
		t.Fatalf("View(%q).Walk\n got %q\nwant %q", groups, gw, ww)
	}
	// Walk stops when told to.
	k := 0
	gv.Walk(func(*tree.Node) bool { k++; return k < 3 })
	if k != min(3, len(ww)) {
		t.Fatalf("View(%q).Walk went on after false: %d calls", groups, k)
	}
}

// TestLazyMatchesEager compares lazy trees with the trees New makes of the
// same entries: random trees with every kind of rule, realistic ones,
// blocks of several sizes, every group set of the generated groups.
func TestLazyMatchesEager(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for round := range 80 {
		eager := tree.New(randomEntries(r, r.IntN(60)))
		if eager.Len() == 0 {
			continue
		}
		src := lazySource(eager, 1+r.IntN(8), nil)
		for range 4 {
			groups := randomGroups(r)
			t.Run(fmt.Sprint(round), func(t *testing.T) {
				lz := mustLazy(t, src)
				compareViews(t, lz, eager, groups)
				checkPruned(t, lz, groups)
				if !reflect.DeepEqual(lz.Entries(), eager.Entries()) || !slices.Equal(lz.Groups(), eager.Groups()) {
					t.Fatal("lazy tree's entries or groups differ")
				}
				if lz.Err() != nil || len(lz.Problems()) != 0 {
					t.Fatal(lz.Err(), lz.Problems())
				}
			})
		}
	}
	eager := tree.New(tree.GenEntries(1000, 5))
	gs := eager.Groups()
	for _, size := range []int{1, 64, 5000} {
		src := lazySource(eager, size, nil)
		compareViews(t, mustLazy(t, src), eager, nil)
		compareViews(t, mustLazy(t, src), eager, []string{"zz"})
		compareViews(t, mustLazy(t, src), eager, gs)
		for i, a := range gs {
			compareViews(t, mustLazy(t, src), eager, []string{a, gs[(i+1)%len(gs)]})
		}
		lz := mustLazy(t, src)
		if lz.All().Files() != eager.Len() {
			t.Fatalf("All().Files() = %d, want %d", lz.All().Files(), eager.Len())
		}
		for i, e := range eager.Entries() {
			if j, ok := lz.Index(e.Slug); !ok || j != i {
				t.Fatalf("Index(%q) = %d, %v; want %d", e.Slug, j, ok, i)
			}
			if p, ok := lz.Entry(e.Slug); !ok {
				t.Fatalf("Entry(%q) missing", e.Slug)
			} else if j, ok := lz.Position(p); !ok || j != i {
				t.Fatalf("Position(Entry(%q)) = %d, %v; want %d", e.Slug, j, ok, i)
			}
		}
	}
}

// TestLazyDecodesOnDemand shows that a lookup and a listing of a
// directory decode a few blocks of a large tree, not all of them.
func TestLazyDecodesOnDemand(t *testing.T) {
	eager := tree.New(tree.GenEntries(10000, 3))
	var decoded atomic.Int32
	src := lazySource(eager, 128, &decoded)
	lz := mustLazy(t, src)
	v := lz.View([]string{"admin"})
	slug := eager.Entries()[5000].Slug
	if _, ok := lz.All().Lookup(slug); !ok {
		t.Fatalf("Lookup(%q) failed", slug)
	}
	if n := decoded.Load(); n != 1 {
		t.Fatalf("a lookup decoded %d blocks, want 1", n)
	}
	if _, ok := v.Lookup("guides"); !ok {
		t.Fatal("Lookup(guides) failed")
	}
	if n := decoded.Load(); n != 1 {
		t.Fatalf("a lookup of a directory decoded %d blocks, want none", n-1)
	}
	if _, ok := v.ReadDir("guides/auth"); !ok {
		t.Fatal("ReadDir(guides/auth) failed")
	}
	if n, all := decoded.Load(), len(src.Blocks); n > 4 {
		t.Fatalf("a lookup and a listing of a directory decoded %d of %d blocks", n, all)
	}
	lz.Entries()
	if n := decoded.Load(); int(n) != len(src.Blocks) {
		t.Fatalf("Entries decoded %d of %d blocks, each once", n, len(src.Blocks))
	}
}

// TestLazySummaryRefused gives NewLazy summaries that do not hold.
func TestLazySummaryRefused(t *testing.T) {
	eager := tree.New(tree.GenEntries(200, 4))
	cases := map[string]func(s *tree.Source){
		"no decoder":           func(s *tree.Source) { s.Decode = nil },
		"no directory decoder": func(s *tree.Source) { s.DecodeDirs = nil },
		"counts":               func(s *tree.Source) { s.Rules[0].Count++ },
		"negative count":       func(s *tree.Source) { s.Rules[0].Count = -1; s.Rules[1].Count += 1 + s.Rules[0].Count },
		"block start":          func(s *tree.Source) { s.Blocks[1].Start = 0 },
		"block past end":       func(s *tree.Source) { s.Blocks[len(s.Blocks)-1].Start = s.Entries },
		"unsafe first slug":    func(s *tree.Source) { s.Blocks[1].First = "../x" },
		"blocks out of order":  func(s *tree.Source) { s.Blocks[1].First, s.Blocks[2].First = s.Blocks[2].First, s.Blocks[1].First },
		"directory block 0":    func(s *tree.Source) { s.DirBlocks[0].Start = 0 },
		"directory blocks": func(s *tree.Source) {
			s.DirBlocks[1].First, s.DirBlocks[2].First = s.DirBlocks[2].First, s.DirBlocks[1].First
		},
		"unsafe directory":   func(s *tree.Source) { s.DirBlocks[1].First = "a/./b" },
		"directory count":    func(s *tree.Source) { s.Dirs = s.DirBlocks[len(s.DirBlocks)-1].Start - 1 },
		"root range":         func(s *tree.Source) { s.Root.Hi-- },
		"root end":           func(s *tree.Source) { s.Root.End++ },
		"root path":          func(s *tree.Source) { s.Root.Path = "" },
		"root rule":          func(s *tree.Source) { s.Root.Rules = append(s.Root.Rules, tree.RuleTime{Rule: len(s.Rules)}) },
		"root without rules": func(s *tree.Source) { s.Root.Rules = nil },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			src := lazySource(eager, 16, nil)
			src.Rules = slices.Clone(src.Rules)
			src.Blocks = slices.Clone(src.Blocks)
			src.DirBlocks = slices.Clone(src.DirBlocks)
			src.Root.Rules = slices.Clone(src.Root.Rules)
			mutate(&src)
			if _, err := tree.NewLazy(src); !errors.Is(err, tree.ErrSummary) {
				t.Fatalf("NewLazy = %v, want an error wrapping ErrSummary", err)
			}
		})
	}
}

// TestLazyBadDirBlock gives a lazy tree directory blocks that do not
// hold: the directories of such a block, and the files below them, are
// served nowhere; Err reports it.
func TestLazyBadDirBlock(t *testing.T) {
	eager := tree.New(tree.GenEntries(400, 8))
	cases := map[string]func(out []tree.Dir) error{
		"decoder error":   func([]tree.Dir) error { return errors.New("boom") },
		"unsafe path":     func(out []tree.Dir) error { out[1].Path = out[1].Path + "/.."; return nil },
		"out of order":    func(out []tree.Dir) error { out[1], out[2] = out[2], out[1]; return nil },
		"first path":      func(out []tree.Dir) error { out[0].Path += "x"; return nil },
		"empty range":     func(out []tree.Dir) error { out[1].Hi = out[1].Lo; return nil },
		"range past end":  func(out []tree.Dir) error { out[1].Hi = eager.Len() + 1; return nil },
		"end before self": func(out []tree.Dir) error { out[1].End = 1; return nil },
		"rule":            func(out []tree.Dir) error { out[1].Rules = []tree.RuleTime{{Rule: -1}}; return nil },
		"no rules":        func(out []tree.Dir) error { out[1].Rules = nil; return nil },
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			src := lazySource(eager, 8, nil)
			good := src.DecodeDirs
			src.DecodeDirs = func(b int, out []tree.Dir) error {
				if err := good(b, out); err != nil || b != 0 {
					return err
				}
				for k := range out {
					out[k].Rules = slices.Clone(out[k].Rules)
				}
				return spoil(out)
			}
			var reported atomic.Int32 // OnError may be told from several goroutines
			src.OnError = func(error) { reported.Add(1) }
			lz := mustLazy(t, src)
			first := src.DirBlocks[0].First
			if _, ok := lz.All().Lookup(first); ok {
				t.Fatalf("Lookup(%q) found a directory of a bad block", first)
			}
			if lz.Err() == nil || reported.Load() == 0 {
				t.Fatalf("Err() = %v, OnError told %d times", lz.Err(), reported.Load())
			}
			lz.All().Walk(func(n *tree.Node) bool {
				if n.Path == first || strings.HasPrefix(n.Path, first+"/") {
					t.Fatalf("Walk visited %q of a bad directory block", n.Path)
				}
				return true
			})
		})
	}
}

// TestLazyBadBlock gives a lazy tree blocks that fail to decode or
// disagree with the summary: their entries are served nowhere, the rest
// is, and Err and OnError report the first failure.
func TestLazyBadBlock(t *testing.T) {
	eager := tree.New(tree.GenEntries(400, 6))
	es := eager.Entries()
	cases := map[string]func(out []tree.Entry, rules []int32) error{
		"decoder error": func([]tree.Entry, []int32) error { return errors.New("boom") },
		"unsafe slug":   func(out []tree.Entry, _ []int32) error { out[3].Slug = "a/../b"; return nil },
		"first slug": func(out []tree.Entry, _ []int32) error {
			out[0].Slug = out[0].Slug + "-other"
			return nil
		},
		"rule number": func(_ []tree.Entry, rules []int32) error { rules[2] = -1; return nil },
		"access differs from rule": func(out []tree.Entry, _ []int32) error {
			out[2].IsPublic = !out[2].IsPublic
			out[2].HasIsPublic = true
			return nil
		},
		"newer than its directory": func(out []tree.Entry, _ []int32) error {
			out[2].ModTime = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)
			return nil
		},
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			src := lazySource(eager, 50, nil)
			good := src.Decode
			src.Decode = func(b int, out []tree.Entry, rules []int32) error {
				if err := good(b, out, rules); err != nil || b != 2 {
					return err
				}
				return spoil(out, rules)
			}
			var mu sync.Mutex
			var reported []error // OnError may be told from several goroutines
			src.OnError = func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }
			lz := mustLazy(t, src)
			all := lz.All()
			bad := es[100].Slug // in block 2
			if _, ok := all.Lookup(bad); ok {
				t.Fatalf("Lookup(%q) found an entry of a bad block", bad)
			}
			mu.Lock()
			told := len(reported)
			mu.Unlock()
			if lz.Err() == nil || told != 1 {
				t.Fatalf("Err() = %v, OnError told %d times", lz.Err(), told)
			}
			if _, ok := all.Lookup(es[10].Slug); !ok {
				t.Fatalf("Lookup(%q) of a good block failed", es[10].Slug)
			}
			var walked int
			all.Walk(func(n *tree.Node) bool {
				if !n.IsDir {
					walked++
				}
				if strings.HasPrefix(n.Path, bad) {
					t.Fatalf("Walk visited %q of a bad block", n.Path)
				}
				return true
			})
			if walked != len(es)-50 || len(lz.Entries()) != len(es)-50 {
				t.Fatalf("Walk visited %d files and Entries has %d, want %d", walked, len(lz.Entries()), len(es)-50)
			}
		})
	}
}

// TestLazyConcurrent looks up and lists every path of a fresh lazy tree
// from several goroutines at once (run with -race): each block is decoded
// once, and every goroutine gets the same nodes.
func TestLazyConcurrent(t *testing.T) {
	eager := tree.New(tree.GenEntries(1500, 10))
	var names []string
	eager.All().Walk(func(n *tree.Node) bool {
		names = append(names, n.Path)
		return true
	})
	var decoded atomic.Int32
	src := lazySource(eager, 32, &decoded)
	lz := mustLazy(t, src)
	views := []*tree.View{lz.View(nil), lz.View([]string{"admin"}), lz.All()}
	const workers = 4
	type answer struct {
		node *tree.Node
		kids []*tree.Node
	}
	results := make([][]answer, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range names {
				name := names[(i+w*131)%len(names)] // each from another place
				for _, v := range views {
					n, _ := v.Lookup(name)
					kids, _ := v.ReadDir(name)
					results[w] = append(results[w], answer{n, kids})
				}
			}
		}()
	}
	wg.Wait()
	// Put each worker's answers back in names order and compare.
	byName := func(w int) map[string][]answer {
		m := map[string][]answer{}
		for i := range names {
			name := names[(i+w*131)%len(names)]
			m[name] = append(m[name], results[w][i*len(views):(i+1)*len(views)]...)
		}
		return m
	}
	want := byName(0)
	for w := 1; w < workers; w++ {
		got := byName(w)
		for name, as := range want {
			for k := range as {
				if got[name][k].node != as[k].node || !slices.Equal(got[name][k].kids, as[k].kids) {
					t.Fatalf("worker %d: %q in view %d differs from worker 0's", w, name, k%len(views))
				}
			}
		}
	}
	if n := int(decoded.Load()); n > len(src.Blocks) {
		t.Fatalf("%d blocks decoded, %d exist", n, len(src.Blocks))
	}
	for _, set := range [][]string{nil, {"admin"}} {
		compareViews(t, lz, eager, set)
	}
}
