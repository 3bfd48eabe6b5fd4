package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/metrics"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/internal/toolcall"
)

// scrape returns what the admin handler's /metrics serves.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.AdminHandler(nil, nil, false).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// hasLine reports whether the exposition holds a sample line that starts
// with prefix (a name and its labels) and ends with value.
func hasLine(text, prefix, value string) bool {
	for l := range strings.Lines(text) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, " "+value) {
			return true
		}
	}
	return false
}

// TestLint: every metric of the package follows Prometheus's naming
// conventions, as promlint checks them.
func TestLint(t *testing.T) {
	m := metrics.New()
	// Some samples, so that every vector has something to check.
	h := m.Middleware("http", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { metrics.SetSite(r.Context(), "a") }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	m.ObserveChroma(context.Background(), chromastore.KindGetByID)
	m.SessionOpened("a")
	m.SignInFailed("a", "token")
	m.Limited("a", "rate")
	m.AddCache("memory", cachepkg.NewMemory(0))
	problems, err := testutil.GatherAndLint(m.Registry)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "chromafs_") {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
}

// TestMiddleware: requests are counted by listener, site (as the router
// sets it), method (bounded) and status, timed, and their bytes added
// up; the answer keeps http.Flusher.
func TestMiddleware(t *testing.T) {
	m := metrics.New()
	flushes := 0
	h := m.Middleware("webdav", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/a/hidden" {
			metrics.SetSite(r.Context(), strings.Split(r.URL.Path, "/")[1])
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
			flushes++
		}
		switch r.URL.Path {
		case "/a/page", "/b/page":
			io.WriteString(w, "hello") //nolint:errcheck
		default:
			http.NotFound(w, r)
		}
	}))
	for _, req := range []struct{ method, path string }{
		{"GET", "/a/page"}, {"GET", "/a/page"}, {"PROPFIND", "/b/page"}, {"GET", "/a/hidden"}, {"BREW", "/a/page"},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(req.method, req.path, nil))
	}
	if flushes != 5 {
		t.Errorf("%d of 5 answers were http.Flushers", flushes)
	}
	text := scrape(t, m)
	for _, want := range []struct{ prefix, value string }{
		{`chromafs_http_requests_total{code="200",listener="webdav",method="get",site="a"}`, "2"},
		{`chromafs_http_requests_total{code="200",listener="webdav",method="propfind",site="b"}`, "1"},
		{`chromafs_http_requests_total{code="404",listener="webdav",method="get",site=""}`, "1"},
		{`chromafs_http_requests_total{code="200",listener="webdav",method="unknown",site="a"}`, "1"},
		{`chromafs_http_request_duration_seconds_count{listener="webdav",method="get",site="a"}`, "2"},
		{`chromafs_http_response_bytes_total{listener="webdav",site="a"}`, "15"},
		{`chromafs_http_response_bytes_total{listener="webdav",site="b"}`, "5"},
	} {
		if !hasLine(text, want.prefix, want.value) {
			t.Errorf("no %s %s in:\n%s", want.prefix, want.value, grepLines(text, "chromafs_http"))
		}
	}
	if strings.Contains(text, "hidden") || strings.Contains(text, "/a/page") {
		t.Errorf("a path is a label value:\n%s", grepLines(text, "chromafs_http"))
	}
}

func grepLines(text, sub string) string {
	var b strings.Builder
	for l := range strings.Lines(text) {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestObserveTool: MCP tool calls are counted by site, tool and
// outcome, and a call naming an unknown tool counts as "other".
func TestObserveTool(t *testing.T) {
	m := metrics.New()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	type in struct {
		Fail bool `json:"fail,omitempty"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		if a.Fail {
			return nil, nil, errors.New("asked to fail")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	srv.AddReceivingMiddleware(toolcall.Middleware("acme", []string{"echo"}, m.ObserveTool))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, p := range []*mcp.CallToolParams{
		{Name: "echo", Arguments: map[string]any{}},
		{Name: "echo", Arguments: map[string]any{}},
		{Name: "echo", Arguments: map[string]any{"fail": true}},
		{Name: "made-up-" + strings.Repeat("x", 40), Arguments: map[string]any{}},
	} {
		_, _ = cs.CallTool(ctx, p) // the unknown tool fails the call
	}
	text := scrape(t, m)
	for _, want := range []struct{ prefix, value string }{
		{`chromafs_mcp_tool_calls_total{outcome="ok",site="acme",tool="echo"}`, "2"},
		{`chromafs_mcp_tool_calls_total{outcome="tool_error",site="acme",tool="echo"}`, "1"},
		{`chromafs_mcp_tool_calls_total{outcome="error",site="acme",tool="other"}`, "1"},
		{`chromafs_mcp_tool_call_duration_seconds_count{site="acme",tool="echo"}`, "3"},
	} {
		if !hasLine(text, want.prefix, want.value) {
			t.Errorf("no %s %s in:\n%s", want.prefix, want.value, grepLines(text, "chromafs_mcp"))
		}
	}
	if strings.Contains(text, "made-up") {
		t.Error("a tool name the client made up is a label value")
	}
}

// TestObserveChroma: calls to a real Chroma are counted by kind and
// outcome, and timed.
func TestObserveChroma(t *testing.T) {
	m := metrics.New()
	srv := testenv.Chroma(t)
	cfg := chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t), Create: true, Observe: m.ObserveChroma}
	c := testbackend.OpenChroma(t, cfg)
	t.Cleanup(func() { _ = chromastore.DeleteCollection(context.Background(), cfg) })
	ctx := context.Background()
	l := collection.DefaultLayout()
	rec := collection.Record{ID: "a.md#0", Document: "alpha\n", Metadata: map[string]any{l.SlugField: "a.md", l.IndexField: 0}}
	if err := c.Upsert(ctx, []collection.Record{rec}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.ChunksByID(ctx, l, []string{rec.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Search(ctx, l, collection.Scope{Exclude: true}, collection.TextFilter{Regexes: []string{"("}}); err == nil {
		t.Fatal("a bad regex: no error")
	}
	text := scrape(t, m)
	for _, want := range []struct{ prefix, value string }{
		{`chromafs_chroma_requests_total{kind="get_by_id",outcome="ok"}`, "3"},
		{`chromafs_chroma_requests_total{kind="write",outcome="ok"}`, "1"},
		{`chromafs_chroma_requests_total{kind="search",outcome="error"}`, "1"},
		{`chromafs_chroma_request_duration_seconds_count{kind="get_by_id"}`, "3"},
	} {
		if !hasLine(text, want.prefix, want.value) {
			t.Errorf("no %s %s in:\n%s", want.prefix, want.value, grepLines(text, "chromafs_chroma"))
		}
	}
}

// TestCaches: the lookups of a memory cache and of a real Redis, as the
// tiers of a tiered cache, by result, read at each scrape.
func TestCaches(t *testing.T) {
	m := metrics.New()
	rdb := testenv.Redis(t)
	rc, err := rediscache.New(rdb.URL, rediscache.Options{Prefix: t.Name() + ":"})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	mem := cachepkg.NewMemory(0)
	m.AddCache("redis", cachepkg.NewTiered(mem, rc))
	ctx := context.Background()
	if err := rc.Put(ctx, "k1", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := mem.Put(ctx, "k1", []byte("v")); err != nil {
		t.Fatal(err)
	}
	mem.Get(ctx, "k1")                          //nolint:errcheck // hit
	mem.Get(ctx, "k2")                          //nolint:errcheck // miss
	rc.Get(ctx, "k1")                           //nolint:errcheck // hit
	rc.GetMany(ctx, []string{"k1", "k2", "k3"}) //nolint:errcheck // 1 hit, 2 misses
	text := scrape(t, m)
	for _, want := range []struct{ prefix, value string }{
		{`chromafs_page_cache_lookups_total{result="hit",tier="memory"}`, "1"},
		{`chromafs_page_cache_lookups_total{result="miss",tier="memory"}`, "1"},
		{`chromafs_page_cache_lookups_total{result="hit",tier="redis"}`, "2"},
		{`chromafs_page_cache_lookups_total{result="miss",tier="redis"}`, "2"},
		{`chromafs_page_cache_errors_total{tier="redis"}`, "0"},
	} {
		if !hasLine(text, want.prefix, want.value) {
			t.Errorf("no %s %s in:\n%s", want.prefix, want.value, grepLines(text, "chromafs_page"))
		}
	}
	// Redis gone: lookups fail, counted as errors and misses.
	rdb.Stop()        //nolint:errcheck
	rc.Get(ctx, "k1") //nolint:errcheck
	text = scrape(t, m)
	if !hasLine(text, `chromafs_page_cache_errors_total{tier="redis"}`, "1") || !hasLine(text, `chromafs_page_cache_lookups_total{result="miss",tier="redis"}`, "3") {
		t.Errorf("with Redis stopped, a lookup is not an error and a miss:\n%s", grepLines(text, "chromafs_page"))
	}
}

// TestTrees: the trees' counts of every source, added up, read at each
// scrape; nothing without a source.
func TestTrees(t *testing.T) {
	m := metrics.New()
	if text := scrape(t, m); strings.Contains(text, "chromafs_trees_") {
		t.Errorf("tree metrics without a source:\n%s", grepLines(text, "chromafs_trees"))
	}
	loaded := int64(3)
	m.AddTrees(func() metrics.TreeStats { return metrics.TreeStats{Loaded: loaded, Evicted: 1, Trees: 2, Bytes: 4096} })
	m.AddTrees(func() metrics.TreeStats { return metrics.TreeStats{Loaded: 1, Trees: 1, Bytes: 1024} })
	loaded = 5 // read at the scrape, not when added
	text := scrape(t, m)
	for _, want := range []struct{ prefix, value string }{
		{`chromafs_trees_loaded_total`, "6"},
		{`chromafs_trees_evicted_total`, "1"},
		{`chromafs_trees_cached`, "3"},
		{`chromafs_trees_cached_bytes`, "5120"},
	} {
		if !hasLine(text, want.prefix, want.value) {
			t.Errorf("no %s %s in:\n%s", want.prefix, want.value, grepLines(text, "chromafs_trees"))
		}
	}
}

// TestAdminHandler: /metrics, the probes given, and pprof only when
// asked for.
func TestAdminHandler(t *testing.T) {
	m := metrics.New()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") }) //nolint:errcheck
	tests := []struct {
		pprof bool
		path  string
		code  int
	}{
		{false, "/metrics", 200},
		{false, "/healthz", 200},
		{false, "/readyz", 200},
		{false, "/debug/pprof/", 404},
		{true, "/debug/pprof/", 200},
		{true, "/debug/pprof/cmdline", 200},
		{false, "/", 404},
		{false, "/mcp", 404},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		m.AdminHandler(ok, ok, tt.pprof).ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
		if rec.Code != tt.code {
			t.Errorf("pprof %v: GET %s: %d, want %d", tt.pprof, tt.path, rec.Code, tt.code)
		}
	}
	if text := scrape(t, m); !strings.Contains(text, "go_goroutines ") || !strings.Contains(text, "process_resident_memory_bytes ") {
		t.Errorf("no runtime or process metrics:\n%.500s", text)
	}
}

// TestNil: a nil *Metrics records nothing and changes nothing.
func TestNil(t *testing.T) {
	var m *metrics.Metrics
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	rec := httptest.NewRecorder()
	m.Middleware("http", h).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 204 {
		t.Errorf("through a nil Metrics' middleware: %d", rec.Code)
	}
	_, done := m.ObserveChroma(context.Background(), chromastore.KindQuery)
	done(nil)
	m.SessionOpened("a")
	m.SessionClosed("a")
	m.SignInFailed("a", "password")
	m.Limited("a", "rate")
	m.AddCache("memory", cachepkg.NewMemory(0))
	m.AddTrees(func() metrics.TreeStats { return metrics.TreeStats{} })
}
