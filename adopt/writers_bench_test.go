package adopt

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testcorpus/awkward"
	"github.com/chromafs/chromafs/internal/testenv"
)

// BenchmarkAdoptVsIngest measures, against the real Chroma, adopt (Read
// and Write: every record read, every page reassembled, the tree and its
// index written) of a collection that LangChain.js (the example docs)
// or LlamaIndex.TS with its text reader (the site: LangChain.js's
// Chroma.fromDocuments sends its 6,501 chunks in one request, over
// Chroma's limit of 5,461, and fails) wrote with its defaults, against ingest (chunk, embed with the consistent-hash
// function, upsert, tree) of the same folder into a new collection: the
// example docs and a generated site of 1,131 pages (gen.Pages(1131, 1),
// with ".txt" added to the names LangChain.js's loader would skip).
// It is not part of make test:
//
//	CI=true go test -run '^$' -bench BenchmarkAdoptVsIngest -benchtime 3x ./adopt
func BenchmarkAdoptVsIngest(b *testing.B) {
	srv := testenv.Chroma(b)
	site := map[string]string{}
	for slug, c := range gen.Pages(1131, 1) {
		if !readable(slug) {
			slug += ".txt" // so that LangChain.js's loader reads it
		}
		site[slug] = c
	}
	folders := []struct {
		name   string
		files  map[string]string
		writer testenv.Writer
	}{{"examples", nil, testenv.LangChain}, {"site1131", site, testenv.LlamaIndexText}}
	for _, f := range folders {
		var dir string
		if f.files == nil {
			var err error
			if dir, err = filepath.Abs(filepath.Join("..", "examples", "docs")); err != nil {
				b.Fatal(err)
			}
		} else {
			dir = awkward.WriteDir(b, f.files)
		}
		ctx := context.Background()
		b.Run(f.name+"/adopt", func(b *testing.B) {
			coll := testenv.WriteWith(b, srv.URL, f.writer, testenv.DefaultSplit, dir)
			c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: coll})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ResetTimer()
			for range b.N {
				res, err := Read(ctx, c, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Write(ctx, c, res, WriteOptions{}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(res.Pages)), "pages")
			}
		})
		b.Run(f.name+"/ingest", func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				name := testenv.CollectionName(b)
				c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: name, Create: true})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rep, err := ingest.RunDir(ctx, c, dir, ingest.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = rep
				c.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkAdoptVsIngest10k is BenchmarkAdoptVsIngest on a generated site
// of 10,000 pages (gen.Pages(10000, 1)), written into Chroma in
// LangChain.js's layout (source, locFrom, locTo; chunks of 1,000
// characters overlapping by 200, trimmed: the splitter's port in
// splitter_test.go) by this benchmark itself, untimed: the npm writers
// take minutes for such a site, and LangChain.js's Chroma.fromDocuments
// fails on it (one request over Chroma's batch limit). adopt (Read and
// Write) is timed against ingest of the same pages from a folder into a
// new collection (chunk, hash-embed, upsert, tree). It is not part of
// make test (writing takes minutes):
//
//	CI=true go test -run '^$' -bench BenchmarkAdoptVsIngest10k -benchtime 1x -timeout 60m ./adopt
func BenchmarkAdoptVsIngest10k(b *testing.B) {
	srv := testenv.Chroma(b)
	ctx := context.Background()
	site := gen.Pages(10000, 1)
	b.Run("adopt", func(b *testing.B) {
		c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(b), Create: true})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		var recs []collection.Record
		sp := newJSSplitter(1000, 200)
		for _, p := range slices.Sorted(maps.Keys(site)) {
			for i, pc := range jsPieces(sp, site[p]) {
				recs = append(recs, collection.Record{ID: fmt.Sprintf("%08x-%04x", len(recs), i), Document: pc.Text, Metadata: map[string]any{
					"source": "/home/ci/site/" + p, "locFrom": pc.Line + 1, "locTo": pc.Line + 1 + strings.Count(pc.Text, "\n")}})
			}
		}
		start := time.Now()
		if err := c.Upsert(ctx, recs); err != nil {
			b.Fatal(err)
		}
		b.Logf("wrote %d chunks of %d pages in LangChain.js's layout in %v", len(recs), len(site), time.Since(start))
		b.ResetTimer()
		for range b.N {
			res, err := Read(ctx, c, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Write(ctx, c, res, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
			ex, ed, in := res.Count()
			b.ReportMetric(float64(len(res.Pages)), "pages")
			b.Logf("adopted %d pages (%s): %d exact, %d edges-assumed, %d inexact", len(res.Pages), res.Layout.Name, ex, ed, in)
		}
	})
	b.Run("ingest", func(b *testing.B) {
		dir := awkward.WriteDir(b, site)
		for range b.N {
			b.StopTimer()
			c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(b), Create: true})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			rep, err := ingest.RunDir(ctx, c, dir, ingest.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.Logf("ingested %+v", rep)
			c.Close()
			b.StartTimer()
		}
	})
}
