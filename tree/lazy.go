package tree

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A lazy tree is read from a summary of its entries (a [Source]) and
// decodes its entries a block at a time, when an operation first needs
// them: a session that looks up a few paths and lists a few directories
// decodes a few blocks, not the whole tree. Its views answer exactly as
// the views of the tree [New] makes of the same entries.

// Rule is an access rule of a [Source]: what the entries that name it
// have in their IsPublic, HasIsPublic and Groups fields, and how many
// entries name it.
type Rule struct {
	IsPublic, HasIsPublic bool
	Groups                []string
	Count                 int
}

// Block is a run of consecutive entries of a [Source]: its entries start
// at position Start (in path order), and the first one's slug is First.
type Block struct {
	First string
	Start int
}

// Dir summarises a directory of a tree: its path ("." for the root), its
// parent (a position in the directory table, -1 for the root), the
// positions [Lo, Hi) of the entries below it (contiguous in path order),
// and the rules of those entries, each with the newest ModTime among the
// entries that name it.
type Dir struct {
	Path   string
	Parent int
	Lo, Hi int
	Rules  []RuleTime // sorted by Rule, without duplicates
}

// RuleTime is a rule of the entries below a directory and the newest
// ModTime among them (the zero Time when none has one).
type RuleTime struct {
	Rule    int
	ModTime time.Time
}

// Source is what [NewLazy] builds a tree from: the number of entries,
// the rules they name, the blocks they are cut into and the directory
// table ([Summarize] computes the last two for entries in path order),
// and Decode, which fills out (the block's entries, in path order) and
// rules (the position in Rules of each one's rule) for block b. Decode
// may be called from several goroutines at once, for different blocks,
// and is called at most once per block.
type Source struct {
	Entries int
	Rules   []Rule
	Blocks  []Block
	Dirs    []Dir
	Decode  func(b int, out []Entry, rules []int32) error
	// OnError, when set, is told of a block that fails to decode or
	// whose entries disagree with the summary. The entries of such a
	// block are left out of every view (they are never served), and
	// Tree.Err reports the first such error.
	OnError func(error)
}

// ErrSummary is wrapped by the errors of [NewLazy] for a Source whose
// summary is inconsistent, and by the block errors that Tree.Err reports.
var ErrSummary = errors.New("tree: inconsistent summary")

// lazyTree is the state of a tree made by NewLazy.
type lazyTree struct {
	src         Source
	dirs        []Node  // by directory: its node
	kids        []int32 // the subdirectories of each directory, contiguous
	kidsAt      []int32 // by directory: where its subdirectories start in kids; one more at the end
	blocks      []lazyBlock
	entriesOnce sync.Once
	err         atomic.Pointer[error]
	decoded     atomic.Int32 // blocks decoded (well or not)
}

// lazyBlock is a block of a lazy tree; its slices are set (by entry of
// the block) once it is decoded well.
type lazyBlock struct {
	once    sync.Once
	ok      atomic.Bool
	entries []Entry
	rules   []int32 // the position in src.Rules of each entry's rule
	nodes   []Node  // Node.first holds the entry's position in the tree
}

// NewLazy returns a tree whose entries src.Decode gives a block at a time
// when they are first needed. It checks the summary at once (slugs and
// directories valid and in path order, ranges nested, counts and rule
// numbers in range) and returns an error wrapping [ErrSummary] when it
// does not hold; each block is checked when it is decoded, as
// [NewSorted] checks its entries, and against the summary (its first
// slug, the directory of each entry and its rule and time). A lazy tree
// has no Problems; Entries, Index and Entry decode the blocks they need
// (Entries all of them, in parallel).
func NewLazy(src Source) (*Tree, error) {
	n := src.Entries
	if err := checkSource(&src); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSummary, err)
	}
	lz := &lazyTree{
		src:    src,
		dirs:   make([]Node, len(src.Dirs)),
		kidsAt: make([]int32, len(src.Dirs)+1),
		blocks: make([]lazyBlock, len(src.Blocks)),
	}
	for d := range src.Dirs {
		p := src.Dirs[d].Path
		name := p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			name = p[i+1:]
		}
		lz.dirs[d] = Node{Path: p, Name: name, IsDir: true, dir: int32(d)}
		if d > 0 {
			lz.kidsAt[src.Dirs[d].Parent+1]++
		}
	}
	for d := 1; d < len(lz.kidsAt); d++ {
		lz.kidsAt[d] += lz.kidsAt[d-1]
	}
	lz.kids = make([]int32, max(len(src.Dirs)-1, 0))
	fill := slices.Clone(lz.kidsAt[:len(src.Dirs)])
	for d := 1; d < len(src.Dirs); d++ {
		p := src.Dirs[d].Parent
		lz.kids[fill[p]] = int32(d)
		fill[p]++
	}
	t := &Tree{groups: make(map[string]struct{}), lazy: lz, n: n}
	for _, r := range src.Rules {
		for _, g := range r.Groups {
			if g != "" {
				t.groups[g] = struct{}{}
			}
		}
	}
	return t, nil
}

// checkSource checks a Source's summary.
func checkSource(src *Source) error {
	n := src.Entries
	if n < 0 || src.Decode == nil {
		return fmt.Errorf("%d entries, decoder %t", n, src.Decode != nil)
	}
	total := 0
	for r, rl := range src.Rules {
		if rl.Count < 0 {
			return fmt.Errorf("rule %d: count %d", r, rl.Count)
		}
		total += rl.Count
	}
	if total != n {
		return fmt.Errorf("the rules count %d entries, the source has %d", total, n)
	}
	if (n == 0) != (len(src.Blocks) == 0) {
		return fmt.Errorf("%d blocks for %d entries", len(src.Blocks), n)
	}
	for b, bl := range src.Blocks {
		switch {
		case b == 0 && bl.Start != 0, b > 0 && bl.Start <= src.Blocks[b-1].Start, bl.Start >= n:
			return fmt.Errorf("block %d starts at entry %d", b, bl.Start)
		case b > 0 && comparePaths(src.Blocks[b-1].First, bl.First) >= 0:
			return fmt.Errorf("block %d: first slug %q not after %q", b, bl.First, src.Blocks[b-1].First)
		}
		// Check the slug from the element where it leaves the one
		// before, which was checked.
		from := 0
		if b > 0 {
			from = strings.LastIndexByte(bl.First[:commonPrefix(src.Blocks[b-1].First, bl.First)], '/') + 1
		}
		if bl.First == "" {
			return fmt.Errorf("block %d: empty first slug", b)
		}
		if r := checkSlugFrom(bl.First, from); r != "" {
			return fmt.Errorf("block %d: first slug %q: %s", b, bl.First, r)
		}
	}
	if len(src.Dirs) == 0 {
		return errors.New("no root directory")
	}
	for d := range src.Dirs {
		dr := &src.Dirs[d]
		if d == 0 {
			if dr.Path != "." || dr.Parent != -1 || dr.Lo != 0 || dr.Hi != n {
				return fmt.Errorf("root directory %q, parent %d, entries %d to %d", dr.Path, dr.Parent, dr.Lo, dr.Hi)
			}
		} else {
			if dr.Parent < 0 || dr.Parent >= d {
				return fmt.Errorf("directory %q: parent %d", dr.Path, dr.Parent)
			}
			p := &src.Dirs[dr.Parent]
			// The parent's path was checked: check the last element.
			from := 0
			if dr.Parent > 0 {
				from = len(p.Path) + 1
			}
			if dr.Path == "" || from >= len(dr.Path) {
				return fmt.Errorf("directory %q: parent %q", dr.Path, p.Path)
			}
			if r := checkSlugFrom(dr.Path, from); r != "" {
				return fmt.Errorf("directory %q: %s", dr.Path, r)
			}
			switch {
			case d > 1 && comparePaths(src.Dirs[d-1].Path, dr.Path) >= 0:
				return fmt.Errorf("directory %q not after %q", dr.Path, src.Dirs[d-1].Path)
			case dr.Parent == 0 && strings.IndexByte(dr.Path, '/') >= 0,
				dr.Parent > 0 && dir(dr.Path) != p.Path:
				return fmt.Errorf("directory %q: parent %q", dr.Path, p.Path)
			case dr.Lo >= dr.Hi || dr.Lo < p.Lo || dr.Hi > p.Hi:
				return fmt.Errorf("directory %q: entries %d to %d, its parent's %d to %d", dr.Path, dr.Lo, dr.Hi, p.Lo, p.Hi)
			case d > 1 && src.Dirs[d-1].Parent == dr.Parent && dr.Lo < src.Dirs[d-1].Hi:
				return fmt.Errorf("directory %q: entries from %d overlap its sibling's", dr.Path, dr.Lo)
			}
		}
		for k, rt := range dr.Rules {
			if rt.Rule < 0 || rt.Rule >= len(src.Rules) || k > 0 && rt.Rule <= dr.Rules[k-1].Rule {
				return fmt.Errorf("directory %q: rule %d", dr.Path, rt.Rule)
			}
			if d > 0 {
				// Every rule below a directory is below its parent, no newer.
				p := &src.Dirs[dr.Parent]
				i, ok := slices.BinarySearchFunc(p.Rules, rt.Rule, func(x RuleTime, r int) int { return x.Rule - r })
				if !ok || rt.ModTime.After(p.Rules[i].ModTime) {
					return fmt.Errorf("directory %q: rule %d not in its parent's", dr.Path, rt.Rule)
				}
			}
		}
		if dr.Lo < dr.Hi && len(dr.Rules) == 0 {
			return fmt.Errorf("directory %q: no rules", dr.Path)
		}
	}
	return nil
}

// Lazy reports whether t was made by NewLazy.
func (t *Tree) Lazy() bool { return t.lazy != nil }

// Err returns the first error met decoding a block of a lazy tree (an
// error wrapping ErrSummary, or the decoder's), or nil. The entries of
// such a block are in no view.
func (t *Tree) Err() error {
	if t.lazy == nil {
		return nil
	}
	if p := t.lazy.err.Load(); p != nil {
		return *p
	}
	return nil
}

// block decodes block b if it is not yet and reports whether it holds
// good entries.
func (t *Tree) block(b int) bool {
	lz := t.lazy
	bl := &lz.blocks[b]
	bl.once.Do(func() {
		defer lz.decoded.Add(1)
		if err := t.decodeBlock(b); err != nil {
			err = fmt.Errorf("tree: block %d: %w", b, err)
			lz.err.CompareAndSwap(nil, &err)
			if lz.src.OnError != nil {
				lz.src.OnError(err)
			}
			return
		}
		bl.ok.Store(true)
	})
	return bl.ok.Load()
}

// blockRange returns the entries [lo, hi) of block b.
func (lz *lazyTree) blockRange(b int) (lo, hi int) {
	lo, hi = lz.src.Blocks[b].Start, lz.src.Entries
	if b+1 < len(lz.src.Blocks) {
		hi = lz.src.Blocks[b+1].Start
	}
	return lo, hi
}

func (t *Tree) decodeBlock(b int) (err error) {
	lz := t.lazy
	lo, hi := lz.blockRange(b)
	out := make([]Entry, hi-lo)
	rules := make([]int32, hi-lo)
	if err := lz.src.Decode(b, out, rules); err != nil {
		return err
	}
	if err := checkSorted(out, ""); err != nil {
		return err
	}
	if out[0].Slug != lz.src.Blocks[b].First {
		return fmt.Errorf("%w: first slug %q, the summary says %q", ErrSummary, out[0].Slug, lz.src.Blocks[b].First)
	}
	if b+1 < len(lz.src.Blocks) {
		last, next := out[len(out)-1].Slug, lz.src.Blocks[b+1].First
		if comparePaths(last, next) >= 0 || isParent(last, next) {
			return fmt.Errorf("%w: slug %q then %q (next block)", ErrSummary, last, next)
		}
	}
	d := -1
	prevDir := "\x00"
	for k := range out {
		e := &out[k]
		r := int(rules[k])
		if r < 0 || r >= len(lz.src.Rules) {
			return fmt.Errorf("%w: %q: rule %d", ErrSummary, e.Slug, r)
		}
		rl := &lz.src.Rules[r]
		if e.IsPublic != rl.IsPublic || e.HasIsPublic != rl.HasIsPublic || !slices.Equal(e.Groups, rl.Groups) {
			return fmt.Errorf("%w: %q: access fields differ from rule %d", ErrSummary, e.Slug, r)
		}
		if pd := dir(e.Slug); pd != prevDir {
			prevDir = pd
			if pd == "" {
				pd = "."
			}
			if d = lz.findDir(pd); d < 0 {
				return fmt.Errorf("%w: %q: no directory %q", ErrSummary, e.Slug, pd)
			}
		}
		dr := &lz.src.Dirs[d]
		if i := lo + k; i < dr.Lo || i >= dr.Hi {
			return fmt.Errorf("%w: %q: entry %d outside its directory's %d to %d", ErrSummary, e.Slug, i, dr.Lo, dr.Hi)
		}
		j, ok := slices.BinarySearchFunc(dr.Rules, r, func(x RuleTime, r int) int { return x.Rule - r })
		if !ok || e.ModTime.After(dr.Rules[j].ModTime) {
			return fmt.Errorf("%w: %q: rule %d or its time not in its directory's", ErrSummary, e.Slug, r)
		}
	}
	nodes := make([]Node, len(out))
	for k := range out {
		s := out[k].Slug
		nodes[k] = Node{Path: s, Name: s[strings.LastIndexByte(s, '/')+1:], Entry: &out[k], first: int32(lo + k)}
	}
	bl := &lz.blocks[b]
	bl.entries, bl.rules, bl.nodes = out, rules, nodes
	return nil
}

// findDir returns the position in the directory table of the directory
// path ("." for the root), or -1.
func (lz *lazyTree) findDir(path string) int {
	if path == "." {
		return 0
	}
	i, ok := slices.BinarySearchFunc(lz.dirs[1:], path, func(n Node, s string) int { return comparePaths(n.Path, s) })
	if !ok {
		return -1
	}
	return i + 1
}

// blockOf returns the block that holds entry i.
func (lz *lazyTree) blockOf(i int) int {
	b, ok := slices.BinarySearchFunc(lz.src.Blocks, i, func(bl Block, i int) int { return bl.Start - i })
	if !ok {
		b--
	}
	return b
}

// each calls fn with the node and rule of each good entry of [lo, hi),
// in order, decoding the blocks that hold them.
func (t *Tree) each(lo, hi int, fn func(n *Node, rule int32)) {
	if lo >= hi {
		return
	}
	lz := t.lazy
	for b := lz.blockOf(lo); b < len(lz.blocks) && lz.src.Blocks[b].Start < hi; b++ {
		if !t.block(b) {
			continue
		}
		bl := &lz.blocks[b]
		start := lz.src.Blocks[b].Start
		for k := max(lo, start) - start; k < len(bl.nodes) && start+k < hi; k++ {
			fn(&bl.nodes[k], bl.rules[k])
		}
	}
}

// ensureAll decodes every block, on GOMAXPROCS goroutines.
func (t *Tree) ensureAll() {
	lz := t.lazy
	if int(lz.decoded.Load()) == len(lz.blocks) {
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(lz.blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1)) - 1
				if b >= len(lz.blocks) {
					return
				}
				t.block(b)
			}
		}()
	}
	wg.Wait()
}

// lazyEntries returns the good entries of a lazy tree, decoding them:
// copies of those of the blocks, made once (unless a block failed).
func (t *Tree) lazyEntries() []Entry {
	t.ensureAll()
	t.lazy.entriesOnce.Do(func() {
		out := make([]Entry, 0, t.n)
		for b := range t.lazy.blocks {
			if t.block(b) {
				out = append(out, t.lazy.blocks[b].entries...)
			}
		}
		t.entries = out
	})
	return t.entries
}

// lazyIndex returns the position of slug in a lazy tree.
func (t *Tree) lazyIndex(slug string) (int, bool) {
	lz := t.lazy
	b, ok := slices.BinarySearchFunc(lz.src.Blocks, slug, func(bl Block, s string) int { return comparePaths(bl.First, s) })
	if !ok {
		b--
	}
	if b < 0 || !t.block(b) {
		return 0, false
	}
	bl := &lz.blocks[b]
	k, ok := slices.BinarySearchFunc(bl.entries, slug, func(e Entry, s string) int { return comparePaths(e.Slug, s) })
	return lz.src.Blocks[b].Start + k, ok
}

// lazyNode returns the node of entry i of a lazy tree, decoded, and its
// rule; nil if its block failed.
func (t *Tree) lazyNode(i int) (*Node, int32) {
	lz := t.lazy
	b := lz.blockOf(i)
	if b < 0 || !t.block(b) {
		return nil, 0
	}
	k := i - lz.src.Blocks[b].Start
	return &lz.blocks[b].nodes[k], lz.blocks[b].rules[k]
}

// lazyView is the view of a lazy tree for a set of groups: which rules
// (and so which files and directories) it shows.
type lazyView struct {
	t       *Tree
	allowed []bool // by rule
	shows   []bool // by directory
	files   int
	shown   []atomic.Pointer[[]*Node] // by directory: its visible children, once listed
}

// lazyView returns the view of a lazy tree that shows the rules allowed.
func (t *Tree) newLazyView(allowed []bool) *View {
	lz := t.lazy
	v := &lazyView{t: t, allowed: allowed, shows: make([]bool, len(lz.src.Dirs)),
		shown: make([]atomic.Pointer[[]*Node], len(lz.src.Dirs))}
	for r, ok := range allowed {
		if ok {
			v.files += lz.src.Rules[r].Count
		}
	}
	v.shows[0] = true
	for d := 1; d < len(lz.src.Dirs); d++ {
		for _, rt := range lz.src.Dirs[d].Rules {
			if allowed[rt.Rule] {
				v.shows[d] = true
				break
			}
		}
	}
	return &View{lazy: v, files: v.files}
}

// lazyPrune returns the view of a lazy tree for a set of groups.
func (t *Tree) lazyPrune(set []string) *View {
	rules := t.lazy.src.Rules
	allowed := make([]bool, len(rules))
	all := true
	for r := range rules {
		ok := rules[r].IsPublic
		for _, g := range rules[r].Groups {
			if ok {
				break
			}
			ok = g != "" && slices.Contains(set, g)
		}
		allowed[r] = ok
		all = all && (ok || rules[r].Count == 0)
	}
	if all {
		return t.All()
	}
	return t.newLazyView(allowed)
}

func (v *lazyView) lookup(name string) (*Node, bool) {
	lz := v.t.lazy
	if d := lz.findDir(name); d >= 0 {
		if !v.shows[d] {
			return nil, false
		}
		return &lz.dirs[d], true
	}
	if name == "" {
		return nil, false
	}
	i, ok := v.t.lazyIndex(name)
	if !ok {
		return nil, false
	}
	n, r := v.t.lazyNode(i)
	if n == nil || !v.allowed[r] {
		return nil, false
	}
	return n, true
}

func (v *lazyView) readDir(name string) ([]*Node, bool) {
	lz := v.t.lazy
	d := lz.findDir(name)
	if d < 0 || !v.shows[d] {
		return nil, false
	}
	if l := v.shown[d].Load(); l != nil {
		return *l, true
	}
	var out []*Node
	dr := &lz.src.Dirs[d]
	prefix := ""
	if d > 0 {
		prefix = dr.Path + "/"
	}
	files := func(lo, hi int) {
		v.t.each(lo, hi, func(n *Node, r int32) {
			if !v.allowed[r] {
				return
			}
			if !strings.HasPrefix(n.Path, prefix) || strings.IndexByte(n.Path[len(prefix):], '/') >= 0 {
				v.t.fail(fmt.Errorf("%w: %q listed in directory %q", ErrSummary, n.Path, name))
				return
			}
			out = append(out, n)
		})
	}
	pos := dr.Lo
	for _, c := range lz.kids[lz.kidsAt[d]:lz.kidsAt[d+1]] {
		files(pos, lz.src.Dirs[c].Lo)
		if v.shows[c] {
			out = append(out, &lz.dirs[c])
		}
		pos = lz.src.Dirs[c].Hi
	}
	files(pos, dr.Hi)
	out = slices.Clip(out)
	if !v.shown[d].CompareAndSwap(nil, &out) {
		return *v.shown[d].Load(), true
	}
	return out, true
}

// fail records an inconsistency found after a block was decoded.
func (t *Tree) fail(err error) {
	if t.lazy.err.CompareAndSwap(nil, &err) && t.lazy.src.OnError != nil {
		t.lazy.src.OnError(err)
	}
}

func (v *lazyView) walk(fn func(*Node) bool) {
	v.t.ensureAll()
	var visit func(n *Node) bool
	visit = func(n *Node) bool {
		if !fn(n) {
			return false
		}
		if !n.IsDir {
			return true
		}
		kids, _ := v.readDir(n.Path)
		for _, k := range kids {
			if !visit(k) {
				return false
			}
		}
		return true
	}
	visit(&v.t.lazy.dirs[0])
}

func (v *lazyView) modTime(n *Node) time.Time {
	var t time.Time
	for _, rt := range v.t.lazy.src.Dirs[n.dir].Rules {
		if v.allowed[rt.Rule] && rt.ModTime.After(t) {
			t = rt.ModTime
		}
	}
	return t
}

// Summarize returns the directory table of entries (valid, in path
// order, as [Tree.Entries] gives them) whose rules are given by position
// (rules[i] is the rule of entries[i]), as a [Source] wants it, and the
// number of entries of each of nrules rules.
func Summarize(entries []Entry, rules []int32, nrules int) (dirs []Dir, counts []int) {
	counts = make([]int, nrules)
	type open struct {
		d     int
		times map[int]time.Time
	}
	dirs = []Dir{{Path: ".", Parent: -1, Lo: 0, Hi: len(entries)}}
	stack := []open{{0, map[int]time.Time{}}}
	closeTop := func(i int) {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		dirs[top.d].Hi = i
		dirs[top.d].Rules = ruleTimes(top.times)
		if len(stack) > 0 {
			parent := stack[len(stack)-1].times
			for r, t := range top.times {
				if old, ok := parent[r]; !ok || t.After(old) {
					parent[r] = t
				}
			}
		}
	}
	prev := ""
	for i := range entries {
		e := &entries[i]
		d := dir(e.Slug)
		j := split(prev, d)
		depth := 0 // the number of elements of d[:j]
		if j > 0 {
			depth = strings.Count(d[:j], "/") + 1
		}
		for len(stack) > depth+1 {
			closeTop(i)
		}
		if j < len(d) {
			start := j
			if j > 0 {
				start++ // skip the '/'
			}
			for start <= len(d) {
				end := strings.IndexByte(d[start:], '/')
				if end < 0 {
					end = len(d)
				} else {
					end += start
				}
				dirs = append(dirs, Dir{Path: d[:end], Parent: stack[len(stack)-1].d, Lo: i})
				stack = append(stack, open{len(dirs) - 1, map[int]time.Time{}})
				start = end + 1
			}
		}
		r := int(rules[i])
		counts[r]++
		top := stack[len(stack)-1].times
		if old, ok := top[r]; !ok || e.ModTime.After(old) {
			top[r] = e.ModTime
		}
		prev = d
	}
	for len(stack) > 0 {
		closeTop(len(entries))
	}
	return dirs, counts
}

func ruleTimes(m map[int]time.Time) []RuleTime {
	out := make([]RuleTime, 0, len(m))
	for r, t := range m {
		out = append(out, RuleTime{r, t})
	}
	slices.SortFunc(out, func(a, b RuleTime) int { return a.Rule - b.Rule })
	return out
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
