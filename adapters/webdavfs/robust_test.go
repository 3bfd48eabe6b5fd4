package webdavfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/net/webdav"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/internal/upstream"
	"github.com/chromafs/chromafs/adapters/webdavfs"
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

// TestListingReadsNothing: in a collection whose tree records no sizes,
// with an unsized lazy pointer and a corrupt page (a chunk missing), a
// PROPFIND of depth 0 or 1 sends no content request to the store and
// fetches no pointer — with the pointer fetch on and off (--no-pointer-fetch) —
// and lists every entry, the unsized ones without getcontentlength or
// getetag; the corrupt page and the unfetchable pointer fail when read
// (502), not when listed; a page read once is listed with its size.
// rclone lists the directory.
func TestListingReadsNothing(t *testing.T) {
	const pointerSize = 4 << 20
	pages := []testcorpus.UnsizedPage{
		{Slug: "docs/a.md", Content: "# A\nalpha\n"},
		{Slug: "docs/b.md", Content: "# B\nbeta beta\n"},
		{Slug: "docs/broken.md", Content: "# Broken\nthe first chunk is missing\n", Broken: true},
		{Slug: "docs/spec.json", URL: "https://specs.example/spec.json", ContentType: "application/json"},
		{Slug: "index.md", Content: "# Index\n"},
	}
	var fetched atomic.Int64
	fetch := pointer.ResolverFunc(func(ctx context.Context, e *tree.Entry) ([]byte, error) {
		fetched.Add(1)
		return make([]byte, pointerSize), nil
	})
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			fetched.Store(0)
			store := b.New(t)
			testcorpus.WriteUnsized(t, store, pages)
			c := &counting{Store: store}
			views := map[string]*chromafs.FS{}
			for name, opt := range map[string]chromafs.Option{"fetch": chromafs.WithResolver(fetch), "nofetch": chromafs.WithResolver(nil)} {
				fsys, err := chromafs.New(context.Background(), c, opt)
				if err != nil {
					t.Fatal(err)
				}
				views[name] = fsys
			}
			srv := httptest.NewServer(webdavfs.NewHandler(func(r *http.Request) (fs.FS, error) {
				return views[r.Header.Get("X-View")], nil
			}, webdavfs.Options{}))
			defer srv.Close()
			for _, view := range []string{"nofetch", "fetch"} {
				e := &env{srv: srv}
				hdr := map[string]string{"X-View": view}
				st, got, body := propfind(t, e, "/docs/", "1", hdr)
				if st != webdav.StatusMulti {
					t.Fatalf("%s: PROPFIND /docs/ depth 1 = %d %s", view, st, body)
				}
				for _, p := range []string{"/docs/a.md", "/docs/b.md", "/docs/broken.md", "/docs/spec.json"} {
					en, ok := got[p]
					if !ok {
						t.Errorf("%s: PROPFIND /docs/ lacks %s: %s", view, p, body)
						continue
					}
					if en.length != "" || en.etag != "" {
						t.Errorf("%s: %s listed with getcontentlength %q, getetag %q; want neither (size unknown)", view, p, en.length, en.etag)
					}
				}
				if ct := got["/docs/spec.json"].ctype; ct != "application/json" {
					t.Errorf("%s: spec.json getcontenttype %q", view, ct)
				}
				for _, p := range []string{"/", "/docs/spec.json", "/docs/broken.md"} {
					for _, depth := range []string{"0", "1"} {
						if st, _, body := propfind(t, e, p, depth, hdr); st != webdav.StatusMulti {
							t.Errorf("%s: PROPFIND %s depth %s = %d %s", view, p, depth, st, body)
						}
					}
				}
				// A prop request names the unknown size in a 404 propstat.
				resp, pbody := e.do(t, "PROPFIND", "/docs/a.md", map[string]string{"Depth": "0", "X-View": view},
					`<D:propfind xmlns:D="DAV:"><D:prop><D:getcontentlength/><D:displayname/></D:prop></D:propfind>`)
				if resp.StatusCode != webdav.StatusMulti || !strings.Contains(string(pbody), "<D:getcontentlength/></D:prop><D:status>HTTP/1.1 404 Not Found") {
					t.Errorf("%s: prop getcontentlength of an unsized page = %d %s", view, resp.StatusCode, pbody)
				}
			}
			if n, f := c.content.Load(), fetched.Load(); n != 0 || f != 0 {
				t.Fatalf("listings sent %d content requests and fetched %d pointers", n, f)
			}
			e := &env{srv: srv}
			// Reads report what listings did not.
			for _, view := range []string{"nofetch", "fetch"} {
				hdr := map[string]string{"X-View": view}
				if resp, body := e.do(t, "GET", "/docs/broken.md", hdr, ""); resp.StatusCode != http.StatusBadGateway || string(body) != upstream.BodyFailed+"\n" {
					t.Errorf("%s: GET of a corrupt page = %d %q; want 502", view, resp.StatusCode, body)
				}
			}
			if resp, body := e.do(t, "GET", "/docs/spec.json", map[string]string{"X-View": "nofetch"}, ""); resp.StatusCode != http.StatusBadGateway || string(body) != upstream.BodyPointer+"\n" {
				t.Errorf("GET of a pointer with the fetch off = %d %q; want 502", resp.StatusCode, body)
			}
			if resp, body := e.do(t, "GET", "/docs/spec.json", map[string]string{"X-View": "fetch"}, ""); resp.StatusCode != 200 || len(body) != pointerSize || fetched.Load() != 1 {
				t.Errorf("GET of a pointer = %d, %d bytes, %d fetches", resp.StatusCode, len(body), fetched.Load())
			}
			if resp, body := e.do(t, "GET", "/docs/a.md", map[string]string{"X-View": "fetch"}, ""); resp.StatusCode != 200 || string(body) != pages[0].Content {
				t.Errorf("GET /docs/a.md = %d %q", resp.StatusCode, body)
			}
			// HEAD reads to learn the size (not a listing).
			if resp, _ := e.do(t, "HEAD", "/docs/b.md", map[string]string{"X-View": "nofetch"}, ""); resp.StatusCode != 200 || resp.ContentLength != int64(len(pages[1].Content)) {
				t.Errorf("HEAD /docs/b.md = %d, Content-Length %d", resp.StatusCode, resp.ContentLength)
			}
			_, got, _ := propfind(t, e, "/docs/", "1", map[string]string{"X-View": "fetch"})
			if l := got["/docs/a.md"].length; l != strconv.Itoa(len(pages[0].Content)) || got["/docs/a.md"].etag == "" {
				t.Errorf("a page read before is listed with getcontentlength %q, getetag %q", l, got["/docs/a.md"].etag)
			}
			if l := got["/docs/spec.json"].length; l != strconv.Itoa(pointerSize) {
				t.Errorf("a pointer fetched before is listed with getcontentlength %q", l)
			}
			if b.Name == "chroma" {
				rcloneList(t, srv.URL, "nofetch", []string{"a.md", "b.md", "broken.md", "spec.json"})
			}
		})
	}
}

// rcloneList lists /docs/ with rclone and checks the names.
func rcloneList(t *testing.T, url, view string, want []string) {
	rclone := client(t, "rclone")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rclone.conf"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, "", rclone, "lsf", ":webdav:docs", "--webdav-url="+url+"/", "--webdav-vendor=other",
		"--header=X-View: "+view, "--retries=1", "--low-level-retries=1")
	if err != nil {
		t.Fatalf("rclone lsf: %v\n%s", err, out)
	}
	if got := strings.Fields(out); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rclone lsf = %q, want %q", got, want)
	}
}

// measure runs f and returns how many bytes the process allocated during
// it and by how much the live heap grew (after a collection).
func measure(f func()) (alloc, growth int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	alloc = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return alloc, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// propBody returns a PROPFIND body naming n properties, local names of
// localLen bytes, in a namespace of nsLen bytes.
func propBody(n, nsLen, localLen int) string {
	var b strings.Builder
	ns := "urn:" + strings.Repeat("n", max(nsLen-4, 0))
	fmt.Fprintf(&b, `<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:x="%s"><D:prop>`, ns)
	for i := range n {
		s := strconv.Itoa(i)
		fmt.Fprintf(&b, "<x:p%s%s/>", s, strings.Repeat("q", max(localLen-1-len(s), 0)))
	}
	b.WriteString(`</D:prop></D:propfind>`)
	return b.String()
}

// TestPropfindLimits: hostile PROPFIND bodies — the 550 KB body naming
// 90,000 properties in a 10,000-character namespace, 60 KiB of short
// names at depth 1, names and counts just over the limits, a body of
// comments over MaxPropfindBody — are refused (413) with a short body,
// allocating little; a body within the limits at depth 1 over 2,000
// pages gets an answer that declares its namespace once, streamed
// without the server holding it, or a 507 when it would pass
// MaxPropfindAnswer. The 550 KB request is sent with curl.
func TestPropfindLimits(t *testing.T) {
	files := manyPages(2000)
	files["pages/index.md"] = "# Pages\n"
	store := memstore.New("limits")
	ingestFiles(t, store, files)
	fsys, err := chromafs.New(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(webdavfs.NewHandler(func(*http.Request) (fs.FS, error) { return fsys, nil }, webdavfs.Options{}))
	defer srv.Close()
	send := func(p, depth, body string) (status int, size int64, hdr http.Header) {
		req, err := http.NewRequest("PROPFIND", srv.URL+p, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Depth", depth)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		size, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, size, resp.Header
	}
	huge := `<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:x="urn:` + strings.Repeat("n", 9996) + `"><D:prop>` +
		strings.Repeat("<x:a/>", 90000) + `</D:prop></D:propfind>`
	t.Logf("hostile body: %d bytes", len(huge))
	cases := []struct {
		name, path, depth, body string
		status                  int
		maxAlloc                int64
	}{
		{"90000 props, 10000-byte namespace", "/pages/page-0001.md", "0", huge, 413, 8 << 20},
		{"60 KiB of short names at depth 1", "/pages/", "1", propBody(8000, 20, 2)[:60<<10-22] + `</D:prop></D:propfind>`, 413, 8 << 20},
		{"257 properties", "/pages/", "1", propBody(257, 20, 8), 413, 4 << 20},
		{"257-byte namespace", "/pages/", "1", propBody(1, 257, 8), 413, 4 << 20},
		{"257-byte local name", "/pages/", "1", propBody(1, 20, 257), 413, 4 << 20},
		{"body over the limit", "/pages/", "1", `<?xml version="1.0"?><!--` + strings.Repeat("x", webdavfs.MaxPropfindBody) + `--><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`, 413, 4 << 20},
		{"240 props of 250 bytes over 2001 pages", "/pages/", "1", propBody(240, 100, 250), 507, 8 << 20},
		{"256 props of 200 bytes at depth 0", "/pages/page-0001.md", "0", propBody(256, 256, 200), 207, 8 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var status int
			var size int64
			alloc, growth := measure(func() { status, size, _ = send(tc.path, tc.depth, tc.body) })
			t.Logf("%d, %d bytes answer; %d bytes allocated, heap %+d", status, size, alloc, growth)
			if status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
			if status != 207 && size > 512 {
				t.Errorf("%d answer of %d bytes", status, size)
			}
			if alloc > tc.maxAlloc+3*int64(len(tc.body)) || growth > 4<<20 {
				t.Errorf("the request allocated %d bytes, heap grew by %d", alloc, growth)
			}
		})
	}

	// Within the limits: the namespace is declared once, not per resource
	// or per property, and the server streams the answer.
	body := propBody(200, 256, 40)
	req, _ := http.NewRequest("PROPFIND", srv.URL+"/pages/", strings.NewReader(body))
	req.Header.Set("Depth", "1")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	status := resp.StatusCode
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	ns := "urn:" + strings.Repeat("n", 252)
	if status != 207 || strings.Count(string(answer), ns) != 1 || strings.Count(string(answer), "<D:response>") != 2002 {
		t.Fatalf("PROPFIND within the limits = %d, %d bytes, namespace %d times, %d responses", status, len(answer),
			strings.Count(string(answer), ns), strings.Count(string(answer), "<D:response>"))
	}
	// Again, with a client that keeps nothing: what is allocated is the
	// server's (and the transport's buffers), far less than the answer.
	alloc, growth := measure(func() {
		if st, size, _ := send("/pages/", "1", body); st != 207 || size != int64(len(answer)) {
			t.Errorf("PROPFIND again = %d, %d bytes", st, size)
		}
	})
	if alloc > int64(len(answer))/4 || growth > 4<<20 {
		t.Errorf("a %d-byte answer allocated %d bytes, heap grew by %d", len(answer), alloc, growth)
	}
	t.Logf("within the limits: %d-byte answer, %d bytes allocated, heap %+d", len(answer), alloc, growth)

	// The 550 KB hostile body through curl.
	curl := client(t, "curl")
	dir := t.TempDir()
	f := filepath.Join(dir, "body.xml")
	if err := os.WriteFile(f, []byte(huge), 0o600); err != nil {
		t.Fatal(err)
	}
	var out string
	alloc, growth = measure(func() {
		out, err = run(t, dir, "", curl, "-sS", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "-X", "PROPFIND",
			"-H", "Depth: 0", "-H", "Content-Type: application/xml", "--data-binary", "@"+f, srv.URL+"/pages/page-0001.md")
	})
	if err != nil {
		t.Fatalf("curl: %v %s", err, out)
	}
	code, size, _ := strings.Cut(out, " ")
	if n, _ := strconv.Atoi(size); code != "413" || n > 512 {
		t.Errorf("curl PROPFIND with a %d-byte body: %s", len(huge), out)
	}
	if alloc > 8<<20 || growth > 4<<20 {
		t.Errorf("curl's hostile PROPFIND: %d bytes allocated, heap grew by %d", alloc, growth)
	}
	t.Logf("curl: %s; %d bytes allocated, heap %+d", out, alloc, growth)
}

// faultEnv is a WebDAV server over a private Chroma, reached directly
// ("direct") and through a proxy that can freeze ("proxy"). Every request
// resolves its view as `chromafs serve` does (chromafs.New with the
// request's context, which carries a 1 s deadline), or, with X-Pre, uses a
// view made before any fault (so that reads, not the resolve step, meet
// the fault).
type faultEnv struct {
	chroma *testenv.Server
	proxy  *faulttest.Proxy
	srv    *httptest.Server
	log    *bytes.Buffer
}

func newFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	fe := &faultEnv{chroma: testenv.NewChroma(t), log: new(bytes.Buffer)}
	fe.proxy = faulttest.NewProxy(t, fe.chroma.URL)
	name := testenv.CollectionName(t)
	open := func(u string) *chromastore.Collection {
		return testbackend.OpenChroma(t, chromastore.Config{URL: u, Collection: name})
	}
	direct := open(fe.chroma.URL)
	ingestFiles(t, direct, corpus(t))
	stores := map[string]collection.Store{"direct": direct, "proxy": open(fe.proxy.URL)}
	pre := map[string]*chromafs.FS{}
	for k, s := range stores {
		fsys, err := chromafs.New(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		pre[k] = fsys
	}
	h := webdavfs.NewHandler(func(r *http.Request) (fs.FS, error) {
		s := r.Header.Get("X-Store")
		if r.Header.Get("X-Pre") != "" {
			return pre[s].WithContext(r.Context()), nil
		}
		fsys, err := chromafs.New(r.Context(), stores[s])
		if err != nil {
			return nil, err
		}
		return fsys.WithContext(r.Context()), nil
	}, webdavfs.Options{Logger: slog.New(slog.NewTextHandler(fe.log, nil))})
	fe.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(fe.srv.Close)
	return fe
}

// faultRequest is a request of the fault tests; pre reads through a view
// made before the fault.
type faultRequest struct {
	method, path, depth string
	pre                 bool
}

// expect sends each request through each store and checks the status,
// the body (one of package upstream's), Retry-After on 503, nosniff, and
// that no body names an address.
func (fe *faultEnv) expect(t *testing.T, stores []string, reqs []faultRequest, status int, body string) {
	t.Helper()
	for _, s := range stores {
		for _, rq := range reqs {
			hdr := map[string]string{"X-Store": s}
			if rq.depth != "" {
				hdr["Depth"] = rq.depth
			}
			if rq.pre {
				hdr["X-Pre"] = "1"
			}
			start := time.Now()
			resp, b := (&env{srv: fe.srv}).do(t, rq.method, rq.path, hdr, "")
			faulttest.CheckAnswer(t, fmt.Sprintf("%s %s %s (pre %v)", s, rq.method, rq.path, rq.pre), start, resp, b, status, body)
		}
	}
}

// TestUpstreamFaults: with Chroma stopped, reached directly (connection
// refused) or through a proxy (connection closed), the resolve step
// (GET, HEAD and PROPFIND) and reads through an earlier view answer 503
// with Retry-After and a fixed body, never 500, also as curl sees them;
// with Chroma frozen behind the proxy, they answer 504 once the request's
// deadline passes; after a restart everything answers again.
func TestUpstreamFaults(t *testing.T) {
	fe := newFaultEnv(t)
	both := []string{"direct", "proxy"}
	resolving := []faultRequest{{"GET", "/index.md", "", false}, {"HEAD", "/index.md", "", false}, {"PROPFIND", "/guides/", "1", false}, {"PROPFIND", "/index.md", "0", false}}
	fe.expect(t, both, resolving[:2], 200, "")
	fe.expect(t, both, resolving[2:], webdav.StatusMulti, "")

	if err := fe.chroma.Stop(); err != nil {
		t.Fatal(err)
	}
	fe.expect(t, both, append(resolving, faultRequest{"GET", "/guides/quickstart.md", "", true}), 503, upstream.BodyUnavailable)
	// The listing of a view made before needs no store.
	fe.expect(t, both, []faultRequest{{"PROPFIND", "/guides/", "1", true}}, webdav.StatusMulti, "")
	curl := client(t, "curl")
	out, err := run(t, t.TempDir(), "", curl, "-sS", "-i", "-X", "PROPFIND", "-H", "Depth: 1", "-H", "X-Store: proxy", fe.srv.URL+"/guides/")
	if err != nil || !strings.HasPrefix(out, "HTTP/1.1 503") || !strings.Contains(strings.ToLower(out), "retry-after: 5") || !strings.Contains(out, upstream.BodyUnavailable) {
		t.Errorf("curl PROPFIND with Chroma stopped: %v\n%s", err, out)
	}

	if err := fe.chroma.Start(); err != nil {
		t.Fatal(err)
	}
	// A restarted Chroma may take longer than the 1 s deadline to answer
	// its first requests on a busy machine.
	for _, s := range both {
		for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(100 * time.Millisecond) {
			if resp, _ := (&env{srv: fe.srv}).do(t, "GET", "/index.md", map[string]string{"X-Store": s}, ""); resp.StatusCode == 200 {
				break
			}
		}
	}
	fe.expect(t, both, resolving[:1], 200, "")
	fe.proxy.Freeze()
	fe.expect(t, []string{"proxy"}, append(resolving, faultRequest{"GET", "/reference/big.md", "", true}), 504, upstream.BodyTimeout)
	out, err = run(t, t.TempDir(), "", curl, "-sS", "-i", "-H", "X-Store: proxy", fe.srv.URL+"/index.md")
	if err != nil || !strings.HasPrefix(out, "HTTP/1.1 504") || !strings.Contains(out, upstream.BodyTimeout) {
		t.Errorf("curl GET with Chroma frozen: %v\n%s", err, out)
	}
	fe.expect(t, []string{"direct"}, resolving[:1], 200, "")
	if l := fe.log.String(); !strings.Contains(l, "kind=unavailable") || !strings.Contains(l, "kind=timeout") || !strings.Contains(l, " err=") || t.Failed() {
		t.Errorf("log (lacks the faults?):\n%s", l)
	}
}

// TestActiveContent: a page whose tree entry says text/html and holds a
// script, and pages named .svg, .js and .xhtml, are served (GET, and
// getcontenttype in PROPFIND) as text/plain unless AllowActiveContent is
// set; every answer — files, listings, errors, refusals, OPTIONS —
// carries X-Content-Type-Options: nosniff. curl sees the headers.
func TestActiveContent(t *testing.T) {
	script := "<script>fetch('/secret').then(r => r.text()).then(alert)</script>"
	pages := []testcorpus.UnsizedPage{
		{Slug: "evil", Content: script, ContentType: "text/html"},
		{Slug: "img/x.svg", Content: `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`},
		{Slug: "app.js", Content: "alert(1)\n"},
		{Slug: "page.xhtml", Content: "<html xmlns=\"http://www.w3.org/1999/xhtml\">" + script + "</html>"},
		{Slug: "ok.md", Content: "# fine\n"},
		{Slug: "data.json", Content: "{}\n", ContentType: "application/json"},
	}
	store := memstore.New("active")
	testcorpus.WriteUnsized(t, store, pages)
	fsys, err := chromafs.New(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	active := map[string]string{"evil": "text/html", "img/x.svg": "image/svg+xml", "app.js": "text/javascript; charset=utf-8",
		"page.xhtml": "application/xhtml+xml", "ok.md": "text/markdown; charset=utf-8", "data.json": "application/json"}
	for _, allow := range []bool{false, true} {
		srv := httptest.NewServer(webdavfs.NewHandler(func(r *http.Request) (fs.FS, error) {
			if r.Header.Get("X-Broken") != "" {
				return nil, errors.New("resolve failed")
			}
			return fsys, nil
		}, webdavfs.Options{AllowActiveContent: allow}))
		defer srv.Close()
		e := &env{srv: srv}
		for slug, ct := range active {
			want := ct
			if !allow && slug != "ok.md" && slug != "data.json" {
				want = "text/plain; charset=utf-8"
			}
			resp, body := e.do(t, "GET", "/"+slug, nil, "")
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("allow=%v: GET /%s = %d, Content-Type %q, nosniff %q; want %q", allow, slug, resp.StatusCode,
					resp.Header.Get("Content-Type"), resp.Header.Get("X-Content-Type-Options"), want)
			}
			if len(body) == 0 {
				t.Errorf("GET /%s: empty body", slug)
			}
			_, got, _ := propfind(t, e, "/"+slug, "0", nil)
			if c := got["/"+slug].ctype; c != want {
				t.Errorf("allow=%v: PROPFIND /%s getcontenttype %q, want %q", allow, slug, c, want)
			}
		}
		answers := []struct {
			method, path string
			hdr          map[string]string
			body         string
			status       int
		}{
			{"OPTIONS", "/", nil, "", 200},
			{"GET", "/missing", nil, "", 404},
			{"GET", "/._probe", nil, "", 404},
			{"GET", "/img/", nil, "", 405},
			{"PUT", "/ok.md", nil, "x", 405},
			{"PROPFIND", "/", nil, "", 403},
			{"PROPFIND", "/", map[string]string{"Depth": "2"}, "", 400},
			{"PROPFIND", "/", map[string]string{"Depth": "1"}, "<bad", 400},
			{"PROPFIND", "/", map[string]string{"Depth": "1"}, propBody(300, 10, 5), 413},
			{"PROPFIND", "/", map[string]string{"Depth": "1"}, "", 207},
			{"HEAD", "/ok.md", nil, "", 200},
			{"GET", "/ok.md", map[string]string{"X-Broken": "1"}, "", 500},
		}
		for _, a := range answers {
			resp, _ := e.do(t, a.method, a.path, a.hdr, a.body)
			if resp.StatusCode != a.status || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s = %d (want %d), X-Content-Type-Options %q", a.method, a.path, resp.StatusCode, a.status, resp.Header.Get("X-Content-Type-Options"))
			}
		}
		if !allow {
			out, err := run(t, t.TempDir(), "", client(t, "curl"), "-sS", "-i", srv.URL+"/evil")
			lower := strings.ToLower(out)
			if err != nil || !strings.Contains(lower, "content-type: text/plain; charset=utf-8") || !strings.Contains(lower, "x-content-type-options: nosniff") || !strings.Contains(out, script) {
				t.Errorf("curl GET /evil: %v\n%s", err, out)
			}
		}
	}
}

// failingDir is a MapFS whose directory "z" cannot be read, as a store
// that fails half-way through a walk.
type failingDir struct{ fstest.MapFS }

func (f failingDir) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "z" {
		return nil, errors.New("store down")
	}
	return f.MapFS.ReadDir(name)
}

func (f failingDir) Open(name string) (fs.File, error) {
	if name == "z" {
		return nil, errors.New("store down")
	}
	return f.MapFS.Open(name)
}

// TestPropfindInfinityAborted: with AllowInfiniteDepth, a walk whose
// answer passes MaxPropfindAnswer, or whose filesystem fails after the
// first bytes were sent, is cut off — the client gets a truncated body,
// never a well-formed multistatus that leaves entries out — and one that
// fails before anything was sent is a 5xx.
func TestPropfindInfinityAborted(t *testing.T) {
	files := manyPages(2000)
	store := memstore.New("infinity")
	ingestFiles(t, store, files)
	fsys, err := chromafs.New(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	small := fstest.MapFS{"a/x.md": {Data: []byte("x")}, "z/y.md": {Data: []byte("y")}}
	big := fstest.MapFS{"z/y.md": {Data: []byte("y")}}
	for i := range 2000 {
		big[fmt.Sprintf("a/page-%04d.md", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	for _, tc := range []struct {
		name      string
		fsys      fs.FS
		body      string
		status    int
		truncated bool
	}{
		{"answer over the limit", fsys, propBody(240, 100, 250), 207, true},
		{"failure after the first bytes", failingDir{big}, "", 207, true},
		{"failure before the first bytes", failingDir{small}, "", 502, false},
		{"complete", fsys, "", 207, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(webdavfs.NewHandler(func(*http.Request) (fs.FS, error) { return tc.fsys, nil },
				webdavfs.Options{AllowInfiniteDepth: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
			defer srv.Close()
			req, _ := http.NewRequest("PROPFIND", srv.URL+"/", strings.NewReader(tc.body))
			req.Header.Set("Depth", "infinity")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.truncated != (err != nil) {
				t.Errorf("read %d bytes, error %v; truncated: want %v", n, err, tc.truncated)
			}
			if n > webdavfs.MaxPropfindAnswer+256<<10 {
				t.Errorf("read %d bytes, over MaxPropfindAnswer", n)
			}
			t.Logf("%d: %d bytes, %v", resp.StatusCode, n, err)
		})
	}
}
