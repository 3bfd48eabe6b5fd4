package chromafs

import (
	"testing"

	"github.com/chromafs/chromafs/tree"
)

// TestEntryIndex: the index of an entry of the tree is its position; an
// entry of another tree, a copy of an entry, an entry of an empty tree
// and nil have none.
func TestEntryIndex(t *testing.T) {
	entries := []tree.Entry{{Slug: "a.md", IsPublic: true}, {Slug: "b/c.md", IsPublic: true}, {Slug: "d.md", IsPublic: true}}
	tr := tree.New(entries)
	other := tree.New(entries)
	for i := range tr.Entries() {
		if got, ok := entryIndex(tr, &tr.Entries()[i]); !ok || got != i {
			t.Errorf("entry %d: %d, %v", i, got, ok)
		}
		if got, ok := entryIndex(tr, &other.Entries()[i]); ok {
			t.Errorf("entry %d of another tree: %d", i, got)
		}
		copied := tr.Entries()[i]
		if got, ok := entryIndex(tr, &copied); ok {
			t.Errorf("a copy of entry %d: %d", i, got)
		}
	}
	if got, ok := entryIndex(tr, nil); ok {
		t.Errorf("nil: %d", got)
	}
	if got, ok := entryIndex(tree.New(nil), &tr.Entries()[0]); ok {
		t.Errorf("empty tree: %d", got)
	}
}
