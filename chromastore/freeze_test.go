package chromastore_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/faulttest"
	"github.com/chromafs/chromafs/internal/testenv"
)

// TestFrozenChroma: every call to a Chroma that accepts connections but
// never answers fails after Config.Timeout with an error wrapping
// context.DeadlineExceeded, and the same Collection works again once
// Chroma answers.
func TestFrozenChroma(t *testing.T) {
	c, cfg := open(t, nil)
	ctx := context.Background()
	if err := c.Upsert(ctx, []collection.Record{treeRecord(`{"a.md":{"isPublic":true}}`), content("a.md", 0, "hello")}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(testenv.Chroma(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	fz := faulttest.NewProxy(t, u.Host)
	const timeout = 300 * time.Millisecond
	pc, err := chromastore.Open(ctx, chromastore.Config{URL: "http://" + fz.Addr, Collection: cfg.Collection, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	// The first TreeVersion after Open answers from Open's lookup; the
	// calls below must each send a request.
	if _, err := pc.TreeVersion(ctx); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"tree":    func() error { _, err := pc.Tree(ctx, layout.TreeID); return err },
		"chunks":  func() error { _, err := pc.Chunks(ctx, layout, []string{"a.md"}); return err },
		"version": func() error { _, err := pc.TreeVersion(ctx); return err },
		"count":   func() error { _, err := pc.Count(ctx); return err },
		"open": func() error {
			c, err := chromastore.Open(ctx, chromastore.Config{URL: "http://" + fz.Addr, Collection: cfg.Collection, Timeout: timeout})
			if err == nil {
				c.Close()
			}
			return err
		},
	}
	fz.Freeze()
	for name, call := range calls {
		start := time.Now()
		err := call()
		d := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 300ms") {
			t.Errorf("%s with Chroma frozen: %v; want a deadline error", name, err)
		}
		if d > 5*time.Second {
			t.Errorf("%s with Chroma frozen returned after %v", name, d)
		}
	}
	fz.Thaw()
	// The calls keep the 300 ms bound that the frozen ones needed, which
	// a Chroma on a loaded machine can miss now and then: a call that
	// misses it is tried again, for up to 10 s; any other error fails.
	for name, call := range calls {
		deadline := time.Now().Add(10 * time.Second)
		err := call()
		for errors.Is(err, context.DeadlineExceeded) && time.Now().Before(deadline) {
			err = call()
		}
		if err != nil {
			t.Errorf("%s after Chroma thawed: %v", name, err)
		}
	}
}
