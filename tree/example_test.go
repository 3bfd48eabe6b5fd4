package tree_test

import (
	"fmt"

	"github.com/chromafs/chromafs/tree"
)

func Example() {
	doc := []byte(`{
		"auth/oauth.md":       {"isPublic": true,  "groups": []},
		"auth/api-keys.mdx":   {"isPublic": true,  "groups": [], "size": 2048},
		"internal/billing.md": {"isPublic": false, "groups": ["admin", "billing"]},
		"../escape":           {"isPublic": true}
	}`)
	t, err := tree.Parse(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range t.Problems() {
		fmt.Println("skipped:", p)
	}

	// A user without groups sees the public pages only.
	v := t.View(nil)
	v.Walk(func(n *tree.Node) bool {
		fmt.Printf("%-20s dir=%v\n", n.Path, n.IsDir)
		return true
	})
	_, ok := v.Lookup("internal")
	fmt.Println("internal visible:", ok)

	// A billing user also sees the billing page, and its directory.
	kids, _ := t.View([]string{"billing"}).ReadDir("internal")
	fmt.Println("internal/:", kids[0].Name)
	// Output:
	// skipped: "../escape": unsafe slug: .. element
	// .                    dir=true
	// auth                 dir=true
	// auth/api-keys.mdx    dir=false
	// auth/oauth.md        dir=false
	// internal visible: false
	// internal/: billing.md
}

// A decoder whose entries come in path order builds the tree without a
// sort; entries that are out of order, clash or are invalid are refused.
func ExampleNewSorted() {
	t, err := tree.NewSorted([]tree.Entry{
		{Slug: "guides/a.md", IsPublic: true, Size: -1},
		{Slug: "guides/b.md", Groups: []string{"staff"}, Size: -1},
		{Slug: "index.md", IsPublic: true, Size: 120},
	})
	fmt.Println(t.Len(), t.Groups(), err)
	_, err = tree.NewSorted([]tree.Entry{{Slug: "b.md", Size: -1}, {Slug: "a.md", Size: -1}})
	fmt.Println(err)
	_, err = tree.NewSorted([]tree.Entry{{Slug: "a", Size: -1}, {Slug: "a/b.md", Size: -1}})
	fmt.Println(err)
	// Output:
	// 3 [staff] <nil>
	// tree: entries not valid and in path order: "a.md": out of path order
	// tree: entries not valid and in path order: "a": clash: both a file and a directory
}
