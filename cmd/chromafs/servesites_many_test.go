package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// vmRSS is the resident memory of process pid in bytes (/proc/PID/status).
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// TestServeManySites measures `serve --sites` with many small sites
// (200 with CHROMAFS_SOAK set, else 20), each a collection of 10 pages
// that internal/gen writes into one real Chroma: the resident memory
// (VmRSS) that each idle loaded site and each idle MCP session costs,
// and chromafs loadtest's sessions/s and p99 with its sessions on one
// site and round-robin over every site's /NAME/mcp, in the same run.
// It requires every site served, no loadtest error, the round-robin run
// on every site, and the memory per site within 4 MiB (and, with 200,
// per session within 1 MiB); the numbers are logged (MEASURE lines) for
// BENCHMARKS.md.
func TestServeManySites(t *testing.T) {
	n := 20
	if os.Getenv("CHROMAFS_SOAK") != "" {
		n = 200
	}
	chroma := testenv.Chroma(t)
	base := testenv.CollectionName(t)
	ctx := context.Background()
	var file strings.Builder
	file.WriteString("sites:\n")
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	start := time.Now()
	for i := range n {
		name := fmt.Sprintf("s%03d", i)
		coll := fmt.Sprintf("%s-%03d", base, i)
		fmt.Fprintf(&file, "  - {name: %s, collection: %s}\n", name, coll)
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			c := testbackend.OpenChroma(t, chromastore.Config{URL: chroma.URL, Collection: coll})
			if _, err := gen.Write(ctx, c, gen.Pages(10, uint64(i+1)), gen.Options{Workers: 1}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d sites of 10 pages written in %v", n, time.Since(start).Round(time.Millisecond))
	sitesFile := filepath.Join(t.TempDir(), "sites.yaml")
	if err := os.WriteFile(sitesFile, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startSitesProcess(t, []string{"--chroma-url", chroma.URL}, []string{"--site-idle", "1h"}, sitesFile)
	pid := p.cmd.Process.Pid
	get := func(url string) int {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	// Memory per idle loaded site: one site loaded, then all.
	if code := get(p.http + "/s000/"); code != 200 {
		t.Fatalf("GET /s000/: %d", code)
	}
	time.Sleep(time.Second)
	rss1 := vmRSS(t, pid)
	for i := 1; i < n; i++ {
		if code := get(fmt.Sprintf("%s/s%03d/", p.http, i)); code != 200 {
			t.Fatalf("GET /s%03d/: %d", i, code)
		}
	}
	time.Sleep(time.Second)
	rssAll := vmRSS(t, pid)
	_, ready := getURL(t, p.http+"/readyz")
	if want := fmt.Sprintf("sites: %d configured, %d loaded", n, n); !strings.Contains(ready, want) {
		t.Errorf("readyz: %q, want %q", ready, want)
	}
	perSite := float64(rssAll-rss1) / float64(n-1)

	// Memory per idle MCP session: n sessions, one per site.
	sessions := make([]*mcp.ClientSession, 0, n)
	for i := range n {
		tr := &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("%s/s%03d/mcp", p.mcp, i), MaxRetries: -1, DisableStandaloneSSE: true}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "idle", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ls", Arguments: map[string]any{"path": "/"}}); err != nil {
			t.Fatalf("session %d: ls: %v", i, err)
		}
		sessions = append(sessions, cs)
	}
	time.Sleep(time.Second)
	rssSessions := vmRSS(t, pid)
	perSession := float64(rssSessions-rssAll) / float64(n)
	for _, cs := range sessions {
		cs.Close()
	}

	// Load: one site, then every site in turn.
	d := testenv.SoakDuration(t).String()
	one := loadtestJSON(t, 0, "-c", "8", "--duration", d, "--timeout", "30s", p.mcp+"/s000/mcp")
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/s%03d/mcp", p.mcp, i)
	}
	all := loadtestJSON(t, 0, append([]string{"-c", "8", "--duration", d, "--timeout", "30s"}, urls...)...)
	for name, sum := range map[string]struct {
		ok, failed int64
		errs       int
	}{"one site": {one.Sessions.OK, one.Sessions.Failed, len(one.Errors)}, "all sites": {all.Sessions.OK, all.Sessions.Failed, len(all.Errors)}} {
		if sum.ok == 0 || sum.failed != 0 || sum.errs != 0 {
			t.Errorf("%s: %d sessions ok, %d failed, %d kinds of error", name, sum.ok, sum.failed, sum.errs)
		}
	}
	visited := 0
	for _, u := range all.PerURL {
		if u.Sessions.OK > 0 {
			visited++
		}
	}
	if visited != min(n, int(all.Sessions.OK)) {
		t.Errorf("the round-robin run reached %d sites with %d sessions", visited, all.Sessions.OK)
	}
	t.Logf("MEASURE sites=%d rss_one_site=%.1fMiB rss_all_sites=%.1fMiB per_idle_site=%.0fKiB per_idle_session=%.0fKiB",
		n, float64(rss1)/(1<<20), float64(rssAll)/(1<<20), perSite/1024, perSession/1024)
	t.Logf("MEASURE one site: %.1f sessions/s, %.0f calls/s, session p99 %.1f ms, p50 %.1f ms (%d sessions)",
		one.SessionsPerSecond, one.CallsPerSecond, one.SessionLatency.P99, one.SessionLatency.P50, one.Sessions.OK)
	t.Logf("MEASURE %d sites: %.1f sessions/s, %.0f calls/s, session p99 %.1f ms, p50 %.1f ms (%d sessions)",
		n, all.SessionsPerSecond, all.CallsPerSecond, all.SessionLatency.P99, all.SessionLatency.P50, all.Sessions.OK)
	t.Logf("MEASURE ratio %d sites / 1 site: sessions/s %.2f, p99 %.2f", n, all.SessionsPerSecond/one.SessionsPerSecond, all.SessionLatency.P99/one.SessionLatency.P99)
	// RSS grows in steps: 20 sessions are too few to bound one's part.
	if perSite > 4<<20 || (n >= 200 && perSession > 1<<20) {
		t.Errorf("memory per idle site %.0f KiB, per idle session %.0f KiB: want at most 4096 and 1024", perSite/1024, perSession/1024)
	}
}
