package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// fetch sends GET path and returns the status, the body and the
// Retry-After header.
func fetch(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Retry-After")
}

// waitFor polls url until it answers status with a body containing
// want, or fails after limit.
func waitFor(t *testing.T, url string, status int, want string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		code, body, _ := fetch(t, url)
		if code == status && strings.Contains(body, want) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d %q after %v, want %d", url, code, body, limit, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReadiness runs a server whose Chroma (real, private) is down when
// it starts: /healthz is 200 throughout, /readyz 503 with a short reason
// and other requests 503 with Retry-After until Chroma answers; then the
// server becomes ready without a restart, and unready again (and ready
// again) when Chroma stops (and restarts). An unreachable Redis is
// reported by /readyz but does not make the server unready.
func TestReadiness(t *testing.T) {
	chroma := testenv.NewChroma(t)
	// Generous timeouts: a check that Chroma answers slowly on a loaded
	// machine must not count as an outage. A stopped Chroma refuses
	// connections at once, so they cost the test no time.
	cfg := chromastore.Config{URL: chroma.URL, Collection: testenv.CollectionName(t), Create: true, Timeout: 30 * time.Second}
	c, err := chromastore.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	load(t, c)
	c.Close()
	if err := chroma.Stop(); err != nil {
		t.Fatal(err)
	}
	cfg.Create = false
	rc, err := rediscache.New("redis://127.0.0.1:1", rediscache.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var logs testenv.LogBuffer
	srv := server.New(server.Config{
		Open: func(ctx context.Context) (collection.Store, error) {
			c, err := chromastore.Open(ctx, cfg)
			if err != nil {
				return nil, err
			}
			return c, nil
		},
		Cache:         rc,
		CheckInterval: 200 * time.Millisecond,
		CheckTimeout:  time.Minute,
		Options:       []chromafs.Option{chromafs.WithTreeMaxAge(time.Second)},
		Logger:        slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	ts := httptest.NewServer(srv.Wrap("http", lister(srv)))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { srv.Run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	}()

	notReady := func(reason string) {
		t.Helper()
		body := waitFor(t, ts.URL+"/readyz", http.StatusServiceUnavailable, "chroma: "+reason, time.Minute)
		if !strings.Contains(body, "not ready\n") || !strings.Contains(body, "chroma: "+reason) ||
			!strings.Contains(body, "redis: unreachable") || strings.Contains(body, "127.0.0.1") {
			t.Errorf("/readyz body %q", body)
		}
		if code, body, _ := fetch(t, ts.URL+"/healthz"); code != 200 || body != "ok\n" {
			t.Errorf("/healthz while not ready: %d %q", code, body)
		}
	}
	ready := func() {
		t.Helper()
		body := waitFor(t, ts.URL+"/readyz", http.StatusOK, "", time.Minute)
		if body != "ready\nchroma: ok\nredis: unreachable (pages are read from Chroma)\n" {
			t.Errorf("/readyz body %q", body)
		}
		if code, body, _ := fetch(t, ts.URL+"/"); code != 200 || strings.Join(strings.Fields(body), " ") != "guide.md release/public.md" {
			t.Errorf("GET / when ready: %d %q", code, body)
		}
	}

	notReady("unreachable")
	code, body, ra := fetch(t, ts.URL+"/")
	if code != http.StatusServiceUnavailable || ra == "" {
		t.Errorf("GET / before the store is open: %d %q, Retry-After %q", code, body, ra)
	}
	if err := chroma.Start(); err != nil {
		t.Fatal(err)
	}
	ready()
	if err := chroma.Stop(); err != nil {
		t.Fatal(err)
	}
	notReady("unreachable")
	if err := chroma.Start(); err != nil {
		t.Fatal(err)
	}
	ready()
	log := logs.String()
	if n := strings.Count(log, `"msg":"chromafs serve: not ready`); n != 2 {
		t.Errorf("%d not-ready warnings, want 2 (one per outage):\n%s", n, log)
	}
	if n := strings.Count(log, `"msg":"chromafs serve: ready"`); n != 2 {
		t.Errorf("%d ready lines, want 2:\n%s", n, log)
	}
}

// TestReadyWithoutRun: with an open store and no Run, /readyz checks
// on demand.
func TestReadyWithoutRun(t *testing.T) {
	c := testbackend.Chroma(t)
	srv := server.New(server.Config{Store: c, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := httptest.NewServer(srv.Wrap("http", lister(srv)))
	defer ts.Close()
	// No tree record yet: not ready.
	if code, body, _ := fetch(t, ts.URL+"/readyz"); code != 503 || body != "not ready\nchroma: tree record not found\n" {
		t.Errorf("/readyz without a tree: %d %q", code, body)
	}
	load(t, c)
	srv = server.New(server.Config{Store: c, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts2 := httptest.NewServer(srv.Wrap("http", lister(srv)))
	defer ts2.Close()
	if code, body, _ := fetch(t, ts2.URL+"/readyz"); code != 200 || body != "ready\nchroma: ok\n" {
		t.Errorf("/readyz: %d %q", code, body)
	}
	req, _ := http.NewRequest("HEAD", ts2.URL+"/readyz", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD /readyz: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}
