package tree

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Tree is a parsed and validated path tree. It is immutable and safe for
// concurrent use.
type Tree struct {
	entries  []Entry   // valid entries, in path order
	problems []Problem // sorted by slug
	groups   map[string]struct{}

	allOnce sync.Once
	all     *View

	prunerOnce sync.Once
	pruneData  *pruner

	mu    sync.Mutex
	views []cachedView // most recently used last

	lazy *lazyTree // a tree of NewLazy; nil for the others
	n    int       // a lazy tree's number of entries
}

// maxViews is the number of pruned views a Tree keeps.
const maxViews = 64

type cachedView struct {
	key  string
	view *View
}

// New builds a tree from entries with the same validation as [Parse]:
// entries with unsafe slugs, duplicate slugs (the last one is kept, as
// for a document), clashing slugs, a negative Size other than -1, a
// negative Chunks or a ModTime outside the years 0 to 9999 are skipped
// and reported by [Tree.Problems]. New copies entries; it normalises
// ModTime to UTC without a monotonic clock reading, and an IsPublic entry
// has HasIsPublic set.
func New(entries []Entry) *Tree {
	return newTree(entries, false)
}

// NewOwned is [New] for a caller that hands entries over: the tree keeps
// the slice and the entries' Groups slices (which entries may share)
// instead of copying them, so the caller must not use or modify them
// afterwards. The validation is New's. Decoders whose entries come in
// path order use [NewSorted] instead.
func NewOwned(entries []Entry) *Tree {
	return newTree(entries, true)
}

func newTree(entries []Entry, owned bool) *Tree {
	var valid []Entry
	if owned {
		valid = entries[:0]
	} else {
		valid = make([]Entry, 0, len(entries))
	}
	var problems []Problem
	var rejected map[string]int
	unsorted := false
	for _, e := range entries {
		reason := checkSlug(e.Slug)
		if reason == "" {
			reason = checkFields(&e)
		}
		if reason != "" {
			problems = append(problems, Problem{Slug: e.Slug, Reason: reason})
			if rejected == nil {
				rejected = make(map[string]int)
			}
			rejected[e.Slug] = len(valid)
			continue
		}
		if !e.ModTime.IsZero() {
			e.ModTime = e.ModTime.UTC().Round(0)
		}
		e.HasIsPublic = e.HasIsPublic || e.IsPublic
		if !owned {
			e.Groups = slices.Clip(slices.Clone(e.Groups))
		}
		if len(valid) > 0 && comparePaths(valid[len(valid)-1].Slug, e.Slug) > 0 {
			unsorted = true
		}
		valid = append(valid, e)
	}
	return build(valid, !unsorted, problems, rejected)
}

// ErrUnsorted is wrapped by the error of [NewSorted] for entries that
// are not valid, unique, free of clashes and in path order.
var ErrUnsorted = errors.New("tree: entries not valid and in path order")

// NewSorted builds a tree from entries that a decoder produced in path
// order (such as package treeindex from an index that tree.New's rules
// were applied to when it was written): it checks, without sorting, that
// every slug is valid and strictly after the one before it in path order
// ([Tree.Entries]'s order, so with no duplicate), that no slug is a
// directory of the next one (a clash), and New's rules for the other
// fields; when one fails it returns an error wrapping [ErrUnsorted] that
// names the first such entry, and no tree. Each slug's validity is
// checked from the element in which it starts to differ from the one
// before it, and the entries are checked in GOMAXPROCS parts at once.
// Like [NewOwned], the tree keeps entries and their Groups slices, and
// normalises ModTime and HasIsPublic as New does.
//
// For entries that hold no error NewSorted makes the tree NewOwned makes
// (with no Problems); it is only faster, since it neither sorts nor
// checks what path order already rules out.
func NewSorted(entries []Entry) (*Tree, error) {
	parts := min(runtime.GOMAXPROCS(0), 1+len(entries)/minSortedPart)
	if parts <= 1 {
		if err := checkSorted(entries, ""); err != nil {
			return nil, err
		}
	} else {
		errs := make([]error, parts)
		var wg sync.WaitGroup
		for p := range parts {
			lo, hi := p*len(entries)/parts, (p+1)*len(entries)/parts
			prev := ""
			if lo > 0 {
				prev = entries[lo-1].Slug
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[p] = checkSorted(entries[lo:hi], prev)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	t := &Tree{entries: entries, groups: make(map[string]struct{})}
	var last []string // the Groups of the last entry counted
	for i := range entries {
		gs := entries[i].Groups
		if len(gs) == len(last) && (len(gs) == 0 || &gs[0] == &last[0]) {
			continue // the same slice: decoders share one per rule
		}
		last = gs
		for _, g := range gs {
			if g != "" {
				t.groups[g] = struct{}{}
			}
		}
	}
	return t, nil
}

// minSortedPart is the fewest entries NewSorted checks on a goroutine of
// its own.
const minSortedPart = 4096

// checkSorted checks entries for NewSorted and normalises them; prev is
// the slug of the entry before them, or "" for the first. prev itself
// was (or will be) checked with the entries before.
func checkSorted(entries []Entry, prev string) error {
	for i := range entries {
		e := &entries[i]
		s := e.Slug
		if s == "" {
			return sortedError(s, "empty slug")
		}
		// The length of the prefix s shares with prev, and the start of
		// the element in which they differ.
		n := min(len(s), len(prev))
		j := 0
		for j < n && s[j] == prev[j] {
			j++
		}
		switch {
		case prev == "":
		case j == len(s): // s is prev, or a prefix of it
			if j == len(prev) {
				return sortedError(s, "duplicate slug")
			}
			return sortedError(s, "out of path order")
		case j == len(prev): // prev is a proper prefix of s
			if s[j] == '/' {
				return sortedError(prev, "clash: both a file and a directory")
			}
		case s[j] != '/' && (prev[j] == '/' || prev[j] < s[j]):
		default:
			return sortedError(s, "out of path order")
		}
		from := 0
		if prev != "" {
			from = strings.LastIndexByte(s[:j], '/') + 1
		}
		var reason string
		if from == 0 {
			reason = checkSlug(s)
		} else {
			reason = checkSlugFrom(s, from)
		}
		if reason == "" {
			reason = checkFields(e)
		}
		if reason != "" {
			return sortedError(s, reason)
		}
		if !e.ModTime.IsZero() {
			e.ModTime = e.ModTime.UTC().Round(0)
		}
		e.HasIsPublic = e.HasIsPublic || e.IsPublic
		prev = s
	}
	return nil
}

func sortedError(slug, reason string) error {
	return fmt.Errorf("%w: %s", ErrUnsorted, Problem{Slug: slug, Reason: reason})
}

// build makes a tree of entries whose slugs are valid, in document order
// (sorted reports whether that is also path order): it sorts them, drops
// duplicates (also of the rejected slugs, which map to the number of
// entries that came before their last occurrence) and clashes.
func build(entries []Entry, sorted bool, problems []Problem, rejected map[string]int) *Tree {
	t := &Tree{groups: make(map[string]struct{})}

	// Sort the entries in path order, stably, through a permutation
	// (entries are large); documents are often sorted already.
	var perm []int32
	if !sorted {
		perm = sortPaths(entries)
	}
	at := func(k int) int {
		if perm != nil {
			return int(perm[k])
		}
		return k
	}

	// One pass in path order. In a run of equal slugs the last one (the
	// last in the document) wins, unless a rejected entry with that slug
	// came after it. The entries under a slug "a" (those that start with
	// "a/") follow it directly: if there are any, "a" clashes.
	keep := make([]bool, len(entries))
	n := 0
	last := -1     // the position in path order of the last kept entry
	lastSlug := "" // and its slug
	clashed := false
	for k := range entries {
		i := at(k)
		e := &entries[i]
		if k+1 < len(entries) && entries[at(k+1)].Slug == e.Slug {
			problems = append(problems, Problem{Slug: e.Slug, Reason: "duplicate slug"})
			continue
		}
		if after, ok := rejected[e.Slug]; ok && after > i {
			problems = append(problems, Problem{Slug: e.Slug, Reason: "duplicate slug"})
			continue
		}
		if last >= 0 && keep[last] && isParent(lastSlug, e.Slug) {
			problems = append(problems, Problem{Slug: lastSlug, Reason: "clash: both a file and a directory"})
			keep[last] = false
			n--
			clashed = true
		}
		keep[k] = true
		n++
		last, lastSlug = k, e.Slug
		for _, g := range e.Groups {
			if g != "" {
				t.groups[g] = struct{}{}
			}
		}
	}

	// Collect the kept entries; in place when possible.
	if perm == nil && n == len(entries) && cap(entries)-n <= n/4 {
		t.entries = entries
	} else {
		t.entries = make([]Entry, 0, n)
		for k, ok := range keep {
			if ok {
				t.entries = append(t.entries, entries[at(k)])
			}
		}
	}
	if clashed {
		// Forget the groups that only clashing entries named.
		clear(t.groups)
		for i := range t.entries {
			for _, g := range t.entries[i].Groups {
				if g != "" {
					t.groups[g] = struct{}{}
				}
			}
		}
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return strings.Compare(a.Slug, b.Slug) })
	t.problems = problems
	return t
}

// sortPaths returns the permutation that sorts entries stably in path
// order. It compares copies of the slugs in which '/' is NUL (which slugs
// never contain), so that byte order is path order.
func sortPaths(entries []Entry) []int32 {
	size := 0
	for i := range entries {
		size += len(entries[i].Slug)
	}
	buf := make([]byte, 0, size)
	for i := range entries {
		buf = append(buf, entries[i].Slug...)
	}
	for i, c := range buf {
		if c == '/' {
			buf[i] = 0
		}
	}
	all := string(buf)
	type key struct {
		s string
		i int32
	}
	keys := make([]key, len(entries))
	off := 0
	for i := range entries {
		n := len(entries[i].Slug)
		keys[i] = key{all[off : off+n], int32(i)}
		off += n
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.s, b.s); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	perm := make([]int32, len(entries))
	for k := range keys {
		perm[k] = keys[k].i
	}
	return perm
}

// isParent reports whether dir is a directory prefix of slug.
func isParent(dir, slug string) bool {
	return len(slug) > len(dir) && slug[len(dir)] == '/' && slug[:len(dir)] == dir
}

// Entries returns the valid entries in path order: sorted by slug, element
// by element, as [io/fs.WalkDir] visits them. Callers must not modify the
// result.
//
// A lazy tree ([NewLazy]) decodes all its blocks first, and returns
// copies of the entries that Entry and its views' nodes point to.
func (t *Tree) Entries() []Entry {
	if t.lazy != nil {
		return t.lazyEntries()
	}
	return t.entries
}

// Entry returns the valid entry with the given slug.
func (t *Tree) Entry(slug string) (*Entry, bool) {
	i, ok := t.Index(slug)
	if !ok {
		return nil, false
	}
	if t.lazy != nil {
		n, _ := t.lazyNode(i)
		return n.Entry, true
	}
	return &t.entries[i], true
}

// Index returns the position in Entries of the valid entry with the given
// slug, found by binary search in path order.
func (t *Tree) Index(slug string) (int, bool) {
	if t.lazy != nil {
		return t.lazyIndex(slug)
	}
	return slices.BinarySearchFunc(t.entries, slug, func(e Entry, s string) int { return comparePaths(e.Slug, s) })
}

// Problems returns the entries that were skipped, and why, sorted by slug
// (entries with the same slug in document order). Callers must not modify
// the result.
func (t *Tree) Problems() []Problem { return t.problems }

// Len returns the number of valid entries.
// For a lazy tree it counts the entries of blocks not yet decoded, or
// that failed to decode.
func (t *Tree) Len() int {
	if t.lazy != nil {
		return t.n
	}
	return len(t.entries)
}

// Position returns the position in Entries of e, a pointer that Entry or
// a Node of a view of t gave (or, for a tree that is not Lazy, Entries).

func (t *Tree) Position(e *Entry) (int, bool) {
	if t.lazy != nil && e != nil {
		i, ok := t.lazyIndex(e.Slug)
		if n, _ := t.lazyNode(i); !ok || n == nil || n.Entry != e {
			return 0, false
		}
		return i, true
	}
	if len(t.entries) == 0 || e == nil {
		return 0, false
	}
	// An e before the array wraps around to an offset past its end.
	i := (uintptr(unsafe.Pointer(e)) - uintptr(unsafe.Pointer(&t.entries[0]))) / unsafe.Sizeof(t.entries[0])
	if i >= uintptr(len(t.entries)) || &t.entries[i] != e {
		return 0, false
	}
	return int(i), true
}

// NodePosition returns the position in Entries of the entry of the file
// node n of a view of t, without a search.
func (t *Tree) NodePosition(n *Node) (int, bool) {
	if n == nil || n.Entry == nil {
		return 0, false
	}
	if t.lazy != nil {
		i := int(n.first)
		if i < 0 || i >= t.n {
			return 0, false
		}
		if m, _ := t.lazyNode(i); m != n {
			return 0, false // a node of another tree
		}
		return i, true
	}
	return t.Position(n.Entry)
}

// Groups returns the sorted names of the groups that valid entries name.
func (t *Tree) Groups() []string {
	gs := make([]string, 0, len(t.groups))
	for g := range t.groups {
		gs = append(gs, g)
	}
	slices.Sort(gs)
	return gs
}

// All returns the unpruned view: every valid entry, whatever its access
// rules. It is meant for administration tools, never for users.
func (t *Tree) All() *View {
	t.allOnce.Do(func() {
		if t.lazy != nil {
			allowed := make([]bool, len(t.lazy.src.Rules))
			for r := range allowed {
				allowed[r] = true
			}
			t.all = t.newLazyView(allowed)
			return
		}
		slugs := make([]string, len(t.entries))
		for i := range t.entries {
			slugs[i] = t.entries[i].Slug
		}
		t.all = newView(t.entries, slugs)
	})
	return t.all
}

// View returns the view of a user with the given groups: the entries
// visible to them ([Entry.Visible]) and the directories those imply. Views
// are cached per distinct set of groups (order, duplicates and groups that
// no entry names do not matter); the 64 most recently used are kept.
func (t *Tree) View(groups []string) *View {
	set := t.relevant(groups)
	key := groupKey(set)
	if v := t.cached(key); v != nil {
		return v
	}
	v := t.prune(set)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.views {
		if c.key == key {
			return c.view // built concurrently
		}
	}
	if len(t.views) == maxViews {
		t.views = slices.Delete(t.views, 0, 1)
	}
	t.views = append(t.views, cachedView{key, v})
	return v
}

// relevant returns the sorted set of groups that entries of t name.
func (t *Tree) relevant(groups []string) []string {
	var set []string
	for _, g := range groups {
		if _, ok := t.groups[g]; ok {
			set = append(set, g)
		}
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// groupKey encodes a sorted set of groups unambiguously.
func groupKey(set []string) string {
	if len(set) == 0 {
		return ""
	}
	var b strings.Builder
	for _, g := range set {
		b.WriteString(strconv.Itoa(len(g)))
		b.WriteByte(':')
		b.WriteString(g)
	}
	return b.String()
}

func (t *Tree) cached(key string) *View {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, c := range t.views {
		if c.key == key {
			if i != len(t.views)-1 {
				// Move to the end: most recently used.
				copy(t.views[i:], t.views[i+1:])
				t.views[len(t.views)-1] = c
			}
			return c.view
		}
	}
	return nil
}

// prune builds the view of the entries visible to a set of groups: a
// visibility mask over the nodes of the unpruned view, which it shares.
// For no groups (anonymous users) only public entries are visible, which
// needs no rules: the pruner is built for the first view with groups.
func (t *Tree) prune(set []string) *View {
	if t.lazy != nil {
		return t.lazyPrune(set)
	}
	var a *View
	var visibleFile func(i int) bool
	if len(set) == 0 {
		a = t.All()
		visibleFile = func(i int) bool { e := a.nodes[i].Entry; return e != nil && e.IsPublic }
	} else {
		p := t.pruner()
		a = p.all
		in := make([]bool, len(p.groups)) // by group id
		for _, g := range set {
			if id, ok := p.groups[g]; ok {
				in[id] = true
			}
		}
		allowed := make([]bool, len(p.rules))
		for r, rule := range p.rules {
			ok := rule.public
			for _, id := range rule.groups {
				if ok {
					break
				}
				ok = in[id]
			}
			allowed[r] = ok
		}
		visibleFile = func(i int) bool { r := p.rule[i]; return r >= 0 && allowed[r] }
	}
	// In reverse path order every child comes before its parent: one pass
	// marks the visible files and the directories that hold them.
	vis := make([]bool, len(a.nodes))
	files := 0
	for i := len(a.nodes) - 1; i > 0; i-- {
		if visibleFile(i) {
			vis[i] = true
			files++
		}
		if vis[i] {
			vis[a.parent[i]] = true
		}
	}
	if files == a.files {
		return a
	}
	vis[0] = true
	return &View{nodes: a.nodes, kids: a.kids, index: a.index, files: files, parent: a.parent, at: a.at,
		dirs: a.dirs, visible: vis, shown: make([]atomic.Pointer[[]*Node], a.dirs)}
}

// pruner is what pruning needs beyond the unpruned view: the access rule
// of each file, with the entries' rules interned (most entries share a
// few), and the groups numbered.
type pruner struct {
	all    *View
	rule   []int32 // by node: the index in rules of a file's rule, or -1
	rules  []accessRule
	groups map[string]int32 // the groups of t, numbered
}

// accessRule is an entry's access rule: public, or the ids of its groups.
type accessRule struct {
	public bool
	groups []int32 // sorted, without duplicates
}

func (t *Tree) pruner() *pruner {
	t.prunerOnce.Do(func() {
		all := t.All()
		p := &pruner{
			all:    all,
			rule:   make([]int32, len(all.nodes)),
			rules:  []accessRule{{public: true}},
			groups: make(map[string]int32, len(t.groups)),
		}
		for i, g := range t.Groups() {
			p.groups[g] = int32(i)
		}
		interned := map[string]int32{}
		var ids []int32
		var key []byte
		var prev *Entry // the previous private entry
		prevRule := int32(-1)
		for i := range all.nodes {
			e := all.nodes[i].Entry
			switch {
			case e == nil:
				p.rule[i] = -1
				continue
			case e.IsPublic:
				p.rule[i] = 0
				continue
			case prev != nil && slices.Equal(prev.Groups, e.Groups):
				p.rule[i] = prevRule
				continue
			}
			ids = ids[:0]
			for _, g := range e.Groups {
				if id, ok := p.groups[g]; ok {
					ids = append(ids, id)
				}
			}
			slices.Sort(ids)
			ids = slices.Compact(ids)
			key = key[:0]
			for _, id := range ids {
				key = binary.LittleEndian.AppendUint32(key, uint32(id))
			}
			r, ok := interned[string(key)]
			if !ok {
				r = int32(len(p.rules))
				p.rules = append(p.rules, accessRule{groups: slices.Clone(ids)})
				interned[string(key)] = r
			}
			p.rule[i] = r
			prev, prevRule = e, r
		}
		t.pruneData = p
	})
	return t.pruneData
}

// checkFields returns why e's size, chunk count or time is invalid, or ""
// if they are valid.
func checkFields(e *Entry) string {
	switch {
	case e.Size < -1:
		return "size: want a non-negative integer"
	case e.Chunks < 0:
		return "chunks: want a non-negative integer"
	case !e.ModTime.IsZero() && !validTime(e.ModTime):
		return "modTime: outside the years 0 to 9999"
	case e.Parts != "" && e.URL != "":
		return "parts and url: a page is either in chunks or elsewhere"
	}
	return ""
}
