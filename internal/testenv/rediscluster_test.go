package testenv

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRedisCluster starts a cluster of 3 masters: every node is a master
// of a third of the slots, answers for its own slots and redirects the
// others; killing one leaves the others serving theirs.
func TestRedisCluster(t *testing.T) {
	start := time.Now()
	c := NewRedisCluster(t, 3)
	t.Logf("a cluster of 3 masters started in %v: %s", time.Since(start), c.URL)
	if len(c.Masters) != 3 || !strings.HasPrefix(c.URL, "redis+cluster://127.0.0.1:") || strings.Count(c.URL, "addr=") != 2 {
		t.Fatalf("cluster %d masters, URL %q", len(c.Masters), c.URL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, m := range c.Masters {
		role, err := redisCommand(ctx, m.Addr, "CLUSTER", "NODES")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(role, "master"); n != 3 {
			t.Errorf("CLUSTER NODES at %s lists %d masters:\n%s", m.Addr, n, role)
		}
	}
	// Key "a" is in slot 15495, which the last master holds; the first
	// redirects it there.
	if _, err := redisCommand(ctx, c.Masters[0].Addr, "SET", "a", "1"); err == nil || !strings.HasPrefix(err.Error(), "MOVED 15495 "+c.Masters[2].Addr) {
		t.Errorf("SET a at the first master: %v; want MOVED 15495 %s", err, c.Masters[2].Addr)
	}
	if got, err := redisCommand(ctx, c.Masters[2].Addr, "SET", "a", "1"); err != nil || got != "OK" {
		t.Errorf("SET a at the last master: %q, %v", got, err)
	}
	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	// Key "b" is in slot 3300, on the first master.
	if got, err := redisCommand(ctx, c.Masters[0].Addr, "SET", "b", "2"); err != nil || got != "OK" {
		t.Errorf("SET b at the first master with the last one dead: %q, %v", got, err)
	}
}
