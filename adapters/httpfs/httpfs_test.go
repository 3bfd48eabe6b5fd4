package httpfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/adapters/internal/upstream"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// handlerFor serves fsys, bound to each request's context.
func handlerFor(fsys *chromafs.FS, opt httpfs.Options) http.Handler {
	return httpfs.NewHandler(func(r *http.Request) (fs.FS, error) {
		return fsys.WithContext(r.Context()), nil
	}, opt)
}

// do sends one request to h and returns the recorded response.
func do(h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

type want struct {
	status int
	body   *string           // nil: not checked
	header map[string]string // "" value: header must be absent
}

func str(s string) *string { return &s }

func check(t *testing.T, h http.Handler, method, target string, reqHeader []string, w want) *httptest.ResponseRecorder {
	t.Helper()
	res := do(h, method, target, reqHeader...)
	if res.Code != w.status {
		t.Errorf("%s %s %q: status %d, want %d (body %q)", method, target, reqHeader, res.Code, w.status, trunc(res.Body.String()))
	}
	if w.body != nil && res.Body.String() != *w.body {
		t.Errorf("%s %s %q: body %q\nwant %q", method, target, reqHeader, trunc(res.Body.String()), trunc(*w.body))
	}
	for k, v := range w.header {
		if got := res.Header().Get(k); got != v {
			t.Errorf("%s %s %q: header %s = %q, want %q", method, target, reqHeader, k, got, v)
		}
	}
	if got := res.Header().Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s %s: X-Content-Type-Options = %q", method, target, got)
	}
	return res
}

func trunc(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestHandler is the status and header table, over memstore and real
// Chroma, pages written by ingest (sizes, hashes, mod times) and by a
// foreign writer (none of them).
func TestHandler(t *testing.T) {
	files := testcorpus.Files(t)
	vis := testcorpus.Visible(files)
	for _, v := range testcorpus.Views(t, files) {
		t.Run(v.Name, func(t *testing.T) {
			h := handlerFor(v.FS, httpfs.Options{})
			ingestedView := strings.HasSuffix(v.Name, "/ingest")
			quick := vis["guides/quickstart.md"]
			big := vis["reference/big.md"]

			// Every visible file, whole, with its content type.
			for name, content := range vis {
				res := check(t, h, "GET", "/"+escapePath(name), nil, want{status: 200, body: str(content), header: map[string]string{
					"Content-Length": strconv.Itoa(len(content)),
					"Accept-Ranges":  "bytes",
				}})
				if res.Header().Get("ETag") == "" || res.Header().Get("Content-Type") == "" {
					t.Errorf("GET %s: ETag %q, Content-Type %q", name, res.Header().Get("ETag"), res.Header().Get("Content-Type"))
				}
			}

			// Content types: Markdown, MDX, extensionless, text.
			for name, ct := range map[string]string{
				"guides/quickstart.md":     "text/markdown; charset=utf-8",
				"guides/auth/oauth.mdx":    "text/markdown; charset=utf-8",
				"api/users":                "text/plain; charset=utf-8",
				"reference/Makefile":       "text/plain; charset=utf-8",
				".well-known/security.txt": "text/plain; charset=utf-8",
			} {
				check(t, h, "GET", "/"+name, nil, want{status: 200, header: map[string]string{"Content-Type": ct}})
				check(t, h, "HEAD", "/"+name, nil, want{status: 200, header: map[string]string{"Content-Type": ct}})
			}

			// ETag and 304.
			res := check(t, h, "GET", "/guides/quickstart.md", nil, want{status: 200, body: str(quick)})
			etag := res.Header().Get("ETag")
			if !regexp.MustCompile(`^"[^"]+"$`).MatchString(etag) {
				t.Errorf("ETag %q is not a strong entity tag", etag)
			}
			check(t, h, "GET", "/guides/quickstart.md", []string{"If-None-Match", etag}, want{status: 304, body: str("")})
			check(t, h, "GET", "/guides/quickstart.md", []string{"If-None-Match", `"other", ` + etag}, want{status: 304, body: str("")})
			check(t, h, "HEAD", "/guides/quickstart.md", []string{"If-None-Match", etag}, want{status: 304, body: str("")})
			check(t, h, "GET", "/guides/quickstart.md", []string{"If-None-Match", `"other"`}, want{status: 200, body: str(quick)})
			check(t, h, "GET", "/guides/quickstart.md", []string{"If-Match", `"other"`}, want{status: 412})
			if other := do(h, "GET", "/index.md").Header().Get("ETag"); other == etag {
				t.Errorf("two pages share the ETag %s", etag)
			}

			// Last-Modified and If-Modified-Since when the tree has a mod
			// time; neither without one.
			if ingestedView {
				lm := testcorpus.ModTime.Format(http.TimeFormat)
				check(t, h, "GET", "/index.md", nil, want{status: 200, header: map[string]string{"Last-Modified": lm}})
				check(t, h, "GET", "/index.md", []string{"If-Modified-Since", lm}, want{status: 304, body: str("")})
				check(t, h, "GET", "/index.md", []string{"If-Modified-Since", testcorpus.ModTime.Add(-time.Hour).Format(http.TimeFormat)}, want{status: 200, body: str(vis["index.md"])})
			} else {
				check(t, h, "GET", "/index.md", nil, want{status: 200, header: map[string]string{"Last-Modified": ""}})
			}

			// Ranges.
			n := len(big)
			check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=0-9"}, want{status: 206, body: str(big[:10]), header: map[string]string{
				"Content-Range": "bytes 0-9/" + strconv.Itoa(n), "Content-Length": "10"}})
			check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=1000-1099"}, want{status: 206, body: str(big[1000:1100]), header: map[string]string{
				"Content-Range": "bytes 1000-1099/" + strconv.Itoa(n)}})
			check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=-7"}, want{status: 206, body: str(big[n-7:])})
			check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=" + strconv.Itoa(n-3) + "-"}, want{status: 206, body: str(big[n-3:])})
			check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=" + strconv.Itoa(n) + "-"}, want{status: 416, header: map[string]string{
				"Content-Range": "bytes */" + strconv.Itoa(n)}})
			check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=99999-100000"}, want{status: 416})
			// net/http ignores a Range on an empty file.
			check(t, h, "GET", "/empty.md", []string{"Range", "bytes=0-0"}, want{status: 200, body: str("")})
			check(t, h, "GET", "/empty.md", nil, want{status: 200, body: str(""), header: map[string]string{"Content-Length": "0"}})
			// Multipart ranges.
			res = check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=0-4,100-109,-3"}, want{status: 206})
			checkMultipart(t, res, big, [][2]int{{0, 5}, {100, 110}, {n - 3, n}})
			// A Range whose If-Range does not match gets the whole file.
			check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=0-9", "If-Range", `"stale"`}, want{status: 200, body: str(big)})

			// HEAD: headers, no body.
			check(t, h, "HEAD", "/reference/big.md", nil, want{status: 200, body: str(""), header: map[string]string{
				"Content-Length": strconv.Itoa(n), "ETag": do(h, "GET", "/reference/big.md").Header().Get("ETag")}})
			check(t, h, "HEAD", "/guides/", nil, want{status: 200, body: str("")})

			// Methods.
			for _, m := range []string{"PUT", "DELETE", "POST", "PATCH", "OPTIONS", "PROPFIND", "MKCOL", "MOVE", "COPY", "LOCK", "TRACE"} {
				for _, p := range []string{"/guides/quickstart.md", "/new.md", "/internal/oncall.md", "/guides/"} {
					check(t, h, m, p, nil, want{status: 405, header: map[string]string{"Allow": "GET, HEAD"}})
				}
			}
			if got := do(h, "GET", "/guides/quickstart.md").Body.String(); got != quick {
				t.Errorf("after refused writes: %q", got)
			}

			// Listings.
			res = check(t, h, "GET", "/", nil, want{status: 200, header: map[string]string{"Content-Type": "text/html; charset=utf-8"}})
			checkListing(t, res.Body.String(), v.FS, ".")
			res = check(t, h, "GET", "/guides/", nil, want{status: 200})
			checkListing(t, res.Body.String(), v.FS, "guides")
			if !strings.Contains(res.Body.String(), `<a href="auth/">auth/</a>`) || !strings.Contains(res.Body.String(), `<a href="../">`) {
				t.Errorf("listing of guides/: %s", res.Body)
			}
			res = check(t, h, "GET", "/i18n/caf%C3%A9/", nil, want{status: 200})
			if !strings.Contains(res.Body.String(), `<a href="r%C3%A9sum%C3%A9.md">résumé.md</a>`) {
				t.Errorf("listing of i18n/café/: %s", res.Body)
			}
			check(t, h, "GET", "/guides", nil, want{status: 301, header: map[string]string{"Location": "guides/"}})
			check(t, h, "GET", "/guides/auth?x=1", nil, want{status: 301, header: map[string]string{"Location": "auth/?x=1"}})
			check(t, h, "GET", "/guides/quickstart.md/", nil, want{status: 301, header: map[string]string{"Location": "../quickstart.md"}})

			// Hidden and missing: one answer.
			notFound := do(h, "GET", "/nope.md")
			if notFound.Code != 404 {
				t.Fatalf("GET /nope.md: %d", notFound.Code)
			}
			hidden := []string{"/nope/", "/nope", "/guides/nope.md"}
			for slug := range files {
				if _, ok := vis[slug]; !ok {
					hidden = append(hidden, "/"+slug, "/"+slug+"/")
				}
			}
			for _, d := range testcorpus.HiddenDirs(files, vis) {
				hidden = append(hidden, "/"+d, "/"+d+"/")
			}
			for _, p := range hidden {
				for _, m := range []string{"GET", "HEAD"} {
					res := check(t, h, m, p, nil, want{status: 404})
					if m == "GET" && res.Body.String() != notFound.Body.String() {
						t.Errorf("GET %s: body %q differs from a missing page's %q", p, res.Body, notFound.Body)
					}
					if len(res.Header().Values("ETag")) != 0 || len(res.Header().Values("Last-Modified")) != 0 {
						t.Errorf("%s %s: 404 with ETag/Last-Modified", m, p)
					}
				}
				check(t, h, "GET", p, []string{"Range", "bytes=0-1"}, want{status: 404})
			}
			for _, l := range []string{do(h, "GET", "/").Body.String(), do(h, "GET", "/internal/").Body.String()} {
				if strings.Contains(l, "internal") || strings.Contains(l, "oncall") || strings.Contains(l, "secret") {
					t.Errorf("a listing names a hidden page: %s", l)
				}
			}

			// Invalid paths: 400 or 404, never content, never a panic.
			for _, p := range []string{
				"/../index.md", "/guides/../index.md", "/./index.md", "/guides/./quickstart.md",
				"/%2e%2e/index.md", "/guides/%2E%2E/index.md", "//index.md", "/guides//quickstart.md",
				"/guides/quickstart.md%00", "/%00", "/guides%5cquickstart.md", "/..%5c..%5cindex.md",
				"/..", "/.", "//", "/guides//", "/internal/../index.md", "/index.md/..", "/%2F%2Findex.md",
			} {
				res := do(h, "GET", p)
				if res.Code != 400 && res.Code != 404 {
					t.Errorf("GET %s: status %d, want 400 or 404 (body %q)", p, res.Code, trunc(res.Body.String()))
				}
			}
		})
	}
}

// escapePath escapes each element of a slash-separated name for a URL.
func escapePath(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = (&urlPath{p}).String()
	}
	return strings.Join(parts, "/")
}

func checkMultipart(t *testing.T, res *httptest.ResponseRecorder, content string, ranges [][2]int) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(res.Header().Get("Content-Type"))
	if err != nil || mt != "multipart/byteranges" {
		t.Fatalf("multi-range Content-Type %q, %v", res.Header().Get("Content-Type"), err)
	}
	if cl := res.Header().Get("Content-Length"); cl != strconv.Itoa(res.Body.Len()) {
		t.Errorf("multi-range Content-Length %s, body %d bytes", cl, res.Body.Len())
	}
	mr := multipart.NewReader(res.Body, params["boundary"])
	for i, rg := range ranges {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		data, _ := io.ReadAll(p)
		if string(data) != content[rg[0]:rg[1]] {
			t.Errorf("part %d = %q, want %q", i, data, content[rg[0]:rg[1]])
		}
		wantCR := "bytes " + strconv.Itoa(rg[0]) + "-" + strconv.Itoa(rg[1]-1) + "/" + strconv.Itoa(len(content))
		if cr := p.Header.Get("Content-Range"); cr != wantCR {
			t.Errorf("part %d Content-Range %q, want %q", i, cr, wantCR)
		}
		if ct := p.Header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
			t.Errorf("part %d Content-Type %q", i, ct)
		}
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Errorf("after the last part: %v", err)
	}
}

var hrefRE = regexp.MustCompile(`<a href="([^"]*)">([^<]*)</a>`)

// checkListing asserts that a listing names exactly the entries of dir,
// in order, directories with a slash.
func checkListing(t *testing.T, body string, fsys fs.FS, dir string) {
	t.Helper()
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	var wantNames, got []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		wantNames = append(wantNames, n)
	}
	for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
		if n := htmlUnescape(m[2]); n != "../" {
			got = append(got, n)
		}
	}
	if !slices.Equal(got, wantNames) {
		t.Errorf("listing of %s = %q, want %q", dir, got, wantNames)
	}
}

// TestListingEscapes: names with markup, colons, spaces, percent signs
// and quotes are escaped in listings and reachable through their links.
func TestListingEscapes(t *testing.T) {
	files := map[string]string{
		`a<b>&"c'.md`:      "markup\n",
		"x:y.md":           "colon\n",
		"sp ace.md":        "space\n",
		"100%.md":          "percent\n",
		"q?u#e.md":         "query\n",
		"dir <i>/inner.md": "inner\n",
	}
	s := memstore.New("escapes")
	if err := memstore.Load(s, collection.DefaultLayout(), files, memstore.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	fsys, err := chromafs.New(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(fsys.Problems()) != 0 {
		t.Fatalf("problems: %v", fsys.Problems())
	}
	h := handlerFor(fsys, httpfs.Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	res := do(h, "GET", "/")
	body := res.Body.String()
	if strings.Contains(body, "<b>") || strings.Contains(body, "<i>") {
		t.Errorf("unescaped markup in listing: %s", body)
	}
	if res.Header().Get("Content-Security-Policy") == "" {
		t.Error("listing without Content-Security-Policy")
	}
	checkListing(t, body, fsys, ".")
	// Follow every link with a real client and get the right content.
	for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
		href := htmlUnescape(m[1])
		if strings.HasSuffix(href, "/") {
			continue
		}
		resp, err := http.Get(srv.URL + "/" + strings.TrimPrefix(href, "./"))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := htmlUnescape(m[2])
		if resp.StatusCode != 200 || string(data) != files[name] {
			t.Errorf("GET %s (for %q): %d %q", href, name, resp.StatusCode, data)
		}
	}
	if !strings.Contains(body, `href="./x:y.md"`) {
		t.Errorf("colon name not made relative: %s", body)
	}
	check(t, h, "GET", "/dir%20%3Ci%3E", nil, want{status: 301, header: map[string]string{"Location": "dir%20%3Ci%3E/"}})
	check(t, h, "GET", "/x:y.md/", nil, want{status: 301, header: map[string]string{"Location": "../x:y.md"}})
	resp, err := http.Get(srv.URL + "/dir%20%3Ci%3E")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET dir <i>/inner.md: %d", resp.StatusCode)
	}
}

func htmlUnescape(s string) string {
	r := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'", "&quot;", `"`)
	return r.Replace(s)
}

// TestPrefix: Options.Prefix strips a URL prefix.
func TestPrefix(t *testing.T) {
	fsys := smallFS(t)
	for _, prefix := range []string{"/files/", "/files", "files"} {
		h := handlerFor(fsys, httpfs.Options{Prefix: prefix})
		check(t, h, "GET", "/files/index.md", nil, want{status: 200, body: str("# Docs\n")})
		check(t, h, "GET", "/files/guides/", nil, want{status: 200})
		check(t, h, "GET", "/files/", nil, want{status: 200})
		check(t, h, "GET", "/files", nil, want{status: 301, header: map[string]string{"Location": "files/"}})
		check(t, h, "GET", "/files/guides", nil, want{status: 301, header: map[string]string{"Location": "guides/"}})
		check(t, h, "GET", "/index.md", nil, want{status: 404})
		check(t, h, "GET", "/filesx/index.md", nil, want{status: 404})
		check(t, h, "GET", "/", nil, want{status: 404})
		check(t, h, "GET", "/files/../files/index.md", nil, want{status: 400})
	}
}

// TestResolveError: resolve's error is a 500 with a generic body; the
// details are only logged.
func TestResolveError(t *testing.T) {
	var log bytes.Buffer
	h := httpfs.NewHandler(func(*http.Request) (fs.FS, error) {
		return nil, errors.New("users file: secret detail")
	}, httpfs.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	res := check(t, h, "GET", "/index.md", nil, want{status: 500})
	if strings.Contains(res.Body.String(), "secret") {
		t.Errorf("500 body leaks the error: %q", res.Body)
	}
	if !strings.Contains(log.String(), "secret detail") {
		t.Errorf("log lacks the error: %q", log.String())
	}
	// Methods are refused before resolving.
	check(t, h, "PUT", "/index.md", nil, want{status: 405})
}

// TestCacheControl: the default, a custom value, and none.
func TestCacheControl(t *testing.T) {
	fsys := smallFS(t)
	for opt, wantCC := range map[string]string{"": "private, no-cache", "public, max-age=60": "public, max-age=60", "-": ""} {
		h := handlerFor(fsys, httpfs.Options{CacheControl: opt})
		check(t, h, "GET", "/index.md", nil, want{status: 200, header: map[string]string{"Cache-Control": wantCC}})
	}
}

// TestNotSeekable: an fs.FS whose files cannot seek is still served,
// ranges included.
func TestNotSeekable(t *testing.T) {
	h := httpfs.NewHandler(func(*http.Request) (fs.FS, error) { return plainFS{}, nil }, httpfs.Options{})
	check(t, h, "GET", "/a.txt", nil, want{status: 200, body: str("abcdef")})
	check(t, h, "GET", "/a.txt", []string{"Range", "bytes=1-2"}, want{status: 206, body: str("bc")})
}

type plainFS struct{}

func (plainFS) Open(name string) (fs.File, error) {
	if name != "a.txt" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &plainFile{r: strings.NewReader("abcdef")}, nil
}

type plainFile struct{ r *strings.Reader }

func (f *plainFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *plainFile) Close() error               { return nil }
func (f *plainFile) Stat() (fs.FileInfo, error) { return plainInfo{}, nil }

type plainInfo struct{}

func (plainInfo) Name() string       { return "a.txt" }
func (plainInfo) Size() int64        { return 6 }
func (plainInfo) Mode() fs.FileMode  { return 0o444 }
func (plainInfo) ModTime() time.Time { return time.Time{} }
func (plainInfo) IsDir() bool        { return false }
func (plainInfo) Sys() any           { return nil }

// smallFS is a memstore collection of two public pages and a hidden one.
func smallFS(t testing.TB) *chromafs.FS {
	t.Helper()
	s := memstore.New("small")
	err := memstore.Load(s, collection.DefaultLayout(), map[string]string{
		"index.md": "# Docs\n", "guides/a.md": "# A\n", "internal/x.md": "secret\n",
	}, memstore.LoadOptions{Access: testcorpus.Access, WithSizes: true})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := chromafs.New(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestChromaDown: with Chroma stopped, a page that is not cached answers
// 503 with Retry-After and a short body that names no address — never 200 or 206 with partial content — while
// listings (in memory) and cached pages still work; after a restart the
// page is served.
func TestChromaDown(t *testing.T) {
	files := testcorpus.Files(t)
	vis := testcorpus.Visible(files)
	srv := testenv.NewChroma(t)
	var vs []testcorpus.View
	for _, w := range testcorpus.Writers() {
		c := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, Timeout: 5 * time.Second})
		w.Write(t, c, files)
		fsys, err := chromafs.New(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, testcorpus.View{Name: w.Name, FS: fsys})
	}
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	for _, v := range vs {
		h := handlerFor(v.FS, httpfs.Options{Logger: logger})
		check(t, h, "GET", "/index.md", nil, want{status: 200, body: str(vis["index.md"])}) // cached now
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			h := handlerFor(v.FS, httpfs.Options{Logger: logger})
			for _, hdr := range [][]string{nil, {"Range", "bytes=0-9"}, {"Range", "bytes=0-1,5-6"}, {"If-None-Match", `"stale"`}} {
				res := check(t, h, "GET", "/reference/big.md", hdr, want{status: 503, header: map[string]string{"Retry-After": "5"}})
				if res.Body.String() != upstream.BodyUnavailable+"\n" {
					t.Errorf("503 body %q", res.Body)
				}
				if res.Header().Get("Content-Range") != "" || res.Header().Get("ETag") != "" {
					t.Errorf("503 with Content-Range/ETag: %v", res.Header())
				}
			}
			// Real client: a 5xx, not a short 200.
			ts := httptest.NewServer(h)
			defer ts.Close()
			resp, err := http.Get(ts.URL + "/guides/quickstart.md")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 503 {
				t.Errorf("over the network: %d", resp.StatusCode)
			}
			// HEAD needs no content when the tree knows the size.
			if v.Name == "ingest" {
				check(t, h, "HEAD", "/reference/big.md", nil, want{status: 200, header: map[string]string{"Content-Length": strconv.Itoa(len(vis["reference/big.md"]))}})
			} else {
				check(t, h, "HEAD", "/reference/big.md", nil, want{status: 503})
			}
			// The tree and the cache still serve.
			check(t, h, "GET", "/guides/", nil, want{status: 200})
			check(t, h, "GET", "/index.md", nil, want{status: 200, body: str(vis["index.md"])})
			check(t, h, "GET", "/internal/oncall.md", nil, want{status: 404})
		})
	}
	if !strings.Contains(log.String(), "reference/big.md") {
		t.Errorf("the failures were not logged: %s", log.String())
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		h := handlerFor(v.FS, httpfs.Options{})
		check(t, h, "GET", "/reference/big.md", []string{"Range", "bytes=0-9"}, want{status: 206, body: str(vis["reference/big.md"][:10])})
		check(t, h, "GET", "/reference/big.md", nil, want{status: 200, body: str(vis["reference/big.md"])})
	}
}

// TestCanceled: a request whose context is already done reads nothing
// and answers no content.
func TestCanceled(t *testing.T) {
	files := testcorpus.Files(t)
	for _, v := range testcorpus.Views(t, files) {
		if !strings.HasPrefix(v.Name, "chroma/") {
			continue
		}
		h := handlerFor(v.FS, httpfs.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := httptest.NewRequestWithContext(ctx, "GET", "/reference/big.md", nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code < 500 {
			t.Errorf("%s: canceled request answered %d", v.Name, w.Code)
		}
	}
}

// urlPath escapes one path element as a URL does.
type urlPath struct{ s string }

func (u *urlPath) String() string { return (&url.URL{Path: u.s}).EscapedPath() }
