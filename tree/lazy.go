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

// Dir summarises a directory of a tree: its path ("." for the root),
// the positions [Lo, Hi) of the entries below it (contiguous in path
// order; never empty), End, the position in the directory table after
// its last descendant (the table holds the directories other than the
// root in path order, from position 1; the root's End is one more than
// their number), and the rules of the entries below it, each with the
// newest ModTime among those that name it.
type Dir struct {
	Path   string
	Lo, Hi int
	End    int
	Rules  []RuleTime // sorted by Rule, without duplicates
}

// RuleTime is a rule of the entries below a directory and the newest
// ModTime among them (the zero Time when none has one).
type RuleTime struct {
	Rule    int
	ModTime time.Time
}

// Source is what [NewLazy] builds a tree from: the number of entries,
// the rules they name, the blocks they are cut into, the root directory
// and the number of other directories, the blocks the directory table is
// cut into ([Summarize] computes the table), and two decoders: Decode
// fills out (the block's entries, in path order) and rules (the position
// in Rules of each one's rule) for block b, and DecodeDirs fills out with
// the directories of directory block b. The decoders may be called from
// several goroutines at once, for different blocks, and are called at
// most once per block.
type Source struct {
	Entries    int
	Rules      []Rule
	Blocks     []Block
	Root       Dir
	Dirs       int
	DirBlocks  []Block // Start is a position in the directory table, from 1
	Decode     func(b int, out []Entry, rules []int32) error
	DecodeDirs func(b int, out []Dir) error
	// OnError, when set, is told of the first block that fails to
	// decode or whose entries disagree with the summary (the error that
	// Tree.Err reports), once, on whichever goroutine met it. The
	// entries of such a block are left out of every view (they are
	// never served), as are the directories of a directory block that
	// fails.
	OnError func(error)
}

// ErrSummary is wrapped by the errors of [NewLazy] for a Source whose
// summary is inconsistent, and by the block errors that Tree.Err reports.
var ErrSummary = errors.New("tree: inconsistent summary")

// lazyTree is the state of a tree made by NewLazy.
type lazyTree struct {
	src         Source
	root        Node // the root directory's node
	blocks      []lazyBlock
	dirBlocks   []lazyDirBlock
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

// lazyDirBlock is a block of the directory table of a lazy tree.
type lazyDirBlock struct {
	once  sync.Once
	ok    atomic.Bool
	dirs  []Dir
	nodes []Node
}

// NewLazy returns a tree whose entries src.Decode gives a block at a time
// when they are first needed, and whose directories src.DecodeDirs gives
// likewise. It checks the summary at once (counts, the blocks' first
// slugs valid and in path order, the root) and returns an error wrapping
// [ErrSummary] when it does not hold; each block is checked when it is
// decoded: entries as [NewSorted] checks them and against the directory
// table (each in its directory's range, its rule and time among the
// directory's), directories for valid paths in path order, ranges within
// the tree. A lazy tree has no Problems; Entries, Index and Entry decode
// the blocks they need (Entries all of them, in parallel).
func NewLazy(src Source) (*Tree, error) {
	if err := checkSource(&src); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSummary, err)
	}
	lz := &lazyTree{
		src:       src,
		root:      Node{Path: ".", Name: ".", IsDir: true},
		blocks:    make([]lazyBlock, len(src.Blocks)),
		dirBlocks: make([]lazyDirBlock, len(src.DirBlocks)),
	}
	t := &Tree{groups: make(map[string]struct{}), lazy: lz, n: src.Entries}
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
	if err := checkBlocks(src.Blocks, 0, n, "block"); err != nil {
		return err
	}
	if err := checkBlocks(src.DirBlocks, 1, src.Dirs+1, "directory block"); err != nil {
		return err
	}
	if src.DecodeDirs == nil && src.Dirs > 0 {
		return errors.New("no directory decoder")
	}
	root := &src.Root
	if root.Path != "." || root.Lo != 0 || root.Hi != n || root.End != src.Dirs+1 || src.Dirs < 0 {
		return fmt.Errorf("root directory %q, entries %d to %d, end %d of %d directories", root.Path, root.Lo, root.Hi, root.End, src.Dirs)
	}
	if err := checkRules(root, len(src.Rules), n > 0); err != nil {
		return err
	}
	return nil
}

// Lazy reports whether t was made by NewLazy.
func (t *Tree) Lazy() bool { return t.lazy != nil }

// checkBlocks checks the directory of blocks of the positions [lo, hi):
// the first starts at lo, each after the one before and before hi, and
// their first slugs are valid and in path order.
func checkBlocks(blocks []Block, lo, hi int, what string) error {
	if (hi > lo) != (len(blocks) > 0) {
		return fmt.Errorf("%d %ss for %d items", len(blocks), what, hi-lo)
	}
	for b, bl := range blocks {
		switch {
		case b == 0 && bl.Start != lo, b > 0 && bl.Start <= blocks[b-1].Start, bl.Start >= hi:
			return fmt.Errorf("%s %d starts at %d", what, b, bl.Start)
		case bl.First == "":
			return fmt.Errorf("%s %d: empty first slug", what, b)
		case b > 0 && comparePaths(blocks[b-1].First, bl.First) >= 0:
			return fmt.Errorf("%s %d: first slug %q not after %q", what, b, bl.First, blocks[b-1].First)
		}
		// Check the slug from the element where it leaves the one
		// before, which was checked.
		from := 0
		if b > 0 {
			from = strings.LastIndexByte(bl.First[:commonPrefix(blocks[b-1].First, bl.First)], '/') + 1
		}
		if r := checkSlugFrom(bl.First, from); r != "" {
			return fmt.Errorf("%s %d: first slug %q: %s", what, b, bl.First, r)
		}
	}
	return nil
}

// checkRules checks the rules of a directory: in range, in order, and
// some when entries are below it.
func checkRules(dr *Dir, nrules int, some bool) error {
	for k, rt := range dr.Rules {
		if rt.Rule < 0 || rt.Rule >= nrules || k > 0 && rt.Rule <= dr.Rules[k-1].Rule {
			return fmt.Errorf("directory %q: rule %d", dr.Path, rt.Rule)
		}
	}
	if some && len(dr.Rules) == 0 {
		return fmt.Errorf("directory %q: no rules", dr.Path)
	}
	return nil
}

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
			t.fail(fmt.Errorf("tree: block %d: %w", b, err))
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
	var dr *Dir
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
			if dr, _ = t.dirAt(lz.findDir(t, pd)); dr == nil {
				return fmt.Errorf("%w: %q: no directory %q", ErrSummary, e.Slug, pd)
			}
		}
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
// path (0 for the root, "."), or -1, decoding the block it would be in.
func (lz *lazyTree) findDir(t *Tree, path string) int {
	if path == "." {
		return 0
	}
	b, ok := slices.BinarySearchFunc(lz.src.DirBlocks, path, func(bl Block, s string) int { return comparePaths(bl.First, s) })
	if !ok {
		b--
	}
	if b < 0 || !t.dirBlock(b) {
		return -1
	}
	k, ok := slices.BinarySearchFunc(lz.dirBlocks[b].dirs, path, func(d Dir, s string) int { return comparePaths(d.Path, s) })
	if !ok {
		return -1
	}
	return lz.src.DirBlocks[b].Start + k
}

// dirAt returns directory d of the table and its node, decoding its
// block; nil for a position out of range or a block that failed.
func (t *Tree) dirAt(d int) (*Dir, *Node) {
	lz := t.lazy
	if d == 0 {
		return &lz.src.Root, &lz.root
	}
	if d < 0 || d > lz.src.Dirs {
		return nil, nil
	}
	b, ok := slices.BinarySearchFunc(lz.src.DirBlocks, d, func(bl Block, d int) int { return bl.Start - d })
	if !ok {
		b--
	}
	if !t.dirBlock(b) {
		return nil, nil
	}
	k := d - lz.src.DirBlocks[b].Start
	return &lz.dirBlocks[b].dirs[k], &lz.dirBlocks[b].nodes[k]
}

// dirBlock decodes directory block b if it is not yet and reports
// whether it holds good directories.
func (t *Tree) dirBlock(b int) bool {
	lz := t.lazy
	bl := &lz.dirBlocks[b]
	bl.once.Do(func() {
		dirs, err := t.decodeDirBlock(b)
		if err != nil {
			t.fail(fmt.Errorf("tree: directory block %d: %w", b, err))
			return
		}
		bl.dirs = dirs
		bl.nodes = make([]Node, len(dirs))
		start := lz.src.DirBlocks[b].Start
		for k := range dirs {
			p := dirs[k].Path
			bl.nodes[k] = Node{Path: p, Name: p[strings.LastIndexByte(p, '/')+1:], IsDir: true, dir: int32(start + k)}
		}
		bl.ok.Store(true)
	})
	return bl.ok.Load()
}

// decodeDirBlock decodes and checks directory block b.
func (t *Tree) decodeDirBlock(b int) ([]Dir, error) {
	lz := t.lazy
	start, end := lz.src.DirBlocks[b].Start, lz.src.Dirs+1
	if b+1 < len(lz.src.DirBlocks) {
		end = lz.src.DirBlocks[b+1].Start
	}
	dirs := make([]Dir, end-start)
	if err := lz.src.DecodeDirs(b, dirs); err != nil {
		return nil, err
	}
	if dirs[0].Path != lz.src.DirBlocks[b].First {
		return nil, fmt.Errorf("%w: first directory %q, the summary says %q", ErrSummary, dirs[0].Path, lz.src.DirBlocks[b].First)
	}
	for k := range dirs {
		dr, d := &dirs[k], start+k
		if r := checkSlug(dr.Path); r != "" {
			return nil, fmt.Errorf("%w: directory %q: %s", ErrSummary, dr.Path, r)
		}
		next := ""
		if k+1 < len(dirs) {
			next = dirs[k+1].Path
		} else if b+1 < len(lz.src.DirBlocks) {
			next = lz.src.DirBlocks[b+1].First
		}
		switch {
		case next != "" && comparePaths(dr.Path, next) >= 0:
			return nil, fmt.Errorf("%w: directory %q not before %q", ErrSummary, dr.Path, next)
		case dr.Lo < 0 || dr.Lo >= dr.Hi || dr.Hi > lz.src.Entries:
			return nil, fmt.Errorf("%w: directory %q: entries %d to %d of %d", ErrSummary, dr.Path, dr.Lo, dr.Hi, lz.src.Entries)
		case dr.End <= d || dr.End > lz.src.Dirs+1:
			return nil, fmt.Errorf("%w: directory %q at %d: end %d of %d", ErrSummary, dr.Path, d, dr.End, lz.src.Dirs+1)
		}
		if err := checkRules(dr, len(lz.src.Rules), true); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSummary, err)
		}
	}
	return dirs, nil
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
	for b := range lz.dirBlocks {
		t.dirBlock(b) // the blocks of entries look directories up
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
	files   int
	shows   []atomic.Pointer[[]bool]  // by directory block: which of its directories are visible
	shown   []atomic.Pointer[[]*Node] // by directory: its visible children, once listed
}

// newLazyView returns the view of a lazy tree that shows the rules
// allowed.
func (t *Tree) newLazyView(allowed []bool) *View {
	lz := t.lazy
	v := &lazyView{t: t, allowed: allowed,
		shows: make([]atomic.Pointer[[]bool], len(lz.src.DirBlocks)),
		shown: make([]atomic.Pointer[[]*Node], lz.src.Dirs+1)}
	for r, ok := range allowed {
		if ok {
			v.files += lz.src.Rules[r].Count
		}
	}
	return &View{lazy: v, files: v.files}
}

// visible reports whether directory d is in the view: the root, and the
// directories below which an allowed rule is.
func (v *lazyView) visible(d int) bool {
	if d == 0 {
		return true
	}
	lz := v.t.lazy
	b, ok := slices.BinarySearchFunc(lz.src.DirBlocks, d, func(bl Block, d int) int { return bl.Start - d })
	if !ok {
		b--
	}
	if b < 0 || !v.t.dirBlock(b) {
		return false
	}
	shows := v.shows[b].Load()
	if shows == nil {
		dirs := lz.dirBlocks[b].dirs
		s := make([]bool, len(dirs))
		for k := range dirs {
			for _, rt := range dirs[k].Rules {
				if v.allowed[rt.Rule] {
					s[k] = true
					break
				}
			}
		}
		if !v.shows[b].CompareAndSwap(nil, &s) {
			s = *v.shows[b].Load()
		}
		shows = &s
	}
	return (*shows)[d-lz.src.DirBlocks[b].Start]
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
	if name == "" {
		return nil, false
	}
	lz := v.t.lazy
	if d := lz.findDir(v.t, name); d >= 0 {
		if !v.visible(d) {
			return nil, false
		}
		_, n := v.t.dirAt(d)
		return n, true
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
	if name == "" {
		return nil, false
	}
	d := v.t.lazy.findDir(v.t, name)
	if d < 0 || !v.visible(d) {
		return nil, false
	}
	if l := v.shown[d].Load(); l != nil {
		return *l, true
	}
	dr, _ := v.t.dirAt(d)
	var out []*Node
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
	// The subdirectories: the next directory of the table, then each
	// one after the one before's descendants.
	pos := dr.Lo
	for c := d + 1; c < dr.End; {
		cd, cn := v.t.dirAt(c)
		if cd == nil {
			break // a block that failed
		}
		if !strings.HasPrefix(cd.Path, prefix) || strings.IndexByte(cd.Path[len(prefix):], '/') >= 0 ||
			cd.Lo < pos || cd.Hi > dr.Hi || cd.End > dr.End {
			v.t.fail(fmt.Errorf("%w: directory %q listed in %q, entries %d to %d", ErrSummary, cd.Path, name, cd.Lo, cd.Hi))
			break
		}
		files(pos, cd.Lo)
		if v.visible(c) {
			out = append(out, cn)
		}
		pos, c = cd.Hi, cd.End
	}
	files(pos, dr.Hi)
	out = slices.Clip(out)
	if !v.shown[d].CompareAndSwap(nil, &out) {
		return *v.shown[d].Load(), true
	}
	return out, true
}

// fail records a block that failed, or an inconsistency found after a
// block was decoded: the first is Err's, and OnError's.
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
	visit(&v.t.lazy.root)
}

func (v *lazyView) modTime(n *Node) time.Time {
	var t time.Time
	dr, _ := v.t.dirAt(int(n.dir))
	if dr == nil {
		return t
	}
	for _, rt := range dr.Rules {
		if v.allowed[rt.Rule] && rt.ModTime.After(t) {
			t = rt.ModTime
		}
	}
	return t
}

// Summarize returns the directories of entries (valid, in path order, as
// [Tree.Entries] gives them) whose rules are given by position (rules[i]
// is the rule of entries[i]), as a [Source] wants them: the root first,
// then the directory table in path order; and the number of entries of
// each of nrules rules.
func Summarize(entries []Entry, rules []int32, nrules int) (dirs []Dir, counts []int) {
	counts = make([]int, nrules)
	type open struct {
		d     int
		times map[int]time.Time
	}
	dirs = []Dir{{Path: ".", Lo: 0, Hi: len(entries)}}
	stack := []open{{0, map[int]time.Time{}}}
	closeTop := func(i int) {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		dirs[top.d].Hi = i
		dirs[top.d].End = len(dirs)
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
		j, depth := ancestor(prev, d)
		for len(stack) > depth+1 {
			closeTop(i)
		}
		eachBelow(d, j, func(path, _ string) {
			dirs = append(dirs, Dir{Path: path, Lo: i})
			stack = append(stack, open{len(dirs) - 1, map[int]time.Time{}})
		})
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
