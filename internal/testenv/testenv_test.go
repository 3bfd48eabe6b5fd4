package testenv

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func heartbeat(t *testing.T, base string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return probeChromaURL(ctx, base)
}

func ping(t *testing.T, s *Server) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return redisReady(ctx, s.Addr)
}

func TestChromaShared(t *testing.T) {
	s := Chroma(t)
	if err := heartbeat(t, s.URL); err != nil {
		t.Fatalf("heartbeat %s: %v", s.URL, err)
	}
	if s2 := Chroma(t); s2 != s {
		t.Fatalf("second Chroma call returned another server: %s, %s", s.URL, s2.URL)
	}
	if os.Getenv("CHROMA_URL") == "" && !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q, want a loopback address", s.URL)
	}
}

func TestChromaSharedConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	urls := make([]string, 8)
	for i := range urls {
		wg.Go(func() { urls[i] = Chroma(t).URL })
	}
	wg.Wait()
	for _, u := range urls {
		if u != urls[0] {
			t.Fatalf("concurrent first uses got different servers: %q", urls)
		}
	}
}

func TestRedisShared(t *testing.T) {
	s := Redis(t)
	if err := ping(t, s); err != nil {
		t.Fatalf("PING %s: %v", s.URL, err)
	}
	if os.Getenv("REDIS_URL") == "" && !strings.HasPrefix(s.URL, "redis://127.0.0.1:") {
		t.Errorf("URL = %q, want a loopback redis URL", s.URL)
	}
}

// createCollection creates a collection through the REST API and reports
// whether it exists afterwards.
func chromaDo(t *testing.T, method, u, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestChromaRestartKeepsData(t *testing.T) {
	s := NewChroma(t)
	name := CollectionName(t)
	colls := s.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections"
	if code := chromaDo(t, http.MethodPost, colls, fmt.Sprintf(`{"name":%q}`, name)); code != http.StatusOK {
		t.Fatalf("create collection: status %d", code)
	}

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if s.Running() {
		t.Error("Running() after Stop")
	}
	if err := heartbeat(t, s.URL); err == nil {
		t.Fatal("heartbeat answered after Stop")
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	url := s.URL
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if s.URL != url {
		t.Fatalf("URL changed across restart: %s -> %s", url, s.URL)
	}
	if err := heartbeat(t, s.URL); err != nil {
		t.Fatalf("heartbeat after Start: %v", err)
	}
	if code := chromaDo(t, http.MethodGet, colls+"/"+name, ""); code != http.StatusOK {
		t.Fatalf("collection after restart: status %d, want 200", code)
	}

	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := heartbeat(t, s.URL); err != nil {
		t.Fatalf("heartbeat after Restart: %v", err)
	}
	if code := chromaDo(t, http.MethodGet, colls+"/"+name, ""); code != http.StatusOK {
		t.Fatalf("collection after Restart: status %d, want 200", code)
	}
}

func TestRedisRestart(t *testing.T) {
	s := NewRedis(t)
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := ping(t, s); err != nil {
		t.Fatalf("PING after Restart: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := ping(t, s); err == nil {
		t.Fatal("PING answered after Stop")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := ping(t, s); err != nil {
		t.Fatalf("PING after Start: %v", err)
	}
}

func TestStartReportsLogTail(t *testing.T) {
	// A "server" that writes to its log and exits at once.
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-server")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"fake: refusing to start on $*\" >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	k := chromaKind
	k.name = "fake"
	_, err := launch(k, bin, dir)
	if err == nil {
		t.Fatal("launch succeeded")
	}
	for _, want := range []string{"fake on 127.0.0.1:", "exited while starting", "exit status 3", "fake: refusing to start on run --path"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestExternalServer(t *testing.T) {
	s := Chroma(t) // something that answers
	ext, err := external(chromaKind, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if ext.URL != s.URL {
		t.Errorf("URL = %q, want %q", ext.URL, s.URL)
	}
	if err := ext.Stop(); err == nil || !strings.Contains(err.Error(), "CHROMA_URL") {
		t.Errorf("Stop on an external server: %v, want an error naming CHROMA_URL", err)
	}
	if _, err := external(chromaKind, "http://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "CHROMA_URL=http://127.0.0.1:1 does not answer") {
		t.Errorf("unreachable CHROMA_URL: %v", err)
	}
	if _, err := external(redisKind, "redis://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "REDIS_URL=redis://127.0.0.1:1 does not answer") {
		t.Errorf("unreachable REDIS_URL: %v", err)
	}
}

// recorder is a testing.TB that records Skip and Fatal instead of acting.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

func runRecorder(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestMissingBinary(t *testing.T) {
	t.Setenv("CHROMA_BIN", filepath.Join(t.TempDir(), "no-such-chroma"))
	t.Setenv("CI", "")
	r := runRecorder(t, func(tb testing.TB) { NewChroma(tb) })
	if r.skipped == "" || !strings.Contains(r.skipped, "npm ci") {
		t.Errorf("outside CI: skipped=%q failed=%q, want a skip that says how to install", r.skipped, r.failed)
	}
	t.Setenv("CI", "true")
	r = runRecorder(t, func(tb testing.TB) { NewChroma(tb) })
	if r.failed == "" || !strings.Contains(r.failed, "make deps") {
		t.Errorf("under CI: skipped=%q failed=%q, want a failure that says how to install", r.skipped, r.failed)
	}

	t.Setenv("REDIS_BIN", filepath.Join(t.TempDir(), "no-such-redis"))
	r = runRecorder(t, func(tb testing.TB) { NewRedis(tb) })
	if r.failed == "" || !strings.Contains(r.failed, "redis-server") {
		t.Errorf("redis under CI: skipped=%q failed=%q", r.skipped, r.failed)
	}
}

var validName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{1,61}[a-zA-Z0-9]$`)

func TestCollectionName(t *testing.T) {
	seen := map[string]bool{}
	for _, sub := range []string{
		"plain",
		"with spaces/and slashes#1",
		strings.Repeat("very-long-name_", 10),
		"---",
		"ünïcödé",
	} {
		t.Run(sub, func(t *testing.T) {
			for range 3 {
				for _, n := range []string{CollectionName(t), SharedCollectionName(sub)} {
					if !validName.MatchString(n) || strings.Contains(n, "..") {
						t.Errorf("collection name %q: not a valid Chroma name", n)
					}
					if seen[n] {
						t.Errorf("collection name %q twice", n)
					}
					seen[n] = true
				}
			}
		})
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if got := modulePath(string(b)); got != ModulePath {
		t.Errorf("module path = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "testenv", "chroma", "package.json")); err != nil {
		t.Error(err)
	}
}

func TestLogTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "\x1b[38;5;069mline %d\x1b[0m\n", i)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tail := logTail(p, 200)
	if !strings.HasSuffix(tail, "line 999") || strings.Contains(tail, "\x1b") || strings.HasPrefix(tail, "ine") {
		t.Errorf("logTail = %q", tail)
	}
}
