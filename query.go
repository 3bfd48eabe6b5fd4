package chromafs

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/tree"
)

// ErrNoVectorQuery is wrapped by the error of Query on a store that does
// not implement collection.VectorQuerier (package memstore, for one). It
// matches errors.ErrUnsupported, as fscap.QueryFS asks of such an error,
// so that package search tells it without importing this package.
var ErrNoVectorQuery error = &unsupportedError{"store cannot rank chunks by vector"}

// unsupportedError is an error that matches errors.ErrUnsupported.
type unsupportedError struct{ s string }

func (e *unsupportedError) Error() string { return e.s }

// Is reports whether target is errors.ErrUnsupported.
func (e *unsupportedError) Is(target error) bool { return target == errors.ErrUnsupported }

// QueryHit is a chunk that Query ranked, placed in its page: Name is the
// page's name in the view Query was called on. It is fscap.QueryHit, so
// that package search ranks chunks through fscap.QueryFS without
// importing this package.
type QueryHit = fscap.QueryHit

// Query returns at most k chunks of the visible pages at or below dir
// (a directory or a page of fsys; "." for all), nearest to vector first;
// pages the tree gives size 0 and lazy pointers take no part:
// the vector query of semantic search. The query's filter is the set of
// those pages (sent as the pages to leave out when that list is shorter,
// as Candidates does), so that pages hidden from this view never take
// part, not in the results nor in how many there are; no larger answer is
// filtered afterwards. Records of pages outside the tree (orphans) that
// an excluding filter lets through are dropped, so fewer than k chunks
// may come back. When no visible page is in scope no request is sent and
// the result is empty. The filter of a directory is made at its first
// query and kept by the session, whose view does not change. The store must implement
// collection.VectorQuerier (else the error wraps ErrNoVectorQuery).
//
// The chunks of pages of an adopted collection (tree entries with parts,
// whose chunks carry no slug) are ranked by id (collection.Scope.IDs):
// the ids of the visible pages in scope, so that hidden pages take no
// part there either; such a hit's Index is the chunk's place in its page,
// and its lines are those where its text lies, by the page's parts.
//
// Each hit's lines come from the chunk's collection.LineKey metadata when
// it has one (chromafs ingest writes it) and the separator is empty;
// otherwise the page is read (through the cache, as ReadFile does) and
// the chunk found in it, which gives the same lines. Reading a page
// whose chunk text occurs more than once in it also fetches its chunks,
// to tell which occurrence the chunk is.
func (fsys *FS) Query(ctx context.Context, dir string, vector []float32, k int) ([]QueryHit, error) {
	s := fsys.s
	root, err := fsys.lookup("query", dir)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	qs := s.queryScope(root)
	if qs.pages == 0 {
		return nil, nil
	}
	querier, ok := s.store.(collection.VectorQuerier)
	if !ok {
		return nil, fmt.Errorf("chromafs: query: %w", ErrNoVectorQuery)
	}
	var found []collection.ScoredChunk
	s.fg.enter()
	if qs.own > 0 {
		found, err = querier.QueryVector(ctx, s.layout, qs.scope, vector, k)
	}
	if err == nil && len(qs.ids) > 0 {
		// Pages of an adopted collection: their chunks by id.
		var more []collection.ScoredChunk
		more, err = querier.QueryVector(ctx, s.layout, collection.Scope{IDs: qs.ids}, vector, k)
		found = nearest(append(found, more...), k)
	}
	s.fg.leave()
	if err != nil {
		return nil, err
	}
	hits := make([]QueryHit, 0, len(found))
	for _, c := range found {
		if ref, ok := qs.adopted[c.ID]; ok {
			hit, err := fsys.adoptedHit(ctx, ref, c)
			if err != nil {
				return nil, err
			}
			hits = append(hits, hit)
			continue
		}
		n, ok := s.view.Lookup(c.Slug)
		if !ok || !qs.holds(n) {
			continue // an orphan, or a page outside the view's scope
		}
		start := c.Line
		if start <= 0 || s.sep != "" {
			if start, err = fsys.chunkLine(ctx, n, c.Chunk); err != nil {
				return nil, err
			}
		}
		hits = append(hits, QueryHit{
			Name:     fsys.rel(n.Path),
			Index:    c.Index,
			Text:     c.Text,
			Distance: c.Distance,
			Start:    start,
			End:      start + strings.Count(strings.TrimSuffix(c.Text, "\n"), "\n"),
		})
	}
	return hits, nil
}

// nearest sorts chunks nearest first (ties by id) and keeps k.
func nearest(all []collection.ScoredChunk, k int) []collection.ScoredChunk {
	slices.SortStableFunc(all, func(a, b collection.ScoredChunk) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), strings.Compare(a.ID, b.ID))
	})
	return all[:min(len(all), k)]
}

// adoptedRef places a chunk of an adopted page: the page and the chunk's
// part in its recipe.
type adoptedRef struct {
	n      *tree.Node
	recipe *collection.Recipe
	part   int
}

// adoptedHit places a chunk of an adopted page that Query ranked: its
// lines are those of its text at the offset the page's recipe gives.
func (fsys *FS) adoptedHit(ctx context.Context, ref adoptedRef, c collection.ScoredChunk) (QueryHit, error) {
	data, err := fsys.s.pages.Load(ctx, ref.n)
	if err != nil {
		return QueryHit{}, &fs.PathError{Op: "query", Path: fsys.rel(ref.n.Path), Err: err}
	}
	off := min(max(ref.recipe.Offset(ref.part), 0), len(data))
	start := 1 + bytes.Count(data[:off], []byte("\n"))
	return QueryHit{
		Name:     fsys.rel(ref.n.Path),
		Index:    ref.part,
		Text:     c.Text,
		Distance: c.Distance,
		Start:    start,
		End:      start + strings.Count(strings.TrimSuffix(c.Text, "\n"), "\n"),
	}, nil
}

// searchable reports whether page n takes part in vector queries. Lazy
// pointers have no chunks in the collection, and an empty page (size 0 in
// the tree) has nothing to find: its one chunk, an empty document that
// writers store with a zero vector (as chromastore does), would sit at
// the same distance from every query and rank above real but weak
// matches.
func searchable(n *tree.Node) bool { return !n.IsDir && n.Entry.URL == "" && n.Entry.Size != 0 }

// queryScope is the filter of Query for one directory (or page) of a
// session's view: the view never changes, so it is computed once.
type queryScope struct {
	root  string // the directory or page, a path of the whole collection
	dir   bool   // root is a directory
	pages int    // the searchable pages in scope
	own   int    // of which in chromafs's layout, found by slug
	scope collection.Scope
	// The chunks of the adopted pages in scope (tree entries with
	// parts), by id.
	ids     []string
	adopted map[string]adoptedRef
}

// holds reports whether page n (a node of the view) is in the scope.
func (q *queryScope) holds(n *tree.Node) bool {
	if !searchable(n) {
		return false
	}
	if !q.dir {
		return n.Path == q.root
	}
	return q.root == "." || strings.HasPrefix(n.Path, q.root) && len(n.Path) > len(q.root) && n.Path[len(q.root)] == '/'
}

// maxQueryScopes bounds the query scopes a session keeps.
const maxQueryScopes = 64

// queryScope returns the query filter of root, a node of the view,
// computing it at the first query of the root.
func (s *session) queryScope(root *tree.Node) *queryScope {
	s.scopesMu.Lock()
	qs := s.scopes[root.Path]
	s.scopesMu.Unlock()
	if qs != nil {
		return qs
	}
	qs = &queryScope{root: root.Path, dir: root.IsDir}
	var slugs []string
	add := func(n *tree.Node) {
		qs.pages++
		if n.Entry.Parts == "" {
			slugs = append(slugs, n.Path)
			return
		}
		r, err := collection.ParseRecipe(n.Entry.Parts)
		if err != nil {
			return // reading the page says why
		}
		if qs.adopted == nil {
			qs.adopted = map[string]adoptedRef{}
		}
		for i, id := range r.IDs() {
			qs.ids = append(qs.ids, id)
			qs.adopted[id] = adoptedRef{n, r, i}
		}
	}
	if !root.IsDir {
		if searchable(root) {
			add(root)
		}
	} else {
		s.view.Walk(func(n *tree.Node) bool {
			if qs.holds(n) {
				add(n)
			}
			return true
		})
	}
	qs.own = len(slugs)
	if len(slugs) > 0 {
		qs.scope = s.coarse.Scope(slugs)
	}
	s.scopesMu.Lock()
	if len(s.scopes) >= maxQueryScopes {
		clear(s.scopes)
	}
	if s.scopes == nil {
		s.scopes = map[string]*queryScope{}
	}
	s.scopes[root.Path] = qs
	s.scopesMu.Unlock()
	return qs
}

// rel maps a path of the whole collection to a name of this view.
func (fsys *FS) rel(p string) string {
	if fsys.prefix == "" {
		return p
	}
	if p == fsys.prefix {
		return "."
	}
	return strings.TrimPrefix(p, fsys.prefix+"/")
}

// chunkLine returns the 1-based page line on which chunk c of page n
// starts, from the page's content.
func (fsys *FS) chunkLine(ctx context.Context, n *tree.Node, c collection.Chunk) (int, error) {
	s := fsys.s
	data, err := s.pages.Load(ctx, n)
	if err != nil {
		return 0, &fs.PathError{Op: "query", Path: fsys.rel(n.Path), Err: err}
	}
	off := -1
	if c.Index == 0 {
		off = 0
	} else if first := bytes.Index(data, []byte(c.Text)); first >= 0 && c.Text != "" &&
		!bytes.Contains(data[first+1:], []byte(c.Text)) {
		off = first // the only place the chunk can be
	}
	if off < 0 {
		// The text occurs more than once (or nowhere, if the page changed
		// under us): the chunks before it tell where it starts.
		s.fg.enter()
		chunks, err := s.pages.Fetch(ctx, []*tree.Node{n})
		s.fg.leave()
		if err != nil {
			return 0, &fs.PathError{Op: "query", Path: fsys.rel(n.Path), Err: err}
		}
		cs := slices.Clone(chunks[n.Path])
		slices.SortFunc(cs, func(a, b collection.Chunk) int { return a.Index - b.Index })
		off = 0
		for _, o := range cs {
			if o.Index >= c.Index {
				break
			}
			off += len(o.Text) + len(s.sep)
		}
		off = min(off, len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n")), nil
}
