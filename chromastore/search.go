package chromastore

import (
	"context"
	"fmt"

	"github.com/chromafs/chromafs/collection"
)

// SearchMaxIn is the most slugs one $in list of [Collection.Search]
// carries. It is much larger than MaxIn because every get with a document
// filter costs Chroma about one pass over the collection, whatever the
// number of slugs, so a search costs about as many passes as it has batches
// (BENCHMARKS.md, "grep"). It stays at half the 32,762 values Chroma 1.0
// accepts, and a request (about 50 bytes a slug) far below its 40 MiB body
// limit.
const SearchMaxIn = 16384

// SearchPageSize is the most records one page of a [Collection.Search]
// answer holds. Like the $in batches, every page costs Chroma about one
// pass over the collection, so a search whose literal is common (tens of
// thousands of matching chunks) must not be cut into pages of PageSize,
// which would make it many passes (BENCHMARKS.md, "grep").
// An answer carries ids and metadata only, about 100 bytes a record.
const SearchPageSize = 50_000

// searchPageSize is SearchPageSize, smaller in tests of paging.
var searchPageSize = SearchPageSize

// whereDocument converts f into a where_document filter: one $contains or
// $regex condition, or the $or of several. It returns nil for a zero f.
func whereDocument(f collection.TextFilter) map[string]any {
	var conds []map[string]any
	for _, s := range f.Contains {
		conds = append(conds, map[string]any{"$contains": s})
	}
	for _, re := range f.Regexes {
		conds = append(conds, map[string]any{"$regex": re})
	}
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return conds[0]
	}
	return map[string]any{"$or": conds}
}

// Search returns the id, slug and index (no text) of every record in
// scope whose document matches f, with a get whose where_document is f's
// $contains and $regex conditions (joined by $or when there are several)
// and whose include list asks for metadatas only. An including scope is
// sent as $in batches of at most SearchMaxIn slugs, up to four requests
// at a time; an excluding scope as one $nin list (an error if it holds
// more than SearchMaxIn slugs), or no where filter when it is empty.
// Answers are paged by SearchPageSize records. Records without the slug
// field, and records outside the scope, are dropped from the answers,
// except with scope.IDsOnly, which asks for ids alone (the include list
// is empty) and returns them all, with empty slugs.
// With scope.IDs, it searches those records (see searchIDs).
// Chroma's regex syntax is Rust's regex crate's; see
// [collection.TextFilter] for the subset that both it and Go's regexp read
// the same way.
func (c *Collection) Search(ctx context.Context, layout collection.Layout, scope collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	if len(scope.IDs) > 0 {
		return c.searchIDs(ctx, scope.IDs, whereDocument(f))
	}
	layout = layout.WithDefaults()
	slugs, listed := unique(scope.Slugs)
	var parts [][]string
	var op string
	switch {
	case !scope.Exclude && len(slugs) == 0:
		return nil, nil
	case !scope.Exclude:
		op = fmt.Sprintf("search %s of %s", pagesOf(len(slugs)), c.where)
		parts = batches(slugs, c.searchMaxIn())
	case len(slugs) > c.searchMaxIn():
		return nil, fmt.Errorf("chromastore: search all pages but %d of %s: more than %d pages to leave out", len(slugs), c.where, c.searchMaxIn())
	default:
		op = fmt.Sprintf("search all pages but %d of %s", len(slugs), c.where)
		parts = [][]string{slugs}
	}
	inScope := func(slug string) bool { return listed[slug] != scope.Exclude }
	wd := whereDocument(f)
	found := make([][]collection.Chunk, len(parts))
	err := parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		req := getRequest{WhereDocument: wd, Include: []string{includeMetadatas}}
		if scope.IDsOnly {
			req.Include = []string{}
		}
		switch {
		case !scope.Exclude:
			req.Where = map[string]any{layout.SlugField: map[string]any{"$in": parts[i]}}
		case len(parts[i]) > 0:
			req.Where = map[string]any{layout.SlugField: map[string]any{"$nin": parts[i]}}
		}
		return c.pages(ctx, req, c.searchPage(), func(res *getResult) error {
			for j, id := range res.IDs {
				if scope.IDsOnly {
					found[i] = append(found[i], collection.Chunk{ID: id, Index: collection.NoIndex})
					continue
				}
				// Never hand out a page that was not asked for.
				if c, ok := res.chunk(layout, j); ok && inScope(c.Slug) {
					found[i] = append(found[i], c)
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, c.fail(op, err)
	}
	return flatten(found), nil
}

// SearchIDsDirect is the most ids that a [Collection.Search] restricted
// to ids (collection.Scope.IDs) asks for by id, in gets of PageSize ids,
// up to four at a time: a get by id is a direct lookup. More ids are
// searched with one pass over the whole collection (the where_document
// filter alone, ids only, paged by SearchPageSize), whose answer is cut
// down to the ids asked for: every get with a document filter costs
// Chroma about one pass over the collection, so one pass beats many gets.
const SearchIDsDirect = 4 * PageSize

// searchIDsDirect is SearchIDsDirect, smaller in tests of the pass.
var searchIDsDirect = SearchIDsDirect

// searchIDs returns, as chunks with ids alone, the records among ids
// whose documents match wd (every one when wd is nil).
func (c *Collection) searchIDs(ctx context.Context, ids []string, wd map[string]any) ([]collection.Chunk, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	ids, want := unique(ids)
	var parts [][]string
	if len(ids) <= searchIDsDirect {
		parts = batches(ids, PageSize)
	} else {
		parts = [][]string{nil} // one pass over the collection
	}
	found := make([][]collection.Chunk, len(parts))
	keep := func(i int, res *getResult) {
		for _, id := range res.IDs {
			if want[id] { // never hand out a record that was not asked for
				found[i] = append(found[i], collection.Chunk{ID: id, Index: collection.NoIndex})
			}
		}
	}
	err := parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		req := getRequest{IDs: parts[i], WhereDocument: wd, Include: []string{}}
		if parts[i] == nil {
			return c.pages(ctx, req, c.searchPage(), func(res *getResult) error { keep(i, res); return nil })
		}
		res, err := c.get(ctx, &req)
		if err == nil {
			keep(i, res)
		}
		return err
	})
	if err != nil {
		return nil, c.fail(fmt.Sprintf("search %s of %s by id", recordsOf(len(ids)), c.where), err)
	}
	return flatten(found), nil
}
