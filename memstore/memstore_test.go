package memstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/collection/storetest"
)

var layout = collection.DefaultLayout()

func chunkRec(id, slug string, index any, text string) collection.Record {
	md := map[string]any{layout.SlugField: slug}
	if index != nil {
		md[layout.IndexField] = index
	}
	return collection.Record{ID: id, Document: text, Metadata: md}
}

func mustUpsert(t *testing.T, s *Store, recs ...collection.Record) {
	t.Helper()
	if err := s.Upsert(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
}

func ids(s *Store) []string {
	var out []string
	for _, r := range s.Records() {
		out = append(out, r.ID)
	}
	return out
}

func TestUpsertKeepsInsertionOrder(t *testing.T) {
	s := New("c")
	mustUpsert(t, s, chunkRec("b", "p", 0, "B"), chunkRec("a", "p", 1, "A"), chunkRec("c", "q", 0, "C"))
	mustUpsert(t, s, chunkRec("a", "p", 1, "A2"), chunkRec("d", "q", 1, "D"))
	if got, want := ids(s), []string{"b", "a", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("ids = %v, want %v", got, want)
	}
	if r, ok := s.Get("a"); !ok || r.Document != "A2" {
		t.Fatalf("Get(a) = %+v, %v; want document A2", r, ok)
	}
	if s.Len() != 4 {
		t.Fatalf("Len = %d, want 4", s.Len())
	}
	if err := s.Delete(context.Background(), []string{"a", "nope"}); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(s), []string{"b", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("after delete ids = %v, want %v", got, want)
	}
	if _, ok := s.Get("a"); ok {
		t.Fatal("Get(a) found a deleted record")
	}
	mustUpsert(t, s, chunkRec("a", "p", 1, "A3"))
	if got, want := ids(s), []string{"b", "c", "d", "a"}; !slices.Equal(got, want) {
		t.Fatalf("after re-add ids = %v, want %v", got, want)
	}
}

func TestUpsertMergesMetadata(t *testing.T) {
	s := New("c")
	mustUpsert(t, s, collection.Record{ID: "a", Document: "1", Metadata: map[string]any{"x": 1, "y": 2, "z": nil}})
	if r, _ := s.Get("a"); len(r.Metadata) != 2 {
		t.Fatalf("nil value stored: %v", r.Metadata)
	}
	mustUpsert(t, s, collection.Record{ID: "a", Document: "2", Metadata: map[string]any{"x": 10, "y": nil, "w": true}})
	r, _ := s.Get("a")
	if r.Document != "2" || len(r.Metadata) != 2 || r.Metadata["x"] != 10 || r.Metadata["w"] != true {
		t.Fatalf("after merge: %+v", r)
	}
	mustUpsert(t, s, collection.Record{ID: "a", Document: "3"})
	if r, _ := s.Get("a"); r.Document != "3" || len(r.Metadata) != 2 {
		t.Fatalf("upsert without metadata: %+v", r)
	}
	mustUpsert(t, s, collection.Record{ID: "b", Document: "x"})
	if r, _ := s.Get("b"); r.Metadata != nil {
		t.Fatalf("record without metadata got %v", r.Metadata)
	}
}

func TestUpsertCopies(t *testing.T) {
	s := New("c")
	r := chunkRec("a", "p", 0, "x")
	mustUpsert(t, s, r)
	r.Metadata[layout.SlugField] = "changed"
	got, _ := s.Get("a")
	if got.Metadata[layout.SlugField] != "p" {
		t.Fatal("store shares metadata with the caller's record")
	}
	got.Metadata[layout.SlugField] = "changed"
	if again, _ := s.Get("a"); again.Metadata[layout.SlugField] != "p" {
		t.Fatal("Get returns the store's own metadata map")
	}
}

func TestUpsertEmptyID(t *testing.T) {
	s := New("c")
	err := s.Upsert(context.Background(), []collection.Record{chunkRec("a", "p", 0, ""), {Document: "x"}})
	if err == nil || !strings.Contains(err.Error(), "empty id") {
		t.Fatalf("err = %v, want an empty id error", err)
	}
	if s.Len() != 0 {
		t.Fatal("a failed upsert wrote records")
	}
}

func TestChunks(t *testing.T) {
	s := New("c")
	mustUpsert(t, s,
		chunkRec("a1", "a", 1, "A1"),
		chunkRec("b0", "b", 0, "B0"),
		chunkRec("a0", "a", 0, "A0"),
		chunkRec("c0", "c", 0, "C0"),
		collection.Record{ID: "__path_tree__", Document: "{}", Metadata: map[string]any{"_system": true}},
		collection.Record{ID: "noslug", Document: "x", Metadata: map[string]any{"other": 1}},
		collection.Record{ID: "intslug", Document: "x", Metadata: map[string]any{layout.SlugField: 7}},
	)
	ctx := context.Background()
	got, err := s.Chunks(ctx, layout, []string{"a", "c", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	want := []collection.Chunk{
		{ID: "a1", Slug: "a", Index: 1, Text: "A1"},
		{ID: "a0", Slug: "a", Index: 0, Text: "A0"},
		{ID: "c0", Slug: "c", Index: 0, Text: "C0"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Chunks = %+v\nwant %+v", got, want)
	}
	if _, err := s.Chunks(ctx, layout, nil); err == nil {
		t.Fatal("Chunks with no slugs succeeded")
	}
}

func TestChunkIndex(t *testing.T) {
	tests := []struct {
		name  string
		index any
		want  int
	}{
		{"int", 3, 3},
		{"int64", int64(4), 4},
		{"uint8", uint8(5), 5},
		{"missing", nil, collection.NoIndex},
		{"negative", -1, collection.NoIndex},
		{"float", 2.0, collection.NoIndex},
		{"string", "2", collection.NoIndex},
		{"bool", true, collection.NoIndex},
		{"huge uint64", uint64(1) << 63, collection.NoIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New("c")
			mustUpsert(t, s, chunkRec("x", "p", tt.index, "t"))
			got, err := s.Chunks(context.Background(), layout, []string{"p"})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Index != tt.want {
				t.Fatalf("Chunks = %+v, want index %d", got, tt.want)
			}
		})
	}
}

func TestCustomLayout(t *testing.T) {
	l := collection.Layout{SlugField: "path", IndexField: "n", TreeID: "tree"}
	s := New("c")
	mustUpsert(t, s,
		collection.Record{ID: "1", Document: "x", Metadata: map[string]any{"path": "p", "n": 0}},
		chunkRec("2", "p", 1, "y"), // default layout fields: not a chunk of l
	)
	got, err := s.Chunks(context.Background(), l, []string{"p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "1" || got[0].Index != 0 {
		t.Fatalf("Chunks = %+v", got)
	}
	m, err := s.ChunkIDs(context.Background(), l, []string{"p"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m["p"], []string{"1"}) {
		t.Fatalf("ChunkIDs = %v", m)
	}
}

func TestScan(t *testing.T) {
	s := New("c")
	var want []string
	for i := range 2*ScanBatch + 5 {
		id := fmt.Sprint("r", i)
		mustUpsert(t, s, chunkRec(id, fmt.Sprint("p", i%7), i/7, "text"))
		want = append(want, id)
	}
	mustUpsert(t, s, collection.Record{ID: "__path_tree__", Document: "{}"})
	ctx := context.Background()

	for _, withText := range []bool{false, true} {
		var got []string
		var batches int
		err := s.Scan(ctx, layout, withText, func(cs []collection.Chunk) error {
			batches++
			if len(cs) > ScanBatch {
				t.Errorf("batch of %d chunks", len(cs))
			}
			// The callback may use the store.
			if _, err := s.IDs(ctx); err != nil {
				return err
			}
			for _, c := range cs {
				got = append(got, c.ID)
				if (c.Text != "") != withText {
					t.Errorf("withText=%v: chunk %s text %q", withText, c.ID, c.Text)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || batches != 3 {
			t.Fatalf("withText=%v: %d batches, ids %v", withText, batches, got)
		}
	}

	stop := errors.New("stop")
	var calls int
	err := s.Scan(ctx, layout, false, func([]collection.Chunk) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("Scan = %v after %d calls, want stop after 1", err, calls)
	}
}

func TestIDsAndChunkIDs(t *testing.T) {
	s := New("c")
	mustUpsert(t, s, chunkRec("a0", "a", 0, ""), chunkRec("b0", "b", 0, ""), chunkRec("a1", "a", 1, ""),
		collection.Record{ID: "__path_tree__", Document: "{}"})
	ctx := context.Background()
	all, err := s.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a0", "b0", "a1", "__path_tree__"}; !slices.Equal(all, want) {
		t.Fatalf("IDs = %v, want %v", all, want)
	}
	m, err := s.ChunkIDs(ctx, layout, []string{"a", "zz"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || !slices.Equal(m["a"], []string{"a0", "a1"}) {
		t.Fatalf("ChunkIDs = %v", m)
	}
}

func TestRequestsAndFailure(t *testing.T) {
	s := New("c")
	ctx := context.Background()
	mustUpsert(t, s, chunkRec("a0", "a", 0, "x"))
	s.Tree(ctx, "t")
	s.Chunks(ctx, layout, []string{"a"})
	s.Chunks(ctx, layout, []string{"a"})
	s.Scan(ctx, layout, false, func([]collection.Chunk) error { return nil })
	s.IDs(ctx)
	s.ChunkIDs(ctx, layout, []string{"a"})
	s.Delete(ctx, []string{"zz"})
	want := Counts{Tree: 1, Chunks: 2, Scan: 1, IDs: 1, Upsert: 1, Delete: 1, ChunkIDs: 1}
	if got := s.Requests(); got != want {
		t.Fatalf("Requests = %+v, want %+v", got, want)
	}
	if want.Total() != 8 {
		t.Fatalf("Total = %d", want.Total())
	}

	boom := errors.New("boom")
	s.SetFailure(boom)
	calls := map[string]func() error{
		OpTree:   func() error { _, err := s.Tree(ctx, "t"); return err },
		OpChunks: func() error { _, err := s.Chunks(ctx, layout, []string{"a"}); return err },
		OpScan: func() error {
			return s.Scan(ctx, layout, true, func([]collection.Chunk) error { return nil })
		},
		OpIDs:      func() error { _, err := s.IDs(ctx); return err },
		OpUpsert:   func() error { return s.Upsert(ctx, []collection.Record{chunkRec("n", "n", 0, "")}) },
		OpDelete:   func() error { return s.Delete(ctx, []string{"a0"}) },
		OpChunkIDs: func() error { _, err := s.ChunkIDs(ctx, layout, []string{"a"}); return err },
	}
	for op, call := range calls {
		if err := call(); !errors.Is(err, boom) || !strings.Contains(err.Error(), op) {
			t.Errorf("%s under failure: err = %v", op, err)
		}
	}
	if s.Len() != 1 {
		t.Fatalf("failing calls changed the store: %v", ids(s))
	}
	s.SetFailure(nil)
	if _, err := s.IDs(ctx); err != nil {
		t.Fatalf("after SetFailure(nil): %v", err)
	}
	s.ResetRequests()
	if s.Requests() != (Counts{}) {
		t.Fatal("ResetRequests did not reset")
	}
}

func TestContextCancellation(t *testing.T) {
	s := New("c")
	mustUpsert(t, s, chunkRec("a0", "a", 0, "x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Chunks(ctx, layout, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Chunks with cancelled context: %v", err)
	}
	if _, err := s.Tree(ctx, "t"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Tree with cancelled context: %v", err)
	}
	if err := s.Upsert(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Upsert with cancelled context: %v", err)
	}
}

func TestHookBlocksUntilDeadline(t *testing.T) {
	s := New("c")
	mustUpsert(t, s, chunkRec("a0", "a", 0, "x"))
	var ops []string
	var mu sync.Mutex
	s.SetHook(func(ctx context.Context, op string) error {
		mu.Lock()
		ops = append(ops, op)
		mu.Unlock()
		if op == OpChunks {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Chunks(ctx, layout, []string{"a"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Chunks = %v, want deadline exceeded", err)
	}
	if _, err := s.Tree(context.Background(), "t"); !errors.Is(err, collection.ErrNoTree) {
		t.Fatalf("Tree = %v", err)
	}
	if want := []string{OpChunks, OpTree}; !slices.Equal(ops, want) {
		t.Fatalf("hook saw %v, want %v", ops, want)
	}
	s.SetHook(nil)
	if _, err := s.Chunks(context.Background(), layout, []string{"a"}); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New("c")
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				slug := fmt.Sprint("p", w)
				id := fmt.Sprint(slug, "#", i%5)
				if err := s.Upsert(ctx, []collection.Record{chunkRec(id, slug, i%5, "t")}); err != nil {
					t.Error(err)
				}
				if _, err := s.Chunks(ctx, layout, []string{slug}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					s.Delete(ctx, []string{id})
				}
				s.Scan(ctx, layout, true, func([]collection.Chunk) error { return nil })
				s.Requests()
			}
		})
	}
	wg.Wait()
	if got := s.Requests().Upsert; got != 400 {
		t.Fatalf("Upsert count = %d, want 400", got)
	}
}

func TestSearch(t *testing.T) {
	s := New("search")
	mustUpsert(t, s,
		chunkRec("a0", "a.md", 0, "Needle one"),
		chunkRec("a1", "a.md", 1, "hay"),
		chunkRec("b0", "b.md", 0, "needle two"),
		chunkRec("c0", "c.md", 0, "needle three"),
		collection.Record{ID: "t", Document: "needle", Metadata: map[string]any{"_system": true}},
	)
	ctx := context.Background()
	ids := func(cs []collection.Chunk) []string {
		var out []string
		for _, c := range cs {
			if c.Text != "" {
				t.Errorf("chunk %s has text", c.ID)
			}
			out = append(out, c.ID)
		}
		return out
	}
	for _, tc := range []struct {
		f    collection.TextFilter
		want []string
	}{
		{collection.TextFilter{Contains: []string{"needle"}}, []string{"b0"}},
		{collection.TextFilter{Regexes: []string{"(?i)^needle"}}, []string{"a0", "b0"}},
		{collection.TextFilter{Contains: []string{"hay"}, Regexes: []string{"two$"}}, []string{"a1", "b0"}},
		{collection.TextFilter{}, []string{"a0", "a1", "b0"}},
	} {
		got, err := s.Search(ctx, layout, collection.Scope{Slugs: []string{"a.md", "b.md"}}, tc.f)
		if err != nil || !slices.Equal(ids(got), tc.want) {
			t.Errorf("Search(%+v) = %v, %v; want %v", tc.f, ids(got), err, tc.want)
		}
	}
	if _, err := s.Search(ctx, layout, collection.Scope{}, collection.TextFilter{}); err == nil {
		t.Error("Search of no slugs succeeded")
	}
	if _, err := s.Search(ctx, layout, collection.Scope{Slugs: []string{"a.md"}}, collection.TextFilter{Regexes: []string{"("}}); err == nil {
		t.Error("Search with an invalid regex succeeded")
	}
	if n := s.Requests().Search; n != 6 {
		t.Errorf("Requests().Search = %d, want 6", n)
	}
}

// TestStore runs the conformance suite of collection.Store.
func TestStore(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) storetest.Store { return New(t.Name()) }, storetest.Options{})
}
