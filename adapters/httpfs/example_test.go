package httpfs_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

func ExampleNewHandler() {
	// An in-memory collection; chromastore.Open gives a real one.
	store := memstore.New("docs")
	err := memstore.Load(store, collection.DefaultLayout(), map[string]string{
		"index.md":             "# Docs\n",
		"guides/quickstart.md": "# Quickstart\nRun `acme init`.\n",
		"internal/oncall.md":   "# On-call\n",
	}, memstore.LoadOptions{WithSizes: true, Access: func(slug string) (bool, []string) {
		return slug != "internal/oncall.md", []string{"staff"}
	}})
	if err != nil {
		log.Fatal(err)
	}
	public, err := chromafs.New(context.Background(), store) // no groups: public pages only
	if err != nil {
		log.Fatal(err)
	}

	// resolve picks the user's view (here everyone is anonymous) and
	// binds it to the request's context.
	h := httpfs.NewHandler(func(r *http.Request) (fs.FS, error) {
		return public.WithContext(r.Context()), nil
	}, httpfs.Options{Prefix: "/files/"})
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, p := range []string{"/files/guides/quickstart.md", "/files/", "/files/internal/oncall.md"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s %d %s\n%s\n", p, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	// Output:
	// /files/guides/quickstart.md 200 text/markdown; charset=utf-8
	// # Quickstart
	// Run `acme init`.
	//
	// /files/ 200 text/html; charset=utf-8
	// <!doctype html>
	// <meta charset="utf-8">
	// <title>Index of /files/</title>
	// <h1>Index of /files/</h1>
	// <pre>
	// <a href="guides/">guides/</a>
	// <a href="index.md">index.md</a>
	// </pre>
	//
	// /files/internal/oncall.md 404 text/plain; charset=utf-8
	// 404 page not found
}
