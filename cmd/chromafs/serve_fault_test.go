package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/faulttest"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testenv"
)

// ingestDocs writes examples/docs into a new collection on the Chroma at
// chromaURL and returns the collection's name.
func ingestDocs(t *testing.T, chromaURL string) string {
	t.Helper()
	coll := testenv.CollectionName(t)
	if _, errOut, code := cli(t, "--chroma-url", chromaURL, "--collection", coll, "ingest", "--rules", "../../examples/access.rules", docsDir); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	return coll
}

// httpGet sends GET to u with the given Authorization header (none if
// empty) from client and returns the status, body and Retry-After.
func httpGet(t *testing.T, client *http.Client, u, auth string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Retry-After")
}

// pollStatus polls u until it answers status with a body containing
// want, or fails after limit.
func pollStatus(t *testing.T, u string, status int, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		code, body, _ := httpGet(t, http.DefaultClient, u, "")
		if code == status && strings.Contains(body, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d %q after %v; want %d with %q", u, code, body, limit, status, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestServeChromaDownAtStart: serve starts while its Chroma (real,
// private) is stopped: it listens, /healthz is 200, /readyz 503 with the
// reason, a page 503 with Retry-After on both protocols; once Chroma is
// started the server becomes ready and serves the page, without a
// restart.
func TestServeChromaDownAtStart(t *testing.T) {
	t.Parallel() // mostly waits for its private Chroma to start
	chroma := testenv.NewChroma(t)
	coll := ingestDocs(t, chroma.URL)
	if err := chroma.Stop(); err != nil {
		t.Fatal(err)
	}
	httpURL, davURL, stop := startServe(t, "--chroma-url", chroma.URL, "--collection", coll)
	for _, base := range []string{httpURL, davURL} {
		if code, body, _ := httpGet(t, http.DefaultClient, base+"/healthz", ""); code != 200 || body != "ok\n" {
			t.Errorf("%s/healthz with Chroma down: %d %q", base, code, body)
		}
		if code, body, _ := httpGet(t, http.DefaultClient, base+"/readyz", ""); code != 503 || body != "not ready\nchroma: unreachable\n" {
			t.Errorf("%s/readyz with Chroma down: %d %q", base, code, body)
		}
		if code, _, ra := httpGet(t, http.DefaultClient, base+"/index.md", ""); code != 503 || ra == "" {
			t.Errorf("%s/index.md with Chroma down: %d, Retry-After %q; want 503 with Retry-After", base, code, ra)
		}
	}
	if err := chroma.Start(); err != nil {
		t.Fatal(err)
	}
	pollStatus(t, httpURL+"/readyz", 200, "ready\nchroma: ok\n", 30*time.Second)
	want, err := os.ReadFile(filepath.Join(docsDir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{httpURL, davURL} {
		if code, body, _ := httpGet(t, http.DefaultClient, base+"/index.md", ""); code != 200 || body != string(want) {
			t.Errorf("%s/index.md once Chroma is up: %d, %d bytes", base, code, len(body))
		}
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with status %d", code)
	}
}

// TestServeFrozenChroma: with Chroma frozen (a proxy that accepts and
// never answers), /readyz turns 503 and then a page that is not cached
// answers 504 or 503 within seconds (not the 20 s --chroma-timeout, let
// alone a hang), while a cached page is still served; once Chroma answers
// again the page is served and /readyz is 200.
func TestServeFrozenChroma(t *testing.T) {
	t.Parallel() // mostly waits for timeouts: other tests run meanwhile
	coll, fz := docsBehindProxy(t)
	httpURL, davURL, stop := startServeFlags(t,
		[]string{"--chroma-url", "http://" + fz.Addr, "--collection", coll, "--chroma-timeout", "20s"},
		[]string{"--tree-max-age", "1h"})
	client := &http.Client{Timeout: 60 * time.Second}
	cached, err := os.ReadFile(filepath.Join(docsDir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := httpGet(t, client, httpURL+"/index.md", ""); code != 200 {
		t.Fatalf("index.md before the freeze: %d", code)
	}
	fz.Freeze()
	pollStatus(t, httpURL+"/readyz", 503, "chroma: no answer in time", 40*time.Second)
	for _, base := range []string{httpURL, davURL} {
		start := time.Now()
		code, _, _ := httpGet(t, client, base+"/guides/auth/oauth.mdx", "")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: an uncached page with Chroma frozen answered after %v", base, d)
		}
		if code != http.StatusGatewayTimeout && code != http.StatusServiceUnavailable {
			t.Errorf("%s: an uncached page with Chroma frozen: %d, want 504 or 503", base, code)
		}
		if code, body, _ := httpGet(t, client, base+"/index.md", ""); code != 200 || body != string(cached) {
			t.Errorf("%s: a cached page with Chroma frozen: %d, %d bytes", base, code, len(body))
		}
	}
	fz.Thaw()
	pollStatus(t, httpURL+"/readyz", 200, "ready", 30*time.Second)
	if code, _, _ := httpGet(t, client, httpURL+"/guides/auth/oauth.mdx", ""); code != 200 {
		t.Errorf("the page after Chroma thawed: %d", code)
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with status %d", code)
	}
}

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
}

// TestServeSignInLimits: a burst of wrong passwords from one address gets
// 429 with Retry-After after ten failures, while alice signing in from
// another address gets her page; schemes are case-insensitive; the
// request log gives duration_ms, a number of milliseconds.
func TestServeSignInLimits(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := ingestDocs(t, srv.URL)
	hash := cheapHash(t, "alice-pw")
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice password="+hash+" groups=staff\nbot token-sha256="+server.HashToken("tok")+" groups=staff\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs testenv.LogBuffer
	httpURL, davURL, stop := startServeLog(t, []string{"--chroma-url", srv.URL, "--collection", coll}, []string{"--users", users}, &logs)
	private := privatePage(t)
	basic := func(name, pw string) string {
		req, _ := http.NewRequest("GET", "/", nil)
		req.SetBasicAuth(name, pw)
		return req.Header.Get("Authorization")
	}
	// A failure is refilled every 6 s: a loaded machine that sends the
	// requests slowly sees more 401s, never more than the time taken
	// allows, and a 429 once the bucket is empty.
	const refill = 6 * time.Second
	for i, base := range []string{httpURL, davURL} {
		attacker := clientFrom(fmt.Sprintf("127.0.0.%d", i+2))
		var codes []int
		var last429 time.Time // when the request that got the last 429 was sent
		start := time.Now()
		for i := 0; i < 16 || (last429.IsZero() && i < 60); i++ {
			sent := time.Now()
			code, _, ra := httpGet(t, attacker, base+"/"+private, basic(fmt.Sprintf("guess%d", i), "nope"))
			codes = append(codes, code)
			if code == 429 {
				last429 = sent
				if ra == "" {
					t.Errorf("%s: 429 without Retry-After", base)
				}
			}
		}
		// Ten failures in a row, then one more every 6 s.
		allowed := 10 + int(time.Since(start)/refill)
		n401 := 0
		for i, code := range codes {
			if code == 401 {
				n401++
			}
			if (i < 10 && code != 401) || (code != 401 && code != 429) {
				t.Errorf("%s: wrong passwords from one address: %v; want 10 x 401 then 429", base, codes)
				break
			}
		}
		if n401 > allowed || last429.IsZero() {
			t.Fatalf("%s: wrong passwords from one address: %v; want at most %d x 401, then 429", base, codes, allowed)
		}
		for name, auth := range map[string]string{
			"alice":             basic("alice", "alice-pw"),
			"lower-case basic":  "basic " + strings.TrimPrefix(basic("alice", "alice-pw"), "Basic "),
			"lower-case bearer": "bearer tok",
			"Bearer":            "Bearer tok",
		} {
			if code, _, _ := httpGet(t, clientFrom("127.0.0.1"), base+"/"+private, auth); code != 200 {
				t.Errorf("%s %s from another address: %d, want 200", base, name, code)
			}
		}
		// The limits are the server's, whatever the protocol: the
		// bucket was empty at the last 429, and has refilled one failure
		// every 6 s since (at most one more, for rounding): quick
		// guesses get 429 after at most that many 401s.
		if base == httpURL {
			var other []int
			for {
				code, _, _ := httpGet(t, attacker, davURL+"/"+private, basic("bot", "guess"))
				other = append(other, code)
				if code != 401 || len(other) > 1+int(time.Since(last429)/refill) {
					break
				}
			}
			if other[len(other)-1] != 429 {
				t.Errorf("the limited address on the other protocol: %v, want 429 after at most %d x 401", other, 1+int(time.Since(last429)/refill))
			}
		}
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with status %d", code)
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("a log line that is not JSON: %q", sc.Text())
		}
		if line["msg"] != "request" {
			continue
		}
		n++
		if _, ok := line["duration"]; ok {
			t.Errorf("a request line with a duration without unit: %s", sc.Text())
		}
		if ms, ok := line["duration_ms"].(float64); !ok || ms < 0 || ms > 60_000 {
			t.Errorf("a request line without a duration_ms in milliseconds: %s", sc.Text())
		}
	}
	if n < 40 {
		t.Errorf("%d request lines logged, want one per request (40+)", n)
	}
}

// TestRedisDownOneWarning: a command with an unreachable Redis prints the
// page and exactly one warning, in the CLI's log format (go-redis's own
// log line is not printed).
func TestRedisDownOneWarning(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := ingestDocs(t, srv.URL)
	want, err := os.ReadFile(filepath.Join(docsDir, "guides/auth/oauth.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, "--chroma-url", srv.URL, "--collection", coll, "--redis-url", "redis://127.0.0.1:1",
		"cat", "/index.md", "/guides/auth/oauth.mdx")
	index, err := os.ReadFile(filepath.Join(docsDir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || out != string(index)+string(want) {
		t.Errorf("cat with Redis down: status %d, %d bytes, want 0 and %d bytes", code, len(out), len(index)+len(want))
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "redis cache unreachable") ||
		!strings.Contains(lines[0], "connection refused") {
		t.Errorf("stderr with Redis down: want one warning, got %d lines:\n%s", len(lines), errOut)
	}
}

// docsBehindProxy ingests the docs into a new collection of the test
// Chroma and returns it with a fault proxy in front of that Chroma.
func docsBehindProxy(t *testing.T) (coll string, fz *faulttest.Proxy) {
	t.Helper()
	srv := testenv.Chroma(t)
	coll = ingestDocs(t, srv.URL)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return coll, faulttest.NewProxy(t, u.Host)
}

// TestCLIFrozenChroma: a command against a frozen Chroma fails after
// --chroma-timeout with an error that says so, instead of hanging.
func TestCLIFrozenChroma(t *testing.T) {
	coll, fz := docsBehindProxy(t)
	fz.Freeze()
	start := time.Now()
	out, errOut, code := cli(t, "--chroma-url", "http://"+fz.Addr, "--collection", coll, "--chroma-timeout", "500ms", "cat", "/index.md")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cat with Chroma frozen returned after %v", d)
	}
	if code == 0 || out != "" || !strings.Contains(errOut, "no answer within 500ms") {
		t.Errorf("cat with Chroma frozen: status %d, stdout %q, stderr %q", code, out, errOut)
	}
}
