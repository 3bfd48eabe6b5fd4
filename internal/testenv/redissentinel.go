package testenv

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// RedisSentinel is a Redis master watched by one Sentinel, started by
// [NewRedisSentinel].
type RedisSentinel struct {
	// Master is the Redis server that the Sentinel names.
	Master *Server
	// Sentinel is the Sentinel (redis-server --sentinel).
	Sentinel *Server
	// MasterName is the name under which the Sentinel monitors Master.
	MasterName string
	// URL names the master through the Sentinel in the form that
	// rediscache.New reads: redis+sentinel://ADDR?master_name=NAME.
	URL string
}

// NewRedisSentinel starts a Redis server and a Sentinel that monitors it
// as master "testmaster" (quorum 1), both on free loopback ports, for tb
// alone, and stops them and removes their data when tb ends. It skips tb
// (fails it under CI=true) when redis-server is not installed, and fails
// it when a server cannot be started. It ignores REDIS_URL and does not
// need [Main].
func NewRedisSentinel(tb testing.TB) *RedisSentinel {
	tb.Helper()
	const name = "testmaster"
	master := privateServer(tb, redisKind)
	bin, err := findBin(redisKind)
	if err != nil {
		fail(tb, err)
	}
	k := kind{
		name:    "redis-sentinel",
		envURL:  "REDIS_URL",
		envBin:  "REDIS_BIN",
		scheme:  "redis",
		install: redisKind.install,
		// Sentinel needs a configuration file that it can rewrite.
		args: func(dir string, port int) []string {
			conf := filepath.Join(dir, "sentinel.conf")
			host, mport, _ := net.SplitHostPort(master.Addr)
			text := fmt.Sprintf("dir %q\nsentinel monitor %s %s %s 1\n", dir, name, host, mport)
			if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
				// redis-server then exits, naming the missing file.
				fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
			}
			return []string{conf, "--sentinel",
				"--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--daemonize", "no", "--logfile", ""}
		},
		ready: redisReady,
	}
	s, err := launch(k, bin, tb.TempDir())
	if err != nil {
		fail(tb, err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return &RedisSentinel{
		Master:     master,
		Sentinel:   s,
		MasterName: name,
		URL:        "redis+sentinel://" + s.Addr + "?master_name=" + name,
	}
}
