package chromafs_test

import (
	"context"
	"testing"
)

// BenchmarkCandidates asks a generated Chroma collection (line-aligned, as
// ingest writes it) which of a public user's pages may contain a literal,
// over every visible page: one search, in $in batches of
// chromastore.SearchMaxIn slugs. "rare" is a literal no page holds (the
// cost of one filtered pass), "common" one that most chunks hold (the
// cost of paging through the matches, 300 records a request).
func BenchmarkCandidates(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		c := chromaColl(b, sz.pages)
		fsys := newBenchFS(b, c.store)
		names := allFilesB(b, fsys)
		for _, tc := range []struct {
			name string
			lit  string
			fold bool
		}{
			{"rare", "zanzibar_quux", false},
			{"rare-fold", "zanzibar_quux", true},
			{"common", "the", false},
		} {
			b.Run(tc.name, func(b *testing.B) {
				ctx := context.Background()
				var n int
				for b.Loop() {
					got, err := fsys.Candidates(ctx, names, []string{tc.lit}, tc.fold)
					if err != nil {
						b.Fatal(err)
					}
					n = len(got)
				}
				b.ReportMetric(float64(n), "candidates")
				b.ReportMetric(float64(len(names)), "pages")
			})
		}
	})
}
