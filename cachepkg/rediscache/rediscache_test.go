package rediscache_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/internal/testenv"
)

func newRedis(t *testing.T, url, prefix string) *rediscache.Cache {
	t.Helper()
	r, err := rediscache.New(url, rediscache.Options{Prefix: prefix, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// universal returns a go-redis client made by the caller, as
// redis.NewUniversalClient makes it for one server, closed at the end of
// the test.
func universal(t *testing.T, url string) redis.UniversalClient {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{opt.Addr}})
	t.Cleanup(func() { c.Close() })
	return c
}

func newFromClient(t *testing.T, c redis.UniversalClient, opt rediscache.Options) *rediscache.Cache {
	t.Helper()
	r, err := rediscache.NewClient(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRedisNewClient checks a cache on the caller's client: its keys
// carry the prefix and the TTL, errors name the client's server, and
// Close leaves the client open.
func TestRedisNewClient(t *testing.T) {
	srv := testenv.Redis(t)
	ctx := context.Background()
	raw := universal(t, srv.URL)
	r, err := rediscache.NewClient(raw, rediscache.Options{Prefix: t.Name() + ":", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.PutMany(ctx, map[string][]byte{"a": []byte("1"), "b": []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if v, err := raw.Get(ctx, t.Name()+":a").Result(); err != nil || v != "1" {
		t.Fatalf("the client reads %q, %v under the prefixed key; want \"1\"", v, err)
	}
	if ttl, err := raw.TTL(ctx, t.Name()+":b").Result(); err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("TTL of b = %v, %v; want about 1h", ttl, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := raw.Ping(ctx).Err(); err != nil {
		t.Fatalf("the caller's client after Close: %v; want it left open", err)
	}

	// A client on a closed port: the error names its address, and the
	// next call fails fast with ErrUnavailable.
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer dead.Close()
	d := newFromClient(t, dead, rediscache.Options{Backoff: time.Hour})
	if _, _, err := d.Get(ctx, "k"); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("Get on a dead server = %v; want an error naming 127.0.0.1:1", err)
	}
	if _, _, err := d.Get(ctx, "k"); !errors.Is(err, cachepkg.ErrUnavailable) {
		t.Fatalf("second Get during the backoff = %v; want ErrUnavailable", err)
	}
}

// TestCaches runs the Cache contract on Memory (the reference), a Redis
// cache from New and one from NewClient, and Memory in front of Redis.
func TestCaches(t *testing.T) {
	srv := testenv.Redis(t)
	impls := []struct {
		name string
		new  func(t *testing.T) cachepkg.Cache
	}{
		{"memory", func(t *testing.T) cachepkg.Cache { return cachepkg.NewMemory(1 << 20) }},
		{"redis", func(t *testing.T) cachepkg.Cache { return newRedis(t, srv.URL, t.Name()+":") }},
		{"redis client", func(t *testing.T) cachepkg.Cache {
			return newFromClient(t, universal(t, srv.URL), rediscache.Options{Prefix: t.Name() + ":"})
		}},
		{"tiered", func(t *testing.T) cachepkg.Cache {
			return cachepkg.NewTiered(cachepkg.NewMemory(1<<20), newRedis(t, srv.URL, t.Name()+":"))
		}},
	}
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) { checkContract(t, impl.new(t)) })
	}
}

// checkContract checks the cachepkg.Cache contract on an empty cache c:
// misses, Put and Get, Has, batches larger than one MGET or pipeline,
// an empty value, and Clear.
func checkContract(t *testing.T, c cachepkg.Cache) {
	t.Helper()
	ctx := context.Background()
	if _, ok, err := c.Get(ctx, "a"); ok || err != nil {
		t.Fatalf("Get on empty cache = %v, %v; want a miss", ok, err)
	}
	if err := c.Put(ctx, "a", []byte("alpha")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.Get(ctx, "a"); err != nil || !ok || string(v) != "alpha" {
		t.Fatalf("Get(a) = %q, %v, %v", v, ok, err)
	}
	if has, err := c.Has(ctx, "a"); err != nil || !has {
		t.Fatalf("Has(a) = %v, %v", has, err)
	}
	if has, err := c.Has(ctx, "zzz"); err != nil || has {
		t.Fatalf("Has(zzz) = %v, %v", has, err)
	}
	big := map[string][]byte{}
	for i := range 1300 { // more than one MGET/pipeline batch
		big[fmt.Sprintf("k%04d", i)] = []byte(fmt.Sprintf("value %d", i))
	}
	big["empty"] = []byte{}
	if err := c.PutMany(ctx, big); err != nil {
		t.Fatal(err)
	}
	keys := []string{"a", "nope", "empty"}
	for k := range big {
		keys = append(keys, k)
	}
	got, err := c.GetMany(ctx, keys)
	if err != nil || len(got) != len(big)+1 {
		t.Fatalf("GetMany = %d values, %v; want %d", len(got), err, len(big)+1)
	}
	for k, v := range big {
		if string(got[k]) != string(v) {
			t.Fatalf("GetMany[%s] = %q, want %q", k, got[k], v)
		}
	}
	if sh, ok := c.(cachepkg.SharedHas); ok {
		// With a key missing (one at the front, in the first batch),
		// and with every key held.
		for _, ks := range [][]string{keys, keys[3:]} {
			has, err := sh.HasShared(ctx, ks)
			if err != nil || len(has) != len(ks) {
				t.Fatalf("HasShared = %d answers, %v; want %d", len(has), err, len(ks))
			}
			for i, k := range ks {
				if has[i] != (k != "nope") {
					t.Fatalf("HasShared: %s held = %v", k, has[i])
				}
			}
		}
	}
	if v, ok, err := c.Get(ctx, "empty"); err != nil || !ok || len(v) != 0 {
		t.Fatalf("Get(empty) = %q, %v, %v; want a hit with no bytes", v, ok, err)
	}
	if err := c.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetMany(ctx, keys); err != nil || len(got) != 0 {
		t.Fatalf("after Clear: %d values, %v", len(got), err)
	}
	if _, ok, err := c.Get(ctx, "a"); ok || err != nil {
		t.Fatalf("Get(a) after Clear = %v, %v; want a miss", ok, err)
	}
}

// TestRedisNamespaces checks that the prefix namespaces keys (Clear of
// one cache leaves another's keys) and that entries get the TTL.
func TestRedisNamespaces(t *testing.T) {
	srv := testenv.Redis(t)
	ctx := context.Background()
	a := newRedis(t, srv.URL, "nsA:")
	b := newRedis(t, srv.URL, "nsB:")
	if err := a.Put(ctx, "k", []byte("from a")); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "k", []byte("from b")); err != nil {
		t.Fatal(err)
	}
	if err := a.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Get(ctx, "k"); ok {
		t.Error("a still has k after Clear")
	}
	if v, ok, err := b.Get(ctx, "k"); !ok || err != nil || string(v) != "from b" {
		t.Errorf("b lost k to a's Clear: %q, %v, %v", v, ok, err)
	}
	opt, err := redis.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	raw := redis.NewClient(opt)
	defer raw.Close()
	ttl, err := raw.TTL(ctx, "nsB:k").Result()
	if err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("TTL of nsB:k = %v, %v; want about 1h", ttl, err)
	}
	if _, err := rediscache.New("http://nope", rediscache.Options{}); err == nil {
		t.Error("New accepted an http:// URL")
	}
	if _, err := rediscache.New("", rediscache.Options{}); err == nil {
		t.Error("New accepted no URL")
	}
	if _, err := rediscache.NewClient(nil, rediscache.Options{}); err == nil {
		t.Error("NewClient accepted a nil client")
	}
}

// TestRedisDown stops a real server: calls fail quickly with an error
// (first the network error, then ErrUnavailable without trying during the
// backoff), and the cache works again once the server is back.
func TestRedisDown(t *testing.T) {
	srv := testenv.NewRedis(t)
	ctx := context.Background()
	r, err := rediscache.New(srv.URL, rediscache.Options{Backoff: 300 * time.Millisecond, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, ok, err := r.Get(ctx, "k")
	if err == nil || ok {
		t.Fatalf("Get with the server down = %v, %v; want an error", ok, err)
	}
	if errors.Is(err, cachepkg.ErrUnavailable) {
		t.Fatalf("first failure should be the network error, got %v", err)
	}
	_, _, err = r.Get(ctx, "k")
	if !errors.Is(err, cachepkg.ErrUnavailable) {
		t.Fatalf("second Get during the backoff = %v; want ErrUnavailable", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("two failed Gets took %v", d)
	}
	if _, err := r.GetMany(ctx, []string{"k"}); !errors.Is(err, cachepkg.ErrUnavailable) {
		t.Errorf("GetMany during the backoff = %v", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The server came back empty (no persistence): a miss, not an error,
	// once the backoff is over.
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, ok, err := r.Get(ctx, "k")
		if err == nil {
			if ok {
				t.Fatal("a restarted server without persistence still has k")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cache did not recover: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := r.Put(ctx, "k", []byte("again")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.Get(ctx, "k"); !ok || err != nil || string(v) != "again" {
		t.Fatalf("after recovery: %q, %v, %v", v, ok, err)
	}
}

// TestTieredPromotes checks that what Back has is copied into Front, and
// that HasLocal reports Front only.
func TestTieredPromotes(t *testing.T) {
	srv := testenv.Redis(t)
	ctx := context.Background()
	back := newRedis(t, srv.URL, t.Name()+":")
	if err := back.PutMany(ctx, map[string][]byte{"a": []byte("1"), "b": []byte("2")}); err != nil {
		t.Fatal(err)
	}
	front := cachepkg.NewMemory(1 << 20)
	tc := cachepkg.NewTiered(front, back)
	if tc.HasLocal("a") {
		t.Fatal("HasLocal(a) before any read")
	}
	if has, err := tc.Has(ctx, "a"); !has || err != nil {
		t.Fatalf("Has(a) = %v, %v", has, err)
	}
	if v, ok, err := tc.Get(ctx, "a"); !ok || err != nil || string(v) != "1" {
		t.Fatalf("Get(a) = %q, %v, %v", v, ok, err)
	}
	if !tc.HasLocal("a") {
		t.Error("Get did not copy a into Front")
	}
	if got, err := tc.GetMany(ctx, []string{"a", "b", "c"}); err != nil || len(got) != 2 {
		t.Fatalf("GetMany = %v, %v", got, err)
	}
	if !tc.HasLocal("b") {
		t.Error("GetMany did not copy b into Front")
	}
}
