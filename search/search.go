// Package search answers a query over a chromafs filesystem with the
// pages that match it and the places in them: paths and exact line
// ranges, best first, one hit a page, as `chromafs search`, the shell's
// search command and the MCP search tool print them.
//
// Three rankings, all within the session's view (access control is the
// query's filter or the walk of the view, never a filter of an answer):
//
//   - Vectors: the query is embedded with an [Embedder] (built by the
//     caller from the collection's configuration; this package links no
//     embedding model and no Chroma client) and the filesystem's store
//     gives the nearest chunks among the visible pages (fscap.QueryFS,
//     which chromafs.FS implements).
//   - Lexical: BM25F over the fields of a docs page (path, title,
//     description, headings, body) with Snowball stemming, stop words and
//     identifiers kept whole and by parts, with grep's coarse filter
//     (fscap.CandidatesFS) to skip the pages that hold none of the
//     query's terms. It needs no model and works over any fs.FS.
//   - Hybrid, the default: both, fused by weighted reciprocal rank fusion
//     (see RRFK and VectorWeight).
//     It needs what Vectors needs; callers fall back to Lexical when that
//     is missing (ErrNoEmbedder, ErrNotSearchable) and say so.
//
// Each gives [Hit]s: a page, its best 1-based inclusive line range, a
// score and the text of those lines, and the page's other ranges. Chunks
// of one page whose ranges overlap or touch are merged into one range.
package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/chromafs/chromafs/fscap"
)

// DefaultK is the number of chunks (vectors) or pages (lexical, hybrid)
// a search asks for when Options.K is 0.
const DefaultK = 10

// MaxK bounds Options.K.
const MaxK = 1000

// ErrNoWords is wrapped by the error of a lexical search whose query has
// no words.
var ErrNoWords = errors.New("the query has no words")

// ErrNoEmbedder is wrapped by the error of a semantic search that has no
// usable embedding function: an Engine without an Embedder, or a
// [Searcher] that cannot build one for the collection (none recorded, an
// unknown one, a missing API key). Retrying does not help; a lexical
// search can answer instead.
var ErrNoEmbedder = errors.New("no usable embedding function")

// ErrNotSearchable is wrapped by the error of a semantic search over a
// filesystem that does not implement fscap.QueryFS (chromafs.FS and its
// Sub views do), or whose store cannot rank chunks by vector (Query's
// error matches errors.ErrUnsupported, as chromafs.ErrNoVectorQuery
// does). Retrying does not help; a lexical search can answer instead.
var ErrNotSearchable = errors.New("filesystem has no vector search")

// Embedder embeds a query as a vector of the collection's embedding space.
type Embedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Hit is one place that matches a query.
type Hit struct {
	// Path is the page's name in the searched filesystem (fs.ValidPath
	// form, without a leading slash).
	Path string
	// Start and End are the first and last lines of the hit, 1-based and
	// inclusive, as sed -n START,ENDp prints them.
	Start, End int
	// Score ranks hits, higher first. Vectors: the cosine similarity of
	// the query and the best chunk of the hit (for normalised embeddings;
	// see Engine.Space). Lexical: the page's BM25F score. Hybrid: the
	// fused score, 1 for a page first in both rankings (see RRFK).
	Score float64
	// Text is the hit's text: the texts of its chunks in page order
	// (semantic; see Gap), or its lines (lexical).
	Text string
	// More are the page's other ranges, best first, none overlapping
	// another: the page's other merged chunks (vectors), up to two more
	// windows (lexical), up to two of either (hybrid). A page has one
	// Hit.
	More []Range
}

// Range is one more place in a Hit's page: its lines (as Hit's Start
// and End), its score where its ranking gives one (a chunk's
// similarity; 0 otherwise) and its text.
type Range struct {
	Start, End int
	Score      float64
	Text       string
}

// Options are a search's parameters.
type Options struct {
	// K is how many chunks (Vectors) or pages (Lexical, hybrid) to rank;
	// 0 means DefaultK. Grouping chunks by page can leave fewer hits.
	K int
	// Path restricts the search to the pages at or below a directory (or
	// to one page) of the filesystem: "" or "." for all. It is part of the
	// query's filter.
	Path string
	// Lexical ranks by the query's words alone (BM25F), Vectors by the
	// embeddings alone; neither fuses the two rankings (hybrid, which
	// needs an Embedder and a QueryFS, like Vectors). At most one may be
	// set.
	Lexical, Vectors bool
}

// Engine runs searches. Its zero value runs lexical searches only.
type Engine struct {
	// Embedder embeds queries for semantic search; nil makes a semantic
	// search an error wrapping ErrNoEmbedder.
	Embedder Embedder
	// Space is the distance space of the collection's index ("l2",
	// Chroma's default, "cosine" or "ip"), by which a distance becomes a
	// score: 1-d/2 for l2 (Chroma's squared distance between unit
	// vectors), 1-d otherwise.
	Space string
}

// Search runs query over fsys with opt. Errors name what is wrong: an
// invalid K or Path, a query without words (lexical), a missing embedder
// (ErrNoEmbedder) or a filesystem that cannot rank by vector
// (ErrNotSearchable), and the embedder's and the store's errors. They
// name no option of a program: each program says what its user can do.
func (e *Engine) Search(ctx context.Context, fsys fs.FS, query string, opt Options) ([]Hit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, errors.New("search: empty query")
	}
	k := opt.K
	switch {
	case k == 0:
		k = DefaultK
	case k < 0 || k > MaxK:
		return nil, fmt.Errorf("search: -n %d: want 1 to %d results", k, MaxK)
	}
	dir := strings.Trim(path.Clean("/"+opt.Path), "/")
	if dir == "" {
		dir = "."
	}
	switch {
	case opt.Lexical && opt.Vectors:
		return nil, errors.New("search: lexical and vectors: ask for one ranking, or neither for both fused")
	case opt.Lexical:
		return lexical(ctx, fsys, dir, query, k)
	case opt.Vectors:
		return e.semantic(ctx, fsys, dir, query, k)
	}
	return e.hybrid(ctx, fsys, dir, query, k)
}

// RRFK is the constant k of reciprocal rank fusion: a page's fused score
// is the sum, over the rankings it is in, of the ranking's weight times
// 1/(RRFK+rank), rank counted from 1; the lexical ranking weighs 1, the
// vector one VectorWeight. Chroma's own search API uses k = 60 and equal
// weights; with the n-gram embedding those let the weak vector ranking
// push the lexical one's best pages down (a smaller k makes the first
// ranks count more). Both were chosen on the odd-numbered questions of
// the quality set and checked on the others (BENCHMARKS.md, "Search
// quality").
const RRFK = 5

// VectorWeight is the weight of the vector ranking in the fusion (see
// RRFK), the lexical one's being 1.
const VectorWeight = 0.2

// hybrid fuses the vector ranking of pages (each page at the rank of its
// best chunk among the best 5k chunks; its first 2k pages) and the
// lexical one (its first k pages) by weighted reciprocal rank fusion (see
// RRFK), both within the session's view, and keeps the k best pages. A
// hit's Score is the fused score scaled so that a page first in both
// rankings has 1 (first in the lexical one only: 1/(1+VectorWeight));
// its ranges are the vector side's, then the lexical side's, overlapping
// ones left out, at most maxRanges.
func (e *Engine) hybrid(ctx context.Context, fsys fs.FS, dir, query string, k int) ([]Hit, error) {
	vec, err := e.semantic(ctx, fsys, dir, query, min(5*k, MaxK))
	if err != nil {
		return nil, err
	}
	vec = vec[:min(2*k, len(vec))]
	lex, err := lexical(ctx, fsys, dir, query, k)
	if err != nil && !errors.Is(err, ErrNoWords) {
		return nil, err
	}
	type fused struct {
		score    float64
		vec, lex *Hit
	}
	byPage := map[string]*fused{}
	add := func(hits []Hit, weight float64, side func(*fused, *Hit)) {
		for i := range hits {
			f := byPage[hits[i].Path]
			if f == nil {
				f = &fused{}
				byPage[hits[i].Path] = f
			}
			f.score += weight / float64(RRFK+i+1)
			side(f, &hits[i])
		}
	}
	add(lex, 1, func(f *fused, h *Hit) { f.lex = h })
	add(vec, VectorWeight, func(f *fused, h *Hit) { f.vec = h })
	out := make([]Hit, 0, len(byPage))
	for name, f := range byPage {
		var rs []Range
		for _, h := range []*Hit{f.vec, f.lex} {
			if h == nil {
				continue
			}
			rs = append(rs, Range{Start: h.Start, End: h.End, Text: h.Text})
			rs = append(rs, h.More...)
		}
		var keep []Range
		for _, r := range rs {
			if len(keep) < maxRanges && !slices.ContainsFunc(keep, func(o Range) bool { return r.Start <= o.End && o.Start <= r.End }) {
				r.Score = 0
				keep = append(keep, r)
			}
		}
		h := Hit{Path: name, Start: keep[0].Start, End: keep[0].End, Text: keep[0].Text, Score: f.score * (RRFK + 1) / (1 + VectorWeight)}
		if len(keep) > 1 {
			h.More = keep[1:]
		}
		out = append(out, h)
	}
	slices.SortFunc(out, byScore)
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

func (e *Engine) semantic(ctx context.Context, fsys fs.FS, dir, query string, k int) ([]Hit, error) {
	qfs, ok := fsys.(fscap.QueryFS)
	if !ok {
		return nil, fmt.Errorf("search: %w", ErrNotSearchable)
	}
	if _, err := fs.Stat(fsys, dir); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if e.Embedder == nil {
		return nil, fmt.Errorf("search: %w", ErrNoEmbedder)
	}
	vec, err := e.Embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("search: embed the query: %w", err)
	}
	found, err := qfs.Query(ctx, dir, vec, k)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil, fmt.Errorf("search: %w: %w", ErrNotSearchable, err)
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits := make([]part, len(found))
	for i, h := range found {
		hits[i] = part{Hit: Hit{Path: h.Name, Start: h.Start, End: h.End, Score: e.score(h.Distance), Text: h.Text}, index: h.Index}
	}
	return group(merge(hits)), nil
}

// group makes one Hit a page of hits sorted best first: the page's best
// hit, with its others in More, best first.
func group(hits []Hit) []Hit {
	at := map[string]int{}
	var out []Hit
	for _, h := range hits {
		if i, ok := at[h.Path]; ok {
			out[i].More = append(out[i].More, Range{Start: h.Start, End: h.End, Score: h.Score, Text: h.Text})
			continue
		}
		at[h.Path] = len(out)
		out = append(out, h)
	}
	return out
}

// score converts a distance of e.Space into a similarity.
func (e *Engine) score(d float64) float64 {
	if e.Space == "" || e.Space == "l2" {
		return 1 - d/2
	}
	return 1 - d
}

// Gap is the line that stands, in a merged hit's text, for the chunks
// between two of its chunks that did not match (they lie on the lines of
// the hit, but their text is not in the answer): the two matched chunks
// cover touching lines, as happens where a long line was cut into
// several chunks.
const Gap = "…\n"

// part is a hit before merging: index orders chunks of one page.
type part struct {
	Hit
	index int
}

// merge joins the hits of one page whose line ranges overlap or touch:
// the merged hit covers both ranges, has the better score and the texts
// in page order. The result is sorted by score, best first (then by path
// and line).
func merge(parts []part) []Hit {
	byPage := map[string][]part{}
	var order []string
	for _, p := range parts {
		if _, ok := byPage[p.Path]; !ok {
			order = append(order, p.Path)
		}
		byPage[p.Path] = append(byPage[p.Path], p)
	}
	var out []Hit
	for _, name := range order {
		ps := byPage[name]
		slices.SortFunc(ps, func(a, b part) int {
			if a.Start != b.Start {
				return a.Start - b.Start
			}
			return a.index - b.index
		})
		// Runs of parts whose ranges overlap or touch become one hit,
		// whose text is built once (appending part by part would copy
		// it again for every part).
		for i := 0; i < len(ps); {
			cur := ps[i].Hit
			j := i + 1
			for j < len(ps) && ps[j].Start <= cur.End+1 {
				cur.End = max(cur.End, ps[j].End)
				cur.Score = max(cur.Score, ps[j].Score)
				j++
			}
			if j > i+1 {
				var b strings.Builder
				n := 0
				for _, p := range ps[i:j] {
					n += len(p.Text) + len(Gap) + 1
				}
				b.Grow(n)
				b.WriteString(ps[i].Text)
				for m := i + 1; m < j; m++ {
					if ps[m].index != ps[m-1].index+1 {
						// Chunks between them are not part of the hit.
						if !strings.HasSuffix(ps[m-1].Text, "\n") {
							b.WriteByte('\n')
						}
						b.WriteString(Gap)
					}
					b.WriteString(ps[m].Text)
				}
				cur.Text = b.String()
			}
			out = append(out, cur)
			i = j
		}
	}
	slices.SortStableFunc(out, func(a, b Hit) int {
		if c := byScore(a, b); c != 0 {
			return c
		}
		return a.Start - b.Start
	})
	return out
}

// byScore orders hits best first, and hits of equal score by path, so
// that results do not depend on the order pages were read in.
func byScore(a, b Hit) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(a.Path, b.Path)
}
