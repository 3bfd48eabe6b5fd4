package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// ErrNotReady is wrapped by Resolve's error while the store is not open
// yet (Config.Open has not succeeded). The error wraps the cause of the
// last attempt as well, so errors.Is(err, syscall.ECONNREFUSED) and
// errors.Is(err, context.DeadlineExceeded) work on it.
var ErrNotReady = errors.New("server: the collection is not open yet")

// readiness is the outcome of one readiness check.
type readiness struct {
	ready bool
	// down: Chroma did not answer (unreachable, or no answer in time),
	// as opposed to answering wrongly; see Config.DownTimeout.
	down bool
	// chroma is "ok" or a short reason, for /readyz; err is the whole
	// cause, for the log.
	chroma string
	err    error
	// cache is "" (none configured), "ok" or a short reason.
	cache   string
	checked time.Time
}

// Backoff of Run while not ready.
const minBackoff = 500 * time.Millisecond

// Run keeps the server's readiness current until ctx is done: it opens
// the store (Config.Open) if it is not open, then checks that Chroma
// answers and that the tree loads, every Config.CheckInterval while that
// holds, and after a failure again after a backoff that doubles from
// 0.5 s to twice CheckInterval (with jitter). Changes are logged: a
// warning when the server becomes unready, info when it becomes ready.
// Run must be running for a server whose Config.Store is nil to become
// ready.
func (s *Server) Run(ctx context.Context) {
	s.running.Store(true)
	defer s.running.Store(false)
	if s.cfg.Users != nil {
		go s.cfg.Users.dummy() // the first unknown name must not pay for it
	}
	backoff := minBackoff
	for {
		st := s.check(ctx)
		wait := s.cfg.CheckInterval
		if st.ready {
			backoff = minBackoff
		} else {
			wait = backoff/2 + rand.N(backoff)
			backoff = min(2*backoff, 2*s.cfg.CheckInterval)
		}
		s.nextCheck.Store(time.Now().Add(wait).UnixNano())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Check runs one readiness check now (opening the store if it is not
// open) and reports whether the server is ready. Run calls it in a loop;
// a caller may call it once before listening, so that a reachable
// collection is served from the first request.
func (s *Server) Check(ctx context.Context) bool { return s.check(ctx).ready }

// kick starts a readiness check in the background, unless one started
// by kick is running or Run is not: a request found Chroma not answering
// before Run's next check would.
func (s *Server) kick() {
	if !s.running.Load() || !s.kicking.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.kicking.Store(false)
		s.check(context.Background())
	}()
}

// untilNextCheck is the time until Run's next attempt (1 s if unknown).
func (s *Server) untilNextCheck() time.Duration {
	if n := s.nextCheck.Load(); n != 0 {
		if d := time.Until(time.Unix(0, n)); d > 0 {
			return min(d, time.Minute)
		}
	}
	return time.Second
}

// openStore returns the open store, or an error wrapping ErrNotReady.
func (s *Server) openStore() (collection.Store, error) {
	if b := s.store.Load(); b != nil {
		return b.Store, nil
	}
	if st := s.state.Load(); st != nil && st.err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotReady, st.err)
	}
	return nil, ErrNotReady
}

// check runs one readiness check, unless one that started after this
// call is already done, and records and logs its outcome.
func (s *Server) check(ctx context.Context) *readiness {
	start := time.Now()
	s.checkMu.Lock()
	defer s.checkMu.Unlock()
	if st := s.state.Load(); st != nil && st.checked.After(start) {
		return st
	}
	st := &readiness{chroma: "ok"}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CheckTimeout)
	st.err = s.probe(cctx)
	cancel()
	if st.err != nil {
		st.chroma = shortReason(st.err)
		st.down = st.chroma == reasonTimeout || st.chroma == reasonUnreachable
	}
	st.ready = st.err == nil
	if s.cfg.Cache != nil {
		st.cache = "ok"
		pctx, cancel := context.WithTimeout(ctx, s.cfg.CheckTimeout)
		if err := s.cfg.Cache.Ping(pctx); err != nil {
			st.cache = "unreachable (pages are read from Chroma)"
		}
		cancel()
	}
	st.checked = time.Now()
	s.logChange(s.state.Swap(st), st)
	return st
}

// probe opens the store if needed, asks Chroma for the collection
// (collection.TreeVersioner: one lookup) and loads the tree.
func (s *Server) probe(ctx context.Context) error {
	b := s.store.Load()
	if b == nil {
		if s.cfg.Open == nil {
			return errors.New("server: Config has neither Store nor Open")
		}
		store, err := s.cfg.Open(ctx)
		if err != nil {
			return err
		}
		b = &storeBox{store}
		s.store.Store(b)
		s.opened.Store(true)
	}
	if tv, ok := b.Store.(collection.TreeVersioner); ok {
		if _, err := tv.TreeVersion(ctx); err != nil {
			return err
		}
	}
	fsys, err := chromafs.New(ctx, b.Store, s.cfg.Options...)
	if err != nil {
		return err
	}
	s.sawTree(fsys.TreeVersion())
	return nil
}

// sawTree records the tree version that a check loaded and, when it is
// not the one the previous check loaded, calls the functions of
// onTreeChange in the background (in the order given).
func (s *Server) sawTree(version string) {
	s.treeMu.Lock()
	prev := s.treeSeen
	s.treeSeen = version
	hooks := slices.Clone(s.treeHooks)
	s.treeMu.Unlock()
	if prev == "" || prev == version || len(hooks) == 0 {
		return
	}
	s.log.Info("chromafs serve: the collection's tree changed", "version", version)
	go func() {
		for _, f := range hooks {
			f()
		}
	}()
}

// onTreeChange has f called after each readiness check that loads a tree
// version other than the one the check before loaded: within
// Config.CheckInterval and the tree max age (chromafs.WithTreeMaxAge)
// of a writer's change of the tree record, while Run runs.
func (s *Server) onTreeChange(f func()) {
	s.treeMu.Lock()
	defer s.treeMu.Unlock()
	s.treeHooks = append(s.treeHooks, f)
}

// logChange logs a change of readiness.
func (s *Server) logChange(prev, cur *readiness) {
	switch {
	case cur.ready && (prev == nil || !prev.ready):
		s.log.Info("chromafs serve: ready")
	case !cur.ready && (prev == nil || prev.ready):
		s.log.Warn("chromafs serve: not ready; requests get 503 until Chroma answers (retrying in the background)",
			"reason", cur.chroma, "err", cur.err)
	case !cur.ready:
		s.log.Debug("chromafs serve: still not ready", "reason", cur.chroma, "err", cur.err)
	}
}

// Reasons of shortReason for which Chroma is down.
const (
	reasonTimeout     = "no answer in time"
	reasonUnreachable = "unreachable"
)

// shortReason says in a few words why a check failed, naming no address
// (/readyz needs no credentials).
func shortReason(err error) string {
	var ae *chromastore.APIError
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, chromastore.ErrNoCollection):
		return "collection not found"
	case errors.Is(err, collection.ErrNoTree):
		return "tree record not found"
	case errors.Is(err, tree.ErrMalformed):
		return "tree record malformed"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return reasonTimeout
	case errors.As(err, &ae):
		return fmt.Sprintf("answered %d", ae.Status)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.As(err, &oe):
		return reasonUnreachable
	}
	return "check failed"
}

// ServeHealth answers /healthz: 200 "ok" while the process serves,
// whatever the state of Chroma (a liveness probe: restarting the process
// would not bring Chroma back).
func (s *Server) ServeHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, "ok\n")
	}
}

// ServeReady answers /readyz: 200 when the store is open, Chroma answered
// the last check and the tree loaded; 503 otherwise. The body says so in
// a few words, with the page cache's state when there is one (which
// does not count):
//
//	ready
//	chroma: ok
//	redis: unreachable (pages are read from Chroma)
//
// While Run runs it reports Run's last check (so probes cost Chroma
// nothing); otherwise it checks when the last check is older than
// Config.CheckInterval.
func (s *Server) ServeReady(w http.ResponseWriter, r *http.Request) {
	st := s.state.Load()
	if !s.running.Load() && (st == nil || time.Since(st.checked) >= s.cfg.CheckInterval) {
		st = s.check(r.Context())
	}
	var b strings.Builder
	code := http.StatusOK
	switch {
	case st == nil:
		code = http.StatusServiceUnavailable
		b.WriteString("not ready\nchroma: not checked yet\n")
	case st.ready:
		b.WriteString("ready\nchroma: ok\n")
	default:
		code = http.StatusServiceUnavailable
		fmt.Fprintf(&b, "not ready\nchroma: %s\n", st.chroma)
	}
	if st != nil && st.cache != "" {
		fmt.Fprintf(&b, "redis: %s\n", st.cache)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if code != http.StatusOK {
		w.Header().Set("Retry-After", retryAfter(s.untilNextCheck()))
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, b.String())
	}
}

// Close closes the store if the server opened it (Config.Open) and it
// has a Close method. Call it after Run and Serve have returned.
func (s *Server) Close() error {
	b := s.store.Load()
	if b == nil || !s.opened.Load() {
		return nil
	}
	if c, ok := b.Store.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
