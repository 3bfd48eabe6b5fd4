package webdavfs_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/adapters/internal/bindtest"
	"github.com/chromafs/chromafs/adapters/webdavfs"
)

type reqKey struct{}

// TestBindsRequestContext: the handler and the webdav.FileSystem of
// NewFileSystem serve the view that the filesystem's BindContext returns
// for the request's (or the call's) context, whatever the filesystem
// (here not a chromafs.FS).
func TestBindsRequestContext(t *testing.T) {
	fsys := bindtest.New("a.md")
	h := webdavfs.NewHandler(func(*http.Request) (fs.FS, error) { return fsys, nil }, webdavfs.Options{})
	for _, method := range []string{"GET", "HEAD", "PROPFIND"} {
		before := len(fsys.Contexts())
		ctx := context.WithValue(context.Background(), reqKey{}, method)
		req := httptest.NewRequest(method, "/a.md", nil).WithContext(ctx)
		req.Header.Set("Depth", "0")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch {
		case method == "PROPFIND" && (rec.Code != 207 || !strings.Contains(rec.Body.String(), "<D:getcontentlength>5<")):
			t.Fatalf("PROPFIND: %d %s; want 207 with the bound view's length, 5", rec.Code, rec.Body)
		case method != "PROPFIND" && (rec.Code != 200 || rec.Header().Get("Content-Length") != "5" || (method == "GET" && rec.Body.String() != "bound")):
			t.Fatalf("%s: %d %q (Content-Length %s); want 200 and the bound view's 5 bytes", method, rec.Code, rec.Body, rec.Header().Get("Content-Length"))
		}
		got := fsys.Contexts()[before:]
		if len(got) == 0 {
			t.Fatalf("%s: BindContext not called", method)
		}
		for _, c := range got {
			if c.Value(reqKey{}) != method {
				t.Fatalf("%s: BindContext got %v; want the request's context", method, c)
			}
		}
	}

	// The webdav.FileSystem alone binds the context of each call.
	wfs := webdavfs.NewFileSystem(fsys)
	ctx := context.WithValue(context.Background(), reqKey{}, "call")
	f, err := wfs.OpenFile(ctx, "/a.md", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if data, err := io.ReadAll(f); err != nil || string(data) != "bound" {
		t.Fatalf("OpenFile read %q, %v; want the bound view's content", data, err)
	}
	if got := fsys.Contexts(); got[len(got)-1].Value(reqKey{}) != "call" {
		t.Fatalf("OpenFile: BindContext got %v; want the call's context", got[len(got)-1])
	}
	if fi, err := wfs.Stat(ctx, "/a.md"); err != nil || fi.Size() != 5 {
		t.Fatalf("Stat = %v, %v; want the bound view's 5 bytes", fi, err)
	}
}
