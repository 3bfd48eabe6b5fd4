package testbackend_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// TestBackends: Backends gives memstore then Chroma; each New is a new,
// empty store of its own, and a Chroma collection is closed when its test
// ends.
func TestBackends(t *testing.T) {
	ctx := context.Background()
	bs := testbackend.Backends()
	if len(bs) != 2 || bs[0].Name != "memstore" || bs[1].Name != "chroma" {
		t.Fatalf("Backends = %v, want memstore and chroma", bs)
	}
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) {
			var kept testbackend.Target
			t.Run("new", func(t *testing.T) {
				s1, s2 := b.New(t), b.New(t)
				if s1.CollectionID() == s2.CollectionID() && b.Name == "chroma" {
					t.Fatalf("two New calls share collection %s", s1.CollectionID())
				}
				rec := collection.Record{ID: "a.md#0", Document: "a", Metadata: map[string]any{"page_slug": "a.md", "chunk_index": 0}}
				if err := s1.Upsert(ctx, []collection.Record{rec}); err != nil {
					t.Fatal(err)
				}
				for i, s := range []testbackend.Target{s1, s2} {
					ids, err := s.IDs(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if want := 1 - i; len(ids) != want {
						t.Errorf("store %d holds %q, want %d records", i+1, ids, want)
					}
				}
				kept = s1
			})
			if _, ok := kept.(*chromastore.Collection); !ok {
				return
			}
			if _, err := kept.IDs(ctx); !errors.Is(err, chromastore.ErrClosed) {
				t.Errorf("IDs after the test ended: %v, want ErrClosed", err)
			}
		})
	}
}

// TestOpenChroma: Config fields reach chromastore.Open, and a named
// collection opened twice is one collection.
func TestOpenChroma(t *testing.T) {
	ctx := context.Background()
	srv := testenv.Chroma(t)
	name := testenv.CollectionName(t)
	c1 := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, Collection: name, Timeout: 5 * time.Second, CloudLimits: true})
	c2 := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, Collection: name})
	if c1.Name() != name || c1.CollectionID() != c2.CollectionID() {
		t.Errorf("collections %s (%s) and %s (%s), want one named %s", c1.Name(), c1.CollectionID(), c2.Name(), c2.CollectionID(), name)
	}
	if re, _ := c1.Limits(); re != chromastore.CloudMaxRegexBytes {
		t.Errorf("CloudLimits set: Limits = %d, want %d", re, chromastore.CloudMaxRegexBytes)
	}
	if re, _ := c2.Limits(); re != 0 {
		t.Errorf("CloudLimits unset: Limits = %d, want 0", re)
	}
	if n, err := testbackend.Chroma(t).Count(ctx); err != nil || n != 0 {
		t.Errorf("Chroma: Count = %d, %v; want a new, empty collection", n, err)
	}
}
