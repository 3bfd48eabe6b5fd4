package search_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/search"
)

// BenchmarkSearch compares, on one real Chroma collection of 200 pages
// embedded with the n-gram function, Chroma's bare query for k chunks
// (QueryVector with no page filter; the vector embedded once) with the
// library's search in a warm session for the same k: embedding the
// query, the query filtered to the session's view, the line ranges (from
// chunk metadata) and the merging. "public" is a view that hides 10
// pages, sent as a $nin list.
func BenchmarkSearch(b *testing.B) {
	pages := map[string]string{}
	for i := range 20 {
		for name, content := range corpus(uint64(100 + i)) {
			pages[fmt.Sprintf("v%02d/%s", i, name)] = content
		}
	}
	store, _ := collectionOf(b, pages, "**/* public\nv*/internal/** private groups=staff\n", false)
	eng := engine(b, store)
	ctx := context.Background()
	words := strings.Fields(pages["v03/guides/start.md"])
	query := strings.Join(words[40:48], " ")
	vec, err := eng.Embedder.EmbedQuery(ctx, query)
	if err != nil {
		b.Fatal(err)
	}
	staff, public := newFS(b, store, "staff"), newFS(b, store)
	for _, k := range []int{10, 50} {
		b.Run(fmt.Sprintf("k=%d/chroma-query", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := store.QueryVector(ctx, collection.DefaultLayout(), collection.Scope{Exclude: true}, vec, k); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, v := range []struct {
			name string
			fsys *chromafs.FS
		}{{"all-visible", staff}, {"public", public}} {
			b.Run(fmt.Sprintf("k=%d/search-%s", k, v.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := eng.Search(ctx, v.fsys, query, search.Options{K: k}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
