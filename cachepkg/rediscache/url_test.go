package rediscache_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/internal/testenv"
)

// TestNewURLs checks the URL forms of New: each accepted form makes a
// cache without contacting a server, and each bad URL is one error that
// wraps ErrBadURL, names the problem and never shows a password.
func TestNewURLs(t *testing.T) {
	for _, u := range []string{
		"redis://localhost:6379/0",
		"redis://:s3cret@localhost:6379",
		"rediss://user:s3cret@cache.example:6380/2",
		"unix:///run/redis/redis.sock",
		"redis://localhost:6379?dial_timeout=3s",
		"redis+cluster://10.0.0.1:7000?addr=10.0.0.2:7000&addr=10.0.0.3:7000",
		"redis+cluster://user:s3cret@10.0.0.1:7000",
		"rediss+cluster://10.0.0.1:7000?addr=10.0.0.2:7000",
		"redis+sentinel://10.0.0.1:26379?master_name=cache&addr=10.0.0.2:26379",
		"rediss+sentinel://:s3cret@10.0.0.1:26379/1?master_name=cache&password=s3cret2",
	} {
		r, err := rediscache.New(u, rediscache.Options{})
		if err != nil {
			t.Errorf("New(%q): %v", u, err)
			continue
		}
		r.Close()
	}
	for _, c := range []struct{ url, problem string }{
		{"", "empty"},
		{"localhost:6379", "no scheme"},
		{"http://:s3cret@localhost", "invalid URL scheme: http"},
		{"redis+cluster://:s3cret@10.0.0.1:7000?addr=nope", "unable to parse addr param: nope"},
		{"redis+cluster://:s3cret@10.0.0.1:7000?master_name=x", "unexpected option: master_name"},
		{"redis+sentinel://:s3cret@10.0.0.1:26379?password=s3cret2", "needs ?master_name=NAME"},
		{"redis://:s3cret@localhost:6379/zero", `invalid database number: "zero"`},
		{"redis://:s3cret@localhost:port", `invalid port ":port"`},
		{"redis://:s3cret@localhost:6379?dial_timeout=soon", "invalid dial_timeout duration"},
	} {
		_, err := rediscache.New(c.url, rediscache.Options{})
		if !errors.Is(err, rediscache.ErrBadURL) {
			t.Errorf("New(%q) = %v; want ErrBadURL", c.url, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.problem) || strings.Contains(msg, "s3cret") || strings.Count(msg, "rediscache:") != 1 {
			t.Errorf("New(%q): %q; want one message naming %q without the password", c.url, msg, c.problem)
		}
	}
}

// TestRedactURL checks what RedactURL leaves of a URL: no userinfo, no
// password parameter, and everything else (the addresses above all).
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"redis://localhost:6379/0":                                   "redis://localhost:6379/0",
		"redis://:s3cret@localhost:6379/0":                           "redis://xxxxx@localhost:6379/0",
		"rediss://token@cache.example:6380":                          "rediss://xxxxx@cache.example:6380",
		"redis+cluster://u:s3cret@h1:7000?addr=h2:7000&addr=h3:7000": "redis+cluster://xxxxx@h1:7000?addr=h2:7000&addr=h3:7000",
		"redis+sentinel://h:26379?master_name=m&password=s3cret":     "redis+sentinel://h:26379?master_name=m&password=xxxxx",
		"redis://:s3cret@localhost:port":                             "redis://xxxxx",
		"s3cret@nowhere":                                             "xxxxx",
	} {
		if got := rediscache.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestURLReadTimeout checks that a URL's read_timeout is the per-call
// bound when Options.Timeout is zero: while the server holds writes back
// for a second (CLIENT PAUSE), a Put with the default bound (500 ms)
// fails with a timeout, and one through ?read_timeout=10s waits for the
// pause to end and succeeds.
func TestURLReadTimeout(t *testing.T) {
	srv := testenv.NewRedis(t) // its own: the pause holds every client back
	ctx := context.Background()
	def := newRedis(t, srv.URL, "t:")
	patient := newRedis(t, srv.URL+"?read_timeout=10s", "t:")
	for _, r := range []*rediscache.Cache{def, patient} {
		if err := r.Ping(ctx); err != nil { // connected before the pause
			t.Fatal(err)
		}
	}
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer admin.Close()
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "1000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := def.Put(ctx, "k", []byte("v")); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Put with the default timeout during a 1 s pause = %v; want a timeout", err)
	}
	if err := patient.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatalf("Put with ?read_timeout=10s during a 1 s pause: %v", err)
	}
	if v, ok, err := patient.Get(ctx, "k"); err != nil || !ok || string(v) != "v" {
		t.Errorf("Get after the pause = %q, %v, %v; want \"v\"", v, ok, err)
	}
}
