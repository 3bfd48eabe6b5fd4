package chromafs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// newMem returns a memstore loaded with files (public unless under
// internal/), cut into chunks of chunkSize bytes.
func newMem(t testing.TB, files map[string]string, opt memstore.LoadOptions) *memstore.Store {
	t.Helper()
	s := memstore.New(t.Name())
	if opt.Access == nil {
		opt.Access = access
	}
	if err := memstore.Load(s, collection.DefaultLayout(), files, opt); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustNew(t testing.TB, s collection.Store, opts ...chromafs.Option) *chromafs.FS {
	t.Helper()
	fsys, err := chromafs.New(context.Background(), s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

func TestInvalidPaths(t *testing.T) {
	fsys := mustNew(t, newMem(t, map[string]string{"a/b.md": "x"}, memstore.LoadOptions{}))
	for _, name := range []string{"/a", "a/", "a//b.md", "a/./b.md", "a/../a/b.md", "..", "", "./a"} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) error = %v; want fs.ErrInvalid", name, err)
		}
		if _, err := fsys.Stat(name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Stat(%q) error = %v; want fs.ErrInvalid", name, err)
		}
	}
	for _, name := range []string{`a\b.md`, "a/B.md", "a/b.md/c", "nope"} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) error = %v; want fs.ErrNotExist", name, err)
		}
	}
	var pe *fs.PathError
	_, err := fsys.Open("nope")
	if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != "nope" {
		t.Errorf("Open(nope) error = %#v; want *fs.PathError{open nope}", err)
	}
}

// TestCorruptPages: a page whose chunks cannot be reassembled exactly is
// an error naming the page, never partial content.
func TestCorruptPages(t *testing.T) {
	tests := []struct {
		name    string
		entry   tree.Entry
		chunks  []collection.Record
		wantErr string
	}{
		{"gap", tree.Entry{Size: -1}, recs("p.md", 0, 2), "missing chunk index 1"},
		{"duplicate", tree.Entry{Size: -1}, recs("p.md", 0, 1, 1), "duplicate chunk index 1"},
		{"no chunks", tree.Entry{Size: -1}, nil, "has no chunks"},
		{"starts at 1", tree.Entry{Size: -1}, recs("p.md", 1, 2), "missing chunk index 0"},
		{"no index", tree.Entry{Size: -1}, append(recs("p.md", 0), collection.Record{ID: "x", Document: "x", Metadata: map[string]any{"page_slug": "p.md"}}), "no valid chunk index"},
		{"bad index", tree.Entry{Size: -1}, append(recs("p.md", 0), collection.Record{ID: "x", Document: "x", Metadata: map[string]any{"page_slug": "p.md", "chunk_index": "one"}}), "no valid chunk index"},
		{"size mismatch", tree.Entry{Size: 99}, recs("p.md", 0, 1), "tree records 99 bytes"},
		{"hash mismatch", tree.Entry{Size: -1, Hash: "sha256:0000"}, recs("p.md", 0, 1), "does not match the tree's sha256:0000"},
		{"chunk count mismatch", tree.Entry{Size: -1, Chunks: 3}, recs("p.md", 0, 1), "tree records 3 chunks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memstore.New(tt.name)
			e := tt.entry
			e.Slug, e.IsPublic, e.HasIsPublic = "p.md", true, true
			doc, err := tree.Encode([]tree.Entry{e}, false)
			if err != nil {
				t.Fatal(err)
			}
			records := append(tt.chunks, collection.Record{ID: "__path_tree__", Document: string(doc), System: true, Metadata: map[string]any{"_system": true}})
			if err := s.Upsert(context.Background(), records); err != nil {
				t.Fatal(err)
			}
			fsys := mustNew(t, s)
			data, err := fs.ReadFile(fsys, "p.md")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), `"p.md"`) {
				t.Fatalf("ReadFile = %q, %v; want error containing %q and the page name", data, err, tt.wantErr)
			}
			if !errors.Is(err, collection.ErrCorruptPage) {
				t.Errorf("error %v does not wrap ErrCorruptPage", err)
			}
			f, err := fsys.Open("p.md")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if n, err := f.Read(make([]byte, 10)); n != 0 || err == nil {
				t.Errorf("Read = %d, %v; want 0 and an error", n, err)
			}
		})
	}
}

func recs(slug string, idx ...int) []collection.Record {
	var out []collection.Record
	for k, i := range idx {
		out = append(out, collection.Record{
			ID:       fmt.Sprintf("%s#%d.%d", slug, i, k),
			Document: "c" + string(rune('0'+i)),
			Metadata: map[string]any{"page_slug": slug, "chunk_index": i},
		})
	}
	return out
}

// TestListingDoesNoContentRequest: with sizes in the tree, ls, stat, glob
// and walking never fetch content.
func TestListingDoesNoContentRequest(t *testing.T) {
	s := newMem(t, corpus(t), memstore.LoadOptions{WithSizes: true, ChunkSize: 50})
	fsys := mustNew(t, s, chromafs.WithGroups("staff"))
	s.ResetRequests()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		_, err = d.Info()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Glob(fsys, "*/*/*.md"); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open("guides/quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.(io.Seeker).Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if n := s.Requests().Chunks; n != 0 {
		t.Fatalf("listing made %d chunk requests; want 0", n)
	}
}

// TestSizeWithoutTreeSizes: without sizes in the tree, Stat still reports
// the true size, fetching the page once.
func TestSizeWithoutTreeSizes(t *testing.T) {
	s := newMem(t, map[string]string{"a.md": "hello, world\n"}, memstore.LoadOptions{ChunkSize: 4})
	fsys := mustNew(t, s)
	for range 3 {
		fi, err := fsys.Stat("a.md")
		if err != nil || fi.Size() != 13 {
			t.Fatalf("Stat = %v, %v; want size 13", fi, err)
		}
	}
	if n := s.Requests().Chunks; n != 1 {
		t.Fatalf("3 Stats made %d chunk requests; want 1", n)
	}
}

// TestConcurrentReadsOneFetch: concurrent reads of one page cost one fetch.
func TestConcurrentReadsOneFetch(t *testing.T) {
	s := newMem(t, map[string]string{"a.md": strings.Repeat("x\n", 5000)}, memstore.LoadOptions{ChunkSize: 100})
	gate := make(chan struct{})
	s.SetHook(func(ctx context.Context, op string) error {
		if op == "Chunks" {
			<-gate
		}
		return nil
	})
	fsys := mustNew(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			data, err := fs.ReadFile(fsys, "a.md")
			if err == nil && len(data) != 10000 {
				err = errors.New("short read")
			}
			errs <- err
		})
	}
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Requests().Chunks; n != 1 {
		t.Fatalf("50 concurrent reads made %d chunk requests; want 1", n)
	}
}

func TestStoreFailure(t *testing.T) {
	s := newMem(t, map[string]string{"a.md": "x"}, memstore.LoadOptions{})
	fsys := mustNew(t, s)
	boom := errors.New("connection refused")
	s.SetFailure(boom)
	_, err := fs.ReadFile(fsys, "a.md")
	if !errors.Is(err, boom) {
		t.Fatalf("ReadFile error = %v; want it to wrap the store's error", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "read" || pe.Path != "a.md" {
		t.Fatalf("ReadFile error = %#v; want *fs.PathError{read a.md}", err)
	}
	// Nothing wrong was cached: the same FS reads once the store recovers.
	s.SetFailure(nil)
	if data, err := fs.ReadFile(fsys, "a.md"); err != nil || string(data) != "x" {
		t.Fatalf("ReadFile after recovery = %q, %v", data, err)
	}
	// Bootstrap failures name the step.
	s.SetFailure(boom)
	if _, err := chromafs.New(context.Background(), s); !errors.Is(err, boom) || !strings.Contains(err.Error(), "fetch path tree") {
		t.Fatalf("New error = %v; want fetch path tree ... %v", err, boom)
	}
}

func TestBootstrapErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := chromafs.New(ctx, memstore.New("empty")); !errors.Is(err, collection.ErrNoTree) {
		t.Errorf("New on empty store error = %v; want ErrNoTree", err)
	}
	s := memstore.New("malformed")
	if err := s.Upsert(ctx, []collection.Record{{ID: "__path_tree__", Document: "H4sI not gzip", System: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromafs.New(ctx, s); !errors.Is(err, tree.ErrMalformed) {
		t.Errorf("New on malformed tree error = %v; want tree.ErrMalformed", err)
	}
}

func TestContextCancel(t *testing.T) {
	s := newMem(t, map[string]string{"a.md": "x"}, memstore.LoadOptions{})
	fsys := mustNew(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fs.ReadFile(fsys.WithContext(ctx), "a.md"); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadFile with cancelled context error = %v; want context.Canceled", err)
	}
	if data, err := fs.ReadFile(fsys, "a.md"); err != nil || string(data) != "x" {
		t.Fatalf("ReadFile on the original view = %q, %v", data, err)
	}
}

func TestSeekReadAt(t *testing.T) {
	content := "0123456789abcdef"
	for _, sizes := range []bool{true, false} {
		s := newMem(t, map[string]string{"a.md": content}, memstore.LoadOptions{ChunkSize: 3, WithSizes: sizes})
		fsys := mustNew(t, s)
		f, err := fsys.Open("a.md")
		if err != nil {
			t.Fatal(err)
		}
		rs := f.(io.ReadSeeker)
		if off, err := rs.Seek(-4, io.SeekEnd); err != nil || off != 12 {
			t.Fatalf("Seek(-4, end) = %d, %v", off, err)
		}
		b, _ := io.ReadAll(rs)
		if string(b) != "cdef" {
			t.Fatalf("read after seek = %q", b)
		}
		if _, err := rs.Seek(-1, io.SeekStart); !errors.Is(err, fs.ErrInvalid) {
			t.Fatalf("Seek(-1) error = %v; want fs.ErrInvalid", err)
		}
		buf := make([]byte, 8)
		if n, err := f.(io.ReaderAt).ReadAt(buf, 12); n != 4 || err != io.EOF || string(buf[:n]) != "cdef" {
			t.Fatalf("ReadAt(12) = %d, %v, %q; want 4, EOF", n, err, buf[:n])
		}
		f.Close()
		if _, err := f.Read(buf); !errors.Is(err, fs.ErrClosed) {
			t.Fatalf("Read after Close error = %v; want fs.ErrClosed", err)
		}
	}
}

func TestSeparator(t *testing.T) {
	s := memstore.New("sep")
	err := memstore.Load(s, collection.DefaultLayout(), map[string]string{"a.md": "one\ntwo\nthree"},
		memstore.LoadOptions{ChunkSize: 4, Separator: "\n"})
	if err != nil {
		t.Fatal(err)
	}
	fsys := mustNew(t, s, chromafs.WithSeparator("\n"))
	if data, err := fs.ReadFile(fsys, "a.md"); err != nil || string(data) != "one\ntwo\nthree" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
}

// TestBadSlugsSkipped: unsafe slugs in a tree are never served, and
// Problems reports them.
func TestBadSlugsSkipped(t *testing.T) {
	s := memstore.New("bad")
	doc := `{"ok.md":{"isPublic":true},"../x":{"isPublic":true},"/abs":{"isPublic":true},"a//b":{"isPublic":true},"dir":{"isPublic":true},"dir/f.md":{"isPublic":true}}`
	records := append(recs("ok.md", 0), recs("dir/f.md", 0)...)
	records = append(records, collection.Record{ID: "__path_tree__", Document: doc, System: true})
	if err := s.Upsert(context.Background(), records); err != nil {
		t.Fatal(err)
	}
	fsys := mustNew(t, s)
	if err := fstest.TestFS(fsys, "ok.md", "dir/f.md"); err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, p := range fsys.Problems() {
		bad = append(bad, p.Slug)
	}
	for _, want := range []string{"../x", "/abs", "a//b", "dir"} {
		found := false
		for _, b := range bad {
			found = found || b == want
		}
		if !found {
			t.Errorf("Problems() = %q; missing %q", bad, want)
		}
	}
}

// ingestMem writes files with chromafs's ingest into a memstore.
func ingestMem(t *testing.T, files map[string]string) *memstore.Store {
	t.Helper()
	s := memstore.New(t.Name())
	ingested(t, s, files)
	return s
}

// TestReadByID: a collection that declares ChunkIDScheme is read by id
// (one direct lookup per read or prefetch), and falls back to the slug
// query when the ids do not give exactly the expected chunks — without
// ever handing out a record of another page.
func TestReadByID(t *testing.T) {
	files := map[string]string{
		"a.md":          strings.Repeat("alpha line\n", 100),
		"b.md":          strings.Repeat("beta line\n", 100),
		"c.md":          "short\n",
		"internal/s.md": "the secret\n",
	}
	ctx := context.Background()

	t.Run("by id", func(t *testing.T) {
		s := ingestMem(t, files)
		fsys := mustNew(t, s)
		s.ResetRequests()
		if data, err := fs.ReadFile(fsys, "a.md"); err != nil || string(data) != files["a.md"] {
			t.Fatalf("ReadFile = %d bytes, %v", len(data), err)
		}
		if err := fsys.Prefetch(ctx, []string{"b.md", "c.md", "internal/s.md"}); err != nil {
			t.Fatal(err)
		}
		if c := s.Requests(); c.ChunksByID != 2 || c.Chunks != 0 {
			t.Fatalf("requests = %+v; want 2 ChunksByID and no Chunks", c)
		}
	})

	t.Run("each", func(t *testing.T) {
		// PrefetchEach hands over every visible page it loads, with the
		// content a read gives; not the cached, hidden or missing ones.
		s := ingestMem(t, files)
		fsys := mustNew(t, s)
		if _, err := fs.ReadFile(fsys, "c.md"); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		var mu sync.Mutex
		err := fsys.PrefetchEach(ctx, []string{"a.md", "b.md", "c.md", "internal/s.md", "nope.md"}, func(name string, data []byte) {
			mu.Lock()
			defer mu.Unlock()
			got[name] = string(data)
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"a.md": files["a.md"], "b.md": files["b.md"]}
		if !maps.Equal(got, want) {
			t.Fatalf("handed over %d pages %v; want a.md and b.md with their content", len(got), slices.Sorted(maps.Keys(got)))
		}
		s.ResetRequests()
		if data, err := fs.ReadFile(fsys, "b.md"); err != nil || string(data) != files["b.md"] {
			t.Fatalf("ReadFile(b.md) = %d bytes, %v", len(data), err)
		}
		if c := s.Requests(); c.ChunksByID+c.Chunks != 0 {
			t.Fatalf("requests after PrefetchEach = %+v; want the page cached", c)
		}
	})

	t.Run("fallback", func(t *testing.T) {
		s := ingestMem(t, files)
		// Re-key chunk 1 of b.md, as another writer might: the id lookup
		// misses it, the slug query finds it.
		rec, ok := s.Get(collection.ChunkID("b.md", 1))
		if !ok {
			t.Fatal("no chunk b.md#1")
		}
		if err := s.Delete(ctx, []string{rec.ID}); err != nil {
			t.Fatal(err)
		}
		rec.ID = "other-writer-id"
		if err := s.Upsert(ctx, []collection.Record{rec}); err != nil {
			t.Fatal(err)
		}
		fsys := mustNew(t, s)
		s.ResetRequests()
		if data, err := fs.ReadFile(fsys, "b.md"); err != nil || string(data) != files["b.md"] {
			t.Fatalf("ReadFile = %d bytes, %v", len(data), err)
		}
		if c := s.Requests(); c.ChunksByID != 1 || c.Chunks != 1 {
			t.Fatalf("requests = %+v; want one by id, then one by slug", c)
		}
	})

	t.Run("foreign record under a page's id", func(t *testing.T) {
		s := ingestMem(t, files)
		// c.md#0 now holds a chunk of the hidden page.
		if err := s.Upsert(ctx, []collection.Record{{
			ID: collection.ChunkID("c.md", 0), Document: "the secret\n",
			Metadata: map[string]any{"page_slug": "internal/s.md", "chunk_index": 0},
		}}); err != nil {
			t.Fatal(err)
		}
		fsys := mustNew(t, s)
		data, err := fs.ReadFile(fsys, "c.md")
		if strings.Contains(string(data), "secret") {
			t.Fatalf("ReadFile(c.md) handed out another page's record: %q", data)
		}
		if err == nil {
			t.Fatalf("ReadFile(c.md) = %q; want an error: its only chunk is gone", data)
		}
	})

	t.Run("foreign collection reads by slug", func(t *testing.T) {
		s := newMem(t, files, memstore.LoadOptions{ChunkSize: 7, WithSizes: true})
		fsys := mustNew(t, s)
		s.ResetRequests()
		if _, err := fs.ReadFile(fsys, "a.md"); err != nil {
			t.Fatal(err)
		}
		if c := s.Requests(); c.ChunksByID != 0 || c.Chunks != 1 {
			t.Fatalf("requests = %+v; want one by slug only", c)
		}
	})
}

// TestWithLayoutDefaults: WithLayout's empty fields keep their defaults,
// so a layout that names only the tree record reads chunks by the default
// slug and index fields.
func TestWithLayoutDefaults(t *testing.T) {
	ctx := context.Background()
	doc, err := tree.Encode([]tree.Entry{{Slug: "a.md", HasIsPublic: true, IsPublic: true, Size: -1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New(t.Name())
	def := collection.DefaultLayout()
	err = st.Upsert(ctx, []collection.Record{
		{ID: "custom-tree", Document: string(doc), System: true},
		{ID: "a.md#0", Document: "hello", Metadata: map[string]any{def.SlugField: "a.md", def.IndexField: 0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := chromafs.New(ctx, st, chromafs.WithLayout(collection.Layout{TreeID: "custom-tree"}))
	if err != nil {
		t.Fatal(err)
	}
	if data, err := fs.ReadFile(fsys, "a.md"); err != nil || string(data) != "hello" {
		t.Fatalf("ReadFile = %q, %v; want hello", data, err)
	}
	if _, err := chromafs.New(ctx, st); !errors.Is(err, collection.ErrNoTree) {
		t.Fatalf("New with the default tree id = %v; want ErrNoTree", err)
	}
}

type ctxKey struct{}

// TestBindContext: BindContext binds a context to a view that none was
// bound to, and leaves a binding of WithContext (and its Sub views) as it
// is; the adapters rely on both.
func TestBindContext(t *testing.T) {
	ctx := context.Background()
	doc, err := tree.Encode([]tree.Entry{{Slug: "d/a.md", HasIsPublic: true, IsPublic: true, Size: -1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New(t.Name())
	if err := st.Upsert(ctx, []collection.Record{{ID: collection.DefaultLayout().TreeID, Document: string(doc), System: true}}); err != nil {
		t.Fatal(err)
	}
	fsys, err := chromafs.New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	req := context.WithValue(ctx, ctxKey{}, "request")
	v, ok := fsys.BindContext(req).(*chromafs.FS)
	if !ok || v.Context().Value(ctxKey{}) != "request" || fsys.Context().Value(ctxKey{}) != nil {
		t.Fatalf("BindContext of an unbound FS: view context %v; want the request's, and fsys unchanged", v.Context())
	}
	var none context.Context // a nil context binds nothing
	if got := fsys.BindContext(none); got != fs.FS(fsys) {
		t.Fatalf("BindContext(nil) = %v; want fsys", got)
	}
	creator := context.WithValue(ctx, ctxKey{}, "creator")
	bound := fsys.WithContext(creator)
	if got := bound.BindContext(req); got != fs.FS(bound) {
		t.Fatalf("BindContext of a bound FS = %v; want the FS itself", got)
	}
	sub, err := fs.Sub(bound, "d")
	if err != nil {
		t.Fatal(err)
	}
	if got := sub.(*chromafs.FS).BindContext(req).(*chromafs.FS); got.Context().Value(ctxKey{}) != "creator" {
		t.Fatalf("BindContext of a Sub view of a bound FS: context %v; want the creator's", got.Context())
	}
}
