package server

import (
	"context"
	"math"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/time/rate"
)

// AuthLimits bound what failed sign-ins may cost the server. A password
// check (bcrypt) costs tens of milliseconds of CPU, so without limits a few
// clients guessing passwords slow every other request down.
//
// Failed sign-ins are counted per client address (the connection's peer
// address; an IPv6 address counts with its whole /64, which one client
// usually has; X-Forwarded-For is not trusted) and per user name, each in a
// token bucket of FailureBurst failures that refills by one every
// FailureInterval. A request whose address or name has no failure left gets
// 429 with Retry-After, before any password check. Credentials that signed
// in before (and are remembered for ten minutes) are accepted without a
// check, so a user whose name is being guessed elsewhere keeps working on
// the connections that already signed in; a new sign-in under that name
// gets 429 until the bucket refills.
//
// At most MaxHashing password checks run at once; a request that cannot
// start one within HashWait gets 503 with Retry-After.
type AuthLimits struct {
	// FailureBurst is how many failed sign-ins an address, or a name,
	// may make in a row (default 10).
	FailureBurst int
	// FailureInterval is how often one more failure is allowed after
	// the burst (default 6 s: 10 a minute).
	FailureInterval time.Duration
	// MaxHashing is how many password checks may run at once (default
	// half the CPUs, at least 1), so that checks never take every CPU.
	MaxHashing int
	// HashWait is how long a request may wait to start a password check
	// (default 2 s).
	HashWait time.Duration
	// Tracked bounds how many addresses and how many names are tracked
	// (default 100,000 each, about 200 bytes an entry). An entry is
	// dropped once its bucket is full again; when more are tracked, the
	// least used are dropped first.
	Tracked int
}

// withDefaults fills in the zero fields.
func (l AuthLimits) withDefaults() AuthLimits {
	if l.FailureBurst <= 0 {
		l.FailureBurst = 10
	}
	if l.FailureInterval <= 0 {
		l.FailureInterval = 6 * time.Second
	}
	if l.MaxHashing <= 0 {
		l.MaxHashing = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if l.HashWait <= 0 {
		l.HashWait = 2 * time.Second
	}
	if l.Tracked <= 0 {
		l.Tracked = 100_000
	}
	return l
}

// guard applies AuthLimits.
type guard struct {
	lim     AuthLimits
	byAddr  *otter.Cache[string, *rate.Limiter]
	byName  *otter.Cache[string, *rate.Limiter]
	hashing chan struct{} // one token per running password check
}

func newGuard(lim AuthLimits) *guard {
	lim = lim.withDefaults()
	// A bucket left alone this long is full again, the same as a new one.
	refill := time.Duration(lim.FailureBurst) * lim.FailureInterval
	newCache := func() *otter.Cache[string, *rate.Limiter] {
		return otter.Must(&otter.Options[string, *rate.Limiter]{
			MaximumSize:      lim.Tracked,
			ExpiryCalculator: otter.ExpiryAccessing[string, *rate.Limiter](refill),
		})
	}
	return &guard{lim: lim, byAddr: newCache(), byName: newCache(), hashing: make(chan struct{}, lim.MaxHashing)}
}

// clientKey is the address that failures of r count against: the peer's
// IP, or its /64 for IPv6.
func clientKey(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// attempt reserves one failure for a sign-in from addr as name (empty
// for a token) on both buckets, before the credentials are checked, so
// that concurrent guesses cannot overrun the limit. If either bucket is
// empty it returns how long to wait, and reserves nothing. Otherwise
// done must be called with the outcome: a success gives the reservations
// back.
func (g *guard) attempt(addr, name string) (done func(ok bool), wait time.Duration) {
	now := time.Now()
	var rs []*rate.Reservation
	for _, k := range []struct {
		c   *otter.Cache[string, *rate.Limiter]
		key string
	}{{g.byAddr, addr}, {g.byName, name}} {
		if k.key == "" {
			continue
		}
		r := g.limiter(k.c, k.key).ReserveN(now, 1)
		if !r.OK() {
			continue // burst < 1 cannot happen: withDefaults
		}
		rs = append(rs, r)
		wait = max(wait, r.DelayFrom(now))
	}
	cancel := func() {
		for _, r := range rs {
			r.CancelAt(now)
		}
	}
	if wait > 0 {
		cancel()
		return nil, wait
	}
	return func(ok bool) {
		if ok {
			cancel()
		}
	}, 0
}

// limiter returns key's bucket, made full if it has none.
func (g *guard) limiter(c *otter.Cache[string, *rate.Limiter], key string) *rate.Limiter {
	if l, ok := c.GetIfPresent(key); ok {
		return l
	}
	l, _ := c.SetIfAbsent(key, rate.NewLimiter(rate.Every(g.lim.FailureInterval), g.lim.FailureBurst))
	return l
}

// failed counts a failed sign-in against addr and name (empty for a
// token), for callers that do not go through attempt.
func (g *guard) failed(addr, name string) {
	if done, wait := g.attempt(addr, name); wait == 0 {
		done(false)
	}
}

// startHashing waits up to HashWait (or until ctx is done) for a place to
// run a password check; ok is false if none came. done frees the place.
func (g *guard) startHashing(ctx context.Context) (done func(), ok bool) {
	select {
	case g.hashing <- struct{}{}:
		return func() { <-g.hashing }, true
	default:
	}
	t := time.NewTimer(g.lim.HashWait)
	defer t.Stop()
	select {
	case g.hashing <- struct{}{}:
		return func() { <-g.hashing }, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// retryAfter formats d as a Retry-After value: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	s := int64(math.Ceil(d.Seconds()))
	if s < 1 {
		s = 1
	}
	return strconv.FormatInt(s, 10)
}
