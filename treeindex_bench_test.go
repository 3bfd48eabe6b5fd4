package chromafs_test

import (
	"context"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/treeindex"
)

// Benchmarks of session creation from the compact tree index (see
// BENCHMARKS.md, "Compact tree index"). BenchmarkSessionCold and
// BenchmarkMemSessionCold read the index, as New does on a collection
// that ingest (or gen) wrote; the *JSON variants hide the collection's
// tree version marker so that New reads the JSON tree as before (and as
// on a foreign collection). Baselines: TreeFetch (the JSON tree record's
// get), IndexFetch (the index record's get) and SharedTreeGet (the Redis
// GET of a shared compact tree).

// BenchmarkSessionColdJSON: SessionCold reading the JSON tree.
func BenchmarkSessionColdJSON(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		s := chromaColl(b, sz.pages).store
		benchSessionCold(b, jsonOnly{s, s})
	})
}

// BenchmarkMemSessionColdJSON: MemSessionCold reading the JSON tree.
func BenchmarkMemSessionColdJSON(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		s := memColl(b, sz.pages, false)
		benchSessionCold(b, jsonOnly{s, s})
	})
}

// BenchmarkIndexFetch is the get of the index record alone.
func BenchmarkIndexFetch(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		store := chromaColl(b, sz.pages).store
		ctx := context.Background()
		b.ReportAllocs()
		var n int
		for b.Loop() {
			rec, err := collection.ReadTree(ctx, store, treeindex.RecordID(collection.DefaultLayout().TreeID))
			if err != nil || len(rec.Document) == 0 {
				b.Fatal(err)
			}
			n = len(rec.Document)
		}
		b.ReportMetric(float64(n), "doc-bytes")
	})
}

// BenchmarkRawIndexGet is IndexFetch without chromastore.
func BenchmarkRawIndexGet(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		rawGet(b, chromaColl(b, sz.pages), `{"ids":["`+treeindex.RecordID(collection.DefaultLayout().TreeID)+`"],"include":["documents","metadatas"]}`)
	})
}

// benchSessionShared creates sessions with an empty parsed-tree cache
// and a Redis behind the page cache that holds the compact tree (as a
// second process finds it): the marker lookup, the Redis GET, the decode
// and the prune.
func benchSessionShared(b *testing.B, prime, store collection.Store) {
	ctx := context.Background()
	rc, err := rediscache.New(testenv.Redis(b).URL, rediscache.Options{Prefix: "bench-tree:"})
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	cache := chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc))
	sh := chromafs.NewShared(0)
	fsys, err := chromafs.New(ctx, prime, chromafs.WithShared(sh), cache) // stores it in Redis
	if err != nil {
		b.Fatal(err)
	}
	key := chromafs.SharedTreeKey(store.CollectionID(), fsys.TreeVersion())
	v, ok, err := rc.Get(ctx, key)
	if err != nil || !ok {
		b.Fatalf("compact tree not in Redis: %v", err)
	}
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		sh.Reset()
		if _, err := chromafs.New(ctx, store, chromafs.WithShared(sh), cache); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
	if chromafs.TreeParses(sh) != 0 {
		b.Fatal("parsed the JSON tree")
	}
	b.ReportMetric(float64(len(v)), "redis-bytes")
}

// BenchmarkSessionShared: a session of a process whose predecessor put
// the compact tree in Redis, on Chroma.
func BenchmarkSessionShared(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		s := chromaColl(b, sz.pages).store
		benchSessionShared(b, s, noTrees{s})
	})
}

// BenchmarkMemSessionShared: SessionShared on a memstore.
func BenchmarkMemSessionShared(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		s := memColl(b, sz.pages, false)
		benchSessionShared(b, s, s)
	})
}

// BenchmarkSharedTreeGet is the baseline of SessionShared: the Redis GET
// of the compact tree.
func BenchmarkSharedTreeGet(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		ctx := context.Background()
		store := memColl(b, sz.pages, false)
		rc, err := rediscache.New(testenv.Redis(b).URL, rediscache.Options{Prefix: "bench-tree:"})
		if err != nil {
			b.Fatal(err)
		}
		defer rc.Close()
		fsys, err := chromafs.New(ctx, store, chromafs.WithShared(chromafs.NewShared(0)), chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)))
		if err != nil {
			b.Fatal(err)
		}
		key := chromafs.SharedTreeKey(store.CollectionID(), fsys.TreeVersion())
		b.ReportAllocs()
		for b.Loop() {
			if v, ok, err := rc.Get(ctx, key); err != nil || !ok || len(v) == 0 {
				b.Fatal(err)
			}
		}
	})
}
