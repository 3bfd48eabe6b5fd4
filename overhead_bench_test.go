package chromafs_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/grepx"
)

// BenchmarkSearchOverhead is chromafs's own share of a cold rare-literal
// grep over the whole 10k site (9,000 visible files): a memstore holding
// only the tree answers the coarse query at once with nothing, so what is
// timed is the walk, the cache check, building the query's scope and
// delivering the results. BenchmarkGrep/RareLiteral/ChromafsCold is this
// plus Chroma's pass and the prefetch.
func BenchmarkSearchOverhead(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		store := memColl(b, sz.pages, false)
		q := grepx.Query{Patterns: []string{"tree grep filesystem"}}
		var out bytes.Buffer
		b.Run("search", func(b *testing.B) {
			for b.Loop() {
				out.Reset()
				fsys := newBenchFS(b, store, chromafs.WithCache(cachepkg.NewMemory(0)))
				searchOut(b, fsys, q, &out)
			}
		})
		fsys := newBenchFS(b, store, chromafs.WithCache(cachepkg.NewMemory(0)))
		names := allFilesB(b, fsys)
		ctx := context.Background()
		b.Run("uncached", func(b *testing.B) {
			for b.Loop() {
				if got := fsys.Uncached(ctx, names); len(got) != len(names) {
					b.Fatal(len(got))
				}
			}
		})
		b.Run("candidates", func(b *testing.B) {
			for b.Loop() {
				if _, err := fsys.Candidates(ctx, names, []string{"tree grep filesystem"}, false); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("walk", func(b *testing.B) {
			for b.Loop() {
				allFilesB(b, fsys)
			}
		})
	})
}
