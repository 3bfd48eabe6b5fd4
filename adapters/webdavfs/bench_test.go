package webdavfs_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/webdav"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/internal/testbackend"
)

// propfindBodies are an allprop request and the prop request of a typical
// client (rclone's, without its vendor properties).
var propfindBodies = []struct{ name, body string }{
	{"allprop", `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`},
	{"prop", `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:displayname/><D:getlastmodified/><D:getcontentlength/><D:resourcetype/><D:getcontenttype/></D:prop></D:propfind>`},
}

// BenchmarkPropfindDepth1 lists a directory of 1,000 pages with PROPFIND
// Depth: 1 over a loopback HTTP connection, through NewHandler (which
// writes the multistatus itself) and, as the baseline, through a bare
// webdav.Handler over NewFileSystem (memstore only; it runs first). The
// handler's sub-benchmarks report their time as a fraction of the
// baseline's for the same request (x-bare). The listing is metadata only
// (TestPropfindFetchesNoContent), so the store makes no difference beyond
// bootstrap; both are measured.
func BenchmarkPropfindDepth1(b *testing.B) {
	files := manyPages(1000)
	bare := map[string]float64{} // ns/op of the baseline, by request
	for _, be := range testbackend.Backends() {
		store := be.New(b)
		ingestFiles(b, store, files)
		fsys, err := chromafs.New(context.Background(), store)
		if err != nil {
			b.Fatal(err)
		}
		handlers := []struct {
			name string
			h    http.Handler
		}{
			{"bare", &webdav.Handler{FileSystem: webdavfs.NewFileSystem(fsys), LockSystem: webdav.NewMemLS()}},
			{"handler", webdavfs.NewHandler(func(*http.Request) (fs.FS, error) { return fsys, nil }, webdavfs.Options{})},
		}
		for _, h := range handlers {
			if h.name == "bare" && be.Name != "memstore" {
				continue
			}
			srv := httptest.NewServer(h.h)
			for _, body := range propfindBodies {
				b.Run(be.Name+"/"+h.name+"/"+body.name+"/pages=1000", func(b *testing.B) {
					var size int64
					b.ReportAllocs()
					for b.Loop() {
						req, _ := http.NewRequest("PROPFIND", srv.URL+"/pages/", strings.NewReader(body.body))
						req.Header.Set("Depth", "1")
						resp, err := srv.Client().Do(req)
						if err != nil {
							b.Fatal(err)
						}
						size, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 207 {
							b.Fatalf("status %d", resp.StatusCode)
						}
					}
					b.ReportMetric(float64(size), "resp-bytes")
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					if h.name == "bare" {
						bare[body.name] = ns
					} else if base := bare[body.name]; base > 0 {
						b.ReportMetric(ns/base, "x-bare")
					}
				})
			}
			srv.Close()
		}
	}
}
