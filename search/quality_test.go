package search_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/search"
)

// quality runs TestSearchQuality: `make bench-search-quality`, or
// go test -count=1 -run TestSearchQuality -v ./search -args -search.quality
var quality = flag.Bool("search.quality", false, "run the search quality benchmark (TestSearchQuality) against Chroma and python3's SQLite FTS5")

// The question set: pages of a docs site written for it, and questions
// a reader would ask, each with the pages that answer it.
const (
	qualityDocs      = "testdata/quality/docs"
	qualityQuestions = "testdata/quality/questions.json"
)

type question struct {
	Q     string   `json:"q"`
	Pages []string `json:"pages"`
}

func loadQuestions(t *testing.T) ([]question, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(qualityQuestions)
	if err != nil {
		t.Fatal(err)
	}
	var qs []question
	if err := json.Unmarshal(data, &qs); err != nil {
		t.Fatalf("%s: %v", qualityQuestions, err)
	}
	pages := map[string]string{}
	err = fs.WalkDir(os.DirFS(qualityDocs), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join(qualityDocs, filepath.FromSlash(p)))
		pages[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return qs, pages
}

// TestQualityQuestions checks the question set: at least 50 distinct
// questions, each with answering pages that exist, over at least 60
// pages.
func TestQualityQuestions(t *testing.T) {
	qs, pages := loadQuestions(t)
	if len(qs) < 50 || len(pages) < 60 {
		t.Errorf("%d questions over %d pages; want at least 50 over at least 60", len(qs), len(pages))
	}
	seen := map[string]bool{}
	for i, q := range qs {
		if strings.TrimSpace(q.Q) == "" || len(q.Pages) == 0 {
			t.Errorf("question %d %q: empty, or no answering page", i+1, q.Q)
		}
		if seen[q.Q] {
			t.Errorf("question %d %q: asked twice", i+1, q.Q)
		}
		seen[q.Q] = true
		for _, p := range q.Pages {
			if _, ok := pages[p]; !ok {
				t.Errorf("question %d %q: no page %s under %s", i+1, q.Q, p, qualityDocs)
			}
		}
	}
}

// scores are a ranking's recall@5 (the share of a question's answering
// pages in its first 5, averaged over the questions) and MRR@10 (1/rank
// of the first answering page within the first 10, 0 without one).
type scores struct{ recall5, mrr10 float64 }

func score(qs []question, ranked [][]string) scores {
	var s scores
	for i, q := range qs {
		r := ranked[i]
		n := 0
		for _, p := range r[:min(5, len(r))] {
			if slices.Contains(q.Pages, p) {
				n++
			}
		}
		s.recall5 += float64(n) / float64(len(q.Pages))
		for j, p := range r[:min(10, len(r))] {
			if slices.Contains(q.Pages, p) {
				s.mrr10 += 1 / float64(j+1)
				break
			}
		}
	}
	s.recall5 /= float64(len(qs))
	s.mrr10 /= float64(len(qs))
	return s
}

// TestSearchQuality ingests the question set's docs into Chroma with the
// n-gram embedding function (chunks of ingest's default size), asks every
// question of the lexical, vector and hybrid rankings (10 pages each; the
// vector ranking's pages are those of its best 50 chunks, in order) and of
// SQLite FTS5's bm25 (scripts/fts5_rank.py: FTS5's default tokenizer, its
// Porter stemmer, and the stemmer with the path indexed too), and logs recall@5 and MRR@10 of each
// over the odd-numbered questions, the even-numbered ones and all, and
// the questions lexical and hybrid miss in their first 5. It asserts nothing about the
// numbers: it measures them.
func TestSearchQuality(t *testing.T) {
	if !*quality {
		t.Skip("the search quality benchmark runs with -search.quality (make bench-search-quality)")
	}
	qs, pages := loadQuestions(t)
	ctx := context.Background()
	store := testbackend.OpenChroma(t, chromastore.Config{
		URL:       testenv.Chroma(t).URL,
		Embedding: chromastore.NgramEmbedding(0),
	})
	if _, err := ingest.Run(ctx, store, os.DirFS(qualityDocs), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	eng := engine(t, store)
	fsys := newFS(t, store)
	rankings := map[string][][]string{}
	for _, q := range qs {
		for _, m := range []struct {
			name string
			opt  search.Options
		}{
			{"lexical", search.Options{Lexical: true, K: 10}},
			{"vectors", search.Options{Vectors: true, K: 50}},
			{"hybrid", search.Options{K: 10}},
		} {
			hits, err := eng.Search(ctx, fsys, q.Q, m.opt)
			if err != nil {
				t.Fatalf("%s %q: %v", m.name, q.Q, err)
			}
			var r []string
			for _, h := range hits {
				r = append(r, h.Path)
			}
			rankings[m.name] = append(rankings[m.name], r[:min(10, len(r))])
		}
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", filepath.Join(root, "scripts", "fts5_rank.py"), qualityDocs, qualityQuestions, "10").Output()
	if err != nil {
		t.Fatalf("scripts/fts5_rank.py (python3 with sqlite3's FTS5): %v", err)
	}
	var fts map[string][][]string
	if err := json.Unmarshal(out, &fts); err != nil {
		t.Fatalf("scripts/fts5_rank.py: %v", err)
	}
	for tok, r := range fts {
		if len(r) != len(qs) {
			t.Fatalf("scripts/fts5_rank.py: %d rankings for %s, want %d", len(r), tok, len(qs))
		}
		rankings["fts5 bm25 ("+tok+")"] = r
	}
	// The halves: the parameters of stopWeight and of the fusion (RRFK,
	// VectorWeight) were chosen on the odd-numbered questions (1, 3, ...)
	// and are checked on the even-numbered ones.
	half := func(qs []question, r [][]string, odd bool) ([]question, [][]string) {
		var hq []question
		var hr [][]string
		for i := range qs {
			if (i%2 == 0) == odd {
				hq, hr = append(hq, qs[i]), append(hr, r[i])
			}
		}
		return hq, hr
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d questions over %d pages (recall@5 / MRR@10)\n| ranking | odd-numbered (%d, chosen on) | even-numbered (%d, held out) | all |\n| --- | --- | --- | --- |\n",
		len(qs), len(pages), (len(qs)+1)/2, len(qs)/2)
	for _, name := range []string{"fts5 bm25 (unicode61)", "fts5 bm25 (porter)", "fts5 bm25 (porter+path)", "lexical", "vectors", "hybrid"} {
		odd, even, all := score(half(qs, rankings[name], true)), score(half(qs, rankings[name], false)), score(qs, rankings[name])
		fmt.Fprintf(&b, "| %s | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f |\n", name, odd.recall5, odd.mrr10, even.recall5, even.mrr10, all.recall5, all.mrr10)
	}
	for i, q := range qs {
		if r := rankings["lexical"][i]; !slices.ContainsFunc(r[:min(5, len(r))], func(p string) bool { return slices.Contains(q.Pages, p) }) {
			fmt.Fprintf(&b, "lexical misses in its first 5: %q (answer %v; got %v)\n", q.Q, q.Pages, r[:min(5, len(r))])
		}
	}
	for i, q := range qs {
		if r := rankings["hybrid"][i]; !slices.ContainsFunc(r[:min(5, len(r))], func(p string) bool { return slices.Contains(q.Pages, p) }) {
			fmt.Fprintf(&b, "hybrid misses in its first 5: %q (answer %v; got %v)\n", q.Q, q.Pages, r[:min(5, len(r))])
		}
	}
	t.Log("\n" + b.String())
}
