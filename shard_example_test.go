package chromafs_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// A writer for a store that limits documents (Chroma Cloud: 16 KiB) cuts
// a large tree into shards with ShardTree and writes the shards before the
// manifest; New reads the tree back as if it were one record.
func ExampleShardTree() {
	var entries []tree.Entry
	for i := range 200 {
		entries = append(entries, tree.Entry{Slug: fmt.Sprintf("guides/page-%03d.md", i), HasIsPublic: true, IsPublic: true, Size: -1})
	}
	doc, err := tree.Encode(entries, false)
	if err != nil {
		log.Fatal(err)
	}
	manifest, shards, err := chromafs.ShardTree(chromafs.DefaultLayout.TreeID, doc, 4096)
	if err != nil {
		log.Fatal(err)
	}
	store := memstore.New("sharded")
	ctx := context.Background()
	if err := store.Upsert(ctx, shards); err != nil { // shards first
		log.Fatal(err)
	}
	err = store.Upsert(ctx, []chromafs.Record{{
		ID: chromafs.DefaultLayout.TreeID, Document: string(manifest), Metadata: map[string]any{"_system": true}, System: true,
	}})
	if err != nil {
		log.Fatal(err)
	}

	fsys, err := chromafs.New(ctx, store)
	if err != nil {
		log.Fatal(err)
	}
	names, _ := fs.Glob(fsys, "guides/*.md")
	fmt.Printf("%d-byte tree in %d shards; %d pages, the last %s\n", len(doc), len(shards), len(names), names[len(names)-1])
	fmt.Println(fsys.TreeVersion() == chromafs.TreeVersionOf(doc))
	// Output:
	// 10403-byte tree in 3 shards; 200 pages, the last guides/page-199.md
	// true
}
