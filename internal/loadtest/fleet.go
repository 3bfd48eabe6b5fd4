package loadtest

import (
	"errors"
	"net"
	"sync"
	"time"
)

// A URL that refuses a connection is taken out of the rotation, as a
// load balancer's passive health check would: the sessions whose turn
// it is go to the URLs that are up, in turn, and after downMin (doubling at
// each new refusal, up to downMax) it is tried again. A
// session whose first request is refused is run on another URL and
// counted neither as started nor as failed there (URLStats.Refused
// counts it); only the requests a process had in flight when it died,
// and the sessions it held, fail. When every URL is down the sessions
// are run against their own URL and fail as usual.
const (
	downMin = 500 * time.Millisecond
	downMax = 10 * time.Second
)

// fleet tracks which URLs refuse connections.
type fleet struct {
	mu      sync.Mutex
	retryAt []time.Time // zero: up
	backoff []time.Duration
}

func newFleet(n int) *fleet {
	return &fleet{retryAt: make([]time.Time, n), backoff: make([]time.Duration, n)}
}

// pick returns the URL for session n, whose turn is u: u when it is up
// or due for a retry, else one of the URLs that are (in turn by n, so
// that a dead URL's share is spread evenly over the others); and
// whether another URL than the one returned is up (a session refused
// there can be run elsewhere). When every URL is down it returns u and
// false.
func (f *fleet) pick(u, n int, now time.Time) (pick int, spare bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ups []int
	for v := range f.retryAt {
		if !f.retryAt[v].After(now) {
			ups = append(ups, v)
		}
	}
	switch {
	case len(ups) == 0:
		return u, false
	case !f.retryAt[u].After(now):
		return u, len(ups) > 1
	}
	return ups[n%len(ups)], len(ups) > 1
}

// down takes URL u out of the rotation after a refused connection.
func (f *fleet) down(u int, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.backoff[u] = min(max(downMin, 2*f.backoff[u]), downMax)
	f.retryAt[u] = now.Add(f.backoff[u])
}

// up puts URL u back after a session it served.
func (f *fleet) up(u int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retryAt[u], f.backoff[u] = time.Time{}, 0
}

// refused reports whether err is a failure to connect (nothing
// listening, no route): the request never reached a server.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
