package testenv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// redisClusterKind runs redis-server as a node of a Redis Cluster,
// without persistence. A node whose peers die keeps serving its own
// slots (cluster-require-full-coverage no), as a cache cluster should.
var redisClusterKind = kind{
	name:    "redis-cluster",
	envURL:  "REDIS_URL",
	envBin:  "REDIS_BIN",
	scheme:  "redis",
	install: redisKind.install,
	args: func(dir string, port int) []string {
		return append(redisKind.args(dir, port),
			"--cluster-enabled", "yes",
			"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--cluster-require-full-coverage", "no",
		)
	},
	ready: redisReady,
}

// RedisCluster is a Redis Cluster of masters without replicas, each a
// redis-server on a loopback port, started by [NewRedisCluster].
type RedisCluster struct {
	// Masters are the cluster's nodes, in the order of their slot
	// ranges: Masters[0] holds slots 0 to about 16384/len(Masters).
	Masters []*Server
	// URL names every master in the form that rediscache.New reads:
	// redis+cluster://ADDR0?addr=ADDR1&addr=ADDR2….
	URL string
}

// Addrs returns the masters' host:port addresses.
func (c *RedisCluster) Addrs() []string {
	addrs := make([]string, len(c.Masters))
	for i, m := range c.Masters {
		addrs[i] = m.Addr
	}
	return addrs
}

// Kill stops master i (SIGKILL, as a crash). The cluster's other masters
// keep serving their slots; the keys of i's slots are unreachable.
func (c *RedisCluster) Kill(i int) error { return c.Masters[i].Stop() }

// NewRedisCluster starts a Redis Cluster of n masters (n >= 3, no
// replicas) for tb alone: n redis-servers with cluster-enabled on free
// loopback ports, joined by `redis-cli --cluster create`, and returns once
// every node reports cluster_state:ok, knows all n nodes and sees all
// 16384 slots assigned. It stops the servers and removes their data when
// tb ends. It skips tb (fails it under CI=true) when redis-server or
// redis-cli is not installed, and fails it when the cluster cannot be
// started. It ignores REDIS_URL and does not need [Main].
func NewRedisCluster(tb testing.TB, n int) *RedisCluster {
	tb.Helper()
	c, err := newRedisCluster(tb, n)
	if err != nil {
		fail(tb, err)
	}
	return c
}

func newRedisCluster(tb testing.TB, n int) (*RedisCluster, error) {
	if n < 3 {
		return nil, fmt.Errorf("testenv: a Redis Cluster needs at least 3 masters, not %d", n)
	}
	bin, err := findBin(redisClusterKind)
	if err != nil {
		return nil, err
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, &missingError{fmt.Sprintf("testenv: redis-cli is not in PATH: %s", redisKind.install)}
	}
	parent := tb.TempDir()
	c := &RedisCluster{}
	tb.Cleanup(func() {
		for _, m := range c.Masters {
			if m == nil {
				continue
			}
			if err := m.Stop(); err != nil {
				tb.Error(err)
			}
		}
	})
	// Started together: a node reports cluster_state:ok no sooner than
	// 2 s after it started (Redis's CLUSTER_WRITABLE_DELAY).
	c.Masters = make([]*Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { c.Masters[i], errs[i] = launch(redisClusterKind, bin, parent) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	addrs := c.Addrs()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("testenv: redis-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, m := range c.Masters {
		if err := waitClusterOK(ctx, m.Addr, n); err != nil {
			return nil, fmt.Errorf("testenv: Redis Cluster %s: node %s: %w; log %s ends with:\n%s", strings.Join(addrs, ","), m.Addr, err, m.logPath, m.LogTail())
		}
	}
	c.URL = "redis+cluster://" + addrs[0] + "?addr=" + strings.Join(addrs[1:], "&addr=")
	return c, nil
}

// waitClusterOK polls CLUSTER INFO at addr until the node reports
// cluster_state:ok, n known nodes and every slot assigned.
func waitClusterOK(ctx context.Context, addr string, n int) error {
	want := map[string]string{
		"cluster_state":          "ok",
		"cluster_known_nodes":    strconv.Itoa(n),
		"cluster_slots_assigned": "16384",
	}
	var last string
	for {
		info, err := redisCommand(ctx, addr, "CLUSTER", "INFO")
		if err == nil {
			fields := map[string]string{}
			for line := range strings.Lines(info) {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
					fields[k] = v
				}
			}
			missing := ""
			for k, v := range want {
				if fields[k] != v {
					missing += fmt.Sprintf(" %s:%s (want %s)", k, fields[k], v)
				}
			}
			if missing == "" {
				return nil
			}
			last = "CLUSTER INFO says" + missing
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready within %v: %s", StartTimeout, last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// redisCommand sends one command to the Redis server at addr and returns
// its reply, which must be a simple or bulk string.
func redisCommand(ctx context.Context, addr string, args ...string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	req := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		req += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write([]byte(req)); err != nil {
		return "", err
	}
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	switch {
	case strings.HasPrefix(line, "+"):
		return line[1:], nil
	case strings.HasPrefix(line, "-"):
		return "", errors.New(line[1:])
	case strings.HasPrefix(line, "$"):
		size, err := strconv.Atoi(line[1:])
		if err != nil || size < 0 {
			return "", fmt.Errorf("%s answered %q", strings.Join(args, " "), line)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		return string(b[:size]), nil
	default:
		return "", fmt.Errorf("%s answered %q", strings.Join(args, " "), line)
	}
}
