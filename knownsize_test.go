package chromafs_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

// TestStatNoRead: StatNoRead describes files and directories from the tree
// alone — no content request even when the tree records no sizes and the
// store fails — with Stat's name, mode, mod time and Sys; the size is
// reported unknown (-1) until a read has learned it, then known; missing,
// hidden and invalid names fail as Stat does.
func TestStatNoRead(t *testing.T) {
	files := map[string]string{"a.md": "alpha\n", "d/b.md": "beta beta\n", "secret/x.md": "x"}
	for _, sized := range []bool{false, true} {
		s := memstore.New("statnoread")
		access := func(slug string) (bool, []string) { return slug != "secret/x.md", []string{"staff"} }
		if err := memstore.Load(s, collection.DefaultLayout(), files, memstore.LoadOptions{Access: access, WithSizes: sized, ChunkSize: 3}); err != nil {
			t.Fatal(err)
		}
		fsys, err := chromafs.New(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		s.SetFailure(errors.New("store down"))
		s.ResetRequests()
		for _, name := range []string{".", "a.md", "d", "d/b.md"} {
			fi, known, err := fsys.StatNoRead(name)
			if err != nil {
				t.Fatalf("sized=%v: StatNoRead(%s): %v", sized, name, err)
			}
			if fi.IsDir() {
				want, err := fs.Stat(fsys, name) // reads nothing for a directory
				if err != nil || !fi.ModTime().Equal(want.ModTime()) {
					t.Errorf("sized=%v: %s: mod time %v, Stat's %v (%v)", sized, name, fi.ModTime(), want, err)
				}
			}
			switch {
			case fi.IsDir():
				if !known || fi.Mode() != fs.ModeDir|0o555 {
					t.Errorf("sized=%v: %s: known %v, mode %v", sized, name, known, fi.Mode())
				}
			case known != sized:
				t.Errorf("sized=%v: %s: sizeKnown %v", sized, name, known)
			case known && fi.Size() != int64(len(files[name])), !known && fi.Size() != -1:
				t.Errorf("sized=%v: %s: size %d (known %v)", sized, name, fi.Size(), known)
			}
		}
		if r := s.Requests(); r.Chunks+r.ChunksByID != 0 {
			t.Errorf("sized=%v: StatNoRead sent content requests: %+v", sized, r)
		}
		for _, name := range []string{"secret/x.md", "secret", "nope", "/a.md", "d/../a.md"} {
			if _, _, err := fsys.StatNoRead(name); !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("StatNoRead(%s) = %v", name, err)
			}
		}
		// After a read the size is known, and equals Stat's.
		s.SetFailure(nil)
		sub, err := fsys.Sub("d")
		if err != nil {
			t.Fatal(err)
		}
		want, err := fs.Stat(sub, "b.md")
		if err != nil {
			t.Fatal(err)
		}
		fi, known, err := sub.(*chromafs.FS).StatNoRead("b.md")
		if err != nil || !known || fi.Size() != want.Size() || fi.Name() != want.Name() || fi.Mode() != want.Mode() ||
			!fi.ModTime().Equal(want.ModTime()) || fi.Sys() != want.Sys() {
			t.Errorf("sized=%v: after a read: %v %v %v; Stat %v", sized, fi, known, err, want)
		}
	}
}

// TestStatNoReadSharedCache: a page another session of the process has
// read is in the shared memory cache, so a new session lists it with its
// size, still without a content request; a Tiered cache is looked up in
// its front only.
func TestStatNoReadSharedCache(t *testing.T) {
	files := map[string]string{"a.md": "alpha\n", "b.md": "beta beta\n"}
	for _, tiered := range []bool{false, true} {
		s := memstore.New("statnoread-shared")
		if err := memstore.Load(s, collection.DefaultLayout(), files, memstore.LoadOptions{ChunkSize: 3}); err != nil {
			t.Fatal(err)
		}
		var cache cachepkg.Cache = cachepkg.NewMemory(0)
		var back *failingCache
		if tiered {
			back = &failingCache{Memory: cachepkg.NewMemory(0)}
			cache = cachepkg.NewTiered(cachepkg.NewMemory(0), back)
		}
		first, err := chromafs.New(context.Background(), s, chromafs.WithCache(cache))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fs.ReadFile(first, "a.md"); err != nil {
			t.Fatal(err)
		}
		second, err := chromafs.New(context.Background(), s, chromafs.WithCache(cache))
		if err != nil {
			t.Fatal(err)
		}
		s.SetFailure(errors.New("store down"))
		s.ResetRequests()
		if back != nil {
			back.on = true
		}
		fi, known, err := second.StatNoRead("a.md")
		if err != nil || !known || fi.Size() != int64(len(files["a.md"])) {
			t.Errorf("tiered=%v: a.md read by another session: %v, known %v, %v", tiered, fi, known, err)
		}
		if _, known, err := second.StatNoRead("b.md"); err != nil || known {
			t.Errorf("tiered=%v: b.md never read: known %v, %v", tiered, known, err)
		}
		if r := s.Requests(); r.Chunks+r.ChunksByID != 0 {
			t.Errorf("tiered=%v: content requests: %+v", tiered, r)
		}
	}
}

// failingCache is a back tier that fails every call once on is set:
// StatNoRead must not reach it.
type failingCache struct {
	*cachepkg.Memory
	on bool
}

var errBackTier = errors.New("back tier reached")

func (c *failingCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if c.on {
		return nil, false, errBackTier
	}
	return c.Memory.Get(ctx, key)
}

func (c *failingCache) Has(ctx context.Context, key string) (bool, error) {
	if c.on {
		return false, errBackTier
	}
	return c.Memory.Has(ctx, key)
}
