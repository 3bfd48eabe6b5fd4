package chromafs

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

// defaultPreloadBytes is the budget of Preload without WithPreload.
const defaultPreloadBytes = 64 << 20

// Preload's requests: pages per bulk read, and reads in flight.
const (
	preloadBatch    = 64
	preloadParallel = 1
)

// WithPreload sets the budget of FS.Preload: the most content, in bytes,
// that it loads into the page cache. A session whose visible pages hold
// more is not preloaded (its searches still remember the store's answers:
// see FS.Candidates). 0 means the default, 64 MiB; a negative maxBytes
// turns Preload off. The page cache (WithCache) should hold at least the
// budget, or preloaded pages push each other out.
func WithPreload(maxBytes int64) Option {
	return func(c *config) { c.preloadBytes = maxBytes }
}

// Preload loads the content of every page visible to fsys (below its
// root, for a Sub view) into the page cache, so that reads and searches
// afterwards send no request to the store: grepx.Search then reads every
// page from memory and asks no coarse query. It is meant to run in the
// background when a session starts, with the session's context (go
// fsys.Preload(ctx)); it returns when the pages are loaded, nothing is to
// be loaded, or ctx ends.
//
// It loads nothing when the visible pages' content, by the sizes the tree
// records, is more than the budget of WithPreload (64 MiB by default);
// pages whose size the tree does not record are loaded until the bytes
// loaded reach the budget. Lazy pointers (pages stored outside the
// collection) are not loaded. Pages that the cache holds, in memory or in
// a shared tier such as Redis, are not read from the store again; the
// others are read in bulk, up to 64 pages a request and one request at a
// time, and each request waits until no read, search or prefetch of this
// session (an FS and its views) is waiting for the store, so that the
// session's own requests queue behind at most one short request of the
// preload. Concurrent calls
// for one view, cache and tree version share one load.
//
// Preload never changes what reads return: a page it failed to load is
// read as usual. Its failures are logged once per call (see WithLogger),
// and the first is returned; when ctx ends first, ctx's error is returned
// and nothing is logged.
func (fsys *FS) Preload(ctx context.Context) error {
	s := fsys.s
	if s.preloadBytes < 0 {
		return nil
	}
	key := preloadKey{view: s.view, prefix: fsys.prefix, sep: s.sep, layout: s.layout.SlugField + "\x00" + s.layout.IndexField}
	if reflect.TypeOf(s.cache).Comparable() {
		key.cache = s.cache
	} else {
		key.session = s // no sharing with other sessions
	}
	run := &preloadRun{done: make(chan struct{})}
	if prev, loaded := s.shared.preloads.LoadOrStore(key, run); loaded {
		run = prev.(*preloadRun)
		select {
		case <-run.done:
			// Finished since it was looked up: start another, which finds
			// what it loaded in the cache.
			return fsys.Preload(ctx)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() {
		s.shared.preloads.Delete(key)
		close(run.done)
	}()
	run.err = fsys.preload(ctx)
	if run.err != nil && ctx.Err() == nil {
		s.log.Warn("chromafs: preload failed; pages not loaded are read from the store when needed", "err", run.err)
	}
	return run.err
}

// preloadKey identifies the loads that concurrent Preload calls share.
type preloadKey struct {
	cache   cachepkg.Cache
	session *session
	view    *tree.View
	prefix  string
	sep     string
	layout  string
}

// preloadRun is a Preload in progress; done is closed when it ends.
type preloadRun struct {
	done chan struct{}
	err  error
}

// preload loads the pages of Preload.
func (fsys *FS) preload(ctx context.Context) error {
	s := fsys.s
	budget := s.preloadBytes
	if budget == 0 {
		budget = defaultPreloadBytes
	}
	nodes, known := fsys.preloadPages()
	if known > budget {
		return nil
	}
	local, _ := s.cache.(cachepkg.Local)
	var want []*tree.Node
	var keys []string
	for _, n := range nodes {
		key := s.cacheKey(n)
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
		if err := s.fg.wait(gctx); err != nil {
			break
		}
		g.Go(func() error {
			n, err := s.loadMany(gctx, want[i:j], keys[i:j], nil)
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

// preloadPages returns the pages Preload considers (visible files of the
// view below fsys's root that the store holds), and their total size as
// far as the tree records it.
func (fsys *FS) preloadPages() ([]*tree.Node, int64) {
	var nodes []*tree.Node
	var known int64
	prefix := ""
	if fsys.prefix != "" {
		prefix = fsys.prefix + "/"
	}
	fsys.s.view.Walk(func(n *tree.Node) bool {
		if n.IsDir || n.Entry.URL != "" || !strings.HasPrefix(n.Path, prefix) {
			return true
		}
		nodes = append(nodes, n)
		known += max(n.Entry.Size, 0)
		return true
	})
	return nodes, known
}

// gate tells background work whether the session is waiting for the
// store: foreground requests enter and leave it, and wait returns when
// none is in progress.
type gate struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0
}

func (g *gate) enter() {
	g.mu.Lock()
	if g.n == 0 {
		g.idle = make(chan struct{})
	}
	g.n++
	g.mu.Unlock()
}

func (g *gate) leave() {
	g.mu.Lock()
	g.n--
	if g.n == 0 {
		close(g.idle)
	}
	g.mu.Unlock()
}

// wait returns when no foreground request is in progress, or ctx's error
// when ctx ends first.
func (g *gate) wait(ctx context.Context) error {
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
