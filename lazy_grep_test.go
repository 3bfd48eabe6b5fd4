package chromafs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/pointer"
)

// TestGrepSkipLazy: grepx.Query.SkipLazy leaves lazy pointers out of a
// search (operands and files found by recursion) without a single request
// to their server, while ordinary pages are searched as always; without
// it, pointer content is searched and matched.
func TestGrepSkipLazy(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			srv := newPointerServer(t)
			store := b.New(t)
			writePointerTree(t, store, srv)
			ctx := context.Background()
			fsys, err := chromafs.New(ctx, store, chromafs.WithResolver(&pointer.HTTPResolver{Policy: allowing(t, srv.URL)}))
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]bool{
				"specs/openapi.yaml":   true,
				"s3/object.bin":        true,
				"index.md":             false,
				"specs":                false,
				"internal/secret.yaml": false, // hidden: as if it did not exist
				"nope.md":              false,
			} {
				if got := fsys.IsLazy(name); got != want {
					t.Errorf("IsLazy(%s) = %v", name, got)
				}
			}
			q := grepx.Query{Patterns: []string{"operationId"}, Recursive: true, Paths: []string{"index.md", "guides", "specs/openapi.yaml", "specs"}, SkipLazy: true}
			before := srv.total()
			got := searchText(t, fsys, q)
			if n := srv.total() - before; n != 0 {
				t.Fatalf("a search with SkipLazy made %d requests to the pointers' server", n)
			}
			if strings.Contains(got, "specs/") || !strings.Contains(got, "guides/intro.md:2:operationId in a page") {
				t.Fatalf("SkipLazy search:\n%s", got)
			}
			q.SkipLazy = false
			q.Paths = []string{"guides", "specs/openapi.yaml"}
			got = searchText(t, fsys, q)
			if !strings.Contains(got, "specs/openapi.yaml:5:      operationId: listUsers") || !strings.Contains(got, "guides/intro.md:2:") {
				t.Fatalf("search without SkipLazy:\n%s", got)
			}
		})
	}
}
