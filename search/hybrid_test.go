package search_test

import (
	"context"
	"io/fs"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/search"
)

// TestHybrid: the default search fuses the vector ranking of pages (the
// first 2k pages of the best 5k chunks, weight search.VectorWeight) and
// the lexical one (k pages, weight 1) by reciprocal rank fusion
// (search.RRFK), each computed here from the forced rankings of the same
// view, one hit a page; within the view (a private page's words find it
// for its group and never for the others); a page first in both rankings
// scores 1.
func TestHybrid(t *testing.T) {
	pages := corpus(7)
	secret := "the vault rotation key lives in the northern annex cabinet"
	pages["internal/runbook.md"] += secret + "\n"
	pages["guides/auth/tokens.md"] += "Call getUser with the x-api-key header.\n"
	rules := "**/* public\ninternal/** private groups=staff\n"
	store, _ := collectionOf(t, pages, rules, false)
	eng := engine(t, store)
	staff, public := newFS(t, store, "staff"), newFS(t, store)
	ctx := context.Background()
	queries := []string{secret, "getUser x-api-key", lineAt(pages["notes/faq.md"], 3), "rotation cabinet tokens"}
	for _, view := range []struct {
		name string
		fsys fs.FS
	}{{"staff", staff}, {"public", public}} {
		fsys := view.fsys
		for _, q := range queries {
			for _, k := range []int{3, 10} {
				got, err := eng.Search(ctx, fsys, q, search.Options{K: k})
				if err != nil {
					t.Fatal(err)
				}
				vec, err := eng.Search(ctx, fsys, q, search.Options{Vectors: true, K: 5 * k})
				if err != nil {
					t.Fatal(err)
				}
				vec = vec[:min(2*k, len(vec))]
				lex, err := eng.Search(ctx, fsys, q, search.Options{Lexical: true, K: k})
				if err != nil {
					t.Fatal(err)
				}
				fused := map[string]float64{}
				for _, side := range []struct {
					hits   []search.Hit
					weight float64
				}{{lex, 1}, {vec, search.VectorWeight}} {
					for i, h := range side.hits {
						fused[h.Path] += side.weight / float64(search.RRFK+i+1)
					}
				}
				want := slices.Collect(func(yield func(string) bool) {
					for p := range fused {
						if !yield(p) {
							return
						}
					}
				})
				slices.SortFunc(want, func(a, b string) int {
					if fused[a] != fused[b] {
						if fused[a] > fused[b] {
							return -1
						}
						return 1
					}
					return strings.Compare(a, b)
				})
				want = want[:min(k, len(want))]
				var paths []string
				for _, h := range got {
					paths = append(paths, h.Path)
					if w := fused[h.Path] * (search.RRFK + 1) / (1 + search.VectorWeight); math.Abs(h.Score-w) > 1e-9 {
						t.Errorf("%s %q: %s score %v, want %v", view.name, q, h.Path, h.Score, w)
					}
					if view.name == "public" && strings.HasPrefix(h.Path, "internal/") {
						t.Errorf("public %q: hit %s of a staff page", q, h.Path)
					}
				}
				for _, h := range flat(got) {
					checkRange(t, pages, h)
				}
				if !slices.Equal(paths, want) {
					t.Errorf("%s %q k=%d: pages %v, want the fused ranking %v", view.name, q, k, paths, want)
				}
			}
		}
	}
	hits, err := eng.Search(ctx, staff, secret, search.Options{K: 3})
	if err != nil || len(hits) == 0 || hits[0].Path != "internal/runbook.md" || math.Abs(hits[0].Score-1) > 1e-9 {
		t.Errorf("staff, the secret line: %v, %v; want internal/runbook.md first in both rankings (score 1)", summaries(hits), err)
	}
	hits, err = eng.Search(ctx, public, "getUser x-api-key", search.Options{K: 3})
	if err != nil || len(hits) == 0 || hits[0].Path != "guides/auth/tokens.md" {
		t.Errorf("public, identifiers: %v, %v; want guides/auth/tokens.md first", summaries(hits), err)
	}
	if _, err := eng.Search(ctx, public, "x", search.Options{Lexical: true, Vectors: true}); err == nil {
		t.Errorf("lexical and vectors together: no error")
	}
}
