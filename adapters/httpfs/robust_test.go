package httpfs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/adapters/internal/upstream"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/faulttest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// countingStore counts content requests.
type countingStore struct {
	collection.Store
	content atomic.Int64
}

func (c *countingStore) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	c.content.Add(1)
	return c.Store.Chunks(ctx, l, slugs)
}

// TestListingReadsNothing: on real Chroma and memstore, in a collection
// whose tree records no sizes, with a corrupt page and an unsized lazy
// pointer, a directory listing (also as curl gets it) sends no content
// request and fetches no pointer, with the pointer fetch on and off; the
// corrupt page answers 502 when read, the unfetchable pointer 502 with
// its own body, the fetchable one 200.
func TestListingReadsNothing(t *testing.T) {
	pages := []testcorpus.UnsizedPage{
		{Slug: "docs/a.md", Content: "# A\nalpha\n"},
		{Slug: "docs/broken.md", Content: "# Broken\nthe first chunk is missing\n", Broken: true},
		{Slug: "docs/spec.json", URL: "https://specs.example/spec.json"},
	}
	var fetched atomic.Int64
	fetch := pointer.ResolverFunc(func(ctx context.Context, e *tree.Entry) ([]byte, error) {
		fetched.Add(1)
		return []byte("{}\n"), nil
	})
	for _, be := range testbackend.Backends() {
		t.Run(be.Name, func(t *testing.T) {
			fetched.Store(0)
			store := be.New(t)
			testcorpus.WriteUnsized(t, store, pages)
			c := &countingStore{Store: store}
			views := map[string]*chromafs.FS{}
			for name, opt := range map[string]chromafs.Option{"fetch": chromafs.WithResolver(fetch), "nofetch": chromafs.WithResolver(nil)} {
				fsys, err := chromafs.New(context.Background(), c, opt)
				if err != nil {
					t.Fatal(err)
				}
				views[name] = fsys
			}
			h := httpfs.NewHandler(func(r *http.Request) (fs.FS, error) { return views[r.Header.Get("X-View")], nil }, httpfs.Options{})
			for _, v := range []string{"nofetch", "fetch"} {
				res := check(t, h, "GET", "/docs/", []string{"X-View", v}, want{status: 200})
				for _, name := range []string{"a.md", "broken.md", "spec.json"} {
					if !strings.Contains(res.Body.String(), `href="`+name+`"`) {
						t.Errorf("%s: listing lacks %s:\n%s", v, name, res.Body)
					}
				}
				check(t, h, "GET", "/", []string{"X-View", v}, want{status: 200})
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			out, _ := run(t, tool(t, "curl"), "-sS", "-H", "X-View: nofetch", "-w", "\n%{http_code}", ts.URL+"/docs/")
			if !strings.HasSuffix(out, "\n200") || !strings.Contains(out, `href="broken.md"`) {
				t.Errorf("curl listing: %s", out)
			}
			if n, f := c.content.Load(), fetched.Load(); n != 0 || f != 0 {
				t.Fatalf("listings sent %d content requests and fetched %d pointers", n, f)
			}
			for _, v := range []string{"nofetch", "fetch"} {
				check(t, h, "GET", "/docs/broken.md", []string{"X-View", v}, want{status: 502, body: str(upstream.BodyFailed + "\n")})
			}
			check(t, h, "GET", "/docs/spec.json", []string{"X-View", "nofetch"}, want{status: 502, body: str(upstream.BodyPointer + "\n")})
			check(t, h, "HEAD", "/docs/spec.json", []string{"X-View", "nofetch"}, want{status: 502})
			check(t, h, "GET", "/docs/spec.json", []string{"X-View", "fetch"}, want{status: 200, body: str("{}\n")})
			check(t, h, "GET", "/docs/a.md", []string{"X-View", "fetch"}, want{status: 200, body: str(pages[0].Content)})
		})
	}
}

// TestUpstreamFaults: with Chroma stopped, reached directly (connection
// refused) or through a proxy (connection closed), the resolve step and
// reads through an earlier view answer 503 with Retry-After and a fixed
// body, never 500, also as curl sees them; with Chroma frozen behind the
// proxy they answer 504 once the request's deadline (1 s) passes; after
// a restart everything answers again. Failures are logged with the key
// "err" and a kind.
func TestUpstreamFaults(t *testing.T) {
	chroma := testenv.NewChroma(t)
	proxy := faulttest.NewProxy(t, chroma.URL)
	name := testenv.CollectionName(t)
	open := func(u string) *chromastore.Collection {
		return testbackend.OpenChroma(t, chromastore.Config{URL: u, Collection: name})
	}
	direct := open(chroma.URL)
	files := testcorpus.Files(t)
	testcorpus.Ingest(t, direct, files)
	stores := map[string]collection.Store{"direct": direct, "proxy": open(proxy.URL)}
	pre := map[string]*chromafs.FS{}
	for k, s := range stores {
		fsys, err := chromafs.New(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		pre[k] = fsys
	}
	var log bytes.Buffer
	h := httpfs.NewHandler(func(r *http.Request) (fs.FS, error) {
		s := r.Header.Get("X-Store")
		if r.Header.Get("X-Pre") != "" {
			return pre[s].WithContext(r.Context()), nil
		}
		fsys, err := chromafs.New(r.Context(), stores[s])
		if err != nil {
			return nil, err
		}
		return fsys.WithContext(r.Context()), nil
	}, httpfs.Options{Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	}))
	defer ts.Close()
	type request struct {
		method, path string
		pre          bool
	}
	expect := func(stores []string, reqs []request, status int, body string) {
		t.Helper()
		for _, s := range stores {
			for _, rq := range reqs {
				req, _ := http.NewRequest(rq.method, ts.URL+rq.path, nil)
				req.Header.Set("X-Store", s)
				if rq.pre {
					req.Header.Set("X-Pre", "1")
				}
				start := time.Now()
				resp, err := ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				faulttest.CheckAnswer(t, fmt.Sprintf("%s %s %s (pre %v)", s, rq.method, rq.path, rq.pre), start, resp, b, status, body)
			}
		}
	}
	both := []string{"direct", "proxy"}
	resolving := []request{{"GET", "/index.md", false}, {"HEAD", "/index.md", false}, {"GET", "/guides/", false}}
	expect(both, resolving, 200, "")

	if err := chroma.Stop(); err != nil {
		t.Fatal(err)
	}
	expect(both, append(resolving, request{"GET", "/guides/quickstart.md", true}), 503, upstream.BodyUnavailable)
	expect(both, []request{{"GET", "/guides/", true}}, 200, "") // a listing needs no store
	out, _ := run(t, tool(t, "curl"), "-sS", "-i", "-H", "X-Store: proxy", ts.URL+"/index.md")
	if !strings.HasPrefix(out, "HTTP/1.1 503") || !strings.Contains(strings.ToLower(out), "retry-after: 5") || !strings.Contains(out, upstream.BodyUnavailable) {
		t.Errorf("curl GET with Chroma stopped:\n%s", out)
	}

	if err := chroma.Start(); err != nil {
		t.Fatal(err)
	}
	// A restarted Chroma may take longer than the 1 s deadline to answer
	// its first requests on a busy machine.
	for _, s := range both {
		for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(100 * time.Millisecond) {
			req, _ := http.NewRequest("GET", ts.URL+"/index.md", nil)
			req.Header.Set("X-Store", s)
			if resp, err := ts.Client().Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
		}
	}
	expect(both, resolving[:1], 200, "")
	proxy.Freeze()
	expect([]string{"proxy"}, append(resolving, request{"GET", "/reference/big.md", true}), 504, upstream.BodyTimeout)
	// wget gives up on a 504 (exit status 4) after one try.
	wget := exec.Command(tool(t, "wget"), "-O", "-", "--tries=1", "--header=X-Store: proxy", ts.URL+"/index.md")
	wget.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := wget.CombinedOutput(); err == nil || !strings.Contains(string(out), "504 Gateway Timeout") {
		t.Errorf("wget with Chroma frozen: %v\n%s", err, out)
	}
	expect([]string{"direct"}, resolving[:1], 200, "")

	kinds := map[string]bool{}
	for line := range strings.Lines(log.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if _, ok := rec["error"]; ok {
			t.Errorf("log line with the key error: %s", line)
		}
		if e, ok := rec["err"].(string); !ok || e == "" {
			t.Errorf("log line without err: %s", line)
		}
		kinds[fmt.Sprint(rec["kind"])] = true
	}
	if !kinds["unavailable"] || !kinds["timeout"] {
		t.Errorf("logged kinds %v", kinds)
	}
	if t.Failed() {
		t.Logf("log:\n%s", log.String())
	}
}

// TestActiveContent: a page whose tree entry says text/html and holds a
// script, and pages named .html, .svg and .js, are served as text/plain
// unless AllowActiveContent is set; listings keep their HTML with a
// Content-Security-Policy that allows no script; every answer carries
// nosniff (check does it). curl sees the headers.
func TestActiveContent(t *testing.T) {
	script := "<script>fetch('/secret').then(r => r.text()).then(alert)</script>"
	pages := []testcorpus.UnsizedPage{
		{Slug: "evil", Content: script, ContentType: "text/html"},
		{Slug: "x.html", Content: script},
		{Slug: "img/x.svg", Content: `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`},
		{Slug: "app.js", Content: "alert(1)\n"},
		{Slug: "ok.md", Content: "# fine\n"},
	}
	store := memstore.New("active")
	testcorpus.WriteUnsized(t, store, pages)
	fsys, err := chromafs.New(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{"evil": "text/html", "x.html": "text/html; charset=utf-8", "img/x.svg": "image/svg+xml",
		"app.js": "text/javascript; charset=utf-8", "ok.md": "text/markdown; charset=utf-8"}
	for _, allow := range []bool{false, true} {
		h := handlerFor(fsys, httpfs.Options{AllowActiveContent: allow})
		for slug, ct := range types {
			if !allow && slug != "ok.md" {
				ct = "text/plain; charset=utf-8"
			}
			check(t, h, "GET", "/"+slug, nil, want{status: 200, header: map[string]string{"Content-Type": ct}})
			check(t, h, "HEAD", "/"+slug, nil, want{status: 200, header: map[string]string{"Content-Type": ct}})
		}
		res := check(t, h, "GET", "/", nil, want{status: 200, header: map[string]string{"Content-Type": "text/html; charset=utf-8"}})
		if csp := res.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "sandbox") {
			t.Errorf("listing CSP %q", csp)
		}
		for _, c := range []struct {
			method, path string
			status       int
		}{{"GET", "/missing", 404}, {"POST", "/ok.md", 405}, {"GET", "/a/../b", 400}, {"GET", "/img", 301}} {
			check(t, h, c.method, c.path, nil, want{status: c.status})
		}
	}
	broken := httpfs.NewHandler(func(*http.Request) (fs.FS, error) { return nil, errors.New("resolve failed") }, httpfs.Options{})
	check(t, broken, "GET", "/ok.md", nil, want{status: 500, body: str(upstream.BodyInternal + "\n")})

	ts := httptest.NewServer(handlerFor(fsys, httpfs.Options{}))
	defer ts.Close()
	out, _ := run(t, tool(t, "curl"), "-sS", "-i", ts.URL+"/evil")
	lower := strings.ToLower(out)
	if !strings.Contains(lower, "content-type: text/plain; charset=utf-8") || !strings.Contains(lower, "x-content-type-options: nosniff") || !strings.Contains(out, script) {
		t.Errorf("curl GET /evil:\n%s", out)
	}
}

// TestRedisDown: with the Redis page cache (rediscache.Cache behind a
// memory cache, as `chromafs serve --redis` sets it up) stopped, pages are
// read from Chroma (200); with Chroma stopped too, 503 with Retry-After,
// never 500.
func TestRedisDown(t *testing.T) {
	chroma := testenv.NewChroma(t)
	rdb := testenv.NewRedis(t)
	c := testbackend.OpenChroma(t, chromastore.Config{URL: chroma.URL})
	files := testcorpus.Files(t)
	testcorpus.Ingest(t, c, files)
	rc, err := rediscache.New(rdb.URL, rediscache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	fsys, err := chromafs.New(context.Background(), c, chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)),
		chromafs.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	h := handlerFor(fsys, httpfs.Options{})
	vis := testcorpus.Visible(files)
	check(t, h, "GET", "/index.md", nil, want{status: 200, body: str(vis["index.md"])})
	if err := rdb.Stop(); err != nil {
		t.Fatal(err)
	}
	check(t, h, "GET", "/guides/quickstart.md", nil, want{status: 200, body: str(vis["guides/quickstart.md"])})
	if err := chroma.Stop(); err != nil {
		t.Fatal(err)
	}
	check(t, h, "GET", "/reference/big.md", nil, want{status: 503, body: str(upstream.BodyUnavailable + "\n"), header: map[string]string{"Retry-After": "5"}})
	check(t, h, "GET", "/index.md", nil, want{status: 200, body: str(vis["index.md"])}) // in the memory cache
}
