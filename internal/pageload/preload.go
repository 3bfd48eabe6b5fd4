package pageload

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/tree"
)

// DefaultPreloadBytes is Preload's budget when Config.PreloadBytes is 0.
const DefaultPreloadBytes = 64 << 20

// Preload's requests: pages per bulk read, and reads in flight.
const (
	preloadBatch    = 64
	preloadParallel = 1
)

// Preload loads the content of every page of view below prefix ("" or a
// directory path of the collection) into the page cache, as the root's
// FS.Preload documents: nothing when the pages' sizes, as far as the tree
// records them, exceed the budget (Config.PreloadBytes); no lazy pointer;
// no page that the cache holds; the others in bulk reads of up to 64
// pages, one at a time, each waiting until the Gate is idle. Concurrent
// calls for one view, prefix, cache and tree version (in any Loader of
// one Flights) share one load. Failures are logged once per call, and the
// first is returned; when ctx ends first, ctx's error is returned and
// nothing is logged.
func (l *Loader) Preload(ctx context.Context, view *tree.View, prefix string) error {
	if l.c.PreloadBytes < 0 {
		return nil
	}
	key := preloadKey{view: view, prefix: prefix, sep: l.c.Sep, layout: l.c.Layout.SlugField + "\x00" + l.c.Layout.IndexField}
	if reflect.TypeOf(l.c.Cache).Comparable() {
		key.cache = l.c.Cache
	} else {
		key.loader = l // no sharing with other sessions
	}
	run := &preloadRun{done: make(chan struct{})}
	if prev, loaded := l.c.Flights.preloads.LoadOrStore(key, run); loaded {
		run = prev.(*preloadRun)
		select {
		case <-run.done:
			// Finished since it was looked up: start another, which finds
			// what it loaded in the cache.
			return l.Preload(ctx, view, prefix)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() {
		l.c.Flights.preloads.Delete(key)
		close(run.done)
	}()
	run.err = l.preload(ctx, view, prefix)
	if run.err != nil && ctx.Err() == nil {
		l.c.Log.Warn("chromafs: preload failed; pages not loaded are read from the store when needed", "err", run.err)
	}
	return run.err
}

// preloadKey identifies the loads that concurrent Preload calls share.
type preloadKey struct {
	cache  cachepkg.Cache
	loader *Loader
	view   *tree.View
	prefix string
	sep    string
	layout string
}

// preloadRun is a Preload in progress; done is closed when it ends.
type preloadRun struct {
	done chan struct{}
	err  error
}

// preload loads the pages of Preload.
func (l *Loader) preload(ctx context.Context, view *tree.View, prefix string) error {
	budget := l.c.PreloadBytes
	if budget == 0 {
		budget = DefaultPreloadBytes
	}
	nodes, known := preloadPages(view, prefix)
	if known > budget {
		return nil
	}
	local, _ := l.c.Cache.(cachepkg.Local)
	var want []*tree.Node
	var keys []string
	for _, n := range nodes {
		key := l.CacheKey(n)
		if local != nil && local.HasLocal(key) {
			continue
		}
		want = append(want, n)
		keys = append(keys, key)
	}
	var (
		mu     sync.Mutex
		loaded int64
		errs   []error
	)
	over := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return loaded > budget
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(preloadParallel)
	for i := 0; i < len(want) && !over(); i += preloadBatch {
		j := min(i+preloadBatch, len(want))
		if err := l.c.Gate.Wait(gctx); err != nil {
			break
		}
		g.Go(func() error {
			n, err := l.loadMany(gctx, want[i:j], keys[i:j], nil)
			mu.Lock()
			defer mu.Unlock()
			loaded += n
			if err != nil && gctx.Err() == nil {
				errs = append(errs, err)
			}
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("chromafs: preload of %d pages: %d of %d requests failed: %w", len(want), len(errs), (len(want)+preloadBatch-1)/preloadBatch, errors.Join(errs...))
	}
	return nil
}

// preloadPages returns the pages Preload considers (visible files of
// view below prefix that the store holds), and their total size as far
// as the tree records it.
func preloadPages(view *tree.View, prefix string) ([]*tree.Node, int64) {
	var nodes []*tree.Node
	var known int64
	if prefix != "" {
		prefix += "/"
	}
	view.Walk(func(n *tree.Node) bool {
		if n.IsDir || n.Entry.URL != "" || !strings.HasPrefix(n.Path, prefix) {
			return true
		}
		nodes = append(nodes, n)
		known += max(n.Entry.Size, 0)
		return true
	})
	return nodes, known
}

// Gate tells background work whether a session is waiting for the
// store: its foreground requests (reads, searches, prefetches) Enter and
// Leave it, and Wait returns when none is in progress. The zero value is
// ready.
type Gate struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0
}

// Enter marks the start of a foreground request.
func (g *Gate) Enter() {
	g.mu.Lock()
	if g.n == 0 {
		g.idle = make(chan struct{})
	}
	g.n++
	g.mu.Unlock()
}

// Leave marks the end of a request that Enter started.
func (g *Gate) Leave() {
	g.mu.Lock()
	g.n--
	if g.n == 0 {
		close(g.idle)
	}
	g.mu.Unlock()
}

// Wait returns when no foreground request is in progress, or ctx's error
// when ctx ends first.
func (g *Gate) Wait(ctx context.Context) error {
	g.mu.Lock()
	if g.n == 0 {
		g.mu.Unlock()
		return ctx.Err()
	}
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
