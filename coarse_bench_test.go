package chromafs_test

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// staffSite writes the site of BenchmarkCoarseScope and
// BenchmarkScopeForms into a new Chroma collection: 1,131 generated
// pages, every fourth (by slug, 283) private to "staff". It returns the
// collection, its server's URL, and the slugs (sorted) of the pages hidden
// from and visible to the public view.
func staffSite(b *testing.B) (store *chromastore.Collection, url string, hidden, visible []string) {
	b.Helper()
	pages := gen.Pages(1131, 11)
	slugs := slices.Sorted(maps.Keys(pages))
	private := map[string]bool{}
	for i, s := range slugs {
		if i%4 == 0 {
			private[s] = true
		}
	}
	url = testenv.Chroma(b).URL
	store = testbackend.OpenChroma(b, chromastore.Config{URL: url, Embedding: chromastore.HashEmbedding(benchDim)})
	if _, err := gen.Write(context.Background(), store, pages, gen.Options{Access: func(slug string) (bool, []string) {
		if private[slug] {
			return false, []string{"staff"}
		}
		return true, nil
	}}); err != nil {
		b.Fatal(err)
	}
	for _, s := range slugs {
		if private[s] {
			hidden = append(hidden, s)
		} else {
			visible = append(visible, s)
		}
	}
	return store, url, hidden, visible
}

// benchVariant is a variant that pairedVariants times.
type benchVariant struct {
	name string
	run  func() error
}

// pairedVariants runs every variant once per iteration, in turn (so that
// all meet the same load), and reports each one's median in ms and, for
// all but the first, its median ratio to the first's time in the same
// round, as NAME/FIRST.
func pairedVariants(b *testing.B, variants []benchVariant) {
	b.Helper()
	times := make([][]float64, len(variants))
	for b.Loop() {
		for i, v := range variants {
			start := time.Now()
			if err := v.run(); err != nil {
				b.Fatal(v.name, err)
			}
			times[i] = append(times[i], float64(time.Since(start).Microseconds())/1000)
		}
	}
	for i, v := range variants {
		b.ReportMetric(medianOf(times[i]), v.name+"-ms")
		if i > 0 {
			r := make([]float64, len(times[i]))
			for j := range r {
				r[j] = times[i][j] / times[0][j]
			}
			b.ReportMetric(medianOf(r), v.name+"/"+variants[0].name)
		}
	}
}

// BenchmarkCoarseScope times the coarse filter on an ingest-written
// (line-aligned) collection of 1,131 generated pages, every fourth (by
// slug, 283) private to "staff", against Chroma's single query for the
// literal, in paired rounds (every variant once a round, so that all meet
// the same load). It reports each variant's median in ms and its median
// ratio to "single" (one unscoped $contains, ids only):
//
//   - single-regex: the unscoped escaped-literal $regex, as Candidates
//     sends it;
//   - nin-hidden, in-visible: that $regex scoped to the public view, as
//     the $nin of the hidden pages or the $in of the visible ones;
//   - candidates-public, candidates-staff: FS.Candidates over every file
//     of the public view (282 pages hidden) and of the staff view
//     (nothing hidden), with no remembered answer.
func BenchmarkCoarseScope(b *testing.B) {
	ctx := context.Background()
	store, _, hidden, visible := staffSite(b)
	layout := collection.DefaultLayout()
	shared := chromafs.NewShared(0)
	pub := newBenchFS(b, store, chromafs.WithShared(shared))
	staff := newBenchFS(b, store, chromafs.WithShared(shared), chromafs.WithGroups("staff"))
	pubNames, staffNames := allFilesB(b, pub), allFilesB(b, staff)
	for _, lit := range []string{"x-api-key", "webhook"} {
		b.Run(lit, func(b *testing.B) {
			contains := collection.TextFilter{Contains: []string{lit}}
			re := collection.TextFilter{Regexes: []string{"(?:" + regexp.QuoteMeta(lit) + ")"}}
			search := func(sc collection.Scope, f collection.TextFilter) func() error {
				sc.IDsOnly = true
				return func() error {
					_, err := store.Search(ctx, layout, sc, f)
					return err
				}
			}
			candidates := func(fsys *chromafs.FS, names []string) func() error {
				return func() error {
					shared.Reset() // no remembered answer
					_, err := fsys.Candidates(ctx, names, []string{lit}, false)
					return err
				}
			}
			variants := []benchVariant{
				{"single", search(collection.Scope{Exclude: true}, contains)},
				{"single-regex", search(collection.Scope{Exclude: true}, re)},
				{"nin-hidden", search(collection.Scope{Exclude: true, Slugs: hidden}, re)},
				{"in-visible", search(collection.Scope{Slugs: visible}, re)},
				{"candidates-public", candidates(pub, pubNames)},
				{"candidates-staff", candidates(staff, staffNames)},
			}
			pairedVariants(b, variants)
		})
	}
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
