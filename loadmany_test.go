package chromafs_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

// partStore answers reads in parts, as chromastore does
// (collection.PartReader): every record of an answer is a part of its
// own, pages in reverse order of their slugs and each page's records in
// reverse order of their indexes, and records filed under another page's
// id last. After failAfter parts (when not 0) the read fails with
// errPartRead; extra records, when set, come in one more part at the end.
type partStore struct {
	*memstore.Store
	failAfter int
	extra     []collection.Chunk
	afterPart func(k int) // when set, called after part k is handed over
}

var errPartRead = errors.New("part read failed")

func (p *partStore) ChunksEach(ctx context.Context, l collection.Layout, slugs []string, fn func([]collection.Chunk) error) error {
	chunks, err := p.Chunks(ctx, l, slugs)
	if err != nil {
		return err
	}
	return p.hand(chunks, fn)
}

func (p *partStore) ChunksByIDEach(ctx context.Context, l collection.Layout, ids []string, fn func([]collection.Chunk) error) error {
	chunks, err := p.ChunksByID(ctx, l, ids)
	if err != nil {
		return err
	}
	return p.hand(chunks, fn)
}

func (p *partStore) hand(chunks []collection.Chunk, fn func([]collection.Chunk) error) error {
	stray := func(c collection.Chunk) bool {
		return strings.Contains(c.ID, "#") && !strings.HasPrefix(c.ID, c.Slug+"#")
	}
	slices.SortFunc(chunks, func(a, b collection.Chunk) int {
		if sa, sb := stray(a), stray(b); sa != sb {
			if sa {
				return 1
			}
			return -1
		}
		return cmp.Or(-cmp.Compare(a.Slug, b.Slug), -cmp.Compare(a.Index, b.Index))
	})
	for k, c := range chunks {
		if p.failAfter > 0 && k == p.failAfter {
			return errPartRead
		}
		if err := fn([]collection.Chunk{c}); err != nil {
			return err
		}
		if p.afterPart != nil {
			p.afterPart(k)
		}
	}
	if len(p.extra) > 0 {
		return fn(slices.Clone(p.extra))
	}
	return nil
}

var _ collection.PartReader = (*partStore)(nil)

// putCounter is a memory cache that counts its puts.
type putCounter struct {
	*cachepkg.Memory
	puts atomic.Int32
}

func (c *putCounter) Put(ctx context.Context, key string, value []byte) error {
	c.puts.Add(1)
	return c.Memory.Put(ctx, key, value)
}

func (c *putCounter) PutMany(ctx context.Context, values map[string][]byte) error {
	c.puts.Add(1)
	return c.Memory.PutMany(ctx, values)
}

// prefetchAll runs PrefetchEach over names and returns what it handed
// over, checking each page handed over against files.
func prefetchAll(t *testing.T, fsys *chromafs.FS, files map[string]string, names []string) (map[string]string, error) {
	t.Helper()
	var mu sync.Mutex
	got := map[string]string{}
	err := fsys.PrefetchEach(context.Background(), names, func(name string, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[name]; dup {
			t.Errorf("%s handed over twice", name)
		}
		got[name] = string(data)
		if string(data) != files[name] {
			t.Errorf("%s handed over with %q; want %q", name, data, files[name])
		}
	})
	return got, err
}

// cached reports whether a read of name costs no request.
func cached(t *testing.T, s *memstore.Store, fsys *chromafs.FS, name string) bool {
	t.Helper()
	s.ResetRequests()
	_, _ = fs.ReadFile(fsys, name)
	c := s.Requests()
	return c.Chunks+c.ChunksByID == 0
}

// TestPrefetchInParts: over a store that answers in parts, a bulk read
// (PrefetchEach, as grep's prefetch calls it) hands over and caches every
// page it would have with the whole answer at once, by id and by slug, in
// one read; and what it hands over, caches or reports when the parts
// bring a page twice, a page that fails its hash, or end in an error is
// what it would have been with the whole answer, except that a page
// whose chunks were complete and checked against the tree's hash may
// have been handed over already.
func TestPrefetchInParts(t *testing.T) {
	files := map[string]string{
		"a.md":          strings.Repeat("alpha line\n", 40),
		"b.md":          strings.Repeat("beta line\n", 40),
		"c.md":          "short\n",
		"d/e.md":        strings.Repeat("echo\n", 90),
		"empty.md":      "",
		"internal/s.md": "the secret\n",
	}
	visible := []string{"a.md", "b.md", "c.md", "d/e.md", "empty.md"}
	names := append(slices.Clone(visible), "internal/s.md", "nope.md")
	stores := []struct {
		name string
		new  func(t *testing.T) *memstore.Store
	}{
		{"by id", func(t *testing.T) *memstore.Store { return ingestMem(t, files) }},
		{"by slug", func(t *testing.T) *memstore.Store {
			return newMem(t, files, memstore.LoadOptions{ChunkSize: 64, WithSizes: true})
		}},
	}
	for _, st := range stores {
		t.Run(st.name+"/whole", func(t *testing.T) {
			s := st.new(t)
			fsys := mustNew(t, &partStore{Store: s})
			s.ResetRequests()
			got, err := prefetchAll(t, fsys, files, names)
			if err != nil {
				t.Fatal(err)
			}
			if c := s.Requests(); c.Chunks+c.ChunksByID != 1 {
				t.Errorf("requests = %+v; want one read", c)
			}
			if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, visible) {
				t.Errorf("handed over %v; want %v", keys, visible)
			}
			for _, name := range visible {
				if !cached(t, s, fsys, name) {
					t.Errorf("%s not cached", name)
				}
			}
		})

		t.Run(st.name+"/hash mismatch", func(t *testing.T) {
			s := st.new(t)
			// b.md's first chunk changes, same size: only the hash tells.
			var rec collection.Record
			for _, r := range s.Records() {
				if r.Metadata["page_slug"] == "b.md" && fmt.Sprint(r.Metadata["chunk_index"]) == "0" {
					rec = r
				}
			}
			rec.Document = strings.Replace(rec.Document, "beta", "BETA", 1)
			if err := s.Upsert(context.Background(), []collection.Record{rec}); err != nil {
				t.Fatal(err)
			}
			fsys := mustNew(t, &partStore{Store: s})
			got, err := prefetchAll(t, fsys, files, names)
			if !errors.Is(err, collection.ErrCorruptPage) || !strings.Contains(err.Error(), "b.md") {
				t.Fatalf("PrefetchEach = %v; want the corrupt b.md", err)
			}
			if _, ok := got["b.md"]; ok {
				t.Error("b.md handed over")
			}
			if cached(t, s, fsys, "b.md") || !cached(t, s, fsys, "a.md") {
				t.Error("b.md cached or a.md not")
			}
		})

		t.Run(st.name+"/read fails", func(t *testing.T) {
			s := st.new(t)
			n := 0
			for _, r := range s.Records() {
				if slug, ok := r.Metadata["page_slug"].(string); ok && slices.Contains(visible, slug) {
					n++
				}
			}
			p := &partStore{Store: s, failAfter: n / 2} // half the pages' records
			if n < 4 {
				t.Fatalf("%d records", n)
			}
			fsys := mustNew(t, p)
			got, err := prefetchAll(t, fsys, files, names)
			if !errors.Is(err, errPartRead) {
				t.Fatalf("PrefetchEach = %v; want the read's error", err)
			}
			if len(got) == 0 || len(got) == len(visible) {
				t.Errorf("handed over %d pages; want some (those complete before the error)", len(got))
			}
			for name := range got {
				if !cached(t, s, fsys, name) {
					t.Errorf("%s handed over, not cached", name)
				}
			}
		})
	}

	t.Run("by slug/canceled", func(t *testing.T) {
		// The caller gives up during the read (grep | head): nothing is
		// put into the cache, whose shared tier would only fail.
		s := newMem(t, files, memstore.LoadOptions{ChunkSize: 64, WithSizes: true})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p := &partStore{Store: s, afterPart: func(k int) {
			if k == 3 {
				cancel()
			}
		}}
		c := &putCounter{Memory: cachepkg.NewMemory(0)}
		fsys := mustNew(t, p, chromafs.WithCache(c))
		before := c.puts.Load()
		if err := fsys.Prefetch(ctx, names); !errors.Is(err, context.Canceled) {
			t.Fatalf("Prefetch = %v; want context.Canceled", err)
		}
		if n := c.puts.Load() - before; n != 0 {
			t.Errorf("%d puts into the cache after the caller gave up", n)
		}
	})

	t.Run("by slug/page again in a later part", func(t *testing.T) {
		// A record of a.md that the store had not handed over with the
		// rest of the page: a.md has one chunk more than the tree says,
		// as the whole answer would have shown.
		s := newMem(t, files, memstore.LoadOptions{ChunkSize: 64, WithSizes: true})
		p := &partStore{Store: s, extra: []collection.Chunk{{ID: "late", Slug: "a.md", Index: 0, Text: "alpha line\n"}}}
		fsys := mustNew(t, p)
		_, err := prefetchAll(t, fsys, files, names)
		if !errors.Is(err, collection.ErrCorruptPage) || !strings.Contains(err.Error(), `"a.md"`) || !strings.Contains(err.Error(), "chunks") {
			t.Fatalf("PrefetchEach = %v; want a.md's chunk count mismatch", err)
		}
		if cached(t, s, fsys, "a.md") || !cached(t, s, fsys, "b.md") {
			t.Error("a.md cached or b.md not")
		}
	})

	t.Run("by id/record under another page's id", func(t *testing.T) {
		// c.md#0 holds a chunk of b.md, and comes after b.md's own: b.md
		// read again by slug has a chunk too many, c.md has none.
		s := ingestMem(t, files)
		err := s.Upsert(context.Background(), []collection.Record{{
			ID: collection.ChunkID("c.md", 0), Document: "beta line\n",
			Metadata: map[string]any{"page_slug": "b.md", "chunk_index": 0},
		}})
		if err != nil {
			t.Fatal(err)
		}
		fsys := mustNew(t, &partStore{Store: s})
		got, err := prefetchAll(t, fsys, files, names)
		if !errors.Is(err, collection.ErrCorruptPage) {
			t.Fatalf("PrefetchEach = %v; want a corrupt page", err)
		}
		if _, ok := got["c.md"]; ok {
			t.Error("c.md handed over")
		}
		for _, name := range []string{"b.md", "c.md"} {
			if cached(t, s, fsys, name) {
				t.Errorf("%s cached", name)
			}
		}
		if !cached(t, s, fsys, "a.md") {
			t.Error("a.md not cached")
		}
	})
}
