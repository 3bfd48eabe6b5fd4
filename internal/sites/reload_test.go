package sites_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/sites"
)

// counter is a Builder over memstore sites that counts, by site name,
// the instances made and closed.
type counter struct {
	t   *testing.T
	log *slog.Logger

	mu             sync.Mutex
	builds, closes map[string]int
}

func newCounter(t *testing.T) *counter {
	return &counter{t: t, log: slog.New(slog.NewTextHandler(io.Discard, nil)), builds: map[string]int{}, closes: map[string]int{}}
}

func (c *counter) build(s *sites.Site) (*sites.Instance, error) {
	c.mu.Lock()
	c.builds[s.Name]++
	c.mu.Unlock()
	srv := server.New(server.Config{Store: siteStore(c.t, s.Collection), Logger: c.log})
	var mcpH http.Handler
	var sessions atomic.Int64
	return &sites.Instance{Server: srv,
		Sessions: func() int { return int(sessions.Load()) },
		Handler: func(kind, prefix string) http.Handler {
			if kind == sites.KindMCP {
				if mcpH == nil {
					mcpH = srv.MCPHandler(server.MCPOptions{Hosts: s.Hosts, OnSession: func(d int) { sessions.Add(int64(d)) }})
				}
				return mcpH
			}
			return httpfs.NewHandler(srv.Resolve, httpfs.Options{Prefix: prefix})
		},
		Close: func() error {
			c.mu.Lock()
			c.closes[s.Name]++
			c.mu.Unlock()
			return nil
		}}, nil
}

// counts returns the builds and closes of site name.
func (c *counter) counts(name string) (builds, closes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.builds[name], c.closes[name]
}

// waitCloses waits up to 5 s for site name to have been closed n times.
func (c *counter) waitCloses(t *testing.T, name string, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, got := c.counts(name); got == n {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("site %s closed %d times, want %d", name, got, n)
		}
	}
}

func parse(t *testing.T, file string) *sites.Config {
	t.Helper()
	cfg, err := sites.Parse(strings.NewReader(file), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// getPage GETs target from srv with Host host ("" for the server's) and
// returns the status and body.
func getPage(t *testing.T, srv *httptest.Server, target, host string) (int, string) {
	t.Helper()
	hdr := map[string]string{}
	if host != "" {
		hdr["Host"] = host
	}
	status, _, body := raw(t, srv, "GET", target, hdr)
	return status, body
}

// connect opens an MCP session at url.
func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	// No standalone GET stream: a request held open would keep the site
	// from eviction by itself.
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// ls lists / in session cs.
func ls(cs *mcp.ClientSession) (string, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ls", Arguments: map[string]any{"path": "/"}})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String(), nil
}

// TestRegistryReload: a reload keeps the instance (and an open MCP
// session) of a site whose configuration is the same, even at another
// line; closes the instance of a changed site and makes it again, with
// its new configuration, on its next request; closes a removed site,
// which then answers 404 by path and by host; routes an added site; and
// reports each kind by name.
func TestRegistryReload(t *testing.T) {
	c := newCounter(t)
	reg := sites.NewRegistry(parse(t, `sites:
  - name: a
    collection: a
  - name: b
    collection: b
  - name: c
    collection: c
    hosts: [c.test]
`), c.build, c.log)
	h, m := httptest.NewServer(reg.Handler(sites.KindHTTP)), httptest.NewServer(reg.Handler(sites.KindMCP))
	t.Cleanup(func() {
		h.Close()
		m.Close()
		if err := reg.Close(); err != nil {
			t.Error(err)
		}
	})
	for _, target := range []string{"/a/guide.md", "/b/guide.md", "/c/guide.md"} {
		if status, body := getPage(t, h, target, ""); status != 200 {
			t.Fatalf("GET %s: %d %s", target, status, body)
		}
	}
	sessA := connect(t, m.URL+"/a/mcp")
	if _, err := ls(sessA); err != nil {
		t.Fatal(err)
	}

	got := reg.Reload(parse(t, `# a comment moves every site down a line
sites:
  - name: a
    collection: a
  - name: b
    collection: b
    hosts: [b.test]
  - name: d
    collection: d
`))
	want := sites.Reload{Added: []string{"d"}, Removed: []string{"c"}, Changed: []string{"b"}, Kept: []string{"a"}}
	for _, l := range []struct {
		kind      string
		got, want []string
	}{{"added", got.Added, want.Added}, {"removed", got.Removed, want.Removed}, {"changed", got.Changed, want.Changed}, {"kept", got.Kept, want.Kept}} {
		if !slices.Equal(l.got, l.want) {
			t.Errorf("reload: %s %v, want %v", l.kind, l.got, l.want)
		}
	}
	c.waitCloses(t, "b", 1)
	c.waitCloses(t, "c", 1)
	if builds, closes := c.counts("a"); builds != 1 || closes != 0 {
		t.Errorf("unchanged site a: %d builds, %d closes; want 1 and 0", builds, closes)
	}
	if out, err := ls(sessA); err != nil || !strings.Contains(out, "guide.md") {
		t.Errorf("a's MCP session after the reload: %q, %v", out, err)
	}
	for _, tc := range []struct {
		target, host string
		status       int
		body         string
	}{
		{"/a/guide.md", "", 200, "guide of a"},
		{"/b/guide.md", "", 200, "guide of b"},
		{"/guide.md", "b.test", 200, "guide of b"}, // b's new host
		{"/d/guide.md", "", 200, "guide of d"},
		{"/c/guide.md", "", 404, ""},
		{"/guide.md", "c.test", 404, ""},
	} {
		status, body := getPage(t, h, tc.target, tc.host)
		if status != tc.status || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s (Host %q) after the reload: %d %q, want %d with %q", tc.target, tc.host, status, body, tc.status, tc.body)
		}
	}
	if status, _, _ := raw(t, m, "POST", "/c/mcp", nil); status != 404 {
		t.Errorf("POST /c/mcp after c's removal: %d, want 404", status)
	}
	if builds, _ := c.counts("b"); builds != 2 {
		t.Errorf("changed site b made %d times, want 2 (again at its first request after the reload)", builds)
	}
	if builds, _ := c.counts("a"); builds != 1 {
		t.Errorf("unchanged site a made %d times, want 1", builds)
	}
	if n := reg.Loaded(); n != 3 {
		t.Errorf("%d sites loaded, want 3 (a, b, d)", n)
	}
}

// TestRegistryReloadInFlight: a request being served by a site that a
// reload removes finishes, and the site is closed after it, not before.
func TestRegistryReloadInFlight(t *testing.T) {
	c := newCounter(t)
	entered, unblock := make(chan struct{}), make(chan struct{})
	build := func(s *sites.Site) (*sites.Instance, error) {
		inst, err := c.build(s)
		if err != nil {
			return nil, err
		}
		inner := inst.Handler
		inst.Handler = func(kind, prefix string) http.Handler {
			h := inner(kind, prefix)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Has("block") {
					close(entered)
					<-unblock
				}
				h.ServeHTTP(w, r)
			})
		}
		return inst, nil
	}
	reg := sites.NewRegistry(parse(t, "sites:\n  - name: a\n    collection: a\n"), build, c.log)
	h := httptest.NewServer(reg.Handler(sites.KindHTTP))
	t.Cleanup(func() {
		h.Close()
		_ = reg.Close()
	})
	done := make(chan int)
	go func() {
		resp, err := http.Get(h.URL + "/a/guide.md?block")
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-entered
	reg.Reload(parse(t, "sites:\n  - name: z\n    collection: z\n"))
	time.Sleep(100 * time.Millisecond)
	if _, closes := c.counts("a"); closes != 0 {
		t.Fatalf("a closed while its request runs")
	}
	close(unblock)
	if status := <-done; status != 200 {
		t.Errorf("the request in flight: %d, want 200", status)
	}
	c.waitCloses(t, "a", 1)
}
