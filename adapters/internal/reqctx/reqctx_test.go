package reqctx_test

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/adapters/internal/reqctx"
	"github.com/chromafs/chromafs/adapters/internal/reqctx/reqctxtest"
)

type key struct{}

func TestBind(t *testing.T) {
	ctx := context.WithValue(context.Background(), key{}, "request")
	f := reqctxtest.New("a.md")
	data, err := fs.ReadFile(reqctx.Bind(f, ctx), "a.md")
	if err != nil || string(data) != "bound" {
		t.Fatalf("ReadFile of the bound view = %q, %v; want bound", data, err)
	}
	if got := f.Contexts(); len(got) != 1 || got[0].Value(key{}) != "request" {
		t.Fatalf("BindContext got %v; want the request's context once", got)
	}
	// A nil context binds nothing; a filesystem without BindContext is
	// served as it is.
	if v := reqctx.Bind(f, nil); v != fs.FS(f) || len(f.Contexts()) != 1 {
		t.Fatalf("Bind with a nil context = %v", v)
	}
	plain := fstest.MapFS{"a.md": {Data: []byte("plain")}}
	if data, err := fs.ReadFile(reqctx.Bind(plain, ctx), "a.md"); err != nil || string(data) != "plain" {
		t.Fatalf("ReadFile through Bind of a plain fs.FS = %q, %v", data, err)
	}
}
