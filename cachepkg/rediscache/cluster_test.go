package rediscache_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/internal/testenv"
)

// TestRedisCluster runs the cache on a real Redis Cluster of 3 masters,
// from a redis+cluster:// URL and on a caller's cluster client: the Cache
// contract (batches whose keys span every master, which one MGET could
// not), a value of 4 MiB, and Clear on every master. Then it kills one
// master: the keys of the two others still hit, those of the dead one
// miss without an error, and the whole outage is one warning naming the
// dead master, however many calls find it down.
func TestRedisCluster(t *testing.T) {
	cl := testenv.NewRedisCluster(t, 3)
	ctx := context.Background()
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r, err := rediscache.New(cl.URL, rediscache.Options{Prefix: "c:", TTL: time.Hour, Timeout: 2 * time.Second, Backoff: 50 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	raw := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: cl.Addrs()})
	defer raw.Close()
	cc, ok := raw.(*redis.ClusterClient)
	if !ok {
		t.Fatalf("NewUniversalClient with 3 addresses made a %T", raw)
	}

	t.Run("url", func(t *testing.T) { checkContract(t, r) })
	t.Run("client", func(t *testing.T) {
		checkContract(t, newFromClient(t, raw, rediscache.Options{Prefix: "n:"}))
	})

	// Keys on every master, so that a batch spans them all.
	keys := make([]string, 300)
	values := map[string][]byte{}
	for i := range keys {
		keys[i] = fmt.Sprintf("page%03d", i)
		values[keys[i]] = []byte("v" + keys[i])
	}
	if err := r.PutMany(ctx, values); err != nil {
		t.Fatal(err)
	}
	on := map[string][]string{} // master address → its keys
	for _, k := range keys {
		m, err := cc.MasterForKey(ctx, "c:"+k)
		if err != nil {
			t.Fatal(err)
		}
		on[m.Options().Addr] = append(on[m.Options().Addr], k)
	}
	for _, a := range cl.Addrs() {
		if len(on[a]) == 0 {
			t.Fatalf("no key on master %s: %v", a, on)
		}
	}
	if n, err := cc.DBSize(ctx).Result(); err != nil || n != int64(len(keys)) {
		t.Fatalf("the cluster holds %d keys, %v; want %d", n, err, len(keys))
	}
	bigv := bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16)
	if err := r.Put(ctx, "big", bigv); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.Get(ctx, "big"); err != nil || !ok || !bytes.Equal(v, bigv) {
		t.Fatalf("Get(big) = %d bytes, %v, %v; want %d bytes; log:\n%s", len(v), ok, err, len(bigv), logs.String())
	}
	if err := r.Ping(ctx); err != nil {
		t.Fatalf("Ping with every master up: %v", err)
	}

	dead := cl.Masters[2].Addr
	if err := cl.Kill(2); err != nil {
		t.Fatal(err)
	}
	alive := len(keys) - len(on[dead])
	// Calls for several backoff periods: some fail fast, some try the
	// dead master again.
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		got, err := r.GetMany(ctx, keys)
		if err != nil || len(got) != alive {
			t.Fatalf("GetMany with %s dead = %d values, %v; want %d, no error", dead, len(got), err, alive)
		}
		for k, v := range got {
			if !bytes.Equal(v, values[k]) {
				t.Fatalf("GetMany[%s] = %q", k, v)
			}
		}
		if v, ok, err := r.Get(ctx, on[cl.Masters[0].Addr][0]); err != nil || !ok || len(v) == 0 {
			t.Fatalf("Get of a key on a live master: %q, %v, %v", v, ok, err)
		}
		if _, ok, err := r.Get(ctx, on[dead][0]); ok || err != nil {
			t.Fatalf("Get of a key on the dead master: %v, %v; want a miss", ok, err)
		}
		if err := r.Put(ctx, on[dead][1], []byte("x")); err != nil {
			t.Fatalf("Put on the dead master: %v", err)
		}
		if err := r.PutMany(ctx, values); err != nil {
			t.Fatalf("PutMany with a dead master: %v", err)
		}
		if has, err := r.Has(ctx, on[cl.Masters[1].Addr][0]); err != nil || !has {
			t.Fatalf("Has of a key on a live master: %v, %v", has, err)
		}
		has, err := r.HasShared(ctx, keys)
		if err != nil || len(has) != len(keys) {
			t.Fatalf("HasShared with a dead master: %d answers, %v", len(has), err)
		}
		n := 0
		for i, h := range has {
			if h {
				n++
			} else if !slices.Contains(on[dead], keys[i]) {
				t.Fatalf("HasShared: %s (on a live master) not held", keys[i])
			}
		}
		if n != alive {
			t.Fatalf("HasShared with %s dead: %d held, want %d", dead, n, alive)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := r.Ping(ctx); err == nil || !strings.Contains(err.Error(), dead) {
		t.Errorf("Ping with %s dead = %v; want an error naming it", dead, err)
	}
	if n := logs.count("WARN", ""); n != 1 || logs.count("WARN", "addr="+dead) != 1 {
		t.Errorf("%d warnings, want one naming %s; log:\n%s", n, dead, logs.String())
	}
	if n := logs.count("ERROR", ""); n != 0 {
		t.Errorf("%d errors logged:\n%s", n, logs.String())
	}
}

// TestRedisSentinel runs the Cache contract on the master that a real
// Sentinel names, from a redis+sentinel:// URL, and checks that the
// entries are on that master.
func TestRedisSentinel(t *testing.T) {
	st := testenv.NewRedisSentinel(t)
	r, err := rediscache.New(st.URL, rediscache.Options{Prefix: "s:"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkContract(t, r)
	ctx := context.Background()
	if err := r.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	m := redis.NewClient(&redis.Options{Addr: st.Master.Addr})
	defer m.Close()
	if v, err := m.Get(ctx, "s:k").Result(); err != nil || v != "v" {
		t.Fatalf("the master %s has s:k = %q, %v; want \"v\"", st.Master.Addr, v, err)
	}
	if err := r.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}
