package tree

import (
	"strings"
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
	// Entry is the file's entry, or nil for a directory.
	Entry *Entry

	// children is the range of the view's kids holding a directory's
	// children.
	first, end int32
}

// View is the directory index of a set of entries: the root, the files and
// the directories that their slugs imply. It is immutable and safe for
// concurrent use.
type View struct {
	nodes []Node           // in path order; nodes[0] is the root
	kids  []*Node          // children of each directory, contiguous and sorted by name
	index map[string]int32 // path to position in nodes
	files int
}

// newView indexes the entries at positions idx of entries (all of them
// when idx is nil), which are valid slugs without clashes, in path order.
func newView(entries []Entry, idx []int32) *View {
	n := len(entries)
	if idx != nil {
		n = len(idx)
	}
	at := func(k int) *Entry {
		if idx == nil {
			return &entries[k]
		}
		return &entries[idx[k]]
	}

	// Count the directories: in path order, each file adds the ancestors
	// that the previous file did not have.
	dirs := 0
	prev := ""
	for k := 0; k < n; k++ {
		d := dir(at(k).Slug)
		j := split(prev, d)
		if j < len(d) {
			dirs += strings.Count(d[j:], "/")
			if j == 0 {
				dirs++
			}
		}
		prev = d
	}

	v := &View{
		nodes: make([]Node, 0, 1+dirs+n),
		files: n,
	}
	parent := make([]int32, 0, 1+dirs+n)
	v.nodes = append(v.nodes, Node{Path: ".", Name: ".", IsDir: true})
	parent = append(parent, -1)
	stack := []int32{0} // the directories of the previous file, from the root
	prev = ""
	for k := 0; k < n; k++ {
		e := at(k)
		d := dir(e.Slug)
		j := split(prev, d)
		if j < len(d) {
			// Pop to the common ancestor d[:j], push the rest of d.
			depth := 0
			if j > 0 {
				depth = strings.Count(d[:j], "/") + 1
			}
			stack = stack[:depth+1]
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
				parent = append(parent, stack[len(stack)-1])
				stack = append(stack, int32(len(v.nodes)))
				v.nodes = append(v.nodes, Node{Path: d[:end], Name: d[start:end], IsDir: true})
				start = end + 1
			}
		} else if j < len(prev) {
			stack = stack[:strings.Count(d, "/")+2]
			if d == "" {
				stack = stack[:1]
			}
		}
		parent = append(parent, stack[len(stack)-1])
		v.nodes = append(v.nodes, Node{Path: e.Slug, Name: e.Slug[len(d)+min(len(d), 1):], Entry: e})
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
			next += count
		}
	}
	v.kids = make([]*Node, len(nodes)-1)
	for i := 1; i < len(nodes); i++ {
		p := &nodes[parent[i]]
		v.kids[p.end] = &nodes[i]
		p.end++
	}

	v.index = make(map[string]int32, len(nodes))
	for i := range nodes {
		v.index[nodes[i].Path] = int32(i)
	}
	return v
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
	i, ok := v.index[name]
	if !ok {
		return nil, false
	}
	return &v.nodes[i], true
}

// ReadDir returns the children of the directory name, sorted by name. It
// reports false if name is not a directory of the view. Callers must not
// modify the result.
func (v *View) ReadDir(name string) ([]*Node, bool) {
	n, ok := v.Lookup(name)
	if !ok || !n.IsDir {
		return nil, false
	}
	return v.kids[n.first:n.end:n.end], true
}

// Files returns the number of files in the view.
func (v *View) Files() int { return v.files }

// Walk calls fn for every node of the view in path order: the root first,
// then depth first with the children of each directory sorted by name (the
// order of [fs.WalkDir]). It stops when fn returns false.
func (v *View) Walk(fn func(*Node) bool) {
	for i := range v.nodes {
		if !fn(&v.nodes[i]) {
			return
		}
	}
}
