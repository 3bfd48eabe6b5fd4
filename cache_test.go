package chromafs_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// countingColl counts the content requests (gets of chunks with their
// text) that chromafs sends to a Chroma collection.
type countingColl struct {
	*chromastore.Collection
	content atomic.Int64
}

func (c *countingColl) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	c.content.Add(1)
	return c.Collection.Chunks(ctx, l, slugs)
}

func (c *countingColl) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	c.content.Add(1)
	return c.Collection.ChunksByID(ctx, l, ids)
}

func redisCache(t *testing.T, url, prefix string, opt rediscache.Options) *rediscache.Cache {
	t.Helper()
	opt.Prefix = prefix
	if opt.Timeout == 0 {
		// Patient: the tests that leave the timeout to this helper count
		// on every call reaching Redis, and on a loaded machine a call can
		// wait for the CPU longer than rediscache's 500 ms default (the
		// cache then rightly gives up, which they would report as a
		// failure). The tests of timeouts set their own.
		opt.Timeout = 10 * time.Second
	}
	r, err := rediscache.New(url, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// readAll reads every visible file of want through fsys and checks it.
func readAll(t *testing.T, fsys fs.FS, want map[string]string) {
	t.Helper()
	for name, content := range want {
		got, err := fs.ReadFile(fsys, name)
		if err != nil || string(got) != content {
			t.Fatalf("ReadFile(%s) = %d bytes, %v; want %d bytes", name, len(got), err, len(content))
		}
	}
}

// TestSharedRedisCache: two sessions with their own memory but one Redis
// (as two processes would have): the second reads every page without a
// single content request to the store, and gets the same bytes.
func TestSharedRedisCache(t *testing.T) {
	rdb := testenv.Redis(t)
	files := corpus(t)
	want := visible(files, []string{"staff"})
	ctx := context.Background()
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			coll := &countingColl{Collection: testbackend.Chroma(t)}
			w.write(t, coll.Collection, files)
			mem := memstore.New(t.Name())
			w.write(t, mem, files)
			rc := redisCache(t, rdb.URL, t.Name()+":", rediscache.Options{})
			for _, store := range []collection.Store{coll, mem} {
				if err := rc.Clear(ctx); err != nil {
					t.Fatal(err)
				}
				content := func() int64 {
					if store == collection.Store(mem) {
						r := mem.Requests()
						return int64(r.Chunks + r.ChunksByID)
					}
					return coll.content.Load()
				}
				newFS := func() *chromafs.FS {
					fsys, err := chromafs.New(ctx, store, chromafs.WithGroups("staff"),
						chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)))
					if err != nil {
						t.Fatal(err)
					}
					return fsys
				}
				first := newFS()
				before := content()
				readAll(t, first, want)
				if content() == before {
					t.Fatalf("%T: the first session made no content request", store)
				}
				before = content()
				second := newFS()
				readAll(t, second, want)
				if n := content() - before; n != 0 {
					t.Fatalf("%T: the second session made %d content requests; want 0 (every page is in Redis)", store, n)
				}
				// Prefetch (grep's bulk read) takes what Redis has, too.
				third := newFS()
				names := make([]string, 0, len(want))
				for name := range want {
					names = append(names, name)
				}
				if err := third.Prefetch(ctx, names); err != nil {
					t.Fatal(err)
				}
				if n := content() - before; n != 0 {
					t.Fatalf("%T: Prefetch made %d content requests; want 0", store, n)
				}
			}
		})
	}
}

// TestRedisFaults stops and restarts a real Redis under a session: reads
// go on from Chroma with a logged warning, never an error, and Redis is
// used again once it is back.
func TestRedisFaults(t *testing.T) {
	rdb := testenv.NewRedis(t)
	files := corpus(t)
	want := visible(files, nil)
	ctx := context.Background()
	coll := &countingColl{Collection: testbackend.Chroma(t)}
	ingested(t, coll.Collection, files)
	rc := redisCache(t, rdb.URL, "faults:", rediscache.Options{Backoff: 200 * time.Millisecond, Timeout: 300 * time.Millisecond})
	var logs testenv.LogBuffer
	newFS := func() *chromafs.FS {
		fsys, err := chromafs.New(ctx, coll,
			chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)),
			chromafs.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		if err != nil {
			t.Fatal(err)
		}
		return fsys
	}
	readAll(t, newFS(), want) // fills Redis

	if err := rdb.Stop(); err != nil {
		t.Fatal(err)
	}
	before := coll.content.Load()
	start := time.Now()
	readAll(t, newFS(), want) // Redis down: every page from Chroma
	if coll.content.Load() == before {
		t.Fatal("with Redis down, no page came from Chroma")
	}
	if !strings.Contains(logs.String(), "page cache read failed") {
		t.Fatalf("no warning logged with Redis down; log:\n%s", logs.String())
	}
	t.Logf("%d pages read with Redis down in %v", len(want), time.Since(start))

	if err := rdb.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // past the backoff
	readAll(t, newFS(), want)          // refills the (empty) Redis
	before = coll.content.Load()
	readAll(t, newFS(), want)
	if n := coll.content.Load() - before; n != 0 {
		t.Fatalf("after Redis came back, a fresh session made %d content requests; want 0", n)
	}
}

// slowProxy is a TCP proxy in front of a server that can be made to hold
// every byte back for a while, to play a slow server.
type slowProxy struct {
	addr  string
	delay atomic.Int64 // nanoseconds
}

func newSlowProxy(t *testing.T, target string) *slowProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &slowProxy{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				pipe := func(dst, src net.Conn) {
					buf := make([]byte, 32<<10)
					for {
						n, err := src.Read(buf)
						if n > 0 {
							time.Sleep(time.Duration(p.delay.Load()))
							if _, err := dst.Write(buf[:n]); err != nil {
								return
							}
						}
						if err != nil {
							return
						}
					}
				}
				go pipe(up, c)
				pipe(c, up)
			}()
		}
	}()
	return p
}

// TestRedisSlowAndFlushed: a Redis that answers slowly costs a read at
// most the cache's timeout (then Chroma answers), and a flushed Redis is
// refilled from Chroma.
func TestRedisSlowAndFlushed(t *testing.T) {
	rdb := testenv.Redis(t)
	files := corpus(t)
	want := visible(files, nil)
	ctx := context.Background()
	coll := &countingColl{Collection: testbackend.Chroma(t)}
	ingested(t, coll.Collection, files)
	proxy := newSlowProxy(t, strings.TrimPrefix(rdb.URL, "redis://"))
	const timeout = 200 * time.Millisecond
	rc := redisCache(t, "redis://"+proxy.addr, t.Name()+":", rediscache.Options{Timeout: timeout, Backoff: time.Hour})
	newFS := func() *chromafs.FS {
		fsys, err := chromafs.New(ctx, coll, chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)),
			chromafs.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		return fsys
	}
	readAll(t, newFS(), want) // fills Redis
	readAll(t, newFS(), want) // from Redis

	// Flushed: every page comes from Chroma again, and goes back into Redis.
	if err := rc.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	before := coll.content.Load()
	readAll(t, newFS(), want)
	if coll.content.Load() == before {
		t.Fatal("after a flush no page came from Chroma")
	}
	before = coll.content.Load()
	readAll(t, newFS(), want)
	if n := coll.content.Load() - before; n != 0 {
		t.Fatalf("Redis was not refilled after the flush: %d content requests", n)
	}

	// Slow: the first read waits at most the timeout, then the cache
	// fails fast (Backoff) and every read goes to Chroma.
	proxy.delay.Store(int64(2 * time.Second))
	start := time.Now()
	readAll(t, newFS(), want)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("%d reads with a slow Redis took %v", len(want), d)
	}
}

// TestChromaDown stops a real Chroma under a session: cached pages stay
// readable, an uncached read fails with an error that names the cause
// (never content, never "not found"), and the same FS recovers when
// Chroma is back.
func TestChromaDown(t *testing.T) {
	srv := testenv.NewChroma(t)
	files := corpus(t)
	coll := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL})
	ingested(t, coll, files)
	fsys, err := chromafs.New(context.Background(), coll)
	if err != nil {
		t.Fatal(err)
	}
	const cached, uncached = "guides/quickstart.md", "reference/big.md"
	if _, err := fs.ReadFile(fsys, cached); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(fsys, cached); err != nil || string(got) != files[cached] {
		t.Fatalf("cached page with Chroma down: %d bytes, %v", len(got), err)
	}
	if _, err := fs.Stat(fsys, uncached); err != nil {
		t.Fatalf("Stat needs no network: %v", err)
	}
	_, err = fs.ReadFile(fsys, uncached)
	if err == nil || errors.Is(err, fs.ErrNotExist) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("uncached page with Chroma down: %v; want an error wrapping ECONNREFUSED", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := fs.ReadFile(fsys.WithContext(ctx), uncached); err == nil {
		t.Fatal("read with Chroma down and a deadline succeeded")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(fsys, uncached); err != nil || string(got) != files[uncached] {
		t.Fatalf("after Chroma came back: %d bytes, %v", len(got), err)
	}
}
