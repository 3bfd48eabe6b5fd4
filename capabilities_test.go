package chromafs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// *chromafs.FS implements every capability of package fscap; its Sub,
// WithContext and BindContext views are *chromafs.FS values too (see
// TestCapabilitiesOfViews).
var (
	_ fscap.CandidatesFS     = (*chromafs.FS)(nil)
	_ fscap.PrefetchFS       = (*chromafs.FS)(nil)
	_ fscap.PrefetchEachFS   = (*chromafs.FS)(nil)
	_ fscap.UncachedFS       = (*chromafs.FS)(nil)
	_ fscap.ReadFileSharedFS = (*chromafs.FS)(nil)
	_ fscap.StatNoReadFS     = (*chromafs.FS)(nil)
	_ fscap.WalkDirFS        = (*chromafs.FS)(nil)
	_ fscap.BindContextFS    = (*chromafs.FS)(nil)
	_ fscap.PreloadFS        = (*chromafs.FS)(nil)
	_ fscap.IsLazyFS         = (*chromafs.FS)(nil)
	_ fscap.QueryFS          = (*chromafs.FS)(nil)
	_ fscap.Attributer       = (*tree.Entry)(nil)
)

// capabilities reports which fscap interfaces fsys implements.
func capabilities(fsys fs.FS) []string {
	var has []string
	for name, ok := range map[string]bool{
		"CandidatesFS":     is[fscap.CandidatesFS](fsys),
		"PrefetchFS":       is[fscap.PrefetchFS](fsys),
		"PrefetchEachFS":   is[fscap.PrefetchEachFS](fsys),
		"UncachedFS":       is[fscap.UncachedFS](fsys),
		"ReadFileSharedFS": is[fscap.ReadFileSharedFS](fsys),
		"StatNoReadFS":     is[fscap.StatNoReadFS](fsys),
		"WalkDirFS":        is[fscap.WalkDirFS](fsys),
		"BindContextFS":    is[fscap.BindContextFS](fsys),
		"PreloadFS":        is[fscap.PreloadFS](fsys),
		"IsLazyFS":         is[fscap.IsLazyFS](fsys),
		"QueryFS":          is[fscap.QueryFS](fsys),
	} {
		if ok {
			has = append(has, name)
		}
	}
	return has
}

func is[T any](v any) bool { _, ok := v.(T); return ok }

// TestCapabilitiesOfViews: every view of a chromafs filesystem keeps every
// capability, and the helpers of fscap reach them: a shared read, a stat
// that reads nothing, the attributes of the tree.
func TestCapabilitiesOfViews(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"docs/a.md": "alpha\n", "docs/deep/b.md": "beta\n", "internal/c.md": "gamma\n"}
	sized := mustNew(t, newMem(t, files, memstore.LoadOptions{WithSizes: true}), chromafs.WithGroups("staff"))
	unsized := mustNew(t, newMem(t, files, memstore.LoadOptions{}))
	sub := func(fsys *chromafs.FS, dir string) fs.FS {
		t.Helper()
		v, err := fsys.Sub(dir)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	views := []struct {
		name   string
		fsys   fs.FS
		page   string // a page of the view
		sized  bool   // the tree records the page's size and hash
		public bool
	}{
		{"FS", sized, "docs/a.md", true, true},
		{"FS, a page for a group", sized, "internal/c.md", true, false},
		{"Sub", sub(sized, "docs"), "a.md", true, true},
		{"Sub of a Sub", sub(sub(sized, "docs").(*chromafs.FS), "deep"), "b.md", true, true},
		{"WithContext", sized.WithContext(ctx), "docs/a.md", true, true},
		{"BindContext", sized.BindContext(ctx), "docs/a.md", true, true},
		{"Sub of WithContext", sub(sized.WithContext(ctx), "docs"), "a.md", true, true},
		{"FS without sizes", unsized, "docs/a.md", false, true},
	}
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) {
			if got := capabilities(v.fsys); len(got) != 11 {
				t.Errorf("implements %d of the 11 capabilities: %v", len(got), got)
			}
			fi, known, err := fscap.StatNoRead(v.fsys, v.page)
			if err != nil || known != v.sized || (known && fi.Size() <= 0) || (!known && fi.Size() != -1) {
				t.Fatalf("StatNoRead(%s) = %v, %v, %v; want a size known only when the tree records it", v.page, fi, known, err)
			}
			a, ok := fscap.AttributesOf(fi)
			if !ok || a.Public != v.public || (a.Hash != "") != v.sized || a.URL != "" {
				t.Errorf("AttributesOf(StatNoRead(%s)) = %+v, %v; want public %v, a hash only with sizes", v.page, a, ok, v.public)
			}
			data, err := fscap.ReadFileShared(v.fsys, v.page)
			if err != nil || len(data) == 0 {
				t.Fatalf("ReadFileShared(%s) = %q, %v", v.page, data, err)
			}
			fi, err = fs.Stat(v.fsys, v.page)
			if err != nil {
				t.Fatal(err)
			}
			if b, ok := fscap.AttributesOf(fi); !ok || fmt.Sprint(b) != fmt.Sprint(a) {
				t.Errorf("AttributesOf(Stat(%s)) = %+v, %v; want StatNoRead's, %+v", v.page, b, ok, a)
			}
			dir, err := fs.Stat(v.fsys, ".")
			if err != nil {
				t.Fatal(err)
			}
			if a, ok := fscap.AttributesOf(dir); ok {
				t.Errorf("AttributesOf(a directory) = %+v, true; want none", a)
			}
			if fscap.IsLazy(v.fsys, v.page) {
				t.Errorf("IsLazy(%s) = true for a page stored in the collection", v.page)
			}
		})
	}
}

// TestContentErrors: the errors of content that reads and New return
// match fscap.ErrContent, and none of them is unavailable.
func TestContentErrors(t *testing.T) {
	for _, e := range []error{collection.ErrNoTree, collection.ErrCorruptPage, pointer.ErrLazy, pointer.ErrBroken, tree.ErrMalformed} {
		err := &fs.PathError{Op: "read", Path: "a.md", Err: fmt.Errorf("fetch: %w", e)}
		if !errors.Is(err, fscap.ErrContent) || !errors.Is(err, e) || fscap.IsUnavailable(err) {
			t.Errorf("%v: errors.Is(err, fscap.ErrContent) = %v, errors.Is(err, itself) = %v, IsUnavailable = %v; want true, true, false",
				e, errors.Is(err, fscap.ErrContent), errors.Is(err, e), fscap.IsUnavailable(err))
		}
	}
	// A collection without a tree record: New's own error.
	_, err := chromafs.New(context.Background(), memstore.New(t.Name()))
	if !errors.Is(err, collection.ErrNoTree) || !errors.Is(err, fscap.ErrContent) {
		t.Errorf("New on a collection without a tree = %v; want an error matching ErrNoTree and fscap.ErrContent", err)
	}
}

// TestQueryUnsupported: Query on a store that cannot rank by vector fails
// with an error that matches errors.ErrUnsupported, as fscap.QueryFS asks,
// and ErrNoVectorQuery; its text is unchanged.
func TestQueryUnsupported(t *testing.T) {
	fsys := mustNew(t, newMem(t, map[string]string{"a.md": "alpha\n"}, memstore.LoadOptions{}))
	_, err := fscap.Query(context.Background(), fsys, ".", []float32{1, 0}, 3)
	if !errors.Is(err, errors.ErrUnsupported) || !errors.Is(err, chromafs.ErrNoVectorQuery) {
		t.Errorf("Query on a memstore = %v; want an error matching errors.ErrUnsupported and ErrNoVectorQuery", err)
	}
	if got := chromafs.ErrNoVectorQuery.Error(); got != "store cannot rank chunks by vector" {
		t.Errorf("ErrNoVectorQuery.Error() = %q", got)
	}
}
