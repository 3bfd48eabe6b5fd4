package memstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/chromafs/chromafs/collection"
)

var (
	_ collection.Store    = (*Store)(nil)
	_ collection.Scanner  = (*Store)(nil)
	_ collection.Writer   = (*Store)(nil)
	_ collection.IDReader = (*Store)(nil)
	_ collection.Searcher = (*Store)(nil)

	_ collection.RecordReader  = (*Store)(nil)
	_ collection.TreeVersioner = (*Store)(nil)
)

// ScanBatch is the number of records that [Store.Scan] passes to its
// callback at a time.
const ScanBatch = 100

// Operation names, as passed to a hook installed with [Store.SetHook].
// They match the fields of [Counts].
const (
	OpTree       = "Tree"
	OpChunks     = "Chunks"
	OpScan       = "Scan"
	OpIDs        = "IDs"
	OpUpsert     = "Upsert"
	OpDelete     = "Delete"
	OpChunkIDs   = "ChunkIDs"
	OpChunksByID = "ChunksByID"
	OpSearch     = "Search"
	OpMetadata   = "Metadata"
)

// Counts holds the number of calls of each method of a [Store], failed
// calls included.
type Counts struct {
	Tree, Chunks, Scan, IDs, Upsert, Delete, ChunkIDs, ChunksByID, Search int
	// Metadata counts reads and writes of the collection's metadata.
	Metadata int
}

// Total returns the sum of all counts.
func (c Counts) Total() int {
	return c.Tree + c.Chunks + c.Scan + c.IDs + c.Upsert + c.Delete + c.ChunkIDs + c.ChunksByID + c.Search + c.Metadata
}

// Store is an in-memory collection. The zero value is not usable; call
// [New]. A Store is safe for concurrent use.
type Store struct {
	id string

	mu      sync.Mutex
	records []collection.Record // insertion order
	pos     map[string]int      // id -> index in records
	counts  Counts
	failure error
	hook    func(ctx context.Context, op string) error
	meta    map[string]any // collection metadata
}

// SetMetadata sets the given keys of the collection's metadata (a nil
// value removes its key), as chromastore's does.
func (s *Store) SetMetadata(ctx context.Context, set map[string]any) error {
	if err := s.begin(ctx, OpMetadata); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta == nil {
		s.meta = map[string]any{}
	}
	for k, v := range set {
		if v == nil {
			delete(s.meta, k)
		} else {
			s.meta[k] = v
		}
	}
	return nil
}

// TreeVersion implements collection.TreeVersioner.
func (s *Store) TreeVersion(ctx context.Context) (string, error) {
	if err := s.begin(ctx, OpMetadata); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, _ := s.meta[collection.TreeVersionKey].(string)
	return v, nil
}

// New returns an empty store whose CollectionID is id.
func New(id string) *Store {
	return &Store{id: id, pos: make(map[string]int)}
}

// CollectionID returns the id given to [New].
func (s *Store) CollectionID() string { return s.id }

// Requests returns the number of calls made so far to each method.
func (s *Store) Requests() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// ResetRequests sets every count to zero.
func (s *Store) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = Counts{}
}

// SetFailure makes every subsequent call fail with an error that wraps
// err. A nil err restores normal behaviour.
func (s *Store) SetFailure(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failure = err
}

// SetHook installs fn, which every subsequent call runs first (without
// holding the store's lock) with its context and its operation name (one
// of the Op constants). A non-nil error from fn fails the call with an
// error that wraps it. fn may block, for example until ctx is done, to
// simulate a slow backend. A nil fn removes the hook.
func (s *Store) SetHook(fn func(ctx context.Context, op string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = fn
}

// Len returns the number of records.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.records)
}

// Get returns a copy of the record with the given id.
func (s *Store) Get(id string) (collection.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.pos[id]
	if !ok {
		return collection.Record{}, false
	}
	return cloneRecord(s.records[i]), true
}

// Records returns a copy of every record, in insertion order.
func (s *Store) Records() []collection.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]collection.Record, len(s.records))
	for i, r := range s.records {
		out[i] = cloneRecord(r)
	}
	return out
}

// begin counts a call of op and reports whether it may proceed.
func (s *Store) begin(ctx context.Context, op string) error {
	s.mu.Lock()
	s.count(op)
	failure, hook := s.failure, s.hook
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	if failure != nil {
		return fmt.Errorf("memstore: %s: %w", op, failure)
	}
	if hook != nil {
		if err := hook(ctx, op); err != nil {
			return fmt.Errorf("memstore: %s: %w", op, err)
		}
	}
	return nil
}

func (s *Store) count(op string) {
	c := &s.counts
	switch op {
	case OpTree:
		c.Tree++
	case OpChunks:
		c.Chunks++
	case OpScan:
		c.Scan++
	case OpIDs:
		c.IDs++
	case OpUpsert:
		c.Upsert++
	case OpDelete:
		c.Delete++
	case OpChunkIDs:
		c.ChunkIDs++
	case OpChunksByID:
		c.ChunksByID++
	case OpSearch:
		c.Search++
	case OpMetadata:
		c.Metadata++
	}
}

// Tree returns the document and metadata of the record with the given
// id. If there is none, the error wraps [collection.ErrNoTree].
func (s *Store) Tree(ctx context.Context, id string) (collection.TreeRecord, error) {
	if err := s.begin(ctx, OpTree); err != nil {
		return collection.TreeRecord{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.pos[id]
	if !ok {
		return collection.TreeRecord{}, fmt.Errorf("memstore: collection %q: record %q: %w", s.id, id, collection.ErrNoTree)
	}
	r := s.records[i]
	return collection.TreeRecord{Document: []byte(r.Document), Metadata: maps.Clone(r.Metadata)}, nil
}

// RecordsByID returns the documents and metadata of those of the records
// with the given ids that exist, by id. It counts as one OpTree call.
func (s *Store) RecordsByID(ctx context.Context, ids []string) (map[string]collection.TreeRecord, error) {
	if err := s.begin(ctx, OpTree); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]collection.TreeRecord, len(ids))
	for _, id := range ids {
		if i, ok := s.pos[id]; ok {
			r := s.records[i]
			out[id] = collection.TreeRecord{Document: []byte(r.Document), Metadata: maps.Clone(r.Metadata)}
		}
	}
	return out, nil
}

// DocumentsByID returns the documents of the records with the given ids
// that exist. It counts as a ChunksByID.
func (s *Store) DocumentsByID(ctx context.Context, ids []string) (map[string]string, error) {
	if err := s.begin(ctx, OpChunksByID); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		if i, ok := s.pos[id]; ok {
			out[id] = s.records[i].Document
		}
	}
	return out, nil
}

// cancelCheckEvery is how many records Chunks and Scan visit between two
// looks at their context.
const cancelCheckEvery = 256

// Chunks returns the chunks, with texts, of the pages named by slugs, in
// insertion order. It fails when slugs is empty: callers must never ask
// for "no restriction".
func (s *Store) Chunks(ctx context.Context, layout collection.Layout, slugs []string) ([]collection.Chunk, error) {
	if err := s.begin(ctx, OpChunks); err != nil {
		return nil, err
	}
	if len(slugs) == 0 {
		return nil, errors.New("memstore: Chunks: empty slug list")
	}
	want := setOf(slugs)
	return s.collect(ctx, OpChunks, layout, true, func(c collection.Chunk, _ string) bool { return want[c.Slug] })
}

// setOf returns the set of slugs.
func setOf(slugs []string) map[string]bool {
	want := make(map[string]bool, len(slugs))
	for _, slug := range slugs {
		want[slug] = true
	}
	return want
}

// collect returns, in insertion order, the chunks of the records with the
// layout's slug field for which keep (given the chunk and the record's
// document) is true, checking ctx as it goes.
func (s *Store) collect(ctx context.Context, op string, layout collection.Layout, withText bool, keep func(c collection.Chunk, doc string) bool) ([]collection.Chunk, error) {
	layout = layout.WithDefaults()
	return s.scan(ctx, op, func(r collection.Record) (collection.Chunk, bool) {
		c, ok := chunkOf(r, layout, withText)
		return c, ok && keep(c, r.Document)
	})
}

// scan returns, in insertion order, the chunks that pick makes of the
// records it keeps, looking at ctx every cancelCheckEvery records.
func (s *Store) scan(ctx context.Context, op string, pick func(r collection.Record) (collection.Chunk, bool)) ([]collection.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []collection.Chunk
	for i, r := range s.records {
		if i%cancelCheckEvery == cancelCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("memstore: %s: %w", op, err)
			}
		}
		if c, ok := pick(r); ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// Search returns the id, slug and index of every record in scope (see
// collection.Scope) whose document matches f, in insertion order: it
// contains one of f.Contains or matches one of f.Regexes, compiled with
// Go's regexp. A zero f matches every record. It fails when an including
// scope is empty or a regex does not compile.
func (s *Store) Search(ctx context.Context, layout collection.Layout, scope collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	if err := s.begin(ctx, OpSearch); err != nil {
		return nil, err
	}
	slugs := scope.Slugs
	if len(slugs) == 0 && !scope.Exclude && len(scope.IDs) == 0 {
		return nil, errors.New("memstore: Search: empty slug list")
	}
	res := make([]*regexp.Regexp, len(f.Regexes))
	for i, expr := range f.Regexes {
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("memstore: Search: %w", err)
		}
		res[i] = re
	}
	match := func(doc string) bool {
		if f.IsZero() {
			return true
		}
		for _, c := range f.Contains {
			if strings.Contains(doc, c) {
				return true
			}
		}
		for _, re := range res {
			if re.MatchString(doc) {
				return true
			}
		}
		return false
	}
	if len(scope.IDs) > 0 {
		return s.searchIDs(ctx, scope.IDs, match)
	}
	want := setOf(slugs)
	out, err := s.collect(ctx, OpSearch, layout, false, func(c collection.Chunk, doc string) bool {
		return want[c.Slug] != scope.Exclude && match(doc)
	})
	if scope.IDsOnly {
		for i := range out {
			out[i] = collection.Chunk{ID: out[i].ID, Index: collection.NoIndex}
		}
	}
	return out, err
}

// searchIDs is Search with scope.IDs: the ids, in insertion order, of
// the records with those ids whose documents match, whatever their
// metadata.
func (s *Store) searchIDs(ctx context.Context, ids []string, match func(doc string) bool) ([]collection.Chunk, error) {
	want := setOf(ids)
	return s.scan(ctx, OpSearch, func(r collection.Record) (collection.Chunk, bool) {
		return collection.Chunk{ID: r.ID, Index: collection.NoIndex}, want[r.ID] && match(r.Document)
	})
}

// ChunksByID returns the chunks, with texts, of the records with the
// given ids that exist and belong to a page, in the order of ids. It
// fails when ids is empty.
func (s *Store) ChunksByID(ctx context.Context, layout collection.Layout, ids []string) ([]collection.Chunk, error) {
	if err := s.begin(ctx, OpChunksByID); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, errors.New("memstore: ChunksByID: empty id list")
	}
	layout = layout.WithDefaults()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []collection.Chunk
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		i, ok := s.pos[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		if c, ok := chunkOf(s.records[i], layout, true); ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// Scan calls fn with batches of at most [ScanBatch] chunks, in insertion
// order, of every record that belongs to a page. It works on a snapshot
// taken when it starts, so fn may call the store.
func (s *Store) Scan(ctx context.Context, layout collection.Layout, withText bool, fn func([]collection.Chunk) error) error {
	if err := s.begin(ctx, OpScan); err != nil {
		return err
	}
	layout = layout.WithDefaults()
	s.mu.Lock()
	var all []collection.Chunk
	for _, r := range s.records {
		if c, ok := chunkOf(r, layout, withText); ok {
			all = append(all, c)
		}
	}
	s.mu.Unlock()
	for len(all) > 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("memstore: %s: %w", OpScan, err)
		}
		n := min(len(all), ScanBatch)
		if err := fn(all[:n:n]); err != nil {
			return err
		}
		all = all[n:]
	}
	return nil
}

// ScanRecords calls fn with every record, documents and a copy of its
// metadata, in insertion order, in batches of ScanBatch. It counts as a
// Scan.
func (s *Store) ScanRecords(ctx context.Context, fn func([]collection.Record) error) error {
	if err := s.begin(ctx, OpScan); err != nil {
		return err
	}
	s.mu.Lock()
	all := make([]collection.Record, len(s.records))
	for i, r := range s.records {
		all[i] = collection.Record{ID: r.ID, Document: r.Document, Metadata: maps.Clone(r.Metadata)}
	}
	s.mu.Unlock()
	for len(all) > 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("memstore: %s: %w", OpScan, err)
		}
		n := min(len(all), ScanBatch)
		if err := fn(all[:n:n]); err != nil {
			return err
		}
		all = all[n:]
	}
	return nil
}

// IDs returns the id of every record, in insertion order.
func (s *Store) IDs(ctx context.Context) ([]string, error) {
	if err := s.begin(ctx, OpIDs); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, len(s.records))
	for i, r := range s.records {
		ids[i] = r.ID
	}
	return ids, nil
}

// Upsert writes records in order: a new record is appended; a record
// whose id exists replaces it in place, with its document and System
// flag, but, as Chroma does, its metadata is merged into the existing
// one: keys it does not mention keep their values, and a key set to nil
// is removed. It fails, writing nothing, when a record has an empty id.
func (s *Store) Upsert(ctx context.Context, records []collection.Record) error {
	if err := s.begin(ctx, OpUpsert); err != nil {
		return err
	}
	for i, r := range records {
		if r.ID == "" {
			return fmt.Errorf("memstore: %s: record %d has an empty id", OpUpsert, i)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range records {
		i, ok := s.pos[r.ID]
		var md map[string]any
		if ok {
			md = maps.Clone(s.records[i].Metadata)
		}
		for k, v := range r.Metadata {
			if md == nil {
				md = make(map[string]any, len(r.Metadata))
			}
			if v == nil {
				delete(md, k)
			} else {
				md[k] = v
			}
		}
		r.Metadata = md
		if ok {
			s.records[i] = r
			continue
		}
		s.pos[r.ID] = len(s.records)
		s.records = append(s.records, r)
	}
	return nil
}

// Delete removes the records with the given ids; unknown ids are ignored.
// The remaining records keep their order.
func (s *Store) Delete(ctx context.Context, ids []string) error {
	if err := s.begin(ctx, OpDelete); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	gone := make(map[string]bool, len(ids))
	for _, id := range ids {
		if _, ok := s.pos[id]; ok {
			gone[id] = true
		}
	}
	if len(gone) == 0 {
		return nil
	}
	kept := s.records[:0]
	for _, r := range s.records {
		if !gone[r.ID] {
			kept = append(kept, r)
		}
	}
	clear(s.records[len(kept):])
	s.records = kept
	clear(s.pos)
	for i, r := range s.records {
		s.pos[r.ID] = i
	}
	return nil
}

// ChunkIDs returns, for each of slugs that has records, the ids of its
// records in insertion order.
func (s *Store) ChunkIDs(ctx context.Context, layout collection.Layout, slugs []string) (map[string][]string, error) {
	if err := s.begin(ctx, OpChunkIDs); err != nil {
		return nil, err
	}
	layout = layout.WithDefaults()
	want := make(map[string]bool, len(slugs))
	for _, slug := range slugs {
		want[slug] = true
	}
	out := make(map[string][]string)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.records {
		if slug, ok := r.Metadata[layout.SlugField].(string); ok && want[slug] {
			out[slug] = append(out[slug], r.ID)
		}
	}
	return out, nil
}

// chunkOf returns r as a chunk, if it belongs to a page.
func chunkOf(r collection.Record, layout collection.Layout, withText bool) (collection.Chunk, bool) {
	slug, ok := r.Metadata[layout.SlugField].(string)
	if !ok {
		return collection.Chunk{}, false
	}
	c := collection.Chunk{ID: r.ID, Slug: slug, Index: indexOf(r.Metadata[layout.IndexField])}
	if withText {
		c.Text = r.Document
	}
	return c, true
}

// indexOf returns v as a chunk index, or NoIndex when v is not a
// non-negative integer that fits an int.
func indexOf(v any) int {
	var n int64
	switch v := v.(type) {
	case int:
		n = int64(v)
	case int8:
		n = int64(v)
	case int16:
		n = int64(v)
	case int32:
		n = int64(v)
	case int64:
		n = v
	case uint:
		if uint64(v) > math.MaxInt64 {
			return collection.NoIndex
		}
		n = int64(v)
	case uint8:
		n = int64(v)
	case uint16:
		n = int64(v)
	case uint32:
		n = int64(v)
	case uint64:
		if v > math.MaxInt64 {
			return collection.NoIndex
		}
		n = int64(v)
	default:
		return collection.NoIndex
	}
	if n < 0 || n > math.MaxInt {
		return collection.NoIndex
	}
	return int(n)
}

func cloneRecord(r collection.Record) collection.Record {
	r.Metadata = maps.Clone(r.Metadata)
	return r
}
