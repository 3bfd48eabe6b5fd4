package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/testenv"
)

// startServeBinary runs the built binary's `chromafs serve` with args and env,
// and returns the URLs it prints by kind (mcp, http, webdav, admin); the
// process is stopped with SIGTERM when stop is called (or t ends) and
// must exit 0.
func startServeBinary(t *testing.T, env []string, kinds []string, args ...string) (urls map[string]string, stop func()) {
	t.Helper()
	p := startServeProc(t, env, kinds, args...)
	return p.urls, p.stop
}

func getURL(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeOps: `serve --mcp --admin --otlp-endpoint` over a real
// Chroma: the admin listener serves /metrics whose counters agree with
// the tool calls made, and the probes; profiles only with --pprof; the
// public listener serves no metrics; the spans of the calls reach an OTLP
// receiver by shutdown.
func TestServeOps(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	var mu sync.Mutex
	var bodies []string
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.URL.Path+" "+r.Header.Get("Content-Type")+" "+string(b))
		mu.Unlock()
		io.WriteString(w, "{}") //nolint:errcheck
	}))
	defer rcv.Close()
	urls, stop := startServeBinary(t, nil, []string{"mcp", "admin"}, append(g, "--mcp", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--otlp-endpoint", rcv.URL)...)
	admin := strings.TrimSuffix(urls["admin"], "/metrics")
	cs, err := streamableClient(urls["mcp"], "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"ls", map[string]any{"path": "/"}}, {"read", map[string]any{"path": "/index.md"}}, {"read", map[string]any{"path": "/nope.md"}},
		{"grep", map[string]any{"pattern": "token"}}} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			t.Fatal(err)
		}
	}
	cs.Close()
	code, text := getURL(t, admin+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`chromafs_mcp_tool_calls_total{outcome="ok",site="",tool="ls"} 1`,
		`chromafs_mcp_tool_calls_total{outcome="ok",site="",tool="read"} 1`,
		`chromafs_mcp_tool_calls_total{outcome="tool_error",site="",tool="read"} 1`,
		`chromafs_http_requests_total{code="200",listener="mcp",method="post",site=""}`,
		`chromafs_chroma_requests_total{kind="get_by_id",outcome="ok"}`,
		`chromafs_page_cache_lookups_total{result="miss",tier="memory"} `,
		"chromafs_trees_loaded_total 1\n", // one tree for every session
		"chromafs_trees_cached 1\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/debug/pprof/": 404} {
		if code, _ := getURL(t, admin+path); code != want {
			t.Errorf("admin %s: %d, want %d", path, code, want)
		}
	}
	public := strings.TrimSuffix(urls["mcp"], "/mcp")
	if code, body := getURL(t, public+"/metrics"); code == http.StatusOK || strings.Contains(body, "chromafs_") {
		t.Errorf("the public listener serves /metrics: %d", code)
	}
	stop()
	mu.Lock()
	all := strings.Join(bodies, "\n")
	mu.Unlock()
	for _, want := range []string{"/v1/traces application/json ", `"name":"mcp.tool read"`, `"name":"POST mcp"`, `"name":"chroma get_by_id"`,
		`"name":"mcp.tool grep"`, `"name":"grep"`, `"name":"grep coarse filter"`, `"name":"grep match"`} {
		if !strings.Contains(all, want) {
			t.Errorf("the OTLP receiver got no %s in:\n%.2000s", want, all)
		}
	}
}

// TestServeOpsFlags: the refusals of the operations flags.
func TestServeOpsFlags(t *testing.T) {
	tests := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"--mcp", "127.0.0.1:0", "--pprof"}, nil, "--pprof needs --admin ADDR"},
		{[]string{"--mcp", "127.0.0.1:0", "--otlp-endpoint", "ftp://x"}, nil, "want an http:// or https:// URL"},
		{[]string{"--mcp", "127.0.0.1:0"}, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, "not gRPC"},
	}
	for _, tt := range tests {
		cmd := exec.Command(chromafsBinary(t), append([]string{"--chroma-url", "http://127.0.0.1:1", "--collection", "x", "serve"}, tt.args...)...)
		cmd.Env = append(os.Environ(), tt.env...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("serve %v (env %v): %v %q; want an error with %q", tt.args, tt.env, err, out, tt.want)
		}
	}
}
