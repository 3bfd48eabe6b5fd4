package tree

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Node is a file or directory of a [View]. Nodes are shared: callers must
// not modify them.
type Node struct {
	// Path is the node's path: "." for the root, else a slug such as
	// "a/b/c.md" or a directory such as "a/b".
	Path string
	// Name is the last element of Path; "." for the root.
	Name string
	// IsDir reports whether the node is a directory.
	IsDir bool
	// dir numbers the directories of the view, in path order.
	dir int32
	// Entry is the file's entry, or nil for a directory.
	Entry *Entry

	// children is the range of the view's kids holding a directory's
	// children.
	first, end int32
}

// View is the directory index of a set of entries: the root, the files and
// the directories that their slugs imply. It is immutable and safe for
// concurrent use.
//
// A pruned view shares the nodes, children and index of the unpruned view
// and hides the nodes that visible marks false.
type View struct {
	nodes  []Node     // in path order; nodes[0] is the root
	kids   []*Node    // children of each directory, contiguous and sorted by name
	index  *lazyIndex // path to position in nodes
	files  int
	parent []int32 // position in nodes of the parent of each node
	at     []int32 // position in nodes of each of kids

	dirs    int                         // the number of directories
	visible []bool                      // by position in nodes; nil if unpruned
	shown   []atomic.Pointer[[]*Node]   // by Node.dir: visible children, once listed
	times   atomic.Pointer[[]time.Time] // by Node.dir: see ModTime; set on first use

	lazy *lazyView // the view of a lazy tree; the fields above are unused
}

// index is a hash table from the paths of a view's nodes to their
// positions: open addressing with linear probing, at most half full. It
// costs a fraction of a map[string]int32 to build, in one allocation.
type index struct {
	seed  maphash.Seed
	slots []uint64 // upper 32 bits of the hash << 32 | position+1; 0 is empty
}

func newIndex(nodes []Node) index {
	size := 1 << bits.Len(uint(2*len(nodes)-1))
	x := index{seed: maphash.MakeSeed(), slots: make([]uint64, size)}
	mask := uint64(size - 1)
	for i := range nodes {
		h := maphash.String(x.seed, nodes[i].Path)
		j := h & mask
		for x.slots[j] != 0 {
			j = (j + 1) & mask
		}
		x.slots[j] = h&^0xffffffff | uint64(i+1)
	}
	return x
}

// find returns the position of the node with path name, or -1.
func (x *index) find(nodes []Node, name string) int {
	h := maphash.String(x.seed, name)
	mask := uint64(len(x.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		s := x.slots[j]
		if s == 0 {
			return -1
		}
		if s&^0xffffffff == h&^0xffffffff {
			if i := int(uint32(s)) - 1; nodes[i].Path == name {
				return i
			}
		}
	}
}

// lazyIndex finds nodes by path: by binary search in path order for the
// first lazyLookups lookups, then through an index built on the next one.
// A process that looks up a few paths (a command line's cat or ls) never
// pays for the index; one that looks up many (a server, a walk that opens
// every file) soon has it. The views of a tree share one.
type lazyIndex struct {
	lookups atomic.Int32
	ready   atomic.Pointer[index]
	once    sync.Once
}

// lazyLookups is the number of lookups a lazyIndex serves by binary
// search.
const lazyLookups = 64

// find returns the position of the node with path name, or -1.
func (x *lazyIndex) find(nodes []Node, name string) int {
	if ix := x.ready.Load(); ix != nil {
		return ix.find(nodes, name)
	}
	if x.lookups.Add(1) > lazyLookups {
		x.once.Do(func() {
			ix := newIndex(nodes)
			x.ready.Store(&ix)
		})
		return x.ready.Load().find(nodes, name)
	}
	if name == "." {
		return 0
	}
	// nodes[1:] are in path order.
	i, ok := slices.BinarySearchFunc(nodes[1:], name, func(n Node, s string) int { return comparePaths(n.Path, s) })
	if !ok {
		return -1
	}
	return i + 1
}

// newView indexes entries, which are valid slugs without clashes, in path
// order. slugs holds their slugs, compactly.
func newView(entries []Entry, slugs []string) *View {
	// One pass in path order: each file adds the ancestors that the
	// previous file did not have. Directories are usually far fewer than
	// files; the slices grow when they are not.
	guess := 1 + len(slugs) + len(slugs)/4
	v := &View{
		nodes: make([]Node, 0, guess),
		files: len(slugs),
	}
	parent := make([]int32, 0, guess)
	v.nodes = append(v.nodes, Node{Path: ".", Name: ".", IsDir: true})
	parent = append(parent, -1)
	stack := []int32{0} // the directories of the previous file, from the root
	prev := ""
	for k, slug := range slugs {
		// Pop to the common ancestor of d and prev, push the rest of d.
		d := dir(slug)
		j, depth := ancestor(prev, d)
		stack = stack[:depth+1]
		eachBelow(d, j, func(path, name string) {
			parent = append(parent, stack[len(stack)-1])
			stack = append(stack, int32(len(v.nodes)))
			v.nodes = append(v.nodes, Node{Path: path, Name: name, IsDir: true})
		})
		e := &entries[k]
		parent = append(parent, stack[len(stack)-1])
		v.nodes = append(v.nodes, Node{Path: slug, Name: slug[len(d)+min(len(d), 1):], Entry: e})
		prev = d
	}

	// Lay out the children of each directory contiguously, grouped by
	// directory in path order; within a group they keep path order, which
	// is name order.
	nodes := v.nodes
	for i := 1; i < len(nodes); i++ {
		nodes[parent[i]].end++ // count
	}
	var next int32
	for i := range nodes {
		if nodes[i].IsDir {
			count := nodes[i].end
			nodes[i].first, nodes[i].end = next, next
			nodes[i].dir = int32(v.dirs)
			v.dirs++
			next += count
		}
	}
	v.kids = make([]*Node, len(nodes)-1)
	v.at = make([]int32, len(nodes)-1)
	for i := 1; i < len(nodes); i++ {
		p := &nodes[parent[i]]
		v.kids[p.end] = &nodes[i]
		v.at[p.end] = int32(i)
		p.end++
	}

	v.index = &lazyIndex{}
	v.parent = parent
	return v
}

// ancestor returns the common ancestor (or self) of directories prev and
// d ("" is the root) as its length j in d, and its depth: its number of
// elements.
func ancestor(prev, d string) (j, depth int) {
	j = split(prev, d)
	if j > 0 {
		depth = strings.Count(d[:j], "/") + 1
	}
	return j, depth
}

// eachBelow calls fn with the path and name of each directory of d below
// d[:j] (j from ancestor), from the top down.
func eachBelow(d string, j int, fn func(path, name string)) {
	if j >= len(d) {
		return
	}
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
		fn(d[:end], d[start:end])
		start = end + 1
	}
}

// dir returns the directory of a slug: "" for the root.
func dir(slug string) string {
	i := strings.LastIndexByte(slug, '/')
	if i < 0 {
		return ""
	}
	return slug[:i]
}

// split returns the length of the longest common ancestor (or self) of
// directories a and b ("" is the root): a j such that a[:j] == b[:j] is a
// whole number of elements of both.
func split(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if (i == len(a) || a[i] == '/') && (i == len(b) || b[i] == '/') {
		return i
	}
	return max(strings.LastIndexByte(a[:i], '/'), 0)
}

// Lookup returns the node with the given name, a path as io/fs names it
// ("." for the root). It reports false if name is not a valid path or not
// in the view.
func (v *View) Lookup(name string) (*Node, bool) {
	if v.lazy != nil {
		return v.lazy.lookup(name)
	}
	i := v.index.find(v.nodes, name)
	if i < 0 || v.visible != nil && !v.visible[i] {
		return nil, false
	}
	return &v.nodes[i], true
}

// ReadDir returns the children of the directory name, sorted by name. It
// reports false if name is not a directory of the view. Callers must not
// modify the result.
func (v *View) ReadDir(name string) ([]*Node, bool) {
	if v.lazy != nil {
		return v.lazy.readDir(name)
	}
	i := v.index.find(v.nodes, name)
	if i < 0 || !v.nodes[i].IsDir || v.visible != nil && !v.visible[i] {
		return nil, false
	}
	n := &v.nodes[i]
	kids := v.kids[n.first:n.end:n.end]
	if v.visible == nil {
		return kids, true
	}
	cached := &v.shown[n.dir]
	if l := cached.Load(); l != nil {
		return *l, true
	}
	// Filter the children once; keep the shared slice when none is
	// hidden.
	var shown []*Node
	for j, k := range kids {
		if !v.visible[v.at[int(n.first)+j]] {
			if shown == nil {
				shown = make([]*Node, j, len(kids)-1)
				copy(shown, kids[:j])
			}
			continue
		}
		if shown != nil {
			shown = append(shown, k)
		}
	}
	if shown == nil {
		shown = kids
	}
	shown = slices.Clip(shown)
	if !cached.CompareAndSwap(nil, &shown) {
		return *cached.Load(), true
	}
	return shown, true
}

// Files returns the number of files in the view.
func (v *View) Files() int { return v.files }

// Walk calls fn for every node of the view in path order: the root first,
// then depth first with the children of each directory sorted by name (the
// order of [io/fs.WalkDir]). It stops when fn returns false.
func (v *View) Walk(fn func(*Node) bool) {
	if v.lazy != nil {
		v.lazy.walk(fn)
		return
	}
	for i := range v.nodes {
		if v.visible != nil && !v.visible[i] {
			continue
		}
		if !fn(&v.nodes[i]) {
			return
		}
	}
}

// ModTime returns the modification time of node n of the view: a file's
// Entry.ModTime; for a directory, the newest ModTime of the files of the
// view below it, at any depth (files the view hides do not count, so a
// directory's time reveals nothing about hidden pages), or the zero Time
// when none of them has one. The times of all directories are computed
// together, in one pass over the view, on the first call.
func (v *View) ModTime(n *Node) time.Time {
	if !n.IsDir {
		return n.Entry.ModTime
	}
	if v.lazy != nil {
		return v.lazy.modTime(n)
	}
	return v.dirTimes()[n.dir]
}

// dirTimes returns the time of each directory, by Node.dir.
func (v *View) dirTimes() []time.Time {
	if t := v.times.Load(); t != nil {
		return *t
	}
	t := make([]time.Time, v.dirs)
	// In reverse path order a directory comes after everything below it,
	// so its time is final when it passes it on to its parent.
	for i := len(v.nodes) - 1; i > 0; i-- {
		if v.visible != nil && !v.visible[i] {
			continue
		}
		n := &v.nodes[i]
		mt := t[n.dir]
		if !n.IsDir {
			mt = n.Entry.ModTime
		}
		if p := v.nodes[v.parent[i]].dir; mt.After(t[p]) {
			t[p] = mt
		}
	}
	if !v.times.CompareAndSwap(nil, &t) {
		return *v.times.Load()
	}
	return t
}
