// Package faulttest injects upstream faults into the adapters' tests: a
// TCP proxy in front of a real server (Chroma) that forwards faithfully
// until it is frozen, after which it accepts connections and never
// answers — a store that hangs rather than refuses.
package faulttest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a target address.
type Proxy struct {
	// URL is the proxy's address as an http URL: http://127.0.0.1:PORT.
	URL string

	ln     net.Listener
	target string

	mu     sync.Mutex
	frozen bool
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
	p := &Proxy{URL: "http://" + ln.Addr().String(), ln: ln, target: target, conns: map[net.Conn]struct{}{}}
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
		p.mu.Lock()
		p.conns[c] = struct{}{}
		frozen := p.frozen
		p.mu.Unlock()
		if frozen {
			continue // held open, never read or answered
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

func (p *Proxy) forward(c net.Conn) {
	defer p.wg.Done()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		p.drop(c)
		return
	}
	p.mu.Lock()
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(up, c)
	go cp(c, up)
	<-done
	p.drop(c)
	p.drop(up)
	<-done
}

func (p *Proxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// Freeze cuts the connections forwarded so far; from then on the proxy
// accepts connections and never answers on them.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	p.frozen = true
	var cut []net.Conn
	for c := range p.conns {
		cut = append(cut, c)
	}
	p.mu.Unlock()
	for _, c := range cut {
		c.Close()
	}
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
