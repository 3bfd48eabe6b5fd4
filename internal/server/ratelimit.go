package server

import (
	"net/http"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/time/rate"
)

// RateLimits bound the requests a server answers, in token buckets
// (golang.org/x/time/rate): one per client and one for the whole server
// (a site of serve --sites). A client is the signed-in user (by name),
// else the connection's peer address (an IPv6 address counts with its
// whole /64; X-Forwarded-For is not trusted). A request past either
// bucket gets 429 with a Retry-After computed from the bucket's
// reservation (whole seconds, at least 1), after sign-in and before any
// handler. The zero RateLimits limits nothing.
type RateLimits struct {
	// Rate is the requests per second a client may make in the long run,
	// Burst how many it may make at once (default: Rate rounded up, at
	// least 1). 0 or less: no per-client limit.
	Rate  float64
	Burst int
	// SiteRate and SiteBurst are the same for all clients together.
	SiteRate  float64
	SiteBurst int
	// Tracked bounds how many clients' buckets are kept (default
	// 100,000, about 200 bytes each): a bucket left alone until it is
	// full again is dropped (a new one is the same), and past Tracked the
	// least used are dropped first.
	Tracked int
}

// Enabled reports whether l limits anything.
func (l RateLimits) Enabled() bool { return l.Rate > 0 || l.SiteRate > 0 }

// burst is the burst of a bucket of rate r given b.
func burst(r float64, b int) int {
	if b > 0 {
		return b
	}
	return max(1, int(r+0.999999))
}

// rateLimiter applies RateLimits.
type rateLimiter struct {
	lim      RateLimits
	site     *rate.Limiter                       // nil: no site limit
	byClient *otter.Cache[string, *rate.Limiter] // nil: no client limit
}

// newRateLimiter returns the limiter of lim, nil when lim limits nothing.
func newRateLimiter(lim RateLimits) *rateLimiter {
	if !lim.Enabled() {
		return nil
	}
	rl := &rateLimiter{lim: lim}
	if lim.SiteRate > 0 {
		rl.site = rate.NewLimiter(rate.Limit(lim.SiteRate), burst(lim.SiteRate, lim.SiteBurst))
	}
	if lim.Rate > 0 {
		if rl.lim.Tracked <= 0 {
			rl.lim.Tracked = 100_000
		}
		// A bucket left alone this long is full again, the same as a new one.
		refill := time.Duration(float64(burst(lim.Rate, lim.Burst)) / lim.Rate * float64(time.Second))
		rl.byClient = otter.Must(&otter.Options[string, *rate.Limiter]{
			MaximumSize:      rl.lim.Tracked,
			ExpiryCalculator: otter.ExpiryAccessing[string, *rate.Limiter](max(refill, time.Second)),
		})
	}
	return rl
}

// rateKey is the client a request of user u counts against.
func rateKey(r *http.Request, u *User) string {
	if u != nil && u != anonymous && u.Name != "" {
		return "user:" + u.Name
	}
	return "addr:" + clientKey(r)
}

// allow takes one request from client's bucket and the site's at now;
// when either is empty it takes nothing and returns how long to wait.
func (rl *rateLimiter) allow(client string, now time.Time) (wait time.Duration) {
	var rs []*rate.Reservation
	take := func(l *rate.Limiter) {
		r := l.ReserveN(now, 1)
		if !r.OK() {
			return // burst >= 1: cannot happen
		}
		rs = append(rs, r)
		wait = max(wait, r.DelayFrom(now))
	}
	if rl.byClient != nil {
		l, ok := rl.byClient.GetIfPresent(client)
		if !ok {
			l, _ = rl.byClient.SetIfAbsent(client, rate.NewLimiter(rate.Limit(rl.lim.Rate), burst(rl.lim.Rate, rl.lim.Burst)))
		}
		take(l)
	}
	if rl.site != nil {
		take(rl.site)
	}
	if wait > 0 {
		for _, r := range rs {
			r.CancelAt(now)
		}
	}
	return wait
}
