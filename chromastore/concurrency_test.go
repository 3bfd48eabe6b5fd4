package chromastore_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// gate is a proxy in front of a real Chroma that counts the requests in
// flight (the most seen at once) and holds each until hold lets it go.
type gate struct {
	srv       *httptest.Server
	now, most atomic.Int64
	hold      chan struct{} // nil: no holding
	holding   atomic.Bool   // hold only from when this is set
}

func newGate(t *testing.T, target string, hold chan struct{}) *gate {
	g := &gate{hold: hold}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.hold != nil && !g.holding.Load() {
			g.forward(w, r, target)
			return
		}
		n := g.now.Add(1)
		defer g.now.Add(-1)
		for {
			m := g.most.Load()
			if n <= m || g.most.CompareAndSwap(m, n) {
				break
			}
		}
		if g.hold != nil {
			select {
			case <-g.hold:
			case <-r.Context().Done():
				return
			}
		} else {
			time.Sleep(20 * time.Millisecond) // long enough for requests to overlap
		}
		g.forward(w, r, target)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// forward sends r on to target and copies the answer back.
func (g *gate) forward(w http.ResponseWriter, r *http.Request, target string) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.RequestURI(), r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body) //nolint:errcheck
}

// TestMaxConcurrent: a Collection has at most MaxConcurrent requests in
// flight to Chroma (CloudMaxConcurrent under CloudLimits by default), the
// others wait their turn and succeed, and one whose context ends while
// it waits fails saying so.
func TestMaxConcurrent(t *testing.T) {
	srv := testenv.Chroma(t)
	cfg := chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t), Create: true}
	c := testbackend.OpenChroma(t, cfg)
	t.Cleanup(func() { _ = chromastore.DeleteCollection(context.Background(), cfg) })
	ctx := context.Background()
	l := collection.DefaultLayout()
	if err := c.Upsert(ctx, []collection.Record{content("a.md", 0, "alpha\n")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		max   int
		cloud bool
		calls int
		want  int64
	}{
		{"two", 2, false, 12, 2},
		{"cloud default", 0, true, 30, chromastore.CloudMaxConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate(t, srv.URL, nil)
			s := testbackend.OpenChroma(t, chromastore.Config{URL: g.srv.URL, Collection: cfg.Collection, MaxConcurrent: tt.max, CloudLimits: tt.cloud})
			g.most.Store(0)
			var wg sync.WaitGroup
			errs := make(chan error, tt.calls)
			for range tt.calls {
				wg.Go(func() {
					_, err := s.ChunksByID(ctx, l, []string{"a.md#0"})
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if most := g.most.Load(); most > tt.want || most < 2 {
				t.Errorf("%d requests in flight at most; want at most %d (and more than one: the calls overlap)", most, tt.want)
			}
		})
	}
	t.Run("deadline while waiting", func(t *testing.T) {
		hold := make(chan struct{})
		g := newGate(t, srv.URL, hold)
		held := testbackend.OpenChroma(t, chromastore.Config{URL: g.srv.URL, Collection: cfg.Collection, MaxConcurrent: 1})
		g.holding.Store(true)
		first := make(chan error, 1)
		go func() {
			_, err := held.ChunksByID(ctx, l, []string{"a.md#0"})
			first <- err
		}()
		for g.now.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := held.ChunksByID(wctx, l, []string{"a.md#0"})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for one of 1 request slots") {
			t.Errorf("a call whose deadline passed while it waited: %v", err)
		}
		close(hold)
		if err := <-first; err != nil {
			t.Errorf("the call that held the slot: %v", err)
		}
	})
}
