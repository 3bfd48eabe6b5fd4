package chromastore_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// observed records what Config.Observe saw.
type observed struct {
	mu    sync.Mutex
	kinds []chromastore.RequestKind
	errs  []error
}

type observeKey struct{}

func (o *observed) observe(ctx context.Context, kind chromastore.RequestKind) (context.Context, func(error)) {
	return context.WithValue(ctx, observeKey{}, kind), func(err error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.kinds = append(o.kinds, kind)
		o.errs = append(o.errs, err)
	}
}

// take returns the kinds seen since the last take, and their errors.
func (o *observed) take() ([]chromastore.RequestKind, []error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k, e := o.kinds, o.errs
	o.kinds, o.errs = nil, nil
	return k, e
}

// TestObserve: Config.Observe sees each call to a real Chroma once, with
// the kind of what it does, and its error.
func TestObserve(t *testing.T) {
	srv := testenv.Chroma(t)
	o := &observed{}
	var unobserved atomic.Int64
	cfg := chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t), Create: true, Observe: o.observe,
		HTTPClient: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Context().Value(observeKey{}) == nil {
				unobserved.Add(1)
			}
			return http.DefaultTransport.RoundTrip(r)
		})}}
	c := testbackend.OpenChroma(t, cfg)
	t.Cleanup(func() {
		cfg.Observe = nil
		_ = chromastore.DeleteCollection(context.Background(), cfg)
	})
	if kinds, _ := o.take(); len(kinds) == 0 || slices.ContainsFunc(kinds, func(k chromastore.RequestKind) bool { return k != chromastore.KindCollection }) {
		t.Fatalf("Open: kinds %v; want only %q", kinds, chromastore.KindCollection)
	}
	ctx := context.Background()
	l := collection.DefaultLayout()
	recs := []collection.Record{content("a.md", 0, "alpha beta\n"), content("a.md", 1, "gamma\n"), content("b.md", 0, "delta\n")}
	tests := []struct {
		name string
		call func() error
		want chromastore.RequestKind
		err  bool
	}{
		{"upsert", func() error { return c.Upsert(ctx, recs) }, chromastore.KindWrite, false},
		{"chunks by id", func() error { _, err := c.ChunksByID(ctx, l, []string{recs[0].ID}); return err }, chromastore.KindGetByID, false},
		{"chunks by slug", func() error { _, err := c.Chunks(ctx, l, []string{"a.md"}); return err }, chromastore.KindGetByWhere, false},
		{"search", func() error {
			_, err := c.Search(ctx, l, collection.Scope{Slugs: []string{"a.md"}}, collection.TextFilter{Contains: []string{"gamma"}})
			return err
		}, chromastore.KindSearch, false},
		{"query", func() error {
			_, err := c.QueryVector(ctx, l, collection.Scope{Exclude: true}, make([]float32, 384), 2)
			return err
		}, chromastore.KindQuery, false},
		{"bad regex", func() error {
			_, err := c.Search(ctx, l, collection.Scope{Exclude: true}, collection.TextFilter{Regexes: []string{"("}})
			return err
		}, chromastore.KindSearch, true},
		{"delete", func() error { return c.Delete(ctx, []string{recs[2].ID}) }, chromastore.KindWrite, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if (err != nil) != tt.err {
				t.Fatalf("error %v, want an error: %v", err, tt.err)
			}
			if n := unobserved.Swap(0); n > 0 {
				t.Errorf("%d requests not sent under the context that Observe returned", n)
			}
			kinds, errs := o.take()
			if len(kinds) == 0 || !slices.Contains(kinds, tt.want) {
				t.Fatalf("kinds %v; want %q among them", kinds, tt.want)
			}
			i := slices.Index(kinds, tt.want)
			if tt.err && (errs[i] == nil || !strings.Contains(err.Error(), errs[i].Error())) {
				t.Errorf("observed error %v; the call failed with %v", errs[i], err)
			}
			if !tt.err && slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
				t.Errorf("observed errors %v on a call that succeeded", errs)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
