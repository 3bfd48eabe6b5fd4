package search

// This file keeps, for BenchmarkLexical only, the lexical ranking as it
// was before BM25F (BM25 over the words of whole pages, one range a page),
// so that the benchmark compares the two in one run.

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/chromafs/chromafs/fscap"
)

// BM25's parameters, the usual ones.
const (
	beforeK1 = 1.2
	beforeB  = 0.75
)

// beforeWindow is the most lines a lexical hit spans.
const beforeWindow = 10

// wordsBefore cuts text into lower-case words: runs of letters and digits.
func wordsBefore(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// lexicalBefore ranks the pages at or below dir by BM25 over the words of
// query: N is the number of those pages, a term's document frequency the
// number of them that hold it as a word, a page's length its number of
// words, the average length that of the pages that hold a term (the
// others are never read). The coarse filter (Candidates, case-insensitive)
// leaves out the pages that contain none of the words; lazy pointers are
// not searched (reading them fetches them from elsewhere). Each page's
// hit is its beforeWindow of at most 10 lines holding the most of the query's
// weight (the sum of the idf of the distinct terms it holds), trimmed to
// the lines with a term.
func lexicalBefore(ctx context.Context, fsys fs.FS, dir, query string, k int) ([]Hit, error) {
	terms := wordsBefore(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	if len(terms) == 0 {
		return nil, fmt.Errorf("search: %w (a word is a run of letters and digits)", ErrNoWords)
	}
	var names []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !fscap.IsLazy(fsys, p) {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(names) == 0 {
		return nil, nil
	}
	cands, err := fscap.Candidates(ctx, fsys, names, terms, true)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(cands) > 1 {
		if err := fscap.Prefetch(ctx, fsys, cands); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	isTerm := make(map[string]int, len(terms))
	for i, t := range terms {
		isTerm[t] = i
	}
	type page struct {
		name  string
		lines []string
		tf    []int   // per term
		line  [][]int // per line, the terms it holds
		words int
	}
	var pages []page
	df := make([]int, len(terms))
	totalWords := 0
	for _, name := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := fscap.ReadFileShared(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		p := page{name: name, tf: make([]int, len(terms))}
		p.lines = strings.SplitAfter(string(data), "\n")
		if n := len(p.lines); n > 1 && p.lines[n-1] == "" {
			p.lines = p.lines[:n-1]
		}
		p.line = make([][]int, len(p.lines))
		for i, l := range p.lines {
			for _, w := range wordsBefore(l) {
				p.words++
				if t, ok := isTerm[w]; ok {
					p.tf[t]++
					if !slices.Contains(p.line[i], t) {
						p.line[i] = append(p.line[i], t)
					}
				}
			}
		}
		if !slices.ContainsFunc(p.tf, func(n int) bool { return n > 0 }) {
			continue // the coarse filter's substring, not a word
		}
		for t, n := range p.tf {
			if n > 0 {
				df[t]++
			}
		}
		totalWords += p.words
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		return nil, nil
	}
	n := float64(len(names))
	idf := make([]float64, len(terms))
	for t := range terms {
		idf[t] = math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
	}
	avg := float64(totalWords) / float64(len(pages))
	hits := make([]Hit, 0, len(pages))
	for _, p := range pages {
		score := 0.0
		for t, f := range p.tf {
			if f == 0 {
				continue
			}
			tf := float64(f)
			score += idf[t] * tf * (beforeK1 + 1) / (tf + beforeK1*(1-beforeB+beforeB*float64(p.words)/max(avg, 1)))
		}
		start, end := bestWindowBefore(p.line, idf)
		hits = append(hits, Hit{
			Path:  p.name,
			Start: start + 1,
			End:   end + 1,
			Score: score,
			Text:  strings.Join(p.lines[start:end+1], ""),
		})
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// bestWindowBefore returns the 0-based first and last line of the beforeWindow of at
// most `beforeWindow` lines whose distinct terms weigh most (the earliest of
// equals), trimmed to lines that hold a term.
func bestWindowBefore(lines [][]int, idf []float64) (start, end int) {
	best := -1.0
	for i := range lines {
		if len(lines[i]) == 0 {
			continue
		}
		seen := make([]bool, len(idf))
		w, last := 0.0, i
		for j := i; j < len(lines) && j < i+beforeWindow; j++ {
			for _, t := range lines[j] {
				if !seen[t] {
					seen[t] = true
					w += idf[t]
				}
				last = j
			}
		}
		if w > best {
			best, start, end = w, i, last
		}
	}
	return start, end
}
