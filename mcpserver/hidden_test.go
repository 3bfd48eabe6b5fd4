package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/mcpserver"
)

// countingStore counts the requests for content and searches, and keeps
// the slugs and ids they name.
type countingStore struct {
	testbackend.Target
	mu    sync.Mutex
	n     int
	names []string
}

func (c *countingStore) note(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.names = append(c.names, names...)
}

func (c *countingStore) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *countingStore) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	c.note(slugs)
	return c.Target.Chunks(ctx, l, slugs)
}

func (c *countingStore) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	c.note(ids)
	return c.Target.ChunksByID(ctx, l, ids)
}

func (c *countingStore) Search(ctx context.Context, l collection.Layout, sc collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	c.note(sc.Slugs)
	return c.Target.Search(ctx, l, sc, f)
}

// TestHiddenNoRequest: every tool answers a path the user may not see
// from the user's view alone, as it answers a path that does not exist:
// no request reaches the store for either, and no request the session
// ever sends names a hidden page.
func TestHiddenNoRequest(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			store := &countingStore{Target: b.New(t)}
			testcorpus.Ingest(t, store.Target, testcorpus.Files(t))
			fsys, err := chromafs.New(ctx, store, chromafs.WithShared(chromafs.NewShared(0)))
			if err != nil {
				t.Fatal(err)
			}
			c := connect(t, fsys, mcpserver.Config{})
			c.text("ls", map[string]any{"path": "/"})
			// The session's background load ends: what follows is the
			// tools' own requests.
			if err := fsys.Preload(ctx); err != nil {
				t.Fatal(err)
			}
			before := store.count()
			for _, p := range []string{"/internal/oncall.md", "/internal", "/internal/secret/plan.md", "/nowhere/oncall.md", "/nowhere", "/index.md/x"} {
				c.fail("read", map[string]any{"path": p})
				c.fail("stat", map[string]any{"path": p})
				c.fail("ls", map[string]any{"path": p})
				c.fail("grep", map[string]any{"pattern": "plan", "path": p})
				c.fail("glob", map[string]any{"pattern": "**", "path": p})
				c.text("bash", map[string]any{"command": "cat " + p + "; ls " + p + "; grep -r plan " + p + "; stat " + p + "; head " + p})
			}
			if n := store.count() - before; n != 0 {
				t.Errorf("%d store requests for hidden and missing paths, want 0", n)
			}
			for _, name := range store.names {
				if strings.HasPrefix(name, "internal/") {
					t.Errorf("a request named the hidden page %s", name)
				}
			}
		})
	}
}
