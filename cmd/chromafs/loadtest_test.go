package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/loadtest"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testenv"
)

// countingProxy stands between loadtest and a serve process and counts
// what reaches the server: the JSON-RPC methods of the POSTs, the tools
// called, the Authorization of each initialize and the DELETEs that
// close sessions. fail, when set, may answer a tools/call itself with
// an HTTP status (given the number of the call, from 1) instead of
// forwarding it; a status of -1 holds the call until its client gives
// up.
type countingProxy struct {
	*httptest.Server
	fail func(call int) int

	mu       sync.Mutex
	methods  map[string]int // forwarded
	tools    map[string]int // forwarded tools/call by name
	auth     map[string]int // Authorization of forwarded initialize requests
	deletes  int
	gets     map[string]int // GET requests: "GET dir", "GET file", "GET range"
	calls    int            // tools/call received, forwarded or not
	injected map[int]int    // status: tools/call answered by the proxy
}

func newCountingProxy(t *testing.T, target string) *countingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{methods: map[string]int{}, tools: map[string]int{}, auth: map[string]int{}, injected: map[int]int{}, gets: map[string]int{}}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) }}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		p.mu.Lock()
		if msg.Method == "tools/call" {
			p.calls++
			if p.fail != nil {
				if status := p.fail(p.calls); status != 0 {
					p.injected[status]++
					p.mu.Unlock()
					if status < 0 {
						select {
						case <-r.Context().Done():
						case <-time.After(20 * time.Second):
						}
						return
					}
					w.Header().Set("Retry-After", "1")
					http.Error(w, http.StatusText(status), status)
					return
				}
			}
			p.tools[msg.Params.Name]++
		}
		if r.Method == http.MethodPost {
			p.methods[msg.Method]++
			if msg.Method == "initialize" {
				p.auth[r.Header.Get("Authorization")]++
			}
		}
		if r.Method == http.MethodDelete {
			p.deletes++
		}
		if r.Method == http.MethodGet {
			switch {
			case r.Header.Get("Range") != "":
				p.gets[loadtest.HTTPRange]++
			case strings.HasSuffix(r.URL.Path, "/"):
				p.gets[loadtest.HTTPDir]++
			default:
				p.gets[loadtest.HTTPFile]++
			}
		}
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *countingProxy) endpoint() string { return p.URL + "/mcp" }

// snapshot returns copies of the counts.
func (p *countingProxy) snapshot() (methods, tools, auth map[string]int, deletes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cp := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return cp(p.methods), cp(p.tools), cp(p.auth), p.deletes
}

// loadtestServes ingests the example docs into a new collection and
// starts n `serve --mcp` processes over it, each taking the bearer
// tokens tokens (users with the staff group, others refused: the
// processes deny anonymous requests); it returns their endpoints, the
// global flags that name the collection and the users file.
func loadtestServes(t *testing.T, n int, tokens ...string) (endpoints, g []string, users string) {
	t.Helper()
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g = []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	var b strings.Builder
	for i, tok := range tokens {
		fmt.Fprintf(&b, "user%d token-sha256=%s groups=staff\n", i, server.HashToken(tok))
	}
	users = filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for range n {
		endpoints = append(endpoints, startMCPServe(t, g, "--users", users, "--deny-anonymous"))
	}
	return endpoints, g, users
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadtestJSON runs `chromafs loadtest --json args...` in process and
// decodes its summary.
func loadtestJSON(t *testing.T, wantCode int, args ...string) *loadtest.Summary {
	t.Helper()
	out, errOut, code := cli(t, append([]string{"loadtest", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("loadtest %q: status %d, want %d\nstderr: %s\nstdout: %s", args, code, wantCode, errOut, out)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var sum loadtest.Summary
	if err := dec.Decode(&sum); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("--json output holds more than one value:\n%s", out)
	}
	// Field names as documented in --help.
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"urls", "script", "concurrency", "elapsed_seconds", "interrupted", "sessions", "calls", "sessions_per_second",
		"calls_per_second", "session_latency", "initialize", "list_tools", "tools", "errors", "error_examples", "per_url"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("--json output has no %q:\n%s", k, out)
		}
	}
	return &sum
}

// TestLoadtest runs the built-in script for a few seconds (CHROMAFS_SOAK
// for longer) against two real `serve --mcp` processes over the example
// docs in a real Chroma, through counting proxies, with two users'
// bearer tokens: no error of any kind, every session closed, and
// loadtest's counts agree with what the servers received (tool calls
// per tool, sessions per server and per token) and with the tool calls
// that the second server's /metrics counted; each server gets half the
// sessions. A --count run then makes exactly that many sessions.
func TestLoadtest(t *testing.T) {
	tokens := []string{"tok-one", "tok-two"}
	serves, g, users := loadtestServes(t, 1, tokens...)
	urls, _ := startServeBinary(t, nil, []string{"mcp", "admin"}, append(g, "--mcp", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--users", users, "--deny-anonymous")...)
	serves = append(serves, urls["mcp"])
	a, b := newCountingProxy(t, serves[0]), newCountingProxy(t, serves[1])
	tokFile := writeFile(t, "tokens", "# users\ntok-one\n\nBearer tok-two\n")

	d := testenv.SoakDuration(t)
	sum := loadtestJSON(t, 0, "-c", "4", "--duration", d.String(), "--tokens", tokFile, "--timeout", "20s", a.endpoint(), b.endpoint())
	if len(sum.Errors) != 0 || sum.Sessions.Failed != 0 || sum.Calls.Failed != 0 {
		t.Errorf("errors: %v %v; sessions %+v, calls %+v", sum.Errors, sum.ErrorExamples, sum.Sessions, sum.Calls)
	}
	if sum.Sessions.OK < 4 || sum.Sessions.OK != sum.Sessions.Started || sum.Calls.OK != sum.Calls.Started {
		t.Errorf("sessions %+v, calls %+v", sum.Sessions, sum.Calls)
	}
	if sum.ElapsedSeconds < d.Seconds() || sum.SessionsPerSecond <= 0 || sum.CallsPerSecond <= sum.SessionsPerSecond {
		t.Errorf("elapsed %v s (run %v), %v sessions/s, %v calls/s", sum.ElapsedSeconds, d, sum.SessionsPerSecond, sum.CallsPerSecond)
	}
	if sum.SessionLatency.Count != sum.Sessions.OK || sum.Initialize.Count != sum.Sessions.OK || sum.ListTools.Count != sum.Sessions.OK {
		t.Errorf("latency counts: session %d, initialize %d, tools/list %d; %d sessions", sum.SessionLatency.Count, sum.Initialize.Count, sum.ListTools.Count, sum.Sessions.OK)
	}
	l := sum.SessionLatency
	if !(0 < l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) {
		t.Errorf("session latency %+v", l)
	}

	// What the servers received: one initialize each before the run
	// (the check), then one per session; every session closed.
	totalTools := map[string]int{}
	var initialized, closed int
	allAuth := map[string]int{}
	for i, p := range []*countingProxy{a, b} {
		methods, tools, auth, deletes := p.snapshot()
		t.Logf("server %d: methods %v, tools %v, deletes %d", i, methods, tools, deletes)
		sessions := sum.PerURL[i].Sessions.Started
		if sum.PerURL[i].URL != p.endpoint() || int64(methods["initialize"]) != sessions+1 || int64(methods["tools/list"]) != sessions+1 {
			t.Errorf("server %d: %+v; it got %d initialize, %d tools/list", i, sum.PerURL[i], methods["initialize"], methods["tools/list"])
		}
		if sessions < sum.Sessions.Started/2 || sessions > sum.Sessions.Started/2+1 {
			t.Errorf("server %d got %d of %d sessions", i, sessions, sum.Sessions.Started)
		}
		var n int
		for tool, c := range tools {
			totalTools[tool] += c
			n += c
		}
		if int64(n) != sum.PerURL[i].Calls || int64(methods["tools/call"]) != sum.PerURL[i].Calls {
			t.Errorf("server %d got %d tool calls, loadtest counted %d", i, n, sum.PerURL[i].Calls)
		}
		initialized += methods["initialize"]
		closed += deletes
		for k, v := range auth {
			allAuth[k] += v
		}
	}
	if closed != initialized {
		t.Errorf("%d sessions initialized, %d closed", initialized, closed)
	}
	for _, tool := range []string{"ls", "grep", "read", "stat", "search", "bash"} {
		if totalTools[tool] == 0 || int64(totalTools[tool]) != sum.Tools[tool].Calls.OK || sum.Tools[tool].Latency.Count != sum.Tools[tool].Calls.OK {
			t.Errorf("%s: the servers got %d calls, loadtest counted %+v", tool, totalTools[tool], sum.Tools[tool])
		}
	}
	if len(totalTools) != len(sum.Tools) {
		t.Errorf("tools: the servers got %v, loadtest counted %v", totalTools, sum.Tools)
	}
	// The second server's own count of the tool calls it answered.
	_, bTools, _, _ := b.snapshot()
	code, metrics := getURL(t, strings.TrimSuffix(urls["admin"], "/metrics")+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for tool, n := range bTools {
		if want := fmt.Sprintf("chromafs_mcp_tool_calls_total{outcome=\"ok\",site=\"\",tool=%q} %d\n", tool, n); !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	// Sessions take the tokens in turn; the check before the run takes
	// the first on both servers.
	one, two := int64(allAuth["Bearer tok-one"]), int64(allAuth["Bearer tok-two"])
	if len(allAuth) != 2 || one-2 < sum.Sessions.Started/2 || two < sum.Sessions.Started/2 || one-2+two != sum.Sessions.Started {
		t.Errorf("Authorization of initialize: %v; %d sessions", allAuth, sum.Sessions.Started)
	}

	// --count: exactly that many sessions, alternating over the URLs.
	sum = loadtestJSON(t, 0, "-c", "3", "--count", "7", "--tokens", tokFile, a.endpoint(), b.endpoint())
	if sum.Sessions.Started != 7 || sum.Sessions.OK != 7 || sum.PerURL[0].Sessions.OK != 4 || sum.PerURL[1].Sessions.OK != 3 || len(sum.Errors) != 0 {
		t.Errorf("--count 7: sessions %+v, per URL %+v, errors %v", sum.Sessions, sum.PerURL, sum.ErrorExamples)
	}

	// The text report names each tool and the rates.
	out, errOut, code := cli(t, "loadtest", "-c", "2", "--count", "2", "--tokens", tokFile, a.endpoint())
	if code != 0 {
		t.Fatalf("status %d: %s", code, errOut)
	}
	for _, want := range []string{"1 URL, 2 concurrent sessions, built-in docs-question script", "sessions/s", "calls/s", "\nsession ", "\ninitialize ", "\ngrep ", "\nsearch ", "errors by kind: none"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestLoadtestFailures: failures of a server are counted by kind and do
// not stop the run (status 1); inputs and servers that would fail every
// session stop loadtest before the run with status 2 and a message an
// operator can act on (the script line, the URL and what it answered).
func TestLoadtestFailures(t *testing.T) {
	serves, g, users := loadtestServes(t, 1, "tok")
	tokFile := writeFile(t, "tokens", "tok\n")

	// --http: sessions against serve --http walk down to a file and
	// read it; the server gets what loadtest counted.
	httpURL, _, _ := startServeFlags(t, g, []string{"--users", users, "--deny-anonymous"})
	hp := newCountingProxy(t, httpURL)
	t.Run("HTTP sessions", func(t *testing.T) {
		sum := loadtestJSON(t, 0, "-c", "2", "--count", "6", "--tokens", tokFile, "--http", hp.URL)
		hp.mu.Lock()
		gets := maps.Clone(hp.gets)
		hp.mu.Unlock()
		if sum.Sessions.OK != 6 || len(sum.Errors) != 0 || sum.HTTPURLs[0] != hp.URL+"/" || sum.PerURL[0].Sessions.OK != 6 {
			t.Errorf("sessions %+v, errors %v, %+v", sum.Sessions, sum.ErrorExamples, sum.PerURL)
		}
		for _, k := range []string{loadtest.HTTPDir, loadtest.HTTPFile, loadtest.HTTPRange} {
			want := 6
			if k == loadtest.HTTPDir {
				want = 7 // and the check before the run
			}
			if gets[k] != want || sum.Tools[k].Calls.OK < 6 || int64(gets[k]) != sum.Tools[k].Calls.OK+int64(want-6) {
				t.Errorf("%s: the server got %d, loadtest counted %+v", k, gets[k], sum.Tools[k])
			}
		}
		if len(sum.Tools) != 3 {
			t.Errorf("tools %v", sum.Tools)
		}
	})

	t.Run("503 and 429 counted", func(t *testing.T) {
		p := newCountingProxy(t, serves[0])
		p.fail = func(call int) int {
			switch {
			case call%5 == 0:
				return http.StatusServiceUnavailable
			case call%7 == 0:
				return http.StatusTooManyRequests
			}
			return 0
		}
		sum := loadtestJSON(t, 1, "-c", "2", "--count", "12", "--tokens", tokFile, "--ignore-retry-after", p.endpoint())
		p.mu.Lock()
		injected, calls := p.injected, p.calls
		p.mu.Unlock()
		n503, n429 := int64(injected[503]), int64(injected[429])
		if n503 == 0 || n429 == 0 || sum.Errors[loadtest.KindHTTP503] != n503 || sum.Errors[loadtest.KindHTTP429] != n429 || len(sum.Errors) != 2 {
			t.Errorf("errors %v, the proxy answered %v", sum.Errors, injected)
		}
		if sum.Sessions.Started != 12 || sum.Sessions.Failed != n503+n429 || sum.Sessions.OK != 12-n503-n429 {
			t.Errorf("sessions %+v", sum.Sessions)
		}
		if sum.Calls.Started != int64(calls) || sum.Calls.Failed != n503+n429 {
			t.Errorf("calls %+v; the proxy got %d", sum.Calls, calls)
		}
		if ex := sum.ErrorExamples[loadtest.KindHTTP503]; !strings.Contains(ex, "HTTP 503, Retry-After: 1") {
			t.Errorf("503 example: %q", ex)
		}
	})

	t.Run("timeout counted", func(t *testing.T) {
		p := newCountingProxy(t, serves[0])
		p.fail = func(call int) int {
			if call == 3 {
				return -1
			}
			return 0
		}
		start := time.Now()
		sum := loadtestJSON(t, 1, "-c", "2", "--count", "4", "--timeout", "2s", "--tokens", tokFile, p.endpoint())
		if sum.Errors[loadtest.KindTimeout] != 1 || len(sum.Errors) != 1 || sum.Sessions.Failed != 1 || sum.Sessions.OK != 3 {
			t.Errorf("errors %v, sessions %+v", sum.ErrorExamples, sum.Sessions)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("the run took %v with --timeout 2s", d)
		}
	})

	t.Run("tool errors counted", func(t *testing.T) {
		script := writeFile(t, "calls.jsonl", "{\"tool\":\"read\",\"args\":{\"path\":\"/nope.md\"}}\n{\"tool\":\"ls\",\"args\":{\"path\":\"/\"}}\n")
		sum := loadtestJSON(t, 1, "-c", "2", "--count", "3", "--tokens", tokFile, "--script", script, serves[0])
		if sum.Errors[loadtest.KindToolError] != 3 || len(sum.Errors) != 1 || sum.Sessions.OK != 3 || sum.Tools["ls"].Calls.OK != 3 || sum.Tools["read"].Calls.Failed != 3 {
			t.Errorf("errors %v, sessions %+v, tools %+v", sum.Errors, sum.Sessions, sum.Tools)
		}
		if ex := sum.ErrorExamples[loadtest.KindToolError]; !strings.Contains(ex, "/nope.md: no such file or directory") {
			t.Errorf("example %q", ex)
		}
	})

	t.Run("a server answering 503 to everything", func(t *testing.T) {
		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "5")
			http.Error(w, "503 service unavailable: the collection cannot be reached yet", http.StatusServiceUnavailable)
		}))
		defer down.Close()
		sum := loadtestJSON(t, 1, "-c", "2", "--count", "4", "--ignore-retry-after", down.URL+"/mcp")
		if sum.Errors[loadtest.KindHTTP503] != 4 || sum.Sessions.Failed != 4 || sum.Calls.Started != 0 || sum.RetryWaits != 0 {
			t.Errorf("errors %v, sessions %+v, %d waits", sum.Errors, sum.Sessions, sum.RetryWaits)
		}
	})

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + l.Addr().String() + "/mcp"
	l.Close() // nothing listens there now
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer hang.Close()
	badScript := writeFile(t, "calls.jsonl", "# ok\n{\"tool\":\"ls\"}\n{\"tool\":\"grep\",\"args\":{\"pattern\":\"x\"}\n")
	unknownTool := writeFile(t, "calls.jsonl", "{\"tool\":\"ls\"}\n\n{\"tool\":\"gerp\",\"args\":{\"pattern\":\"x\"}}\n")
	wrongTok := writeFile(t, "tokens", "nope\n")
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"bad script line", []string{"--script", badScript, serves[0]}, []string{"--script: calls.jsonl:3: unexpected EOF"}},
		{"script tool not served", []string{"--tokens", tokFile, "--script", unknownTool, serves[0]}, []string{`calls.jsonl:3: tool "gerp" is not served by ` + serves[0] + " (it lists bash, glob, grep, ls, read, search, stat)"}},
		{"unreachable URL", []string{unreachable}, []string{unreachable + ": ", "connection refused", "is chromafs serve --mcp running there"}},
		{"no credentials", []string{serves[0]}, []string{serves[0] + ": ", `HTTP 401, WWW-Authenticate: Basic realm="chromafs"`, "give --tokens FILE"}},
		{"wrong token", []string{"--tokens", wrongTok, serves[0]}, []string{"HTTP 401", "the server refused the token"}},
		{"HTTP without credentials", []string{"--http", httpURL}, []string{httpURL + "/: GET " + httpURL + "/: 401 Unauthorized (HTTP 401, WWW-Authenticate: Basic realm=\"chromafs\"", "give --tokens FILE"}},
		{"no MCP there", []string{"--tokens", tokFile, strings.TrimSuffix(serves[0], "/mcp") + "/nope"}, []string{"HTTP 404", "no MCP endpoint there"}},
		{"hanging server", []string{"--timeout", "300ms", hang.URL + "/mcp"}, []string{hang.URL + "/mcp: ", "no answer within --timeout", "is chromafs serve --mcp running there"}},
		{"not a URL", []string{"127.0.0.1:8080"}, []string{`"127.0.0.1:8080" is not an http:// or https:// URL`}},
		{"missing token file", []string{"--tokens", filepath.Join(t.TempDir(), "none"), serves[0]}, []string{"--tokens: open "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, append([]string{"loadtest", "--count", "1"}, tt.args...)...)
			if code != 2 || out != "" {
				t.Errorf("status %d, stdout %q", code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}

	// Usage errors.
	for _, args := range [][]string{{"loadtest"}, {"loadtest", "-c", "0", "http://x/mcp"}, {"loadtest", "--timeout", "0s", "http://x/mcp"}} {
		if _, errOut, code := cli(t, args...); code != 2 || !strings.Contains(errOut, "Try 'chromafs loadtest --help'") {
			t.Errorf("%q: status %d, %q", args, code, errOut)
		}
	}
}
