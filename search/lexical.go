package search

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/chromafs/chromafs/fscap"
)

// BM25F's parameters: k1, and each field's weight and length
// normalisation b. A page's words count in the field they stand in:
//
//	field        weight  b     what
//	path           3.0   0.3   the page's path: its directories and its name without the extension
//	title          4.0   0.3   frontmatter title:, else the page's first level-1 heading
//	description    2.0   0.3   frontmatter description:
//	headings       2.0   0.5   the other markdown headings (outside fenced code)
//	body           1.0   0.75  every other line, other frontmatter keys included
//
// so that a page whose path or title names the query's words ranks above
// one that mentions them in passing, as a reader means it.
const bm25K1 = 1.2

// stopWeight is the weight of a weak term (a stop word of a query with
// other words; see queryTerms) beside the others' 1: "who" in "who
// deleted our key" prefers the page that says who did what, but a page
// is never found by its stop words alone. Chosen on the odd-numbered
// questions of the quality set (0.3 of 0.1 to 0.5; see BENCHMARKS.md).
const stopWeight = 0.3

type field int

const (
	fieldPath field = iota
	fieldTitle
	fieldDesc
	fieldHead
	fieldBody
	numFields
)

var (
	fieldWeight = [numFields]float64{3, 4, 2, 2, 1}
	fieldB      = [numFields]float64{0.3, 0.3, 0.3, 0.5, 0.75}
)

// window is the most lines a lexical range spans; maxRanges the most
// ranges a page's hit lists (its best and the next best that do not
// overlap it).
const (
	window    = 10
	maxRanges = 3
)

// lexical ranks the pages at or below dir by BM25F over the terms of
// query (see terms.go and the fields above): N is the number of those
// pages, a term's document frequency the number of them that hold it in
// any field, a field's length its number of terms, the average length
// that of the pages that hold a query term (the others are never read).
// A page is found by a term that is not weak: the coarse filter
// (Candidates, case-insensitive, with those terms' literals: see
// literals) leaves out the pages that contain none of them, unless the
// page's path holds one; lazy pointers are not searched (reading them
// fetches them from elsewhere). A weak term adds stopWeight times its
// BM25F part to the pages found, its document frequency counted among
// them. Each page's hit is its window of at most 10 lines holding the
// most of the query's weight (the sum of the idf of the distinct terms
// that are not weak it holds), trimmed to the lines with such a term, and
// up to two more such windows that do not overlap it, as More; a page
// found by its path or title alone has its first lines.
func lexical(ctx context.Context, fsys fs.FS, dir, query string, k int) ([]Hit, error) {
	terms, weak := queryTerms(query)
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
	isTerm := make(map[string]int, len(terms))
	finds := map[string]int{} // the terms that find a page
	for i, t := range terms {
		isTerm[t] = i
		if !weak[i] {
			finds[t] = i
		}
	}
	an := newAnalyzer()
	// The path field of every page: pages whose path holds a term are
	// candidates whatever their content.
	var byPath, rest []string
	for _, name := range names {
		if pathHolds(an, name, finds) {
			byPath = append(byPath, name)
		} else {
			rest = append(rest, name)
		}
	}
	var lits []string
	for t := range finds {
		lits = append(lits, literals(t)...)
	}
	slices.Sort(lits)
	lits = slices.Compact(lits)
	cands, err := fscap.Candidates(ctx, fsys, rest, lits, true)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	cands = append(cands, byPath...)
	if len(cands) > 1 {
		if err := fscap.Prefetch(ctx, fsys, cands); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	var pages []*page
	df := make([]int, len(terms))
	var total [numFields]int
	for _, name := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := fscap.ReadFileShared(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		p := analyze(an, name, string(data), isTerm, weak)
		if p == nil {
			continue // the coarse filter's substring, not a term
		}
		for t := range terms {
			if p.has(t) {
				df[t]++
			}
		}
		for f := range numFields {
			total[f] += p.length[f]
		}
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
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(float64(total[f])/float64(len(pages)), 1)
	}
	hits := make([]Hit, 0, len(pages))
	for _, p := range pages {
		score := 0.0
		for t := range terms {
			tf := 0.0
			for f := range numFields {
				if c := p.tf[t*int(numFields)+int(f)]; c > 0 {
					norm := 1 - fieldB[f] + fieldB[f]*float64(p.length[f])/avg[f]
					tf += fieldWeight[f] * float64(c) / norm
				}
			}
			if tf > 0 {
				part := idf[t] * tf * (bm25K1 + 1) / (tf + bm25K1)
				if weak[t] {
					part *= stopWeight
				}
				score += part
			}
		}
		rs := bestWindows(p.line, idf, maxRanges)
		if len(rs) == 0 {
			// Found by its path or title alone: its first lines.
			rs = [][2]int{{0, min(len(p.lines), window) - 1}}
		}
		h := Hit{Path: p.name, Score: score}
		for i, r := range rs {
			text := strings.Join(p.lines[r[0]:r[1]+1], "")
			if i == 0 {
				h.Start, h.End, h.Text = r[0]+1, r[1]+1, text
				continue
			}
			h.More = append(h.More, Range{Start: r[0] + 1, End: r[1] + 1, Text: text})
		}
		hits = append(hits, h)
	}
	slices.SortStableFunc(hits, byScore)
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// page is one candidate page, analysed.
type page struct {
	name   string
	lines  []string
	tf     []int // term t, field f at t*numFields+f
	length [numFields]int
	line   [][]int // per line, the terms it holds
}

func (p *page) has(t int) bool {
	for f := range numFields {
		if p.tf[t*int(numFields)+int(f)] > 0 {
			return true
		}
	}
	return false
}

// pathHolds reports whether name's path field holds one of the terms.
func pathHolds(an *analyzer, name string, isTerm map[string]int) bool {
	found := false
	tokens(pathText(name), func(tok string) {
		for _, t := range an.terms(tok) {
			if _, ok := isTerm[t]; ok {
				found = true
			}
		}
	})
	return found
}

// pathText is the text of a page's path field: its path without the
// last element's extension.
func pathText(name string) string {
	return strings.TrimSuffix(name, path.Ext(name))
}

// analyze counts the query's terms in the fields of a page's content,
// and the terms that are not weak in its lines; nil if the page holds
// none of those.
func analyze(an *analyzer, name, content string, isTerm map[string]int, weak []bool) *page {
	p := &page{name: name, tf: make([]int, len(weak)*int(numFields))}
	if content != "" {
		p.lines = strings.SplitAfter(content, "\n")
		if n := len(p.lines); n > 1 && p.lines[n-1] == "" {
			p.lines = p.lines[:n-1]
		}
	}
	if len(p.lines) == 0 {
		return nil // an empty page has no line to show
	}
	p.line = make([][]int, len(p.lines))
	found := false
	count := func(text string, f field, line int) {
		tokens(text, func(tok string) {
			for _, t := range an.terms(tok) {
				p.length[f]++
				i, ok := isTerm[t]
				if !ok {
					continue
				}
				p.tf[i*int(numFields)+int(f)]++
				if weak[i] {
					continue
				}
				found = true
				if line >= 0 && !slices.Contains(p.line[line], i) {
					p.line[line] = append(p.line[line], i)
				}
			}
		})
	}
	count(pathText(name), fieldPath, -1)
	i := 0
	title := false
	if strings.TrimSpace(p.lines[0]) == "---" {
		for i = 1; i < len(p.lines); i++ {
			l := strings.TrimSpace(p.lines[i])
			if l == "---" || l == "..." {
				i++
				break
			}
			key, value, _ := strings.Cut(l, ":")
			switch strings.TrimSpace(key) {
			case "title":
				count(value, fieldTitle, i)
				title = true
			case "description":
				count(value, fieldDesc, i)
			default:
				count(l, fieldBody, i)
			}
		}
	}
	fence := ""
	for ; i < len(p.lines); i++ {
		l := p.lines[i]
		t := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			count(l, fieldBody, i)
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			count(l, fieldBody, i)
		case strings.HasPrefix(l, "#"):
			level := len(l) - len(strings.TrimLeft(l, "#"))
			if !title && level == 1 {
				count(l, fieldTitle, i)
				title = true
			} else {
				count(l, fieldHead, i)
			}
		default:
			count(l, fieldBody, i)
		}
	}
	if !found {
		return nil
	}
	return p
}

// bestWindows returns the 0-based first and last lines of up to n
// windows of at most `window` lines, best first: the window whose
// distinct terms weigh most (the earliest of equals), trimmed to lines
// that hold a term, then the best of those that do not overlap the ones
// chosen, and so on.
func bestWindows(lines [][]int, idf []float64, n int) [][2]int {
	used := make([]bool, len(lines))
	seen := make([]bool, len(idf))
	var out [][2]int
	for len(out) < n {
		best, start, end := 0.0, -1, -1
		for i := range lines {
			if len(lines[i]) == 0 || used[i] {
				continue
			}
			clear(seen)
			w, last := 0.0, i
			for j := i; j < len(lines) && j < i+window && !used[j]; j++ {
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
		if start < 0 {
			break
		}
		for j := start; j <= end; j++ {
			used[j] = true
		}
		out = append(out, [2]int{start, end})
	}
	return out
}
