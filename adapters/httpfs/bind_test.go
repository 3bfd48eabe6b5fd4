package httpfs_test

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/adapters/internal/bindtest"
)

type reqKey struct{}

// TestBindsRequestContext: the handler serves the view that the
// filesystem's BindContext returns for the request's context, whatever
// the filesystem (here not a chromafs.FS).
func TestBindsRequestContext(t *testing.T) {
	fsys := bindtest.New("a.md")
	h := httpfs.NewHandler(func(*http.Request) (fs.FS, error) { return fsys, nil }, httpfs.Options{})
	for _, method := range []string{"GET", "HEAD"} {
		ctx := context.WithValue(context.Background(), reqKey{}, method)
		req := httptest.NewRequest(method, "/a.md", nil).WithContext(ctx)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Header().Get("Content-Length") != "5" || (method == "GET" && rec.Body.String() != "bound") {
			t.Fatalf("%s: %d %q (Content-Length %s); want 200 and the bound view's 5 bytes", method, rec.Code, rec.Body, rec.Header().Get("Content-Length"))
		}
		got := fsys.Contexts()
		if len(got) == 0 || got[len(got)-1].Value(reqKey{}) != method {
			t.Fatalf("%s: BindContext got %v; want the request's context", method, got)
		}
	}
}
