package loadtest

import (
	"errors"
	"net"
	"sync"
	"time"
)

// A URL that refuses a connection is taken out of the rotation, as a
// load balancer's passive health check would: the sessions whose turn
// it is go to the next URL that is up, and after downMin (doubling at
// each new refusal, up to downMax) one session tries it again. A
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

// pick returns the URL for a session whose turn is u: u when it is up
// or due for a retry, else the next such URL; and whether another URL
// than the one returned is up (a session refused there can be run
// elsewhere). When every URL is down it returns u and false.
func (f *fleet) pick(u int, now time.Time) (pick int, spare bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.retryAt)
	pick = -1
	for i := range n {
		v := (u + i) % n
		if !f.retryAt[v].After(now) {
			if pick < 0 {
				pick = v
			} else {
				return pick, true
			}
		}
	}
	if pick < 0 {
		return u, false
	}
	return pick, false
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
