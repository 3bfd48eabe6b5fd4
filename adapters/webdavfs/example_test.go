package webdavfs_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

// A per-user WebDAV server: requests carrying the staff group see the
// private pages, others see the public ones; writes are refused.
func ExampleNewHandler() {
	store := memstore.New("docs")
	err := memstore.Load(store, collection.DefaultLayout(), map[string]string{
		"guides/intro.md":  "# Intro\n",
		"internal/plan.md": "# Plan\n",
	}, memstore.LoadOptions{WithSizes: true, Access: func(slug string) (bool, []string) {
		return !strings.HasPrefix(slug, "internal/"), []string{"staff"}
	}})
	if err != nil {
		panic(err)
	}
	public, _ := chromafs.New(context.Background(), store)
	staff, _ := chromafs.New(context.Background(), store, chromafs.WithGroups("staff"))

	h := webdavfs.NewHandler(func(r *http.Request) (fs.FS, error) {
		if r.Header.Get("X-User") == "alice" { // authentication goes in a middleware
			return staff, nil
		}
		return public, nil
	}, webdavfs.Options{Prefix: "/dav"})
	srv := httptest.NewServer(h)
	defer srv.Close()

	do := func(method, path, user string) {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		req.Header.Set("X-User", user)
		req.Header.Set("Depth", "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(method, path, user, resp.Status, resp.Header.Get("Allow"), strings.Count(string(body), "<D:response>"))
	}
	do("GET", "/dav/internal/plan.md", "")
	do("GET", "/dav/internal/plan.md", "alice")
	do("PROPFIND", "/dav/", "")
	do("PROPFIND", "/dav/", "alice")
	do("PUT", "/dav/guides/intro.md", "alice")
	// Output:
	// GET /dav/internal/plan.md  404 Not Found  0
	// GET /dav/internal/plan.md alice 200 OK  0
	// PROPFIND /dav/  207 Multi-Status  2
	// PROPFIND /dav/ alice 207 Multi-Status  3
	// PUT /dav/guides/intro.md alice 405 Method Not Allowed OPTIONS, GET, HEAD, PROPFIND 0
}
