package chromafs_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// systemOnly writes only the system records (the tree, its manifest and
// shards) of what gen.Write writes: session creation reads nothing else,
// and a 100k tree is then written in seconds instead of the collection's
// 15 minutes.
type systemOnly struct{ *chromastore.Collection }

func (w systemOnly) Upsert(ctx context.Context, records []collection.Record) error {
	var kept []collection.Record
	for _, r := range records {
		if r.System {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return w.Collection.Upsert(ctx, kept)
}

// treeColl returns a Chroma collection holding the tree of the generated
// site of n pages, written whole (max 0) or in shards of at most max bytes.
func treeColl(b *testing.B, n, max int) *chromastore.Collection {
	b.Helper()
	srv := testenv.Chroma(b)
	ctx := context.Background()
	store := testbackend.OpenChroma(b, chromastore.Config{
		URL:        srv.URL,
		Collection: fmt.Sprintf("chromafs-bench-tree-%d-%d-%s", n, max, genFingerprint()),
		Embedding:  chromastore.HashEmbedding(benchDim),
	})
	if store.Metadata()[benchCompleteKey] == true {
		return store
	}
	st, err := gen.Write(ctx, systemOnly{store}, gen.Pages(n, benchSeed), gen.Options{TreeMaxBytes: max})
	if err != nil {
		b.Fatal(err)
	}
	if err := store.SetMetadata(ctx, map[string]any{benchCompleteKey: true}); err != nil {
		b.Fatal(err)
	}
	b.Logf("tree of %d pages: %d bytes in %d shards", n, st.TreeBytes, st.TreeShards)
	return store
}

// BenchmarkSessionSharded compares session creation on the same tree
// written whole and in 16 KiB shards (Chroma Cloud's document limit):
// cold (no parsed tree cached: the tree is fetched and parsed) and warm
// (the parsed tree is cached; the collection's tree version marker is
// checked with a collection lookup).
func BenchmarkSessionSharded(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		for _, layout := range []struct {
			name string
			max  int
		}{{"whole", 0}, {"sharded", chromastore.CloudMaxDocumentBytes}} {
			store := treeColl(b, sz.pages, layout.max)
			b.Run(layout.name+"/cold", func(b *testing.B) { benchSessionCold(b, store) })
			b.Run(layout.name+"/warm", func(b *testing.B) {
				ctx := context.Background()
				newBenchFS(b, store)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := chromafs.New(ctx, store); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
