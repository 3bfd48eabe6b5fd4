// Package inflight bounds the requests a server works on at once: past
// the bound, a new request is answered at once with 503 Service
// Unavailable and Retry-After, rather than queued without limit behind
// the others (where it would wait past its client's patience and hold
// memory meanwhile). A load balancer or client then retries it, on this
// process or another.
package inflight

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// PerProc is the default bound per GOMAXPROCS: most of a request's time
// is spent waiting on Chroma or Redis, or is a cached page written in
// microseconds, so a process serves many more requests at once than it
// has CPUs (TestServeLoad: 200 clients at once on 2 CPUs, every request
// answered); the bound is there to stop an unbounded queue, not to
// ration a healthy load.
const PerProc = 256

// DefaultMax is the default bound: PerProc × GOMAXPROCS.
func DefaultMax() int { return PerProc * runtime.GOMAXPROCS(0) }

// Limiter bounds the requests in flight through its Middleware.
type Limiter struct {
	max        int64
	slots      *semaphore.Weighted
	retryAfter string
	now        atomic.Int64
	waiting    atomic.Int64
	refused    atomic.Int64
	// Exempt reports the requests that take no slot: by default the
	// long-lived event streams of MCP (GET with Accept: text/event-stream),
	// which wait for server messages rather than work. Set it before use.
	Exempt func(*http.Request) bool
	// OnRefused, if not nil, is called for each request refused (to
	// count it in metrics). Set it before use.
	OnRefused func(*http.Request)
	// Patient reports the requests that, with every slot taken, wait
	// for one up to Wait (and within their context) instead of being
	// refused at once, in the order they came; at most the bound's
	// worth of them wait, later ones are refused. A request that is
	// not patient is refused while any waits, so waiting ones are not
	// passed. Nil: none waits. Set it and Wait before use.
	Patient func(*http.Request) bool
	// Wait bounds a patient request's wait; 0: none waits.
	Wait time.Duration
}

// New returns a limiter of bound requests at once (DefaultMax if 0;
// no bound if negative) whose refusals ask clients to retry after
// retryAfter (rounded up to whole seconds, at least 1).
func New(bound int, retryAfter time.Duration) *Limiter {
	if bound == 0 {
		bound = DefaultMax()
	}
	secs := max(1, int((retryAfter+time.Second-1)/time.Second))
	l := &Limiter{max: int64(bound), retryAfter: strconv.Itoa(secs), Exempt: EventStream}
	if bound > 0 {
		l.slots = semaphore.NewWeighted(int64(bound))
	}
	return l
}

// EventStream reports a request for a server-sent event stream.
func EventStream(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// InFlight returns the requests in flight now, and Refused those refused
// so far.
func (l *Limiter) InFlight() int64 { return l.now.Load() }

// Refused: see InFlight.
func (l *Limiter) Refused() int64 { return l.refused.Load() }

// Middleware answers 503 with Retry-After to a request that arrives
// while the bound's worth of others are in flight (after its wait, for a
// patient one), and passes the others to next.
func (l *Limiter) Middleware(next http.Handler) http.Handler {
	if l == nil || l.max < 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.Exempt != nil && l.Exempt(r) {
			next.ServeHTTP(w, r)
			return
		}
		if !l.acquire(r) {
			l.refused.Add(1)
			if l.OnRefused != nil {
				l.OnRefused(r)
			}
			w.Header().Set("Retry-After", l.retryAfter)
			http.Error(w, "server busy: too many requests in flight; retry after "+l.retryAfter+" s", http.StatusServiceUnavailable)
			return
		}
		defer l.slots.Release(1)
		l.now.Add(1)
		defer l.now.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// acquire takes a slot for r: at once if one is free and no patient
// request waits; else, for a patient request, within Wait and r's
// context, if fewer than the bound's worth wait already.
func (l *Limiter) acquire(r *http.Request) bool {
	if l.slots.TryAcquire(1) {
		return true
	}
	if l.Wait <= 0 || l.Patient == nil || !l.Patient(r) {
		return false
	}
	if l.waiting.Add(1) > l.max {
		l.waiting.Add(-1)
		return false
	}
	defer l.waiting.Add(-1)
	ctx, cancel := context.WithTimeout(r.Context(), l.Wait)
	defer cancel()
	return l.slots.Acquire(ctx, 1) == nil
}

// Waiting returns the patient requests waiting for a slot now.
func (l *Limiter) Waiting() int64 { return l.waiting.Load() }
