package chromafs_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"sync"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adopt"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/regex"
)

// adoptedSites are the two collections of BenchmarkAdopted: the same
// generated site ingested (chromafs's layout) and written as LangChain.js
// writes it (1,000-byte chunks overlapping by 200) then adopted.
var adoptedSites = struct {
	sync.Mutex
	stores map[string]collection.Store
}{stores: map[string]collection.Store{}}

// adoptedSize is the site's size: 1,131 pages, or 200 with -short (CI's
// benchmark smoke run).
func adoptedSize() int {
	if testing.Short() {
		return 200
	}
	return 1131
}

func adoptedSite(b *testing.B, layout string) collection.Store {
	b.Helper()
	srv := testenv.Chroma(b)
	adoptedSites.Lock()
	defer adoptedSites.Unlock()
	if st, ok := adoptedSites.stores[layout]; ok {
		return st
	}
	ctx := context.Background()
	st, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: fmt.Sprintf("adopted-bench-%s-%d-%s", layout, adoptedSize(), genFingerprint()),
		Create: true, Embedding: chromastore.HashEmbedding(benchDim)})
	if err != nil {
		b.Fatal(err)
	}
	if n, _ := st.Count(ctx); n == 0 {
		pages := gen.Pages(adoptedSize(), 1)
		switch layout {
		case "ingested":
			if _, err := gen.Write(ctx, st, pages, gen.Options{}); err != nil {
				b.Fatal(err)
			}
		case "adopted":
			writeOverlapping(b, st, pages, 1000, 200)
			res, err := adopt.Read(ctx, st, adopt.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := adopt.Write(ctx, st, res, adopt.WriteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	adoptedSites.stores[layout] = st
	return st
}

// searchHidden is a store whose Search is hidden (the field shadows the
// method): grep's coarse filter keeps every page without a question, as
// it did for adopted pages before it searched them by chunk id.
type searchHidden struct {
	*chromastore.Collection
	Search struct{}
}

// BenchmarkAdopted compares, on the same 1,131-page site, a collection
// that chromafs ingest wrote with one that LangChain.js's layout wrote and
// chromafs adopt adopted: a cold cat of one 8 KiB page (page cache
// emptied each time) and a cold grep -r of a rare literal (a new session
// with an empty page cache each time). adopted-readall/GrepCold is the
// adopted collection's grep without the coarse filter (every page read),
// as grep did before the filter searched adopted pages by chunk id.
func BenchmarkAdopted(b *testing.B) {
	ctx := context.Background()
	page := gen.Large(adoptedSize())[0]
	// A rare literal: a line of the middle of the page cat reads.
	lines := bytes.Split([]byte(gen.Pages(adoptedSize(), 1)[page]), []byte("\n"))
	rare := string(lines[len(lines)/2])
	for _, layout := range []string{"ingested", "adopted"} {
		b.Run(layout+"/CatCold", func(b *testing.B) {
			cache := cachepkg.NewMemory(0)
			fsys := newBenchFS(b, adoptedSite(b, layout), chromafs.WithCache(cache), chromafs.WithGroups(gen.PrivateGroup))
			for b.Loop() {
				b.StopTimer()
				if err := cache.Clear(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if data, err := fs.ReadFile(fsys, page); err != nil || len(data) == 0 {
					b.Fatal(len(data), err)
				}
			}
		})
		b.Run(layout+"/GrepCold", func(b *testing.B) {
			st := adoptedSite(b, layout)
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				fsys := newBenchFS(b, st, chromafs.WithCache(cachepkg.NewMemory(0)), chromafs.WithGroups(gen.PrivateGroup))
				searchOut(b, fsys, grepx.Query{Patterns: []string{rare}, Syntax: regex.Fixed}, &out)
			}
			b.ReportMetric(float64(bytes.Count(out.Bytes(), []byte{'\n'})), "lines")
		})
	}
	b.Run("adopted-readall/GrepCold", func(b *testing.B) {
		st := searchHidden{Collection: adoptedSite(b, "adopted").(*chromastore.Collection)}
		var out bytes.Buffer
		for b.Loop() {
			out.Reset()
			fsys := newBenchFS(b, st, chromafs.WithCache(cachepkg.NewMemory(0)), chromafs.WithGroups(gen.PrivateGroup))
			searchOut(b, fsys, grepx.Query{Patterns: []string{rare}, Syntax: regex.Fixed}, &out)
		}
		b.ReportMetric(float64(bytes.Count(out.Bytes(), []byte{'\n'})), "lines")
	})
}
