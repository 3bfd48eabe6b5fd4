package chromafs_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// A tree entry with a URL is a lazy file pointer: it is listed with its
// declared size without any request, and fetched (once, then cached) when
// it is read. The default resolver fetches http and https URLs from
// public addresses; WithResolver sets another (for example one whose
// policy allows a local server, or one for an object store).
func ExampleWithResolver() {
	const spec = "openapi: 3.1.0\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, spec)
	}))
	defer srv.Close()

	doc, err := tree.Encode([]tree.Entry{{
		Slug: "api/openapi.yaml", IsPublic: true, URL: srv.URL + "/openapi.yaml", Size: int64(len(spec)),
	}}, false)
	if err != nil {
		log.Fatal(err)
	}
	store := memstore.New("pointers")
	err = store.Upsert(context.Background(), []collection.Record{{
		ID: collection.DefaultLayout().TreeID, Document: string(doc), Metadata: map[string]any{"_system": true}, System: true,
	}})
	if err != nil {
		log.Fatal(err)
	}

	// httptest listens on 127.0.0.1: a loopback address, which pointers
	// may reach only when an allow entry names it.
	policy, err := pointer.NewPolicy(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	fsys, err := chromafs.New(context.Background(), store,
		chromafs.WithResolver(&pointer.HTTPResolver{Policy: policy, MaxBytes: 1 << 20}))
	if err != nil {
		log.Fatal(err)
	}
	fi, _ := fs.Stat(fsys, "api/openapi.yaml") // no request
	fmt.Println(fi.Name(), fi.Size())
	data, err := fs.ReadFile(fsys, "api/openapi.yaml") // one GET
	fmt.Printf("%q %v\n", data, err)
	// Output:
	// openapi.yaml 15
	// "openapi: 3.1.0\n" <nil>
}
