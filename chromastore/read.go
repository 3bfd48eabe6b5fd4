package chromastore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/chromafs/chromafs/collection"
)

// Request limits; see the package documentation.
const (
	// PageSize is the most records one get asks for (Chroma Cloud's cap).
	PageSize = 300
	// MaxIn is the most values one $in list carries.
	MaxIn = 200
	// ChunksPageSize is the most records one page of a [Collection.Chunks]
	// answer holds. Every page of a get by slug costs Chroma a pass of its
	// metadata filter, so pages are larger than PageSize: a read in one
	// page beats the same read in pages of 300 (BENCHMARKS.md, "grep").
	// (Chroma Cloud caps a get at 300 records; a limits mode for it is
	// planned.)
	ChunksPageSize = 4096
)

// chunksPageSize is ChunksPageSize, smaller in tests of paging.
var chunksPageSize = ChunksPageSize

const (
	// maxParallel is how many requests one call runs at a time.
	maxParallel = 4
)

// Values of a get request's include list.
const (
	includeDocuments = "documents"
	includeMetadatas = "metadatas"
)

// getRequest is the body of POST .../get.
type getRequest struct {
	IDs           []string       `json:"ids,omitempty"`
	Where         map[string]any `json:"where,omitempty"`
	WhereDocument map[string]any `json:"where_document,omitempty"`
	Limit         int            `json:"limit,omitzero"`
	Offset        int            `json:"offset,omitzero"`
	Include       []string       `json:"include"` // never nil: [] asks for ids only
}

// getResult is the answer to a get.
type getResult struct {
	IDs       []string   `json:"ids"`
	Documents []*string  `json:"documents"`
	Metadatas []metadata `json:"metadatas"`
}

func (r *getResult) document(i int) string {
	if i < len(r.Documents) && r.Documents[i] != nil {
		return *r.Documents[i]
	}
	return ""
}

func (r *getResult) metadata(i int) map[string]any {
	if i < len(r.Metadatas) {
		return r.Metadatas[i]
	}
	return nil
}

// check reports an answer whose lists do not line up.
func (r *getResult) check() error {
	return checkLengths(len(r.IDs), len(r.Documents), len(r.Metadatas))
}

func checkLengths(ids, docs, metas int) error {
	if docs != 0 && docs != ids || metas != 0 && metas != ids {
		return fmt.Errorf("malformed answer: %d ids, %d documents, %d metadatas", ids, docs, metas)
	}
	return nil
}

// get sends one get request.
func (c *Collection) get(ctx context.Context, req *getRequest) (*getResult, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	var res getResult
	if err := c.rest.do(ctx, "POST", c.path+"/get", req, &res); err != nil {
		return nil, err
	}
	if err := res.check(); err != nil {
		return nil, err
	}
	return &res, nil
}

// pages sends req with limit size and increasing offsets until a page
// comes back short, and calls fn with each page.
func (c *Collection) pages(ctx context.Context, req getRequest, size int, fn func(*getResult) error) error {
	req.Limit = size
	for req.Offset = 0; ; req.Offset += size {
		res, err := c.get(ctx, &req)
		if err != nil {
			return err
		}
		if err := fn(res); err != nil {
			return err
		}
		if len(res.IDs) < size {
			return nil
		}
	}
}

// parallel calls fn(ctx, i) for i in [0, n), maxParallel at a time, and
// returns the first error, cancelling the calls still running.
func parallel(ctx context.Context, n int, fn func(context.Context, int) error) error {
	if n == 1 {
		return fn(ctx, 0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, maxParallel)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
loop:
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() {
					first = err
					cancel()
				})
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// batches splits values into slices of at most size.
func batches[T any](values []T, size int) [][]T {
	var out [][]T
	for len(values) > size {
		out = append(out, values[:size:size])
		values = values[size:]
	}
	if len(values) > 0 {
		out = append(out, values)
	}
	return out
}

// unique returns values without duplicates, in first-seen order, and the
// set of them.
func unique(values []string) ([]string, map[string]bool) {
	set := make(map[string]bool, len(values))
	out := make([]string, 0, len(values))
	for _, v := range values {
		if !set[v] {
			set[v] = true
			out = append(out, v)
		}
	}
	return out, set
}

// pagesOf returns "1 page" or "N pages".
func pagesOf(n int) string {
	if n == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%d pages", n)
}

// chunk converts record j of the answer, which must have the layout's
// slug field as a string.
func (r *getResult) chunk(layout collection.Layout, j int) (collection.Chunk, bool) {
	md := r.metadata(j)
	slug, ok := md[layout.SlugField].(string)
	if !ok {
		return collection.Chunk{}, false
	}
	return collection.Chunk{
		ID:    r.IDs[j],
		Slug:  slug,
		Index: chunkIndex(md[layout.IndexField]),
		Text:  r.document(j),
	}, true
}

// Tree returns the record with the given id, with its document and
// metadata. If there is none, the error wraps [collection.ErrNoTree].
//
// The document is not copied out of the answer when it has no escapes
// (gzip+base64 documents have none): the tree of a 100k-page collection
// is a 7.5 MB answer, and decoding it is most of Tree's own time.
func (c *Collection) Tree(ctx context.Context, id string) (collection.TreeRecord, error) {
	op := fmt.Sprintf("get tree record %q from %s", id, c.where)
	if c.closed.Load() {
		return collection.TreeRecord{}, ErrClosed
	}
	recs, err := c.getRecords(ctx, []string{id}, map[string]bool{id: true})
	if err != nil {
		return collection.TreeRecord{}, c.fail(op, err)
	}
	if rec, ok := recs[id]; ok {
		return rec, nil
	}
	return collection.TreeRecord{}, fmt.Errorf("chromastore: %s: %w", op, collection.ErrNoTree)
}

// Chunks returns every chunk, with its text, whose slug field is one of
// slugs. It asks for the slugs in $in batches of at most MaxIn values,
// each paged by ChunksPageSize records, up to four requests at a time.
func (c *Collection) Chunks(ctx context.Context, layout collection.Layout, slugs []string) ([]collection.Chunk, error) {
	var found [][]collection.Chunk
	err := c.chunkParts(ctx, layout, slugs, func(n int) { found = make([][]collection.Chunk, n) },
		func(i int, chunks []collection.Chunk) error {
			found[i] = append(found[i], chunks...)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return flatten(found), nil
}

// ChunksEach implements collection.PartReader: it reads as Chunks does
// and hands over each page of each batch's answer as it comes in.
func (c *Collection) ChunksEach(ctx context.Context, layout collection.Layout, slugs []string, fn func([]collection.Chunk) error) error {
	return c.chunkParts(ctx, layout, slugs, nil, handOver(fn))
}

// chunkParts sends the requests of Chunks, and calls part with the index
// of the $in batch and the chunks of each page of its answer, possibly
// from several goroutines at once (one at a time per batch). It calls
// parts first, when not nil, with the number of batches. An error of
// part is returned as it is; others are wrapped.
func (c *Collection) chunkParts(ctx context.Context, layout collection.Layout, slugs []string, parts func(int), part func(int, []collection.Chunk) error) error {
	layout = layout.WithDefaults()
	slugs, want := unique(slugs)
	if len(slugs) == 0 {
		return nil
	}
	op := fmt.Sprintf("get chunks of %s from %s", pagesOf(len(slugs)), c.where)
	batch := batches(slugs, MaxIn)
	if parts != nil {
		parts(len(batch))
	}
	var fromPart partError
	err := parallel(ctx, len(batch), func(ctx context.Context, i int) error {
		req := getRequest{
			Where:   map[string]any{layout.SlugField: map[string]any{"$in": batch[i]}},
			Include: []string{includeDocuments, includeMetadatas},
		}
		return c.pages(ctx, req, c.chunksPage(), func(res *getResult) error {
			chunks := make([]collection.Chunk, 0, len(res.IDs))
			for j := range res.IDs {
				// Never hand out a page that was not asked for.
				if c, ok := res.chunk(layout, j); ok && want[c.Slug] {
					chunks = append(chunks, c)
				}
			}
			return fromPart.wrap(part(i, chunks))
		})
	})
	if err != nil {
		return fromPart.unwrap(err, func(err error) error { return c.fail(op, err) })
	}
	return nil
}

// ChunksByID returns those of the records with the given ids that exist
// and whose slug field holds a string, with their texts and indexes (as
// Chunks converts them). Duplicate ids are asked for once; ids that do not
// exist are absent from the result. It asks for at most PageSize ids a
// request, up to four requests at a time. On Chroma a get by id is a
// direct lookup, much cheaper than Chunks' metadata filter.
func (c *Collection) ChunksByID(ctx context.Context, layout collection.Layout, ids []string) ([]collection.Chunk, error) {
	var found [][]collection.Chunk
	err := c.idParts(ctx, layout, ids, func(n int) { found = make([][]collection.Chunk, n) },
		func(i int, chunks []collection.Chunk) error {
			found[i] = chunks
			return nil
		})
	if err != nil {
		return nil, err
	}
	return flatten(found), nil
}

// ChunksByIDEach implements collection.PartReader: it reads as ChunksByID
// does and hands over the records of each request as it is answered.
func (c *Collection) ChunksByIDEach(ctx context.Context, layout collection.Layout, ids []string, fn func([]collection.Chunk) error) error {
	return c.idParts(ctx, layout, ids, nil, handOver(fn))
}

// idParts sends the requests of ChunksByID, as chunkParts does those of
// Chunks.
func (c *Collection) idParts(ctx context.Context, layout collection.Layout, ids []string, parts func(int), part func(int, []collection.Chunk) error) error {
	layout = layout.WithDefaults()
	ids, want := unique(ids)
	if len(ids) == 0 {
		return nil
	}
	op := fmt.Sprintf("get %s by id from %s", recordsOf(len(ids)), c.where)
	batch := batches(ids, PageSize)
	if parts != nil {
		parts(len(batch))
	}
	var fromPart partError
	err := parallel(ctx, len(batch), func(ctx context.Context, i int) error {
		res, err := c.get(ctx, &getRequest{IDs: batch[i], Include: []string{includeDocuments, includeMetadatas}})
		if err != nil {
			return err
		}
		chunks := make([]collection.Chunk, 0, len(res.IDs))
		for j, id := range res.IDs {
			if c, ok := res.chunk(layout, j); ok && want[id] {
				chunks = append(chunks, c)
			}
		}
		return fromPart.wrap(part(i, chunks))
	})
	if err != nil {
		return fromPart.unwrap(err, func(err error) error { return c.fail(op, err) })
	}
	return nil
}

// handOver returns a part function for chunkParts and idParts that calls
// fn one part at a time with the records not handed over before (offset
// paging over a collection that changes between pages can repeat a
// record, as flatten says), skipping parts left empty.
func handOver(fn func([]collection.Chunk) error) func(int, []collection.Chunk) error {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(_ int, chunks []collection.Chunk) error {
		mu.Lock()
		defer mu.Unlock()
		fresh := chunks[:0]
		for _, ch := range chunks {
			if !seen[ch.ID] {
				seen[ch.ID] = true
				fresh = append(fresh, ch)
			}
		}
		if len(fresh) == 0 {
			return nil
		}
		return fn(fresh)
	}
}

// partError marks the first error of a part function, so that chunkParts
// and idParts return it as it is rather than as a failed request.
type partError struct {
	mu  sync.Mutex
	err error
}

func (p *partError) wrap(err error) error {
	if err == nil {
		return nil
	}
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
	return err
}

// unwrap returns err as it is when it is the part function's error, and
// other(err) otherwise.
func (p *partError) unwrap(err error, other func(error) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	return other(err)
}

// flatten concatenates parts, dropping records seen twice (offset paging
// over a collection that changes between pages can repeat a record).
func flatten(parts [][]collection.Chunk) []collection.Chunk {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]collection.Chunk, 0, n)
	seen := make(map[string]bool, n)
	for _, p := range parts {
		for _, ch := range p {
			if !seen[ch.ID] {
				seen[ch.ID] = true
				out = append(out, ch)
			}
		}
	}
	return out
}

// Scan calls fn with every record whose slug field holds a string (empty
// included), one page of at most PageSize records at a time, with texts
// when withText is set. Chroma has no "field exists" filter ($ne matches
// records without the field), so Scan pages through the whole collection
// and filters here.
func (c *Collection) Scan(ctx context.Context, layout collection.Layout, withText bool, fn func([]collection.Chunk) error) error {
	layout = layout.WithDefaults()
	op := "scan " + c.where
	include := []string{includeMetadatas}
	if withText {
		include = append(include, includeDocuments)
	}
	fromFn := false
	err := c.pages(ctx, getRequest{Include: include}, PageSize, func(res *getResult) error {
		batch := make([]collection.Chunk, 0, len(res.IDs))
		for j, id := range res.IDs {
			md := res.metadata(j)
			slug, ok := md[layout.SlugField].(string)
			if !ok {
				continue
			}
			batch = append(batch, collection.Chunk{
				ID:    id,
				Slug:  slug,
				Index: chunkIndex(md[layout.IndexField]),
				Text:  res.document(j),
			})
		}
		if len(batch) == 0 {
			return nil
		}
		err := fn(batch)
		fromFn = err != nil
		return err
	})
	if err != nil && !fromFn {
		return c.fail(op, err)
	}
	return err
}

// ScanRecords calls fn with every record of the collection, its document
// and metadata (numbers as int64 or float64, as RecordsByID gives them),
// in the order Chroma pages them
// (insertion order on a Chroma server of the versions tested), paged by
// PageSize.
func (c *Collection) ScanRecords(ctx context.Context, fn func([]collection.Record) error) error {
	op := "scan the records of " + c.where
	fromFn := false
	err := c.pages(ctx, getRequest{Include: []string{includeMetadatas, includeDocuments}}, PageSize, func(res *getResult) error {
		if len(res.IDs) == 0 {
			return nil
		}
		batch := make([]collection.Record, len(res.IDs))
		for j, id := range res.IDs {
			batch[j] = collection.Record{ID: id, Document: res.document(j), Metadata: plainMetadata(res.metadata(j))}
		}
		err := fn(batch)
		fromFn = err != nil
		return err
	})
	if err != nil && !fromFn {
		return c.fail(op, err)
	}
	return err
}

// IDs returns the id of every record, paged by PageSize.
func (c *Collection) IDs(ctx context.Context) ([]string, error) {
	var ids []string
	err := c.pages(ctx, getRequest{Include: []string{}}, PageSize, func(res *getResult) error {
		ids = append(ids, res.IDs...)
		return nil
	})
	if err != nil {
		return nil, c.fail("list ids of "+c.where, err)
	}
	ids, _ = unique(ids)
	return ids, nil
}

// chunkIndex converts an index metadata value: an integer or an integral
// float gives a non-negative int; anything else, a string of digits
// included ("1" is a writer's mistake that sorts "10" before "2" in other
// tools), gives collection.NoIndex, which reading reports as a chunk
// without a valid index.
func chunkIndex(v any) int {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if !strings.ContainsAny(s, ".eE") {
			n, err := strconv.ParseInt(s, 10, 0)
			if err != nil || n < 0 {
				return collection.NoIndex
			}
			return int(n)
		}
		f, err := v.Float64()
		if err != nil {
			return collection.NoIndex
		}
		return floatIndex(f)
	case float64:
		return floatIndex(v)
	case int64:
		if v < 0 || int64(int(v)) != v {
			return collection.NoIndex
		}
		return int(v)
	case int:
		if v < 0 {
			return collection.NoIndex
		}
		return v
	}
	return collection.NoIndex
}

func floatIndex(f float64) int {
	if f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return collection.NoIndex
	}
	return int(f)
}

// plainMetadata converts a decoded metadata map: json.Numbers become
// int64 (no fraction or exponent) or float64.
func plainMetadata(md map[string]any) map[string]any {
	if md == nil {
		return nil
	}
	out := make(map[string]any, len(md))
	for k, v := range md {
		out[k] = plainValue(v)
	}
	return out
}

func plainValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return s
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plainValue(e)
		}
		return out
	case map[string]any:
		return plainMetadata(v)
	}
	return v
}
