package chromastore_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/internal/testenv"
)

// freezer is a TCP proxy in front of a server that can be frozen: it
// still accepts connections, but holds every byte back until thawed, as a
// server stopped with SIGSTOP does (the kernel completes the handshake,
// nobody answers).
type freezer struct {
	addr   string
	frozen atomic.Bool
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{addr: ln.Addr().String()}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c, target, done)
		}
	}()
	return f
}

func (f *freezer) serve(c net.Conn, target string, done chan struct{}) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	pipe := func(dst, src net.Conn) {
		defer dst.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			for f.frozen.Load() {
				select {
				case <-done:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go pipe(up, c)
	pipe(c, up)
}

// TestFrozenChroma: every call to a Chroma that accepts connections but
// never answers fails after Config.Timeout with an error wrapping
// context.DeadlineExceeded, and the same Collection works again once
// Chroma answers.
func TestFrozenChroma(t *testing.T) {
	c, cfg := open(t, nil)
	ctx := context.Background()
	if err := c.Upsert(ctx, []chromafs.Record{treeRecord(`{"a.md":{"isPublic":true}}`), content("a.md", 0, "hello")}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(testenv.Chroma(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	fz := newFreezer(t, u.Host)
	const timeout = 300 * time.Millisecond
	pc, err := chromastore.Open(ctx, chromastore.Config{URL: "http://" + fz.addr, Collection: cfg.Collection, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	calls := map[string]func() error{
		"tree":    func() error { _, err := pc.Tree(ctx, layout.TreeID); return err },
		"chunks":  func() error { _, err := pc.Chunks(ctx, layout, []string{"a.md"}); return err },
		"version": func() error { _, err := pc.TreeVersion(ctx); return err },
		"count":   func() error { _, err := pc.Count(ctx); return err },
		"open": func() error {
			c, err := chromastore.Open(ctx, chromastore.Config{URL: "http://" + fz.addr, Collection: cfg.Collection, Timeout: timeout})
			if err == nil {
				c.Close()
			}
			return err
		},
	}
	fz.frozen.Store(true)
	for name, call := range calls {
		start := time.Now()
		err := call()
		d := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 300ms") {
			t.Errorf("%s with Chroma frozen: %v; want a deadline error", name, err)
		}
		if d > 5*time.Second {
			t.Errorf("%s with Chroma frozen returned after %v", name, d)
		}
	}
	fz.frozen.Store(false)
	for name, call := range calls {
		if err := call(); err != nil {
			t.Errorf("%s after Chroma thawed: %v", name, err)
		}
	}
}
