package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestServeSitesReload runs `chromafs serve --sites` on a real Chroma
// and checks, through the built binary: a site's rate limit (its
// limits: keys over the --rate-limit flag) answers 429 with Retry-After
// and is counted on /metrics; SIGHUP with a new file routes an added
// site, answers 404 for a removed one and keeps an unchanged site's
// instance (its rate limiter still empty); SIGHUP with a broken file
// logs one line naming the mistake and keeps serving the sites as they
// were.
func TestServeSitesReload(t *testing.T) {
	chroma := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	if _, errOut, code := cli(t, "--chroma-url", chroma.URL, "--collection", coll, "ingest", "--embedding", "ngram", docsDir); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	dir := t.TempDir()
	sitesFile := filepath.Join(dir, "sites.yaml")
	write := func(content string) {
		t.Helper()
		// Written aside and renamed: serve never reads half a file.
		tmp := sitesFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, sitesFile); err != nil {
			t.Fatal(err)
		}
	}
	write(fmt.Sprintf(`sites:
  - name: one
    collection: %[1]s
  - name: two
    collection: %[1]s
    limits: {rate: 0.01, burst: 2}
`, coll))
	// The flag's limit is generous; two's own keys are not.
	p := startSitesProcess(t, []string{"--chroma-url", chroma.URL}, []string{"--rate-limit", "100"}, sitesFile)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(p.http + path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	for i, want := range []int{200, 200, 429} {
		code, ra := get("/two/")
		if code != want {
			t.Fatalf("GET /two/ #%d: %d, want %d", i+1, code, want)
		}
		if code == 429 {
			if s, err := strconv.Atoi(ra); err != nil || s < 90 || s > 100 {
				t.Errorf("429 with Retry-After %q, want about 100 (one request per 100 s)", ra)
			}
		}
	}
	for range 3 {
		if code, _ := get("/one/"); code != 200 {
			t.Fatalf("GET /one/: %d, want 200 (the flag's limit is 100/s)", code)
		}
	}
	resp, err := http.Get(p.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metricsText, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `chromafs_rate_limited_total{limit="rate",site="two"} 1`; !strings.Contains(string(metricsText), want) {
		t.Errorf("/metrics lacks %s", want)
	}

	hup := func() {
		t.Helper()
		if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	// waitLog waits for a line of serve's log containing s.
	waitLog := func(s string) string {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			for line := range strings.SplitSeq(p.stderr.String(), "\n") {
				if strings.Contains(line, s) {
					return line
				}
			}
		}
		t.Fatalf("no log line with %q:\n%s", s, p.stderr.String())
		return ""
	}
	write(fmt.Sprintf(`sites:
  - name: two
    collection: %[1]s
    limits: {rate: 0.01, burst: 2}
  - name: three
    collection: %[1]s
`, coll))
	hup()
	line := waitLog("sites file reloaded")
	for _, w := range []string{`"added":["three"]`, `"removed":["one"]`, `"kept":1`} {
		if !strings.Contains(line, w) {
			t.Errorf("reload log line %s lacks %s", line, w)
		}
	}
	for _, tc := range []struct {
		path string
		want int
	}{{"/three/", 200}, {"/one/", 404}, {"/two/", 429}} {
		if code, _ := get(tc.path); code != tc.want {
			t.Errorf("after the reload, GET %s: %d, want %d", tc.path, code, tc.want)
		}
	}

	write("sites:\n  - name: three\n    colection: x\n")
	hup()
	line = waitLog("not reloaded")
	if !strings.Contains(line, "unknown key colection") || !strings.Contains(line, "line 3") {
		t.Errorf("the refused reload's log line does not name the mistake: %s", line)
	}
	for _, tc := range []struct {
		path string
		want int
	}{{"/three/", 200}, {"/two/", 429}, {"/one/", 404}} {
		if code, _ := get(tc.path); code != tc.want {
			t.Errorf("after a broken file, GET %s: %d, want %d", tc.path, code, tc.want)
		}
	}

	// --max-sites-loaded 1: one site open at a time, each made again
	// when asked after the other.
	twoFile := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(twoFile, fmt.Appendf(nil, "sites:\n  - {name: a, collection: %[1]s}\n  - {name: b, collection: %[1]s}\n", coll), 0o600); err != nil {
		t.Fatal(err)
	}
	q := startSitesProcess(t, []string{"--chroma-url", chroma.URL}, []string{"--max-sites-loaded", "1"}, twoFile)
	for _, site := range []string{"a", "b", "a", "b"} {
		resp, err := http.Get(q.http + "/" + site + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET /%s/ with one site open at a time: %d", site, resp.StatusCode)
		}
		if _, ready := getURL(t, q.http+"/readyz"); !strings.Contains(ready, "sites: 2 configured, 1 loaded") {
			t.Errorf("after GET /%s/, readyz: %q", site, ready)
		}
	}
	if n := strings.Count(q.stderr.String(), "site evicted"); n != 3 {
		t.Errorf("%d evictions logged, want 3 (each request after the first)", n)
	}
}
