package collection_test

import (
	"context"
	"fmt"
	"log"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// A writer for a store that limits documents (Chroma Cloud: 16 KiB) cuts
// a large tree into shards with ShardTree and writes the shards before the
// manifest; ReadTree (and so the filesystem) reads the tree back as if it
// were one record, with the same version.
func ExampleShardTree() {
	var entries []tree.Entry
	for i := range 200 {
		entries = append(entries, tree.Entry{Slug: fmt.Sprintf("guides/page-%03d.md", i), HasIsPublic: true, IsPublic: true, Size: -1})
	}
	doc, err := tree.Encode(entries, false)
	if err != nil {
		log.Fatal(err)
	}
	manifest, shards, err := collection.ShardTree(collection.DefaultLayout().TreeID, doc, 4096)
	if err != nil {
		log.Fatal(err)
	}
	store := memstore.New("sharded")
	ctx := context.Background()
	if err := store.Upsert(ctx, shards); err != nil { // shards first
		log.Fatal(err)
	}
	err = store.Upsert(ctx, []collection.Record{{
		ID: collection.DefaultLayout().TreeID, Document: string(manifest), Metadata: map[string]any{"_system": true}, System: true,
	}})
	if err != nil {
		log.Fatal(err)
	}

	rec, err := collection.ReadTree(ctx, store, collection.DefaultLayout().TreeID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d-byte tree in %d shards; read back %d bytes from %d shards\n", len(doc), len(shards), len(rec.Document), rec.Manifest.Shards)
	fmt.Println(rec.Version == collection.TreeVersionOf(doc))
	// Output:
	// 10403-byte tree in 3 shards; read back 10403 bytes from 3 shards
	// true
}
