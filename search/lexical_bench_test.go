package search

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/memstore"
)

// BenchmarkLexical compares, in one run, the lexical ranking (BM25F over
// the fields of a page, stems, identifiers, up to three ranges a page)
// with the one it replaced (BM25 over the words of a page, one range;
// lexical_before_test.go) on 2,000 generated pages (8.5 MB, internal/gen)
// in memstore, through a chromafs.FS with its page cache warm: per op,
// five queries of 1 to 8 words, 10 pages each.
//
//	go test -run '^$' -bench BenchmarkLexical -count 5 ./search
func BenchmarkLexical(b *testing.B) {
	ctx := context.Background()
	store := memstore.New("bench-lexical")
	src := fstest.MapFS{}
	for name, content := range gen.Pages(2000, 1) {
		src[name] = &fstest.MapFile{Data: []byte(content)}
	}
	if _, err := ingest.Run(ctx, store, src, ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	fsys, err := chromafs.New(ctx, store)
	if err != nil {
		b.Fatal(err)
	}
	queries := []string{
		"rotate the webhook secret",
		"access_token refresh_token",
		"pagination limits",
		"how do I upload a file to my project",
		"deploy",
	}
	for _, impl := range []struct {
		name string
		rank func(ctx context.Context, fsys fs.FS, dir, query string, k int) ([]Hit, error)
	}{{"before", lexicalBefore}, {"after", lexical}} {
		b.Run(impl.name, func(b *testing.B) {
			for _, q := range queries { // the page cache warm
				if _, err := impl.rank(ctx, fsys, ".", q, 10); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				for _, q := range queries {
					if _, err := impl.rank(ctx, fsys, ".", q, 10); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
