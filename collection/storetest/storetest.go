// Package storetest checks an implementation of collection.Store, and of
// the optional capabilities it has, against the contracts that package
// collection's doc comments state, as testing/fstest checks an fs.FS. It
// is for tests only: memstore's and chromastore's run it.
//
// TestStore writes a small collection through the store's Writer (pages
// of several chunks, a chunk without an index, a page whose only chunk is
// empty, a tree record, records without a slug field or with one that is
// not a string, a record of another layout), then checks what every read
// method returns against what the contracts say it must, computed from
// the records written: Tree, Chunks, and, when the store implements them,
// IDReader, PartReader, RecordReader, Scanner, RecordScanner,
// DocumentReader, Searcher, VectorQuerier,
// TreeVersioner and Limiter; then cancelled contexts, concurrent reads,
// and, on a second new store, the Writer's replacing, deleting and
// ChunkIDs.
//
// Orders the contracts leave unspecified are not checked. Neither are the
// inputs that callers promise never to pass (an empty slug or id list to
// Chunks, ChunksByID, an including Search or QueryVector).
package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/chromafs/chromafs/collection"
)

// Store is what TestStore checks: a collection that can be written.
type Store interface {
	collection.Store
	collection.Writer
}

// Options are what TestStore needs to know of a store beyond its methods.
type Options struct {
	// Embed returns the vector the store gives a document of text when it
	// writes it (Writer.Upsert). With it, a store that implements
	// collection.VectorQuerier has its ranking checked: the vector of a
	// chunk's text finds that chunk first. Without it, QueryVector is
	// not checked.
	Embed func(ctx context.Context, text string) ([]float32, error)
}

// metadataSetter is implemented by stores whose collection has metadata
// of its own (memstore.Store, chromastore.Collection), where a writer
// records collection.TreeVersionKey.
type metadataSetter interface {
	SetMetadata(ctx context.Context, set map[string]any) error
}

// TestStore checks the stores that newStore returns. newStore must return
// a new, empty store each time it is called (TestStore calls it twice).
func TestStore(t *testing.T, newStore func(t *testing.T) Store, opts Options) {
	t.Helper()
	ctx := context.Background()
	s := newStore(t)
	recs := records()
	if err := s.Upsert(ctx, recs); err != nil {
		t.Fatalf("Upsert of the collection: %v", err)
	}
	c := &checker{s: s, recs: recs, opts: opts}
	t.Run("CollectionID", c.collectionID)
	t.Run("Tree", c.tree)
	t.Run("Chunks", c.chunks)
	c.optional(t, "IDReader", func(t *testing.T) bool { return c.idReader(t) })
	c.optional(t, "PartReader", func(t *testing.T) bool { return c.partReader(t) })
	c.optional(t, "RecordReader", func(t *testing.T) bool { return c.recordReader(t) })
	c.optional(t, "Scanner", func(t *testing.T) bool { return c.scanner(t) })
	c.optional(t, "RecordScanner", func(t *testing.T) bool { return c.recordScanner(t) })
	c.optional(t, "DocumentReader", func(t *testing.T) bool { return c.documentReader(t) })
	c.optional(t, "Searcher", func(t *testing.T) bool { return c.searcher(t) })
	c.optional(t, "VectorQuerier", func(t *testing.T) bool { return c.vectorQuerier(t) })
	c.optional(t, "TreeVersioner", func(t *testing.T) bool { return c.treeVersioner(t) })
	c.optional(t, "Limiter", func(t *testing.T) bool { return c.limiter(t) })
	t.Run("Canceled", c.canceled)
	t.Run("Concurrent", c.concurrent)
	t.Run("Writer", func(t *testing.T) { testWriter(t, newStore(t)) })
}

// checker holds the store under test and what was written into it.
type checker struct {
	s    Store
	recs []collection.Record
	opts Options
}

// optional runs check as a subtest that is skipped when check reports
// that the store lacks the capability.
func (c *checker) optional(t *testing.T, name string, check func(t *testing.T) bool) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		if !check(t) {
			t.Skipf("%T does not implement collection.%s", c.s, name)
		}
	})
}

// The layouts of the collection: the default one, and another whose
// fields only the record "other#1" has.
var (
	layout = collection.DefaultLayout()
	other  = collection.Layout{SlugField: "path", IndexField: "part", TreeID: "other-tree"}
)

// Pages of the collection.
const (
	intro   = "guide/intro.md"
	users   = "api/users.md"
	cafe    = "i18n/café.md"
	empty   = "empty.md"
	noIndex = "noindex.md"
	missing = "missing.md"
)

// records returns the collection TestStore writes. Every document but the
// empty page's holds "needle" in some case, so that searches have
// something to find everywhere, and every record kind that a query must
// leave out (the tree record, records without a string slug field) holds
// it too.
func records() []collection.Record {
	chunk := func(slug string, i int, text string, line int) collection.Record {
		md := map[string]any{layout.SlugField: slug, layout.IndexField: i}
		if line > 0 {
			md[collection.LineKey] = line
		}
		return collection.Record{ID: collection.ChunkID(slug, i), Document: text, Metadata: md}
	}
	return []collection.Record{
		chunk(intro, 0, "# Intro\nHello, ", 1),
		chunk(intro, 1, "the needle is here.\n", 2),
		chunk(intro, 2, "Bye now.\n", 3),
		chunk(users, 1, "POST /users makes a Needle\n", 0), // written before chunk 0
		chunk(users, 0, "GET /users lists NEEDLES\n", 0),
		chunk(cafe, 0, "Straße ünïcödé needle café\n", 1),
		chunk(empty, 0, "", 0),
		chunk("", 0, "a needle of the empty slug\n", 0),
		{ID: noIndex + "#x", Document: "a needle without an index\n", Metadata: map[string]any{layout.SlugField: noIndex}},
		{ID: layout.TreeID, Document: `{"guide/intro.md":{"isPublic":true}}`, System: true,
			Metadata: map[string]any{collection.SystemKey: true, collection.ChunkIDsKey: collection.ChunkIDScheme, "format": "json"}},
		{ID: "no-slug", Document: "a needle of no page\n", Metadata: map[string]any{layout.IndexField: 0}},
		{ID: "int-slug", Document: "a needle of page 7\n", Metadata: map[string]any{layout.SlugField: 7, layout.IndexField: 0}},
		{ID: "no-metadata", Document: "a needle without metadata\n"},
		{ID: "other#1", Document: "a needle of another layout\n", Metadata: map[string]any{"path": "x.md", "part": 1}},
	}
}

// record returns the record of c's collection with the given id.
func (c *checker) record(id string) (collection.Record, bool) {
	i := slices.IndexFunc(c.recs, func(r collection.Record) bool { return r.ID == id })
	if i < 0 {
		return collection.Record{}, false
	}
	return c.recs[i], true
}

// want returns, sorted by id, the chunks (with texts when withText is
// set) of the records of c's collection that have l's slug field as a
// string and for which keep is true: what the read methods must return.
func (c *checker) want(l collection.Layout, withText bool, keep func(ch collection.Chunk, doc string) bool) []collection.Chunk {
	var out []collection.Chunk
	for _, r := range c.recs {
		slug, ok := r.Metadata[l.SlugField].(string)
		if !ok {
			continue
		}
		ch := collection.Chunk{ID: r.ID, Slug: slug, Index: collection.NoIndex}
		if i, ok := r.Metadata[l.IndexField].(int); ok && i >= 0 {
			ch.Index = i
		}
		if withText {
			ch.Text = r.Document
		}
		if keep == nil || keep(ch, r.Document) {
			out = append(out, ch)
		}
	}
	return sortedChunks(out)
}

// inSlugs returns a keep function for want: the chunks of slugs.
func inSlugs(slugs ...string) func(collection.Chunk, string) bool {
	return func(ch collection.Chunk, _ string) bool { return slices.Contains(slugs, ch.Slug) }
}

// sortedChunks sorts chunks by id and returns them.
func sortedChunks(chunks []collection.Chunk) []collection.Chunk {
	slices.SortFunc(chunks, func(a, b collection.Chunk) int { return cmp.Compare(a.ID, b.ID) })
	return chunks
}

// equalChunks reports, as an error naming what, whether got (in any
// order) is want (sorted by id).
func equalChunks(what string, got, want []collection.Chunk) error {
	got = sortedChunks(slices.Clone(got))
	if slices.Equal(got, want) {
		return nil
	}
	return fmt.Errorf("%s:\n got %v\nwant %v", what, got, want)
}

func (c *checker) collectionID(t *testing.T) {
	id := c.s.CollectionID()
	if id == "" || c.s.CollectionID() != id {
		t.Errorf("CollectionID = %q, then %q; want one non-empty id", id, c.s.CollectionID())
	}
}

func (c *checker) chunks(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		layout collection.Layout
		slugs  []string
	}{
		{"one page", layout, []string{intro}},
		{"pages", layout, []string{users, cafe, empty, noIndex}},
		{"missing and repeated", layout, []string{missing, intro, intro, users}},
		{"only missing", layout, []string{missing}},
		{"other layout", other, []string{"x.md", intro}},
	} {
		got, err := c.s.Chunks(ctx, tc.layout, tc.slugs)
		if err != nil {
			t.Errorf("%s: Chunks(%q): %v", tc.name, tc.slugs, err)
			continue
		}
		if err := equalChunks(fmt.Sprintf("%s: Chunks(%q)", tc.name, tc.slugs), got, c.want(tc.layout, true, inSlugs(tc.slugs...))); err != nil {
			t.Error(err)
		}
	}
}

// concurrent reads the collection from several goroutines at once: each
// read returns what it returns alone.
func (c *checker) concurrent(t *testing.T) {
	ctx := context.Background()
	slugs := []string{intro, users, cafe}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			slug := slugs[g%len(slugs)]
			got, err := c.s.Chunks(ctx, layout, []string{slug})
			if err == nil {
				err = equalChunks("Chunks", got, c.want(layout, true, inSlugs(slug)))
			}
			if err != nil {
				t.Errorf("goroutine %d: %v", g, err)
			}
			if _, err := c.s.Tree(ctx, layout.TreeID); err != nil {
				t.Errorf("goroutine %d: Tree: %v", g, err)
			}
			if r, ok := c.s.(collection.IDReader); ok {
				id := collection.ChunkID(slug, 0)
				got, err := r.ChunksByID(ctx, layout, []string{id})
				if err == nil {
					err = equalChunks("ChunksByID", got, c.want(layout, true, func(ch collection.Chunk, _ string) bool { return ch.ID == id }))
				}
				if err != nil {
					t.Errorf("goroutine %d: %v", g, err)
				}
			}
		})
	}
	wg.Wait()
}

// canceled calls every read method with a cancelled context: each fails
// with an error that wraps context.Canceled.
func (c *checker) canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := c.s
	calls := map[string]func() error{
		"Tree":   func() error { _, err := s.Tree(ctx, layout.TreeID); return err },
		"Chunks": func() error { _, err := s.Chunks(ctx, layout, []string{intro}); return err },
		"Upsert": func() error {
			return s.Upsert(ctx, []collection.Record{{ID: "canceled", Document: "x", Metadata: map[string]any{layout.SlugField: "canceled.md"}}})
		},
		"Delete":   func() error { return s.Delete(ctx, []string{"canceled"}) },
		"ChunkIDs": func() error { _, err := s.ChunkIDs(ctx, layout, []string{intro}); return err },
	}
	if r, ok := s.(collection.IDReader); ok {
		calls["ChunksByID"] = func() error { _, err := r.ChunksByID(ctx, layout, []string{collection.ChunkID(intro, 0)}); return err }
	}
	if r, ok := s.(collection.PartReader); ok {
		none := func([]collection.Chunk) error { return nil }
		calls["ChunksEach"] = func() error { return r.ChunksEach(ctx, layout, []string{intro}, none) }
		calls["ChunksByIDEach"] = func() error { return r.ChunksByIDEach(ctx, layout, []string{collection.ChunkID(intro, 0)}, none) }
	}
	if r, ok := s.(collection.RecordReader); ok {
		calls["RecordsByID"] = func() error { _, err := r.RecordsByID(ctx, []string{layout.TreeID}); return err }
	}
	if r, ok := s.(collection.Scanner); ok {
		calls["Scan"] = func() error { return r.Scan(ctx, layout, true, func([]collection.Chunk) error { return nil }) }
		calls["IDs"] = func() error { _, err := r.IDs(ctx); return err }
	}
	if r, ok := s.(collection.Searcher); ok {
		calls["Search"] = func() error {
			_, err := r.Search(ctx, layout, collection.Scope{Slugs: []string{intro}}, collection.TextFilter{Contains: []string{"needle"}})
			return err
		}
	}
	// TreeVersion is left out: chromastore's first call after Open
	// answers from Open's lookup, with no request to cancel.
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want an error wrapping context.Canceled", name, err)
		}
	}
	// Nothing was written.
	if got, err := s.Chunks(context.Background(), layout, []string{"canceled.md"}); err != nil || len(got) != 0 {
		t.Errorf("after an Upsert with a cancelled context: Chunks = %v, %v; want none", got, err)
	}
}
