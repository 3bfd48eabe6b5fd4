package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// patientRedis returns the Redis URL u with a per-call timeout of 10 s
// (rediscache's default is 500 ms) for the chromafs processes of tests
// that require every page to reach the cache, or every read to hit it:
// on a loaded machine a process or a Redis server can be off the CPU for
// longer than 500 ms, and the process then rightly gives up on the
// cache (a warning, pages read from Chroma), which such a test would
// report as a failure of what it checks.
func patientRedis(u string) string {
	if strings.Contains(u, "?") {
		return u + "&read_timeout=10s"
	}
	return u + "?read_timeout=10s"
}

// TestScaleOutRedisCluster is the scale-out path: stateless chromafs
// processes share pages through a real Redis Cluster of 3 masters. The
// first `chromafs --redis-url redis+cluster://… grep -rc` reads every page
// from Chroma, the second makes no content request to Chroma, and with
// one master killed a third still answers the same (the pages of the dead
// master from Chroma) with one warning and no error.
func TestScaleOutRedisCluster(t *testing.T) {
	cl := testenv.NewRedisCluster(t, 3)
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	if _, errOut, code := cli(t, "--chroma-url", srv.URL, "--collection", coll, "ingest", "--rules", "../../examples/access.rules", docsDir); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	counter := newContentCounter(t, srv.URL)
	bin := chromafsBinary(t)
	run := func() (stdout, stderr string, content int64) {
		t.Helper()
		before := counter.content.Load()
		// Every page: grep reads them all, in batches that span the
		// cluster's masters.
		cmd := exec.Command(bin, "--chroma-url", counter.srv.URL, "--collection", coll, "grep", "-rc", "", "/")
		cmd.Env = append(os.Environ(), "CHROMAFS_REDIS_URL="+patientRedis(cl.URL))
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromafs grep: %v\n%s", err, errb.String())
		}
		return string(out), errb.String(), counter.content.Load() - before
	}
	first, errOut, n := run()
	if errOut != "" || n == 0 || strings.Count(first, "\n") < 5 {
		t.Fatalf("first process: %d content requests, stderr %q, output:\n%s", n, errOut, first)
	}
	second, errOut, n := run()
	if errOut != "" || n != 0 || second != first {
		t.Fatalf("second process: %d content requests (want 0), stderr %q, output:\n%s\nwant:\n%s", n, errOut, second, first)
	}

	// The pages are spread over the masters: kill the one that holds the
	// most page keys (not only the tree's or the coarse answers': those
	// are not content reads), while another holds some too.
	ctx := context.Background()
	var holding []int
	most, mostPages := -1, 0
	for i, a := range cl.Addrs() {
		c := redis.NewClient(&redis.Options{Addr: a})
		keys, err := c.Keys(ctx, "*").Result()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		pages := 0
		for _, k := range keys {
			// A page key has four NUL-separated fields (see
			// pageload.Loader.CacheKey); the tree's and the coarse
			// answers' have three and two.
			if strings.Count(k, "\x00") == 3 {
				pages++
			}
		}
		if pages > 0 {
			holding = append(holding, i)
		}
		if pages > mostPages {
			most, mostPages = i, pages
		}
	}
	if len(holding) < 2 {
		t.Fatalf("the cached pages are on masters %v only; want at least two of 3", holding)
	}
	dead := cl.Masters[most].Addr
	if err := cl.Kill(most); err != nil {
		t.Fatal(err)
	}
	third, errOut, n := run()
	if third != first {
		t.Fatalf("with master %s killed: output\n%s\nwant:\n%s", dead, third, first)
	}
	if n == 0 {
		t.Errorf("with master %s killed: no content request to Chroma; want its pages read from Chroma", dead)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "redis cache unreachable") || !strings.Contains(lines[0], dead) {
		t.Errorf("with master %s killed: stderr %q; want one warning naming it", dead, errOut)
	}
}

// TestGrepSecondProcessRedis: a grep whose scope is larger than grepx's
// minCoarse, in a second process whose every page an earlier process put
// in a shared Redis (one server, and a Redis Cluster of 3 masters), sends
// Chroma no coarse query and no content read, and prints what a process
// without Redis prints. The site is cut mid-line, so that a grep without
// Redis sends the boundary queries too.
func TestGrepSecondProcessRedis(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	mem := memstore.New("second-process")
	err := memstore.Load(mem, collection.DefaultLayout(), gen.Pages(80, 3), memstore.LoadOptions{
		ChunkSize: 300, Shuffle: rand.New(rand.NewPCG(1, 2)), Access: gen.Access, Compressed: true, WithSizes: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	store := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, Collection: coll})
	if err := store.Upsert(context.Background(), mem.Records()); err != nil {
		t.Fatal(err)
	}
	counter := newContentCounter(t, srv.URL)
	bin := chromafsBinary(t)
	grep := func(t *testing.T, redisURL string, args ...string) (out string, search, content int64) {
		t.Helper()
		s0, c0 := counter.search.Load(), counter.content.Load()
		cmd := exec.Command(bin, append([]string{"--chroma-url", counter.srv.URL, "--collection", coll, "grep"}, args...)...)
		cmd.Env = os.Environ()
		if redisURL != "" {
			cmd.Env = append(cmd.Env, "CHROMAFS_REDIS_URL="+patientRedis(redisURL))
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		b, err := cmd.Output()
		if err != nil || errb.Len() > 0 {
			t.Fatalf("chromafs grep %q: %v\n%s", args, err, errb.String())
		}
		return string(b), counter.search.Load() - s0, counter.content.Load() - c0
	}
	want, search, _ := grep(t, "", "-rn", "webhook", "/")
	if search == 0 || strings.Count(want, "\n") < 10 {
		t.Fatalf("without Redis: %d coarse queries, output:\n%s", search, want)
	}
	for _, deploy := range []string{"single", "cluster"} {
		t.Run(deploy, func(t *testing.T) {
			url := testenv.Redis(t).URL
			if deploy == "cluster" {
				url = testenv.NewRedisCluster(t, 3).URL
			}
			// The first process reads every page (an empty pattern has no
			// literal: no coarse query) and so fills Redis.
			if _, _, content := grep(t, url, "-rc", "", "/"); content == 0 {
				t.Fatal("the first process read nothing from Chroma")
			}
			got, search, content := grep(t, url, "-rn", "webhook", "/")
			if search != 0 || content != 0 || got != want {
				t.Fatalf("second process: %d coarse queries and %d content reads (want 0 and 0); output equal: %v", search, content, got == want)
			}
		})
	}
}
