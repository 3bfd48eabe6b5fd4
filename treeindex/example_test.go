package treeindex_test

import (
	"fmt"

	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

func Example() {
	entries := []tree.Entry{
		{Slug: "guides/auth.md", IsPublic: true, Size: 120},
		{Slug: "internal/billing.md", Groups: []string{"billing"}, Size: 80},
	}
	// The stamp is the version of the JSON tree made from the same entries.
	payload, err := treeindex.Encode(entries, "0123456789abcdef01234567", map[string]any{"chromafs_chunk_ids": "slug#index"})
	if err != nil {
		panic(err)
	}
	doc := treeindex.EncodeDocument(payload) // the index record's document

	p, err := treeindex.DecodeDocument(doc)
	if err != nil {
		panic(err)
	}
	ix, err := treeindex.Decode(p, tree.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Println(ix.Stamp, ix.Tree.Len())
	for _, n := range mustReadDir(ix.Tree.View([]string{"billing"}), ".") {
		fmt.Println(n.Path)
	}
	// Output:
	// 0123456789abcdef01234567 2
	// guides
	// internal
}

func mustReadDir(v *tree.View, name string) []*tree.Node {
	ns, ok := v.ReadDir(name)
	if !ok {
		panic(name)
	}
	return ns
}
