package httpfs_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

// BenchmarkGet: HTTP GET of a cached 8 KB page over loopback, 64
// concurrent keep-alive connections, client and server in this process.
// It reports req/s. The store does not matter once the page is cached,
// so it is an in-memory one.
func BenchmarkGet(b *testing.B) {
	page := strings.Repeat("0123456789abcde\n", 512) // 8 KiB
	s := memstore.New("bench")
	err := memstore.Load(s, collection.DefaultLayout(), map[string]string{"guides/page.md": page},
		memstore.LoadOptions{ChunkSize: 1000, WithSizes: true})
	if err != nil {
		b.Fatal(err)
	}
	fsys, err := chromafs.New(context.Background(), s)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(handlerFor(fsys, httpfs.Options{}))
	defer srv.Close()
	const conns = 64
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, IdleConnTimeout: time.Minute,
	}}
	defer client.CloseIdleConnections()
	u := srv.URL + "/guides/page.md"
	get := func() error {
		resp, err := client.Get(u)
		if err != nil {
			return err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && (resp.StatusCode != 200 || n != int64(len(page))) {
			b.Errorf("GET: %d, %d bytes", resp.StatusCode, n)
		}
		return err
	}
	if err := get(); err != nil { // cache the page
		b.Fatal(err)
	}

	b.ReportAllocs()
	b.SetParallelism((conns + 1) / max(1, testingProcs()))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := get(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// testingProcs is GOMAXPROCS, by which RunParallel multiplies
// SetParallelism.
func testingProcs() int { return runtime.GOMAXPROCS(0) }
