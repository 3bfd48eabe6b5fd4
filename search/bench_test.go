package search_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/search"
)

// BenchmarkSearch compares, on one real Chroma collection of 200 pages
// embedded with the n-gram function, Chroma's bare query with the
// library's search in a warm session, for the same k and the same filter,
// paired: each iteration runs both, in alternating order, so that both
// see the same load, and the benchmark reports the median time of each
// (bare-ms, search-ms), their ratio (ratio) and the median of the
// differences of the pairs (extra-ms), besides ns/op (the two together).
//
// The bare query is one QueryVector call with the vector embedded once,
// before the loop, and the scope that the session's query sends (every
// page: Exclude with no slug; the public view: Exclude with the 10 pages
// it does not see, a $nin list), so that Chroma does the same work for
// both. The search is Engine.Search: embedding the query, building the
// scope from the session's view, the same request, line ranges from
// chunk metadata, and merging.
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
	var hidden []string
	for name := range pages {
		if strings.Contains(name, "/internal/") {
			hidden = append(hidden, name)
		}
	}
	slices.Sort(hidden)
	staff, public := newFS(b, store, "staff"), newFS(b, store)
	foreign, _ := collectionOf(b, pages, "**/* public\nv*/internal/** private groups=staff\n", true)
	foreignFS := newFS(b, foreign, "staff")
	for _, k := range []int{10, 50} {
		for _, v := range []struct {
			name  string
			store *chromastore.Collection
			fsys  *chromafs.FS
			scope collection.Scope
		}{
			{"all-visible", store, staff, collection.Scope{Exclude: true}},
			{"public", store, public, collection.Scope{Exclude: true, Slugs: hidden}},
			{"foreign", foreign, foreignFS, collection.Scope{Exclude: true}},
		} {
			b.Run(fmt.Sprintf("k=%d/%s", k, v.name), func(b *testing.B) {
				// Warm: the session's tree and connections.
				if _, err := eng.Search(ctx, v.fsys, query, search.Options{Vectors: true, K: k}); err != nil {
					b.Fatal(err)
				}
				var bare, lib []time.Duration
				i := 0
				for b.Loop() {
					runBare := func() {
						t := time.Now()
						if _, err := v.store.QueryVector(ctx, collection.DefaultLayout(), v.scope, vec, k); err != nil {
							b.Fatal(err)
						}
						bare = append(bare, time.Since(t))
					}
					runLib := func() {
						t := time.Now()
						if _, err := eng.Search(ctx, v.fsys, query, search.Options{Vectors: true, K: k}); err != nil {
							b.Fatal(err)
						}
						lib = append(lib, time.Since(t))
					}
					if i%2 == 0 {
						runBare()
						runLib()
					} else {
						runLib()
						runBare()
					}
					i++
				}
				extra := make([]time.Duration, len(bare))
				for j := range bare {
					extra[j] = lib[j] - bare[j]
				}
				mb, ml := median(bare), median(lib)
				b.ReportMetric(float64(mb.Microseconds())/1000, "bare-ms")
				b.ReportMetric(float64(ml.Microseconds())/1000, "search-ms")
				b.ReportMetric(float64(ml)/float64(mb), "ratio")
				b.ReportMetric(float64(median(extra).Microseconds())/1000, "extra-ms")
			})
		}
	}
}

// median returns the median of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// cannedQuerier is a memstore whose vector query answers, without
// ranking, the first k chunks in scope of a fixed list: what a store
// returns, without the store's work, so that BenchmarkSearchOverhead
// measures chromafs's own.
type cannedQuerier struct {
	*memstore.Store
	chunks []collection.ScoredChunk
	// listed is the set of the slugs of the last scope, whose first
	// element was at first: the session sends the same slice each time.
	first  *string
	listed map[string]bool
}

func (q *cannedQuerier) QueryVector(_ context.Context, _ collection.Layout, scope collection.Scope, _ []float32, k int) ([]collection.ScoredChunk, error) {
	if len(scope.Slugs) == 0 {
		q.first, q.listed = nil, nil
	} else if &scope.Slugs[0] != q.first {
		q.first, q.listed = &scope.Slugs[0], map[string]bool{}
		for _, s := range scope.Slugs {
			q.listed[s] = true
		}
	}
	listed := q.listed
	var out []collection.ScoredChunk
	for _, c := range q.chunks {
		if listed[c.Slug] != scope.Exclude && len(out) < k {
			out = append(out, c)
		}
	}
	return out, nil
}

// BenchmarkSearchOverhead measures chromafs's own work in a semantic
// search, with a store that answers at once (cannedQuerier): embedding
// the query (the n-gram function, in process), the scope from the
// session's view, line ranges from chunk metadata, merging. pages=N is a
// collection of N pages; the public view does not see a tenth of them.
func BenchmarkSearchOverhead(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{200, 2000} {
		pages := map[string]string{}
		for i := range n / 10 {
			for name, content := range corpus(uint64(100 + i)) {
				pages[fmt.Sprintf("v%03d/%s", i, name)] = content
			}
		}
		mem := memstore.New("overhead")
		src := fstest.MapFS{}
		for name, content := range pages {
			src[name] = &fstest.MapFile{Data: []byte(content)}
		}
		rs, err := ingest.ParseRules(strings.NewReader("**/* public\nv*/internal/** private groups=staff\n"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ingest.Run(ctx, mem, src, ingest.Options{MaxChunk: maxChunk, Rules: rs}); err != nil {
			b.Fatal(err)
		}
		q := &cannedQuerier{Store: mem}
		for _, r := range mem.Records() {
			slug, _ := r.Metadata[collection.DefaultLayout().SlugField].(string)
			if slug == "" || !strings.HasPrefix(slug, "v001/") {
				continue
			}
			idx, _ := r.Metadata[collection.DefaultLayout().IndexField].(int)
			line, _ := r.Metadata[collection.LineKey].(int)
			q.chunks = append(q.chunks, collection.ScoredChunk{
				Chunk: collection.Chunk{ID: r.ID, Slug: slug, Index: idx, Text: r.Document},
				Line:  line, Distance: 0.5,
			})
		}
		eng := &search.Engine{Embedder: chromastore.NgramEmbedding(0), Space: "l2"}
		query := strings.Join(strings.Fields(pages["v003/guides/start.md"])[40:48], " ")
		for _, v := range []struct {
			name   string
			groups []string
		}{{"all-visible", []string{"staff"}}, {"public", nil}} {
			fsys := newFS(b, q, v.groups...)
			for _, k := range []int{10, 50} {
				b.Run(fmt.Sprintf("pages=%d/k=%d/%s", n, k, v.name), func(b *testing.B) {
					for b.Loop() {
						hits, err := eng.Search(ctx, fsys, query, search.Options{Vectors: true, K: k})
						if err != nil || len(hits) == 0 {
							b.Fatal(hits, err)
						}
					}
				})
			}
		}
	}
}
