package mcpserver_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/mcpserver"
)

// heldStore holds its first content read until release is closed, and
// counts every request for content or a search.
type heldStore struct {
	testbackend.Target
	entered, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	requests         int
}

func (h *heldStore) note(ctx context.Context) error {
	h.mu.Lock()
	h.requests++
	h.mu.Unlock()
	h.once.Do(func() { close(h.entered) })
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *heldStore) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests
}

func (h *heldStore) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	if err := h.note(ctx); err != nil {
		return nil, err
	}
	return h.Target.Chunks(ctx, l, slugs)
}

func (h *heldStore) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	if err := h.note(ctx); err != nil {
		return nil, err
	}
	return h.Target.ChunksByID(ctx, l, ids)
}

func (h *heldStore) Search(ctx context.Context, l collection.Layout, sc collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	if err := h.note(ctx); err != nil {
		return nil, err
	}
	return h.Target.Search(ctx, l, sc, f)
}

// TestSessionPreloads: a session over a chromafs.FS (in a real Chroma)
// starts loading its pages when it starts, without a tool asking for
// content; once loaded, grep sends no request to the store.
func TestSessionPreloads(t *testing.T) {
	ctx := context.Background()
	files := testcorpus.Files(t)
	store := testbackend.Chroma(t)
	testcorpus.Ingest(t, store, files)
	held := &heldStore{Target: store, entered: make(chan struct{}), release: make(chan struct{})}
	fsys, err := chromafs.New(ctx, held, chromafs.WithShared(chromafs.NewShared(0)))
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, fsys, mcpserver.Config{})
	// ls reads no content: the request that arrives is the preload's
	// (without one, this waits until the test binary's deadline).
	c.text("ls", map[string]any{"path": "/"})
	<-held.entered
	close(held.release)
	// Preload waits for the session's load to end (and loads nothing
	// more).
	if err := fsys.Preload(ctx); err != nil {
		t.Fatal(err)
	}
	before := held.count()
	want := 0
	for _, content := range testcorpus.Visible(files) {
		if len(content) > 0 {
			want++
		}
	}
	out := c.text("bash", map[string]any{"command": "grep -rlv zzzzzz / | wc -l"})
	if out != strconv.Itoa(want)+"\n" {
		t.Errorf("grep -rlv over every page: %q files, want %d", out, want)
	}
	c.text("grep", map[string]any{"pattern": "access_token", "path": "/"})
	if n := held.count() - before; n != 0 {
		t.Errorf("%d store requests after the session's preload, want 0", n)
	}
}
