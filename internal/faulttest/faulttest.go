// Package faulttest injects upstream faults into tests: a TCP proxy in
// front of a real server (Chroma) that forwards faithfully until it is
// frozen. A frozen proxy still accepts connections but holds back every
// byte, on new and existing connections alike, until it is thawed: the
// server hangs rather than refuses, as one stopped with SIGSTOP does (the
// kernel completes the handshake, nobody answers).
package faulttest

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections to a target address.
type Proxy struct {
	// URL is the proxy's address as an http URL: http://127.0.0.1:PORT.
	URL string
	// Addr is the proxy's host:port.
	Addr string

	ln     net.Listener
	target string
	done   chan struct{}
	close  sync.Once

	mu     sync.Mutex
	frozen bool
	thawed chan struct{} // closed when the proxy is not frozen
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// NewProxy starts a proxy to target (an http URL or host:port) on a free
// loopback port. It is closed when the test ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		target = u.Host
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	thawed := make(chan struct{})
	close(thawed)
	p := &Proxy{
		URL: "http://" + ln.Addr().String(), Addr: ln.Addr().String(),
		ln: ln, target: target, done: make(chan struct{}),
		thawed: thawed, conns: map[net.Conn]struct{}{},
	}
	p.wg.Add(1)
	go p.serve()
	tb.Cleanup(p.Close)
	return p
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.track(c)
		p.wg.Add(1)
		go p.forward(c)
	}
}

func (p *Proxy) track(c net.Conn) {
	p.mu.Lock()
	p.conns[c] = struct{}{}
	p.mu.Unlock()
}

// forward connects c to the target once the proxy is not frozen, and
// copies both ways, holding every read back while it is frozen.
func (p *Proxy) forward(c net.Conn) {
	defer p.wg.Done()
	defer p.drop(c)
	if !p.wait() {
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.track(up)
	defer p.drop(up)
	done := make(chan struct{})
	go func() {
		p.pipe(up, c)
		close(done)
	}()
	p.pipe(c, up)
	<-done
}

// pipe copies src to dst until either fails, holding what it read while
// the proxy is frozen.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if !p.wait() {
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// wait blocks while the proxy is frozen; false means it was closed.
func (p *Proxy) wait() bool {
	p.mu.Lock()
	thawed := p.thawed
	p.mu.Unlock()
	select {
	case <-thawed:
		return true
	case <-p.done:
		return false
	}
}

func (p *Proxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// Freeze makes the proxy hold back every byte, on the connections it
// forwards already and on those it accepts from now on, until Thaw.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.frozen {
		p.frozen = true
		p.thawed = make(chan struct{})
	}
}

// Thaw forwards again, starting with the bytes held while frozen.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen {
		p.frozen = false
		close(p.thawed)
	}
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	p.close.Do(p.shut)
}

func (p *Proxy) shut() {
	close(p.done)
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	waited := make(chan struct{})
	go func() { p.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
	}
}

// CheckAnswer checks an adapter's answer to a request made while the store
// is down or frozen (what names the request in messages): the status, an
// answer within 30 s of start (the requests have a deadline of a second or
// so: this catches a request that hangs, not a slow one, since a loaded
// machine has taken several seconds), the body (a fixed text plus a
// newline; not checked when body is empty or for HEAD), Retry-After: 5
// exactly on a 503, nosniff, and no address in the body. It reports whether
// the status was the one wanted.
func CheckAnswer(t testing.TB, what string, start time.Time, resp *http.Response, got []byte, status int, body string) bool {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s = %d %q, want %d", what, resp.StatusCode, got, status)
		return false
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("%s took %v", what, el)
	}
	if body != "" && resp.Request != nil && resp.Request.Method != http.MethodHead && string(got) != body+"\n" {
		t.Errorf("%s: body %q, want %q", what, got, body)
	}
	if ra := resp.Header.Get("Retry-After"); (status == http.StatusServiceUnavailable) != (ra == "5") {
		t.Errorf("%s: Retry-After %q", what, ra)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || strings.Contains(string(got), "127.0.0.1") {
		t.Errorf("%s: headers %v, body %q", what, resp.Header, got)
	}
	return true
}
