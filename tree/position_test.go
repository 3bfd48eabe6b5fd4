package tree_test

import (
	"testing"

	"github.com/chromafs/chromafs/tree"
)

// TestPosition: the position of an entry or file node of a tree, eager
// or lazy, is its place in Entries; an entry or node of another tree, a
// copy, an entry of an empty tree and nil have none.
func TestPosition(t *testing.T) {
	entries := []tree.Entry{{Slug: "a.md", IsPublic: true}, {Slug: "b/c.md", IsPublic: true}, {Slug: "d.md", IsPublic: true}}
	eager := tree.New(entries)
	for name, mk := range map[string]func() *tree.Tree{
		"eager": func() *tree.Tree { return tree.New(entries) },
		"lazy":  func() *tree.Tree { return mustLazy(t, lazySource(eager, 2, nil)) },
	} {
		tr, other := mk(), mk()
		for i, e := range eager.Entries() {
			mine, _ := tr.Entry(e.Slug)
			theirs, _ := other.Entry(e.Slug)
			if got, ok := tr.Position(mine); !ok || got != i {
				t.Errorf("%s: entry %d: %d, %v", name, i, got, ok)
			}
			if got, ok := tr.Position(theirs); ok {
				t.Errorf("%s: entry %d of another tree: %d", name, i, got)
			}
			copied := *mine
			if got, ok := tr.Position(&copied); ok {
				t.Errorf("%s: a copy of entry %d: %d", name, i, got)
			}
			n, _ := tr.All().Lookup(e.Slug)
			if got, ok := tr.NodePosition(n); !ok || got != i {
				t.Errorf("%s: node %d: %d, %v", name, i, got, ok)
			}
			on, _ := other.All().Lookup(e.Slug)
			if got, ok := tr.NodePosition(on); ok {
				t.Errorf("%s: node %d of another tree: %d", name, i, got)
			}
		}
		if got, ok := tr.Position(nil); ok {
			t.Errorf("%s: nil: %d", name, got)
		}
		if got, ok := tr.NodePosition(nil); ok {
			t.Errorf("%s: nil node: %d", name, got)
		}
		dir, _ := tr.All().Lookup("b")
		if got, ok := tr.NodePosition(dir); ok {
			t.Errorf("%s: a directory: %d", name, got)
		}
		first, _ := tr.Entry("a.md")
		if got, ok := tree.New(nil).Position(first); ok {
			t.Errorf("%s: empty tree: %d", name, got)
		}
	}
}
