package sites_test

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/sites"
)

// fiveSites is a sites file of sites a to e.
const fiveSites = `sites:
  - {name: a, collection: a}
  - {name: b, collection: b}
  - {name: c, collection: c}
  - {name: d, collection: d}
  - {name: e, collection: e}
`

// evictFixture serves fiveSites with ev over HTTP and MCP.
func evictFixture(t *testing.T, ev sites.Eviction) (*counter, *sites.Registry, *httptest.Server, *httptest.Server) {
	t.Helper()
	c := newCounter(t)
	reg := sites.NewRegistry(parse(t, fiveSites), c.build, c.log)
	reg.SetEviction(ev)
	h, m := httptest.NewServer(reg.Handler(sites.KindHTTP)), httptest.NewServer(reg.Handler(sites.KindMCP))
	t.Cleanup(func() {
		h.Close()
		m.Close()
		if err := reg.Close(); err != nil {
			t.Error(err)
		}
	})
	return c, reg, h, m
}

// page GETs site's guide.md and fails the test unless it is the site's.
func page(t *testing.T, h *httptest.Server, site string) {
	t.Helper()
	status, body := getPage(t, h, "/"+site+"/guide.md", "")
	if status != 200 || !strings.Contains(body, "guide of "+site) {
		t.Fatalf("GET /%s/guide.md: %d %q", site, status, body)
	}
}

// TestEvictMaxLoaded: past MaxLoaded sites, the least recently used one
// is closed, and made again (serving its pages) at its next request; a
// site with an MCP session open is passed over, and its session goes on.
func TestEvictMaxLoaded(t *testing.T) {
	c, reg, h, m := evictFixture(t, sites.Eviction{MaxLoaded: 2})
	page(t, h, "a")
	page(t, h, "b")
	page(t, h, "a") // a is now more recent than b
	page(t, h, "c") // three made: b goes
	c.waitCloses(t, "b", 1)
	if _, closes := c.counts("a"); closes != 0 {
		t.Errorf("a (used after b) closed")
	}
	page(t, h, "d") // a is least recent now
	c.waitCloses(t, "a", 1)
	if n := reg.Loaded(); n != 2 {
		t.Errorf("%d sites loaded, want 2", n)
	}

	// b again: made a second time, serving as before; c goes.
	page(t, h, "b")
	if builds, _ := c.counts("b"); builds != 2 {
		t.Errorf("b made %d times, want 2", builds)
	}
	c.waitCloses(t, "c", 1)

	// d has a session: the least recent, but kept; b goes instead.
	sess := connect(t, m.URL+"/d/mcp")
	page(t, h, "b")
	page(t, h, "e")
	c.waitCloses(t, "b", 2)
	if _, closes := c.counts("d"); closes != 0 {
		t.Errorf("d closed with an MCP session open")
	}
	if out, err := ls(sess); err != nil || !strings.Contains(out, "guide.md") {
		t.Errorf("d's session after the other evictions: %q, %v", out, err)
	}
}

// TestEvictIdle: a site without a request for Idle is closed, one used
// meanwhile is not, and the closed one serves again when asked.
func TestEvictIdle(t *testing.T) {
	c, reg, h, _ := evictFixture(t, sites.Eviction{Idle: 300 * time.Millisecond, Interval: 20 * time.Millisecond})
	page(t, h, "a")
	page(t, h, "b")
	for range 10 { // b busy for 500 ms, a idle
		time.Sleep(50 * time.Millisecond)
		page(t, h, "b")
	}
	c.waitCloses(t, "a", 1)
	if _, closes := c.counts("b"); closes != 0 {
		t.Errorf("b closed while in use")
	}
	if n := reg.Loaded(); n != 1 {
		t.Errorf("%d sites loaded, want 1", n)
	}
	page(t, h, "a")
	if builds, _ := c.counts("a"); builds != 2 {
		t.Errorf("a made %d times, want 2", builds)
	}
	c.waitCloses(t, "b", 1) // and b goes once left alone
}

// TestEvictMemory: while the memory in use is past MaxMemory, the least
// recently used sites are closed in proportion to the excess (4 sites
// made, 50% over: 2 of them), and none while it is within.
func TestEvictMemory(t *testing.T) {
	// One check sees 2000 bytes in use, the others 500.
	var over atomic.Bool
	memory := func() int64 {
		if over.CompareAndSwap(true, false) {
			return 2000
		}
		return 500
	}
	c, reg, h, _ := evictFixture(t, sites.Eviction{MaxMemory: 1000, Memory: memory, Interval: 20 * time.Millisecond})
	for _, s := range []string{"a", "b", "c", "d"} {
		page(t, h, s)
	}
	time.Sleep(100 * time.Millisecond)
	if n := reg.Loaded(); n != 4 {
		t.Fatalf("%d sites loaded within the budget, want 4", n)
	}
	over.Store(true) // half of it over the budget, once
	c.waitCloses(t, "a", 1)
	c.waitCloses(t, "b", 1)
	time.Sleep(100 * time.Millisecond)
	for _, s := range []string{"c", "d"} {
		if _, closes := c.counts(s); closes != 0 {
			t.Errorf("%s (more recent) closed", s)
		}
	}
	page(t, h, "a")
}
