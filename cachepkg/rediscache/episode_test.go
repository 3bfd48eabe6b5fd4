package rediscache_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/internal/testenv"
)

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct{ testenv.LogBuffer }

func (l *lockedBuffer) lines() []string {
	return strings.Split(strings.TrimSpace(l.String()), "\n")
}

// count returns how many lines have level and contain text.
func (l *lockedBuffer) count(level, text string) int {
	n := 0
	for _, line := range l.lines() {
		if strings.Contains(line, "level="+level) && strings.Contains(line, text) {
			n++
		}
	}
	return n
}

// TestRedisLoggerEpisodes stops and starts a real Redis under a cache with
// a Logger: each outage is one warning however many calls fail (and
// however often the backoff lets a call try the server again), the
// failed calls are misses with no error, the recovery is one info line,
// and go-redis's own lines come through the same logger at debug level.
func TestRedisLoggerEpisodes(t *testing.T) {
	srv := testenv.NewRedis(t)
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, err := rediscache.New(srv.URL, rediscache.Options{Prefix: t.Name() + ":", Backoff: 50 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	outage := func(episode int) {
		t.Helper()
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		// Calls for several backoff periods: some fail fast, some try
		// the server again.
		for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
			if v, ok, err := r.Get(ctx, "k"); ok || err != nil {
				t.Fatalf("Get with Redis down: %q, %v, %v; want a miss", v, ok, err)
			}
			if err := r.Put(ctx, "k2", []byte("v")); err != nil {
				t.Fatalf("Put with Redis down: %v", err)
			}
			if got, err := r.GetMany(ctx, []string{"k", "k2"}); len(got) != 0 || err != nil {
				t.Fatalf("GetMany with Redis down: %v, %v", got, err)
			}
			if err := r.PutMany(ctx, map[string][]byte{"k3": []byte("v")}); err != nil {
				t.Fatalf("PutMany with Redis down: %v", err)
			}
			if _, err := r.Has(ctx, "k"); err != nil {
				t.Fatalf("Has with Redis down: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := r.Ping(ctx); err == nil {
			t.Fatal("Ping with Redis down: no error")
		}
		if n := logs.count("WARN", "redis cache unreachable"); n != episode {
			t.Fatalf("after outage %d: %d warnings, want %d; log:\n%s", episode, n, episode, strings.Join(logs.lines(), "\n"))
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // past the backoff
		if err := r.Put(ctx, "k", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := r.Get(ctx, "k"); !ok || err != nil || string(v) != "v" {
			t.Fatalf("Get after Redis came back: %q, %v, %v", v, ok, err)
		}
		if n := logs.count("INFO", "redis cache answers again"); n != episode {
			t.Fatalf("after outage %d: %d recoveries logged, want %d", episode, n, episode)
		}
	}
	outage(1)
	outage(2)
	for _, line := range logs.lines() {
		if !strings.HasPrefix(line, "time=") {
			t.Errorf("a log line not from the slog logger: %q", line)
		}
		if strings.Contains(line, "go-redis:") && !strings.Contains(line, "level=DEBUG") {
			t.Errorf("go-redis's line not at debug level: %q", line)
		}
	}
	if logs.count("DEBUG", "go-redis:") == 0 {
		t.Log("go-redis logged nothing during the outages")
	}
}
