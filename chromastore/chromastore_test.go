package chromastore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/collection/storetest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

var layout = collection.DefaultLayout()

// recorder is an http.RoundTripper that checks every request against
// the limits in the package documentation and counts requests by path
// suffix.
type recorder struct {
	t    *testing.T
	base http.RoundTripper

	mu       sync.Mutex
	counts   map[string]int // "get", "upsert", ...
	maxBody  int
	maxIn    int
	maxLimit int
	maxIDs   int // most ids in one get
	inFlight int
	peak     int // most requests at once
}

func newRecorder(t *testing.T) *recorder {
	return &recorder{t: t, base: http.DefaultTransport, counts: map[string]int{}}
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	op := req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]
	r.mu.Lock()
	r.counts[op]++
	r.maxBody = max(r.maxBody, len(body))
	r.inFlight++
	r.peak = max(r.peak, r.inFlight)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	if op == "get" && req.Method == http.MethodPost {
		var g struct {
			IDs     []string                  `json:"ids"`
			Where   map[string]map[string]any `json:"where"`
			Include []string                  `json:"include"`
			Limit   *int                      `json:"limit"`
			Doc     map[string]any            `json:"where_document"`
		}
		if err := json.Unmarshal(body, &g); err != nil {
			r.t.Errorf("get body %s: %v", body, err)
		}
		// A search has a where_document, or (with a zero filter) the
		// shape of a ChunkIDs get, whose limits it may use.
		search := g.Doc != nil || slices.Equal(g.Include, []string{"metadatas"})
		maxLimit := chromastore.PageSize
		switch {
		case search:
			maxLimit = chromastore.SearchPageSize
		case len(g.Where) > 0 && slices.Contains(g.Include, "documents"): // Chunks
			maxLimit = chromastore.ChunksPageSize
		}
		if len(g.IDs) == 0 && (g.Limit == nil || *g.Limit <= 0 || *g.Limit > maxLimit) {
			r.t.Errorf("get without a limit in 1..%d: %s", maxLimit, body)
		}
		if len(g.IDs) > chromastore.PageSize {
			r.t.Errorf("get of %d ids", len(g.IDs))
		}
		r.mu.Lock()
		r.maxIDs = max(r.maxIDs, len(g.IDs))
		if g.Limit != nil {
			r.maxLimit = max(r.maxLimit, *g.Limit)
		}
		for _, cond := range g.Where {
			if in, ok := cond["$in"].([]any); ok {
				limit := chromastore.MaxIn
				if search {
					limit = chromastore.SearchMaxIn
				}
				if len(in) == 0 || len(in) > limit {
					r.t.Errorf("$in with %d values", len(in))
				}
				r.maxIn = max(r.maxIn, len(in))
			}
		}
		r.mu.Unlock()
	}
	return r.base.RoundTrip(req)
}

func (r *recorder) count(op string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[op]
}

// open creates a new collection for t on the shared server.
func open(t *testing.T, rec *recorder) (*chromastore.Collection, chromastore.Config) {
	t.Helper()
	srv := testenv.Chroma(t)
	cfg := chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t), Create: true}
	if rec != nil {
		cfg.HTTPClient = &http.Client{Transport: rec}
	}
	c := testbackend.OpenChroma(t, cfg)
	t.Cleanup(func() {
		if !t.Failed() {
			cfg.HTTPClient = nil
			_ = chromastore.DeleteCollection(context.Background(), cfg)
		}
	})
	return c, cfg
}

func content(slug string, index any, text string) collection.Record {
	md := map[string]any{layout.SlugField: slug}
	if index != nil {
		md[layout.IndexField] = index
	}
	return collection.Record{ID: fmt.Sprintf("%s#%v", slug, index), Document: text, Metadata: md}
}

func treeRecord(doc string) collection.Record {
	return collection.Record{ID: layout.TreeID, Document: doc, System: true, Metadata: map[string]any{"format": "json"}}
}

func sortChunks(cs []collection.Chunk) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Slug != cs[j].Slug {
			return cs[i].Slug < cs[j].Slug
		}
		return cs[i].Index < cs[j].Index
	})
}

// rawGet asks Chroma for records with embeddings, bypassing chromastore.
func rawGet(t *testing.T, c *chromastore.Collection, ids ...string) (res struct {
	IDs        []string         `json:"ids"`
	Embeddings [][]float64      `json:"embeddings"`
	Metadatas  []map[string]any `json:"metadatas"`
}) {
	t.Helper()
	rawPost(t, c, "get", map[string]any{"ids": ids, "include": []string{"embeddings", "metadatas"}}, &res)
	return res
}

func rawPost(t *testing.T, c *chromastore.Collection, op string, body, out any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	rawPostBytes(t, c, op, b, out)
}

func rawPostBytes(t *testing.T, c *chromastore.Collection, op string, body []byte, out any) {
	t.Helper()
	u := testenv.Chroma(t).URL + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + c.CollectionID() + "/" + op
	resp, err := http.Post(u, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s: %s", op, resp.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStore runs the conformance suite of collection.Store on new
// collections of the test server, written with the consistent-hash
// function.
func TestStore(t *testing.T) {
	ef := chromastore.HashEmbedding(0)
	embed := func(ctx context.Context, text string) ([]float32, error) {
		vs, err := ef.EmbedDocuments(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		return vs[0], nil
	}
	storetest.TestStore(t, func(t *testing.T) storetest.Store {
		c, _ := open(t, nil)
		return c
	}, storetest.Options{Embed: embed})
}

func TestRoundTrip(t *testing.T) {
	c, cfg := open(t, nil)
	ctx := context.Background()
	if c.Name() != cfg.Collection || c.CollectionID() == "" {
		t.Fatalf("Name %q, CollectionID %q", c.Name(), c.CollectionID())
	}
	recs := []collection.Record{
		content("guide/intro.md", 0, "# Intro\nHello, "),
		content("guide/intro.md", 1, "world.\n"),
		content("api/users", 0, "GET /users\n"),
		content("Makefile", 0, "all:\n\tgo test ./...\n"),
		content("other.md", 0, "not asked for\n"),
		content("empty.md", 0, ""),
		treeRecord(`{"guide/intro.md":{"isPublic":true}}`),
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	got, err := c.Chunks(ctx, layout, []string{"guide/intro.md", "api/users", "Makefile", "empty.md", "missing.md", "api/users"})
	if err != nil {
		t.Fatal(err)
	}
	sortChunks(got)
	want := []collection.Chunk{
		{ID: "Makefile#0", Slug: "Makefile", Index: 0, Text: "all:\n\tgo test ./...\n"},
		{ID: "api/users#0", Slug: "api/users", Index: 0, Text: "GET /users\n"},
		{ID: "empty.md#0", Slug: "empty.md", Index: 0, Text: ""},
		{ID: "guide/intro.md#0", Slug: "guide/intro.md", Index: 0, Text: "# Intro\nHello, "},
		{ID: "guide/intro.md#1", Slug: "guide/intro.md", Index: 1, Text: "world.\n"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Chunks:\n got %+v\nwant %+v", got, want)
	}

	tree, err := c.Tree(ctx, layout.TreeID)
	if err != nil {
		t.Fatal(err)
	}
	if string(tree.Document) != `{"guide/intro.md":{"isPublic":true}}` {
		t.Errorf("tree document %q", tree.Document)
	}
	if tree.Metadata["format"] != "json" || tree.Metadata[chromastore.SystemKey] != true {
		t.Errorf("tree metadata %v", tree.Metadata)
	}

	if n, err := c.Count(ctx); err != nil || n != len(recs) {
		t.Errorf("Count = %d, %v; want %d", n, err, len(recs))
	}

	// Upsert replaces.
	if err := c.Upsert(ctx, []collection.Record{content("api/users", 0, "GET /users/{id}\n")}); err != nil {
		t.Fatal(err)
	}
	got, err = c.Chunks(ctx, layout, []string{"api/users"})
	if err != nil || len(got) != 1 || got[0].Text != "GET /users/{id}\n" {
		t.Errorf("after replacing: %+v, %v", got, err)
	}

	// A second Open of the same collection (no Create) sees the same records.
	cfg.Create = false
	c2, err := chromastore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.CollectionID() != c.CollectionID() {
		t.Errorf("second Open: id %s, want %s", c2.CollectionID(), c.CollectionID())
	}
	if got, err := c2.Chunks(ctx, layout, []string{"Makefile"}); err != nil || len(got) != 1 {
		t.Errorf("second Open: Chunks = %+v, %v", got, err)
	}
}

func TestCreateStoresNoHashFunction(t *testing.T) {
	_, cfg := open(t, nil)
	resp, err := http.Get(cfg.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + cfg.Collection)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var col struct {
		Configuration map[string]any `json:"configuration_json"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&col); err != nil {
		t.Fatal(err)
	}
	if ef := col.Configuration["embedding_function"]; ef != nil {
		t.Errorf("collection created with the hash function records embedding_function %v", ef)
	}
}

func TestCustomLayout(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	l := collection.Layout{SlugField: "path", IndexField: "part", TreeID: "tree"}
	err := c.Upsert(ctx, []collection.Record{
		{ID: "a0", Document: "A", Metadata: map[string]any{"path": "a", "part": 0}},
		{ID: "a1", Document: "B", Metadata: map[string]any{"path": "a", "part": 1, "page_slug": "decoy"}},
		{ID: "d0", Document: "D", Metadata: map[string]any{"page_slug": "a", "chunk_index": 0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Chunks(ctx, l, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	sortChunks(got)
	if len(got) != 2 || got[0].ID != "a0" || got[1].ID != "a1" || got[1].Index != 1 {
		t.Errorf("Chunks with a custom layout: %+v", got)
	}
	// A zero Layout means the default one.
	got, err = c.Chunks(ctx, collection.Layout{}, []string{"a"})
	if err != nil || len(got) != 1 || got[0].ID != "d0" {
		t.Errorf("Chunks with a zero layout: %+v, %v", got, err)
	}
}

func TestPaging(t *testing.T) {
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()

	// One page of 350 chunks (past one get of 300) and 450 pages of one
	// chunk (past one $in batch of 200), with 50 records of other pages.
	var recs []collection.Record
	for i := range 350 {
		recs = append(recs, content("big.md", i, fmt.Sprintf("line %d\n", i)))
	}
	var slugs []string
	for i := range 450 {
		slug := fmt.Sprintf("p/%03d.md", i)
		slugs = append(slugs, slug)
		recs = append(recs, content(slug, 0, slug+"\n"))
	}
	for i := range 50 {
		recs = append(recs, content(fmt.Sprintf("q/%d.md", i), 0, "other\n"))
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if n := rec.count("upsert"); n != 3 {
		t.Errorf("%d records took %d upserts, want 3", len(recs), n)
	}

	defer chromastore.SetChunksPageSize(chromastore.PageSize)()
	gets := rec.count("get")
	got, err := c.Chunks(ctx, layout, append([]string{"big.md"}, slugs...))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 800 {
		t.Fatalf("Chunks returned %d chunks, want 800", len(got))
	}
	seen := map[string]bool{}
	bigIdx := map[int]bool{}
	for _, ch := range got {
		if seen[ch.ID] {
			t.Errorf("chunk %s returned twice", ch.ID)
		}
		seen[ch.ID] = true
		if strings.HasPrefix(ch.Slug, "q/") {
			t.Errorf("chunk %s of a page not asked for", ch.ID)
		}
		if ch.Slug == "big.md" {
			bigIdx[ch.Index] = true
			if ch.Text != fmt.Sprintf("line %d\n", ch.Index) {
				t.Errorf("chunk %s: text %q", ch.ID, ch.Text)
			}
		}
	}
	if len(bigIdx) != 350 {
		t.Errorf("big.md: %d distinct indexes, want 350", len(bigIdx))
	}
	// 451 slugs: batches of 200, 200, 51 slugs holding 549, 200, 51
	// records: 2 + 1 + 1 pages of 300.
	if n := rec.count("get") - gets; n != 4 {
		t.Errorf("Chunks made %d gets, want 4", n)
	}
	if rec.maxIn != chromastore.MaxIn || rec.maxLimit != chromastore.PageSize {
		t.Errorf("largest $in %d, largest limit %d", rec.maxIn, rec.maxLimit)
	}

	// ChunksEach sends the same requests and hands over each page of
	// each answer, one call at a time: the same chunks in 4 parts.
	gets = rec.count("get")
	parts, each := eachParts(t, func(fn func([]collection.Chunk) error) error {
		return c.ChunksEach(ctx, layout, append([]string{"big.md"}, slugs...), fn)
	})
	if n := rec.count("get") - gets; n != 4 || parts != 4 {
		t.Errorf("ChunksEach made %d gets in %d parts, want 4 and 4", n, parts)
	}
	sortChunks(got)
	if !slices.Equal(each, got) {
		t.Errorf("ChunksEach handed over %d chunks, Chunks returned %d", len(each), len(got))
	}
	stop := errors.New("stop")
	if err := c.ChunksEach(ctx, layout, slugs, func([]collection.Chunk) error { return stop }); err != stop {
		t.Errorf("ChunksEach with fn failing = %v, want fn's error as it is", err)
	}

	ids, err := c.ChunkIDs(ctx, layout, append(slugs[:3:3], "big.md", "nope"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 4 || len(ids["big.md"]) != 350 || !slices.Equal(ids[slugs[0]], []string{slugs[0] + "#0"}) {
		t.Errorf("ChunkIDs: %d slugs, %d ids of big.md, %v", len(ids), len(ids["big.md"]), ids[slugs[0]])
	}

	all, err := c.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(recs) {
		t.Errorf("IDs returned %d ids, want %d", len(all), len(recs))
	}
}

func TestIndexConversion(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	// Written as raw JSON so that 1.0 stays a float.
	zero := "[" + strings.TrimSuffix(strings.Repeat("0,", 384), ",") + "]"
	cases := []struct{ id, index string }{
		{"int", `0`},
		{"float", `1.0`},
		{"string", `"2"`},
		{"big", `123456`},
		{"missing", ``},
		{"negative", `-1`},
		{"fraction", `1.5`},
		{"negfloat", `-2.0`},
		{"word", `"two"`},
		{"signed", `"+3"`},
		{"spaced", `" 3"`},
		{"emptystr", `""`},
		{"bool", `true`},
		{"huge", `9007199254740993`}, // 2⁵³+1: not a float64
	}
	// A string is not an index, not even "2".
	want := map[string]int{"int": 0, "float": 1, "big": 123456, "huge": 1<<53 + 1}
	var ids, metas, embs, docs []string
	for _, tc := range cases {
		ids = append(ids, fmt.Sprintf("%q", tc.id))
		md := `{"page_slug":"p"`
		if tc.index != "" {
			md += `,"chunk_index":` + tc.index
		}
		metas = append(metas, md+"}")
		embs = append(embs, zero)
		docs = append(docs, fmt.Sprintf("%q", tc.id))
	}
	body := fmt.Sprintf(`{"ids":[%s],"metadatas":[%s],"embeddings":[%s],"documents":[%s]}`,
		strings.Join(ids, ","), strings.Join(metas, ","), strings.Join(embs, ","), strings.Join(docs, ","))
	rawPostBytes(t, c, "upsert", []byte(body), nil)

	check := func(what string, chunks []collection.Chunk) {
		t.Helper()
		if len(chunks) != len(cases) {
			t.Fatalf("%s: %d chunks, want %d", what, len(chunks), len(cases))
		}
		for _, ch := range chunks {
			w, ok := want[ch.ID]
			if !ok {
				w = collection.NoIndex
			}
			if ch.Index != w {
				t.Errorf("%s: %s: Index = %d, want %d", what, ch.ID, ch.Index, w)
			}
		}
	}
	got, err := c.Chunks(ctx, layout, []string{"p"})
	if err != nil {
		t.Fatal(err)
	}
	check("Chunks", got)
	var scanned []collection.Chunk
	if err := c.Scan(ctx, layout, false, func(b []collection.Chunk) error { scanned = append(scanned, b...); return nil }); err != nil {
		t.Fatal(err)
	}
	check("Scan", scanned)
	var all []string
	for _, tc := range cases {
		all = append(all, tc.id)
	}
	byID, err := c.ChunksByID(ctx, layout, all)
	if err != nil {
		t.Fatal(err)
	}
	check("ChunksByID", byID)
}

func TestChunksByID(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	recs := []collection.Record{
		content("guide/intro.md", 0, "# Intro\nHello, "),
		content("guide/intro.md", 1, "world.\n"),
		content("api/users", 0, "GET /users\n"),
		content("empty.md", 0, ""),
		content("", 0, "empty slug"),
		content("noindex.md", nil, "no index"),
		treeRecord(`{"guide/intro.md":{"isPublic":true}}`),
		{ID: "no-slug", Document: "n", Metadata: map[string]any{"chunk_index": 0}},
		{ID: "int-slug", Document: "i", Metadata: map[string]any{"page_slug": 7, "chunk_index": 0}},
		{ID: "no-meta", Document: "m"},
		{ID: "other-layout", Document: "o", Metadata: map[string]any{"path": "x", "part": 2}},
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	got, err := c.ChunksByID(ctx, layout, []string{
		"guide/intro.md#1", "guide/intro.md#0", "api/users#0", "guide/intro.md#1", // a duplicate
		"empty.md#0", "#0", "noindex.md#<nil>", "missing#0", "guide/intro.md#2",
		layout.TreeID, "no-slug", "int-slug", "no-meta", "other-layout",
	})
	if err != nil {
		t.Fatal(err)
	}
	sortChunks(got)
	want := []collection.Chunk{
		{ID: "#0", Slug: "", Index: 0, Text: "empty slug"},
		{ID: "api/users#0", Slug: "api/users", Index: 0, Text: "GET /users\n"},
		{ID: "empty.md#0", Slug: "empty.md", Index: 0, Text: ""},
		{ID: "guide/intro.md#0", Slug: "guide/intro.md", Index: 0, Text: "# Intro\nHello, "},
		{ID: "guide/intro.md#1", Slug: "guide/intro.md", Index: 1, Text: "world.\n"},
		{ID: "noindex.md#<nil>", Slug: "noindex.md", Index: collection.NoIndex, Text: "no index"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ChunksByID:\n got %+v\nwant %+v", got, want)
	}

	// Only missing ids, and no ids at all.
	if got, err := c.ChunksByID(ctx, layout, []string{"missing#0", "missing#1"}); err != nil || len(got) != 0 {
		t.Errorf("ChunksByID of missing ids: %+v, %v", got, err)
	}
	if got, err := c.ChunksByID(ctx, layout, nil); err != nil || len(got) != 0 {
		t.Errorf("ChunksByID(nil): %+v, %v", got, err)
	}

	// Another layout: records are kept by its slug field, and indexes
	// come from its index field.
	l := collection.Layout{SlugField: "path", IndexField: "part"}
	got, err = c.ChunksByID(ctx, l, []string{"other-layout", "api/users#0"})
	if err != nil || !slices.Equal(got, []collection.Chunk{{ID: "other-layout", Slug: "x", Index: 2, Text: "o"}}) {
		t.Errorf("ChunksByID with a custom layout: %+v, %v", got, err)
	}
}

func TestChunksByIDBatches(t *testing.T) {
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()
	// 1,000 chunks of one page; ask for 1,150 ids (1,000 that exist, 150
	// that do not) plus 200 duplicates: 4 gets of at most 300 ids, all at
	// once.
	var recs []collection.Record
	var ids []string
	for i := range 1000 {
		recs = append(recs, content("big.md", i, fmt.Sprintf("line %d\n", i)))
		ids = append(ids, collection.ChunkID("big.md", i))
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	for i := 1000; i < 1150; i++ {
		ids = append(ids, collection.ChunkID("big.md", i))
	}
	ids = append(ids, ids[:200]...)
	gets := rec.count("get")
	rec.mu.Lock()
	rec.peak = 0
	rec.mu.Unlock()
	got, err := c.ChunksByID(ctx, layout, ids)
	if err != nil {
		t.Fatal(err)
	}
	if n := rec.count("get") - gets; n != 4 {
		t.Errorf("1,150 distinct ids took %d gets, want 4", n)
	}
	if rec.maxIDs != chromastore.PageSize {
		t.Errorf("largest get asked for %d ids, want %d", rec.maxIDs, chromastore.PageSize)
	}
	if rec.peak > 4 {
		t.Errorf("%d requests at once, want at most 4", rec.peak)
	}
	if len(got) != 1000 {
		t.Fatalf("ChunksByID returned %d chunks, want 1000", len(got))
	}
	parts, each := eachParts(t, func(fn func([]collection.Chunk) error) error {
		return c.ChunksByIDEach(ctx, layout, ids, fn)
	})
	sortChunks(got)
	if parts != 4 || !slices.Equal(each, got) {
		t.Errorf("ChunksByIDEach handed over %d chunks in %d parts; want ChunksByID's %d in 4", len(each), parts, len(got))
	}
	stop := errors.New("stop")
	if err := c.ChunksByIDEach(ctx, layout, ids, func([]collection.Chunk) error { return stop }); err != stop {
		t.Errorf("ChunksByIDEach with fn failing = %v, want fn's error as it is", err)
	}

	sortChunks(got)
	for i, ch := range got {
		if ch.Index != i || ch.ID != collection.ChunkID("big.md", i) || ch.Text != fmt.Sprintf("line %d\n", i) {
			t.Fatalf("chunk %d: %+v", i, ch)
		}
	}
}

// eachParts runs read, a ChunksEach or ChunksByIDEach, and returns the
// number of parts it handed over and their chunks, sorted; it fails t if
// a record comes twice or fn is called while another call runs.
func eachParts(t *testing.T, read func(fn func([]collection.Chunk) error) error) (int, []collection.Chunk) {
	t.Helper()
	var parts int
	var all []collection.Chunk
	var running atomic.Int32
	seen := map[string]bool{}
	err := read(func(chunks []collection.Chunk) error {
		if running.Add(1) != 1 {
			t.Error("fn called while another call runs")
		}
		defer running.Add(-1)
		parts++
		for _, ch := range chunks {
			if seen[ch.ID] {
				t.Errorf("record %s handed over twice", ch.ID)
			}
			seen[ch.ID] = true
		}
		all = append(all, chunks...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sortChunks(all)
	return parts, all
}

func TestTreeMissing(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	if err := c.Upsert(ctx, []collection.Record{content("a.md", 0, "a")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Tree(ctx, layout.TreeID)
	if !errors.Is(err, collection.ErrNoTree) {
		t.Fatalf("Tree of a collection without one: %v, want ErrNoTree", err)
	}
	if !strings.Contains(err.Error(), layout.TreeID) || !strings.Contains(err.Error(), c.Name()) {
		t.Errorf("error %q does not name the record and the collection", err)
	}
	// A gzip+base64 document comes back byte for byte.
	doc := "H4sIAAAAAAAA/6tWKkktLlGyUlAqS8wpTVWqBQBkGdmNEgAAAA=="
	if err := c.Upsert(ctx, []collection.Record{{ID: "custom-tree", Document: doc, System: true}}); err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree(ctx, "custom-tree")
	if err != nil || string(tree.Document) != doc {
		t.Errorf("Tree(custom-tree) = %q, %v", tree.Document, err)
	}
	// Large documents, which Tree decodes differently: base64 (no escapes)
	// and JSON (escapes), with non-ASCII text.
	b64 := strings.Repeat("H4sIAAAAAAAA/6tWKkktLlGyUlAqS8wpTVWqBQBkGdmNEgAAAA==", 5000)
	var js strings.Builder
	js.WriteString("{")
	for i := range 3000 {
		fmt.Fprintf(&js, `"pages/%d/é.md":{"isPublic":true},`, i)
	}
	js.WriteString(`"end":{}}`)
	for id, doc := range map[string]string{"b64-tree": b64, "json-tree": js.String()} {
		if err := c.Upsert(ctx, []collection.Record{{ID: id, Document: doc, System: true}}); err != nil {
			t.Fatal(err)
		}
		tree, err := c.Tree(ctx, id)
		if err != nil || string(tree.Document) != doc || tree.Metadata[chromastore.SystemKey] != true {
			t.Errorf("Tree(%s) = %d bytes, %v, %v; want %d bytes", id, len(tree.Document), tree.Metadata, err, len(doc))
		}
	}
}

func TestSystemRecord(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	// The first write is a system record: the dimension comes from a probe.
	if err := c.Upsert(ctx, []collection.Record{treeRecord("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := c.Upsert(ctx, []collection.Record{content("a.md", 0, "text"), content("b.md", 0, "")}); err != nil {
		t.Fatal(err)
	}
	res := rawGet(t, c, layout.TreeID, "a.md#0", "b.md#0")
	if len(res.IDs) != 3 {
		t.Fatalf("got %d records", len(res.IDs))
	}
	for i, id := range res.IDs {
		emb := res.Embeddings[i]
		if len(emb) != 384 {
			t.Errorf("%s: dimension %d, want 384", id, len(emb))
		}
		nonzero := slices.ContainsFunc(emb, func(f float64) bool { return f != 0 })
		switch id {
		case layout.TreeID:
			if nonzero {
				t.Errorf("tree record has a non-zero embedding")
			}
			if res.Metadatas[i]["_system"] != true || res.Metadatas[i]["format"] != "json" {
				t.Errorf("tree metadata %v", res.Metadatas[i])
			}
		case "a.md#0":
			if !nonzero {
				t.Errorf("content record has a zero embedding")
			}
			if _, ok := res.Metadatas[i]["_system"]; ok {
				t.Errorf("content record is marked _system")
			}
		case "b.md#0":
			if nonzero {
				t.Errorf("empty content record has a non-zero embedding")
			}
		}
	}
	// The caller's metadata map is not changed.
	r := treeRecord("{}")
	if err := c.Upsert(ctx, []collection.Record{r}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Metadata["_system"]; ok {
		t.Errorf("Upsert changed the caller's metadata")
	}
}

func TestHashEmbeddingCollection(t *testing.T) {
	srv := testenv.Chroma(t)
	ctx := context.Background()
	cfg := chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t), Create: true, Embedding: chromastore.HashEmbedding(4)}
	c, err := chromastore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		c.Close()
		_ = chromastore.DeleteCollection(context.Background(), cfg)
	}()
	if err := c.Upsert(ctx, []collection.Record{treeRecord("{}"), content("a.md", 0, "text")}); err != nil {
		t.Fatal(err)
	}
	res := rawGet(t, c, layout.TreeID, "a.md#0")
	if len(res.IDs) != 2 {
		t.Fatalf("got %d records", len(res.IDs))
	}
	for i, id := range res.IDs {
		if len(res.Embeddings[i]) != 4 {
			t.Errorf("%s: dimension %d, want 4", id, len(res.Embeddings[i]))
		}
	}
}

func TestDelete(t *testing.T) {
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()
	var recs []collection.Record
	var del []string
	for i := range 620 {
		r := content("d.md", i, "x")
		recs = append(recs, r)
		if i%2 == 0 {
			del = append(del, r.ID)
		}
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	del = append(del, "no-such-id")
	if err := c.Delete(ctx, del); err != nil {
		t.Fatal(err)
	}
	if n := rec.count("delete"); n != 2 {
		t.Errorf("deleting %d ids took %d requests, want 2", len(del), n)
	}
	if err := c.Delete(ctx, nil); err != nil {
		t.Errorf("Delete(nil): %v", err)
	}
	ids, err := c.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 310 {
		t.Errorf("%d ids left, want 310", len(ids))
	}
	for _, id := range ids {
		if slices.Contains(del, id) {
			t.Errorf("%s survived Delete", id)
		}
	}
}

func TestScan(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	recs := []collection.Record{
		treeRecord("{}"),
		{ID: "no-slug", Document: "n", Metadata: map[string]any{"chunk_index": 0}},
		{ID: "int-slug", Document: "i", Metadata: map[string]any{"page_slug": 7}},
		{ID: "no-meta", Document: "m"},
		content("", 0, "empty slug"),
	}
	for i := range 400 {
		recs = append(recs, content(fmt.Sprintf("s/%d.md", i%40), i/40, fmt.Sprint(i)))
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	var got []collection.Chunk
	calls := 0
	err := c.Scan(ctx, layout, true, func(b []collection.Chunk) error {
		calls++
		if len(b) > chromastore.PageSize {
			t.Errorf("batch of %d", len(b))
		}
		got = append(got, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 401 || calls != 2 {
		t.Fatalf("Scan: %d chunks in %d calls, want 401 in 2", len(got), calls)
	}
	for _, ch := range got {
		switch {
		case ch.ID == "#0" && ch.Slug == "" && ch.Text == "empty slug":
		case strings.HasPrefix(ch.Slug, "s/") && ch.Text != "" && ch.Index >= 0:
		default:
			t.Errorf("Scan returned %+v", ch)
		}
	}

	// Without texts.
	err = c.Scan(ctx, layout, false, func(b []collection.Chunk) error {
		for _, ch := range b {
			if ch.Text != "" {
				t.Fatalf("Scan without texts returned text %q", ch.Text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// fn's error stops the scan and comes back as it is.
	stop := errors.New("stop")
	calls = 0
	err = c.Scan(ctx, layout, false, func([]collection.Chunk) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("Scan with a failing fn: %v after %d calls", err, calls)
	}

	// IDs include records without a slug.
	ids, err := c.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(recs) || !slices.Contains(ids, layout.TreeID) || !slices.Contains(ids, "no-meta") {
		t.Errorf("IDs: %d ids, want %d including the tree", len(ids), len(recs))
	}
}

func TestLargeUpsertSplits(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 12 MB")
	}
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()
	doc := strings.Repeat("0123456789abcdef\"\n", 40<<10/18) // ~40 KiB, with escapes
	var recs []collection.Record
	for i := range 300 {
		recs = append(recs, content("large.md", i, doc))
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if n := rec.count("upsert"); n < 2 {
		t.Errorf("a ~13 MB batch went in %d request(s)", n)
	}
	if rec.maxBody > 8<<20 {
		t.Errorf("largest request %d bytes, over 8 MiB", rec.maxBody)
	}
	if n, err := c.Count(ctx); err != nil || n != 300 {
		t.Errorf("Count = %d, %v", n, err)
	}
}

func TestUpsertRejects(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	err := c.Upsert(ctx, []collection.Record{content("a", 0, "x"), content("a", 0, "y")})
	if err == nil || !strings.Contains(err.Error(), `"a#0" appears twice`) {
		t.Errorf("duplicate ids: %v", err)
	}
	if err := c.Upsert(ctx, []collection.Record{{Document: "x"}}); err == nil {
		t.Errorf("empty id: no error")
	}
	// Chroma 1.0 refuses nested metadata: the answer is an *APIError.
	err = c.Upsert(ctx, []collection.Record{{ID: "n", Document: "x", Metadata: map[string]any{"obj": map[string]any{"a": 1}}}})
	var ae *chromastore.APIError
	if !errors.As(err, &ae) || ae.Status/100 != 4 {
		t.Errorf("nested metadata: %v, want a 4xx *APIError", err)
	}
	if err := c.Upsert(ctx, nil); err != nil {
		t.Errorf("Upsert(nil): %v", err)
	}
}

func TestOpenMissing(t *testing.T) {
	srv := testenv.Chroma(t)
	ctx := context.Background()
	cfg := chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t)}
	_, err := chromastore.Open(ctx, cfg)
	if !errors.Is(err, chromastore.ErrNoCollection) {
		t.Fatalf("Open of a missing collection: %v, want ErrNoCollection", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("%q", cfg.Collection)) {
		t.Errorf("error %q does not name the collection", err)
	}
	if err := chromastore.DeleteCollection(ctx, cfg); !errors.Is(err, chromastore.ErrNoCollection) {
		t.Errorf("DeleteCollection of a missing collection: %v", err)
	}

	// A collection deleted after Open.
	cfg.Create = true
	c, err := chromastore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := chromastore.DeleteCollection(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chunks(ctx, layout, []string{"a"}); !errors.Is(err, chromastore.ErrNoCollection) {
		t.Errorf("Chunks after the collection was deleted: %v", err)
	}
	if _, err := c.Tree(ctx, "t"); !errors.Is(err, chromastore.ErrNoCollection) || errors.Is(err, collection.ErrNoTree) {
		t.Errorf("Tree after the collection was deleted: %v", err)
	}
	if _, err := c.Count(ctx); !errors.Is(err, chromastore.ErrNoCollection) {
		t.Errorf("Count after the collection was deleted: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []chromastore.Config{
		{Collection: "c"},
		{URL: "http://127.0.0.1:1"},
		{URL: "127.0.0.1:8000", Collection: "c"},
		{URL: "ftp://x/", Collection: "c"},
	} {
		if _, err := chromastore.Open(ctx, cfg); err == nil || !strings.HasPrefix(err.Error(), "chromastore: Config.") {
			t.Errorf("Open(%+v): %v", cfg, err)
		}
		if err := cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), "chromastore: Config.") {
			t.Errorf("Validate(%+v): %v", cfg, err)
		}
	}
	// A negative Timeout means no per-request bound: the connection
	// refused is reported, not the Timeout.
	cfg := chromastore.Config{URL: "http://127.0.0.1:1", Collection: "c", Timeout: -1}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate(%+v): %v", cfg, err)
	}
	if _, err := chromastore.Open(ctx, cfg); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Open(%+v): %v, want connection refused", cfg, err)
	}
}

func TestURLForms(t *testing.T) {
	c, cfg := open(t, nil)
	for _, u := range []string{cfg.URL + "/", cfg.URL + "/api/v2", cfg.URL + "/api/v2/"} {
		c2, err := chromastore.Open(context.Background(), chromastore.Config{URL: u, Collection: cfg.Collection})
		if err != nil {
			t.Errorf("Open(%s): %v", u, err)
			continue
		}
		if c2.CollectionID() != c.CollectionID() {
			t.Errorf("Open(%s): another collection", u)
		}
		c2.Close()
	}
}

func TestUnreachable(t *testing.T) {
	ctx := context.Background()
	_, err := chromastore.Open(ctx, chromastore.Config{URL: "http://127.0.0.1:1", Collection: "docs"})
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Open: %v, want ECONNREFUSED", err)
	}
	want := `chromastore: open collection "docs" at http://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused`
	if err == nil || err.Error() != want {
		t.Errorf("Open error:\n got %v\nwant %s", err, want)
	}
}

func TestServerGoesAway(t *testing.T) {
	srv := testenv.NewChroma(t)
	ctx := context.Background()
	c := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, Collection: "gone"})
	if err := c.Upsert(ctx, []collection.Record{content("a.md", 0, "a"), treeRecord("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err := c.Chunks(ctx, layout, []string{"a", "b", "c"})
	want := fmt.Sprintf(`chromastore: get chunks of 3 pages from "gone" at %s: `, srv.URL)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Chunks from a stopped server:\n got %v\nwant %s...connection refused", err, want)
	}
	for name, f := range map[string]func() error{
		"Tree":     func() error { _, err := c.Tree(ctx, layout.TreeID); return err },
		"IDs":      func() error { _, err := c.IDs(ctx); return err },
		"Count":    func() error { _, err := c.Count(ctx); return err },
		"Upsert":   func() error { return c.Upsert(ctx, []collection.Record{content("b.md", 0, "b")}) },
		"Delete":   func() error { return c.Delete(ctx, []string{"a.md#0"}) },
		"ChunkIDs": func() error { _, err := c.ChunkIDs(ctx, layout, []string{"a.md"}); return err },
		"ChunksByID": func() error {
			_, err := c.ChunksByID(ctx, layout, []string{"a.md#0", "b.md#0"})
			want := fmt.Sprintf(`chromastore: get 2 records by id from "gone" at %s: `, srv.URL)
			if err != nil && !strings.HasPrefix(err.Error(), want) {
				t.Errorf("ChunksByID error %q does not start with %q", err, want)
			}
			return err
		},
		"Scan": func() error {
			return c.Scan(ctx, layout, true, func([]collection.Chunk) error { return nil })
		},
		"SetMetadata": func() error { return c.SetMetadata(ctx, map[string]any{"k": 1}) },
	} {
		err := f()
		if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), srv.URL) {
			t.Errorf("%s from a stopped server: %v", name, err)
		}
	}

	// Back again: the same Collection works.
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	got, err := c.Chunks(ctx, layout, []string{"a.md"})
	if err != nil || len(got) != 1 || got[0].Text != "a" {
		t.Errorf("Chunks after restart: %+v, %v", got, err)
	}
}

func TestContext(t *testing.T) {
	c, cfg := open(t, nil)
	if err := c.Upsert(context.Background(), []collection.Record{content("a.md", 0, "a")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Open":       func() error { _, err := chromastore.Open(ctx, cfg); return err },
		"Tree":       func() error { _, err := c.Tree(ctx, layout.TreeID); return err },
		"Chunks":     func() error { _, err := c.Chunks(ctx, layout, []string{"a.md"}); return err },
		"IDs":        func() error { _, err := c.IDs(ctx); return err },
		"Count":      func() error { _, err := c.Count(ctx); return err },
		"Upsert":     func() error { return c.Upsert(ctx, []collection.Record{content("b.md", 0, "b")}) },
		"System":     func() error { return c.Upsert(ctx, []collection.Record{treeRecord("{}")}) },
		"Delete":     func() error { return c.Delete(ctx, []string{"a.md#0"}) },
		"ChunkIDs":   func() error { _, err := c.ChunkIDs(ctx, layout, []string{"a.md"}); return err },
		"ChunksByID": func() error { _, err := c.ChunksByID(ctx, layout, []string{"a.md#0"}); return err },
		"ChunksByIDMany": func() error {
			ids := make([]string, 1000)
			for i := range ids {
				ids[i] = collection.ChunkID("a.md", i)
			}
			_, err := c.ChunksByID(ctx, layout, ids)
			return err
		},
		"Scan": func() error {
			return c.Scan(ctx, layout, true, func([]collection.Chunk) error { return nil })
		},
		"SetMetadata": func() error { return c.SetMetadata(ctx, map[string]any{"k": 1}) },
	}
	for name, f := range calls {
		if err := f(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", name, err)
		}
	}
	// Nothing was written or deleted.
	if got, err := c.Chunks(context.Background(), layout, []string{"a.md", "b.md"}); err != nil || len(got) != 1 {
		t.Errorf("after cancelled writes: %+v, %v", got, err)
	}
}

// slowServer answers every request after delay.
func slowServer(t *testing.T, delay time.Duration) string {
	stop := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-stop:
		case <-r.Context().Done():
		}
		http.Error(w, "too late", http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() { close(stop); s.Close() })
	return s.URL
}

func TestDeadline(t *testing.T) {
	u := slowServer(t, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := chromastore.Open(ctx, chromastore.Config{URL: u, Collection: "docs"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Open with a deadline: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open returned after %v", d)
	}

	// Config.Timeout bounds each request.
	start = time.Now()
	_, err = chromastore.Open(context.Background(), chromastore.Config{URL: u, Collection: "docs", Timeout: 200 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 200ms") {
		t.Errorf("Open with Config.Timeout: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open returned after %v", d)
	}
}

func TestSetMetadata(t *testing.T) {
	c, cfg := open(t, nil)
	ctx := context.Background()
	if err := c.SetMetadata(ctx, map[string]any{"line_aligned": true, "version": 3, "note": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetMetadata(ctx, map[string]any{"note": nil, "ratio": 0.5}); err != nil {
		t.Fatal(err)
	}
	// Open with Create recorded the embedding function.
	want := map[string]any{chromastore.EmbeddingKey: chromastore.HashName, "line_aligned": true, "version": int64(3), "ratio": 0.5}
	c2, err := chromastore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for name, md := range map[string]map[string]any{"Metadata": c.Metadata(), "reopened": c2.Metadata()} {
		if fmt.Sprint(md) != fmt.Sprint(want) {
			t.Errorf("%s = %#v, want %#v", name, md, want)
		}
	}
	md := c.Metadata()
	md["mutated"] = true
	if _, ok := c.Metadata()["mutated"]; ok {
		t.Error("Metadata returned the collection's own map")
	}
}

// TestRecordEmbedding: Open with Create records the writer's function
// (the consistent-hash one in the metadata only), RecordEmbedding records
// another in the configuration and the metadata, and WrittenWith reads
// them back, also on a collection that records neither.
func TestRecordEmbedding(t *testing.T) {
	c, cfg := open(t, nil)
	ctx := context.Background()
	if w, spec := c.WrittenWith(), c.Embedding(); w != chromastore.HashName || spec.Name != "" {
		t.Fatalf("created with hash: WrittenWith %q, Embedding %q", w, spec.Name)
	}
	ng := chromastore.NgramEmbedding(16)
	if err := c.RecordEmbedding(ctx, ng); err != nil {
		t.Fatal(err)
	}
	cfg.Create = false
	for _, reopen := range []bool{false, true} {
		cc := c
		if reopen {
			var err error
			if cc, err = chromastore.Open(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
		}
		spec := cc.Embedding()
		if w := cc.WrittenWith(); w != chromastore.NgramName || spec.Name != chromastore.NgramName || fmt.Sprint(spec.Config["dim"]) != "16" {
			t.Errorf("reopened %v: WrittenWith %q, Embedding %+v", reopen, w, spec)
		}
	}
	if err := c.RecordEmbedding(ctx, chromastore.HashEmbedding(0)); err != nil {
		t.Fatal(err)
	}
	c2, err := chromastore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if w, spec := c2.WrittenWith(), c2.Embedding(); w != chromastore.HashName || spec.Name != "" {
		t.Errorf("back to hash: WrittenWith %q, Embedding %q (want no configured function)", w, spec.Name)
	}
	// Neither recorded, and no chromafs tree: unknown.
	if err := c2.SetMetadata(ctx, map[string]any{chromastore.EmbeddingKey: nil, "keep": 1}); err != nil {
		t.Fatal(err)
	}
	c3, err := chromastore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if w := c3.WrittenWith(); w != "" {
		t.Errorf("nothing recorded: WrittenWith %q, want \"\"", w)
	}
}

func TestClosed(t *testing.T) {
	c, _ := open(t, nil)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	ctx := context.Background()
	if _, err := c.Chunks(ctx, layout, []string{"a"}); !errors.Is(err, chromastore.ErrClosed) {
		t.Errorf("Chunks after Close: %v", err)
	}
	if err := c.Upsert(ctx, []collection.Record{content("a", 0, "a")}); !errors.Is(err, chromastore.ErrClosed) {
		t.Errorf("Upsert after Close: %v", err)
	}
	if _, err := c.Count(ctx); !errors.Is(err, chromastore.ErrClosed) {
		t.Errorf("Count after Close: %v", err)
	}
}

func TestConcurrentChunks(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	var recs []collection.Record
	var slugs []string
	for i := range 600 {
		slug := fmt.Sprintf("c/%d", i)
		slugs = append(slugs, slug)
		recs = append(recs, content(slug, 0, slug))
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			part := slugs[g*100 : g*100+300]
			got, err := c.Chunks(ctx, layout, part)
			if err != nil || len(got) != 300 {
				t.Errorf("goroutine %d: %d chunks, %v", g, len(got), err)
			}
		})
	}
	wg.Wait()
}

func TestEmbeddingFunction(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"", "hash", "HASH"} {
		ef, err := chromastore.EmbeddingFunction(name)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		e1, err := ef.EmbedDocuments(ctx, []string{"some text"})
		if err != nil {
			t.Fatal(err)
		}
		e2, _ := ef.EmbedDocuments(ctx, []string{"some text"})
		if len(e1) != 1 || len(e1[0]) != 384 || !slices.Equal(e1[0], e2[0]) {
			t.Errorf("%q: not a deterministic 384-dimension function", name)
		}
	}
	for _, dim := range []int{4, 100} {
		ef := chromastore.HashEmbedding(dim)
		e, err := ef.EmbedDocuments(ctx, []string{"some text"})
		if err != nil || len(e) != 1 || len(e[0]) != dim || ef.Name() != "consistent_hash" {
			t.Errorf("HashEmbedding(%d): %v, %q, %v", dim, e, ef.Name(), err)
		}
	}
	if e, err := chromastore.HashEmbedding(0).EmbedDocuments(ctx, []string{"x"}); err != nil || len(e) != 1 || len(e[0]) != 384 {
		t.Errorf("HashEmbedding(0): %v", err)
	}
	if _, err := chromastore.HashEmbedding(4).EmbedDocuments(ctx, []string{"a", ""}); err == nil {
		t.Errorf("HashEmbedding embedded an empty document")
	}
	// "default" is registered by package chromaembed, which this test
	// does not import (its own tests check it).
	for _, name := range []string{"openai", "default"} {
		_, err := chromastore.EmbeddingFunction(name)
		if !errors.Is(err, chromastore.ErrUnknownEmbedding) || !strings.Contains(err.Error(), strings.Join(chromastore.EmbeddingNames(), ", ")) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if names := chromastore.EmbeddingNames(); names[0] != "hash" {
		t.Errorf("EmbeddingNames() = %q, want hash first", names)
	}
}

// ExampleOpen shows how a program opens a collection; it needs a server,
// so it has no output to check.
func ExampleOpen() {
	ctx := context.Background()
	c, err := chromastore.Open(ctx, chromastore.Config{
		URL:        "http://localhost:8000",
		Collection: "docs",
		Timeout:    30 * time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	chunks, err := c.Chunks(ctx, collection.DefaultLayout(), []string{"guide/intro.md"})
	fmt.Println(len(chunks), err)
}

// TestNgramEmbedding: "ngram" is registered; its vectors have length 1
// and the dimension asked for; texts that share words are nearer than
// texts that do not; a collection created with it records it in its
// configuration, which Embedding reads back.
func TestNgramEmbedding(t *testing.T) {
	ef, err := chromastore.EmbeddingFunction("ngram")
	if err != nil || ef.Name() != chromastore.NgramName {
		t.Fatalf("EmbeddingFunction(ngram) = %v, %v", ef, err)
	}
	ctx := context.Background()
	vs, err := chromastore.NgramEmbedding(64).EmbedDocuments(ctx, []string{
		"rotate the client credentials every month",
		"rotate the client credentials",
		"install the tool and run it",
		"",
	})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for i, v := range vs {
		if len(v) != 64 || math.Abs(dot(v, v)-1) > 1e-5 {
			t.Errorf("vector %d: %d dimensions, squared length %v; want 64 and 1", i, len(v), dot(v, v))
		}
	}
	if near, far := dot(vs[0], vs[1]), dot(vs[0], vs[2]); near <= far {
		t.Errorf("similarity of texts that share words %v, of texts that do not %v", near, far)
	}
	c := testbackend.OpenChroma(t, chromastore.Config{URL: testenv.Chroma(t).URL, Embedding: chromastore.NgramEmbedding(32)})
	spec := c.Embedding()
	if spec.Name != chromastore.NgramName || fmt.Sprint(spec.Config["dim"]) != "32" || spec.Space != "l2" {
		t.Errorf("Embedding() = %+v, want %s with dim 32 in space l2", spec, chromastore.NgramName)
	}
}
