package webdavfs_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"

	"golang.org/x/net/webdav"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/internal/attr"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// corpus is examples/docs plus edge cases: an empty page, an
// extensionless page, a unicode name, a dotfile and a private directory.
func corpus(t testing.TB) map[string]string {
	t.Helper()
	files := testcorpus.Docs(t)
	files["empty.md"] = ""
	files["api/users"] = "no extension\n"
	files["i18n/café/résumé.md"] = "# Résumé\nnaïve café\n"
	files[".well-known/security.txt"] = "Contact: security@acme.example\n"
	files["internal/secret/plan.md"] = "# Plan\nthe access_token rotation plan\n"
	files["reference/big.md"] = strings.Repeat("0123456789abcdef\n", 2000)
	return files
}

const rules = "** public\ninternal/** private groups=staff\n"

// visible returns the files a user with the given groups may see.
func visible(files map[string]string, staff bool) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		if staff || !strings.HasPrefix(k, "internal/") {
			out[k] = v
		}
	}
	return out
}

// target is what every backend's store implements.
type target = testbackend.Target

// ingestFiles writes files into dst with chromafs's ingest (sizes and
// hashes in the tree).
func ingestFiles(t testing.TB, dst ingest.Target, files map[string]string) {
	t.Helper()
	src := fstest.MapFS{}
	for slug, content := range files {
		src[slug] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	r, err := ingest.ParseRules(strings.NewReader(rules))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), dst, src, ingest.Options{Rules: r, MaxChunk: 512}); err != nil {
		t.Fatal(err)
	}
}

// env is a WebDAV server over a store; requests with the header
// X-Test-Groups: staff see the private pages.
type env struct {
	store    target
	files    map[string]string
	srv      *httptest.Server
	resolved atomic.Int64
	views    map[string]*chromafs.FS
}

func newEnv(t testing.TB, store target, files map[string]string, opt webdavfs.Options) *env {
	t.Helper()
	e := &env{store: store, files: files, views: map[string]*chromafs.FS{}}
	for _, g := range []string{"", "staff"} {
		var groups []string
		if g != "" {
			groups = []string{g}
		}
		fsys, err := chromafs.New(context.Background(), store, chromafs.WithGroups(groups...))
		if err != nil {
			t.Fatal(err)
		}
		e.views[g] = fsys
	}
	h := webdavfs.NewHandler(func(r *http.Request) (fs.FS, error) {
		e.resolved.Add(1)
		g := r.Header.Get("X-Test-Groups")
		if g == "broken" {
			return nil, errors.New("resolve: secret detail")
		}
		return e.views[g], nil
	}, opt)
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) do(t testing.TB, method, p string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+p, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// snapshot is what a write could change: every record id and the tree
// document.
func snapshot(t testing.TB, s target) string {
	t.Helper()
	ids, err := s.IDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	tr, err := s.Tree(context.Background(), collection.DefaultLayout().TreeID)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %q %s", len(ids), ids, tr.Document)
}

// TestMethods: every write method and unknown methods get 405 with the
// Allow header, and nothing changes in the store; OPTIONS advertises only
// what works.
func TestMethods(t *testing.T) {
	files := corpus(t)
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			ingestFiles(t, store, files)
			e := newEnv(t, store, files, webdavfs.Options{})
			before := snapshot(t, store)
			dest := map[string]string{"Destination": e.srv.URL + "/copied.md", "Overwrite": "T"}
			lockBody := `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>`
			patchBody := `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x:a xmlns:x="urn:x">1</x:a></D:prop></D:set></D:propertyupdate>`
			for _, p := range []string{"/index.md", "/guides/", "/guides", "/new.md", "/newdir/", "/internal/oncall.md", "/"} {
				for _, m := range []struct {
					method, body string
					hdr          map[string]string
				}{
					{"PUT", "overwritten", nil},
					{"MKCOL", "", nil},
					{"DELETE", "", nil},
					{"COPY", "", dest},
					{"MOVE", "", dest},
					{"PROPPATCH", patchBody, nil},
					{"LOCK", lockBody, map[string]string{"Timeout": "Second-60"}},
					{"UNLOCK", "", map[string]string{"Lock-Token": "<opaquelocktoken:x>"}},
					{"POST", "x=1", nil},
					{"PATCH", "x", nil},
					{"TRACE", "", nil},
					{"FROBNICATE", "", nil},
				} {
					resp, _ := e.do(t, m.method, p, m.hdr, m.body)
					if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "OPTIONS, GET, HEAD, PROPFIND" {
						t.Errorf("%s %s = %d, Allow %q; want 405, Allow %q", m.method, p, resp.StatusCode, resp.Header.Get("Allow"), webdavfs.Allow)
					}
					if tok := resp.Header.Get("Lock-Token"); tok != "" {
						t.Errorf("%s %s granted lock %q", m.method, p, tok)
					}
				}
			}
			if after := snapshot(t, store); after != before {
				t.Errorf("store changed by refused writes:\nbefore %s\nafter  %s", before, after)
			}
			for _, p := range []string{"/", "/index.md", "/missing"} {
				resp, _ := e.do(t, "OPTIONS", p, nil, "")
				if resp.StatusCode != 200 || resp.Header.Get("Allow") != webdavfs.Allow || resp.Header.Get("DAV") != "1" {
					t.Errorf("OPTIONS %s = %d, Allow %q, DAV %q", p, resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("DAV"))
				}
			}
		})
	}
}

// multistatus is RFC 4918's answer to PROPFIND.
type multistatus struct {
	Responses []struct {
		Href     string `xml:"href"`
		Propstat []struct {
			Status string `xml:"status"`
			Prop   struct {
				ResourceType struct {
					Collection *struct{} `xml:"collection"`
				} `xml:"resourcetype"`
				Length       string `xml:"getcontentlength"`
				ETag         string `xml:"getetag"`
				ContentType  string `xml:"getcontenttype"`
				LastModified string `xml:"getlastmodified"`
				DisplayName  string `xml:"displayname"`
			} `xml:"prop"`
		} `xml:"propstat"`
	} `xml:"response"`
}

// entry is one resource of a multistatus: its path (unescaped) and its
// 200 properties.
type entry struct {
	dir                        bool
	length, etag, ctype, mtime string
}

func propfind(t testing.TB, e *env, p, depth string, hdr map[string]string) (int, map[string]entry, []byte) {
	t.Helper()
	h := map[string]string{"Depth": depth}
	for k, v := range hdr {
		h[k] = v
	}
	if depth == "" {
		delete(h, "Depth")
	}
	resp, body := e.do(t, "PROPFIND", p, h, `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`)
	if resp.StatusCode != webdav.StatusMulti {
		return resp.StatusCode, nil, body
	}
	if strings.Contains(string(body), "lockentry") {
		t.Errorf("PROPFIND %s advertises a lock: %s", p, body)
	}
	var ms multistatus
	if err := xml.Unmarshal(body, &ms); err != nil {
		t.Fatalf("PROPFIND %s: %v\n%s", p, err, body)
	}
	out := map[string]entry{}
	for _, r := range ms.Responses {
		u, err := url.Parse(r.Href)
		if err != nil {
			t.Fatal(err)
		}
		var en entry
		for _, ps := range r.Propstat {
			if !strings.Contains(ps.Status, " 200 ") {
				continue
			}
			en.dir = ps.Prop.ResourceType.Collection != nil
			en.length, en.etag, en.ctype, en.mtime = ps.Prop.Length, ps.Prop.ETag, ps.Prop.ContentType, ps.Prop.LastModified
		}
		out[u.Path] = en
	}
	return resp.StatusCode, out, body
}

// expected returns what a PROPFIND of dir (a directory, "" for the root)
// with the given depth (-1: infinity) must list, from the source files.
func expected(files map[string]string, dir string, depth int) map[string]bool {
	want := map[string]bool{"/" + dir: true}
	if dir != "" {
		want["/"+dir+"/"] = true
		delete(want, "/"+dir)
	}
	for slug := range files {
		rel := slug
		if dir != "" {
			if !strings.HasPrefix(slug, dir+"/") {
				continue
			}
			rel = slug[len(dir)+1:]
		}
		parts := strings.Split(rel, "/")
		base := "/"
		if dir != "" {
			base = "/" + dir + "/"
		}
		for i := range parts {
			if depth >= 0 && i >= depth {
				break
			}
			p := base + strings.Join(parts[:i+1], "/")
			if i < len(parts)-1 {
				p += "/"
			}
			want[p] = true
		}
	}
	return want
}

func checkListing(t *testing.T, fsys fs.FS, files map[string]string, got map[string]entry, want map[string]bool, prefix string) {
	t.Helper()
	gotKeys := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	wantKeys := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(prefix + k) {
				return
			}
		}
	})
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("hrefs:\n got %q\nwant %q", gotKeys, wantKeys)
	}
	for href, en := range got {
		p := strings.TrimPrefix(href, prefix)
		if strings.HasSuffix(p, "/") {
			if !en.dir || en.length != "" || en.etag != "" {
				t.Errorf("%s: dir %v length %q etag %q; want a collection without length or etag", href, en.dir, en.length, en.etag)
			}
			name := strings.Trim(p, "/")
			if name == "" {
				name = "."
			}
			if fi, err := fs.Stat(fsys, name); err != nil {
				t.Fatal(err)
			} else if want := lastModified(fi); en.mtime != want {
				t.Errorf("%s: getlastmodified %q; want %q", href, en.mtime, want)
			}
			continue
		}
		slug := strings.TrimPrefix(p, "/")
		content, ok := files[slug]
		if !ok {
			t.Errorf("%s: not a source file", href)
			continue
		}
		fi, err := fs.Stat(fsys, slug)
		if err != nil {
			t.Fatal(err)
		}
		if en.dir || en.length != strconv.Itoa(len(content)) {
			t.Errorf("%s: dir %v getcontentlength %q; want %d", href, en.dir, en.length, len(content))
		}
		if want := attr.ETag(fi); en.etag != want || en.etag == "" {
			t.Errorf("%s: getetag %q; want %q", href, en.etag, want)
		}
		if want := attr.ContentType(path.Base(slug), fi); en.ctype != want {
			t.Errorf("%s: getcontenttype %q; want %q", href, en.ctype, want)
		}
		if want := lastModified(fi); en.mtime != want {
			t.Errorf("%s: getlastmodified %q; want %q", href, en.mtime, want)
		}
	}
}

// lastModified is the getlastmodified of fi: its time in http.TimeFormat,
// or none ("") for a directory whose time is unknown (the zero Time).
func lastModified(fi fs.FileInfo) string {
	if fi.IsDir() && fi.ModTime().IsZero() {
		return ""
	}
	return fi.ModTime().UTC().Format(http.TimeFormat)
}

// TestPropfind: depth 0 and 1 listings match the source files (hrefs,
// sizes, ETags, content types) for each view; depth infinity is refused,
// or complete with AllowInfiniteDepth.
func TestPropfind(t *testing.T) {
	files := corpus(t)
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			ingestFiles(t, store, files)
			for _, prefix := range []string{"", "/dav"} {
				e := newEnv(t, store, files, webdavfs.Options{Prefix: prefix})
				for _, view := range []string{"", "staff"} {
					vis := visible(files, view == "staff")
					hdr := map[string]string{"X-Test-Groups": view}
					for _, dir := range []string{"", "guides", "guides/auth", "reference", "i18n/café"} {
						for _, depth := range []int{0, 1} {
							st, got, body := propfind(t, e, prefix+"/"+dir, strconv.Itoa(depth), hdr)
							if st != webdav.StatusMulti {
								t.Fatalf("PROPFIND %s/%s depth %d = %d %s", prefix, dir, depth, st, body)
							}
							checkListing(t, e.views[view], vis, got, expected(vis, dir, depth), prefix)
						}
					}
					// A file, depth 0 and 1.
					for _, depth := range []string{"0", "1"} {
						st, got, _ := propfind(t, e, prefix+"/reference/api/users.md", depth, hdr)
						if st != webdav.StatusMulti || len(got) != 1 {
							t.Fatalf("PROPFIND file = %d %v", st, got)
						}
						checkListing(t, e.views[view], vis, got, map[string]bool{"/reference/api/users.md": true}, prefix)
					}
					// Private directory: listed for staff only.
					st, _, _ := propfind(t, e, prefix+"/internal", "1", hdr)
					if want := map[string]int{"": 404, "staff": 207}[view]; st != want {
						t.Errorf("view %q: PROPFIND /internal = %d, want %d", view, st, want)
					}
					_, root, _ := propfind(t, e, prefix+"/", "1", hdr)
					if _, ok := root[prefix+"/internal/"]; ok != (view == "staff") {
						t.Errorf("view %q: root listing has internal/ = %v", view, ok)
					}
				}
				// Depth infinity and no Depth: refused with the precondition.
				for _, depth := range []string{"infinity", ""} {
					st, _, body := propfind(t, e, prefix+"/", depth, nil)
					if st != http.StatusForbidden || string(body) != webdavfs.FiniteDepthBody {
						t.Errorf("PROPFIND Depth %q = %d %q; want 403 %q", depth, st, body, webdavfs.FiniteDepthBody)
					}
				}
				if st, _, _ := propfind(t, e, prefix+"/", "2", nil); st != http.StatusBadRequest {
					t.Errorf("PROPFIND Depth 2 = %d, want 400", st)
				}
			}
			// Allowed: the whole tree of the view.
			e := newEnv(t, store, files, webdavfs.Options{AllowInfiniteDepth: true})
			for _, view := range []string{"", "staff"} {
				vis := visible(files, view == "staff")
				for _, depth := range []string{"infinity", ""} {
					st, got, body := propfind(t, e, "/", depth, map[string]string{"X-Test-Groups": view})
					if st != webdav.StatusMulti {
						t.Fatalf("PROPFIND Depth %q = %d %s", depth, st, body)
					}
					checkListing(t, e.views[view], vis, got, expected(vis, "", -1), "")
				}
			}
		})
	}
}

// TestGet: every visible file is served byte for byte with the tree's
// ETag and content type; Range, HEAD and If-None-Match work; hidden and
// missing pages are 404; probe files are 404 without resolving.
func TestGet(t *testing.T) {
	files := corpus(t)
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			ingestFiles(t, store, files)
			e := newEnv(t, store, files, webdavfs.Options{})
			for _, view := range []string{"", "staff"} {
				hdr := map[string]string{"X-Test-Groups": view}
				vis := visible(files, view == "staff")
				for slug, content := range files {
					u := "/" + (&url.URL{Path: slug}).EscapedPath()
					resp, body := e.do(t, "GET", u, hdr, "")
					if _, ok := vis[slug]; !ok {
						if resp.StatusCode != 404 {
							t.Errorf("view %q: GET hidden %s = %d, want 404", view, slug, resp.StatusCode)
						}
						continue
					}
					fi, err := fs.Stat(e.views[view], slug)
					if err != nil {
						t.Fatal(err)
					}
					if resp.StatusCode != 200 || string(body) != content {
						t.Fatalf("GET %s = %d, %d bytes; want 200, %d bytes", slug, resp.StatusCode, len(body), len(content))
					}
					if got, want := resp.Header.Get("ETag"), attr.ETag(fi); got != want {
						t.Errorf("GET %s: ETag %q, want %q", slug, got, want)
					}
					if got, want := resp.Header.Get("Content-Type"), attr.ContentType(path.Base(slug), fi); got != want {
						t.Errorf("GET %s: Content-Type %q, want %q", slug, got, want)
					}
					resp, body = e.do(t, "HEAD", u, hdr, "")
					if resp.StatusCode != 200 || len(body) != 0 || resp.ContentLength != int64(len(content)) {
						t.Errorf("HEAD %s = %d, Content-Length %d; want 200, %d", slug, resp.StatusCode, resp.ContentLength, len(content))
					}
					resp, _ = e.do(t, "GET", u, map[string]string{"X-Test-Groups": view, "If-None-Match": attr.ETag(fi)}, "")
					if resp.StatusCode != http.StatusNotModified {
						t.Errorf("GET %s If-None-Match = %d, want 304", slug, resp.StatusCode)
					}
				}
			}
			big := files["reference/big.md"]
			resp, body := e.do(t, "GET", "/reference/big.md", map[string]string{"Range": "bytes=100-199"}, "")
			if resp.StatusCode != http.StatusPartialContent || string(body) != big[100:200] {
				t.Errorf("Range = %d %q", resp.StatusCode, body)
			}
			for _, p := range []string{"/missing.md", "/internal/oncall.md", "/guides/nope/x.md", "/%2e%2e/etc/passwd"} {
				if resp, _ := e.do(t, "GET", p, nil, ""); resp.StatusCode != 404 {
					t.Errorf("GET %s = %d, want 404", p, resp.StatusCode)
				}
			}
			if resp, _ := e.do(t, "GET", "/guides/", nil, ""); resp.StatusCode != 405 || resp.Header.Get("Allow") == "" {
				t.Errorf("GET dir = %d Allow %q, want 405", resp.StatusCode, resp.Header.Get("Allow"))
			}
			// Probe files: 404, resolve not called.
			n := e.resolved.Load()
			for _, p := range []string{"/._index.md", "/.DS_Store", "/guides/.DS_Store", "/guides/desktop.ini", "/Desktop.ini", "/Thumbs.db", "/guides/._auth/x"} {
				for _, m := range []string{"GET", "HEAD", "PROPFIND"} {
					if resp, _ := e.do(t, m, p, map[string]string{"Depth": "0"}, ""); resp.StatusCode != 404 {
						t.Errorf("%s %s = %d, want 404", m, p, resp.StatusCode)
					}
				}
			}
			if got := e.resolved.Load(); got != n {
				t.Errorf("probe requests resolved a filesystem %d times", got-n)
			}
			// Resolve error: 500 with a generic body.
			resp, body = e.do(t, "GET", "/index.md", map[string]string{"X-Test-Groups": "broken"}, "")
			if resp.StatusCode != 500 || strings.Contains(string(body), "secret") {
				t.Errorf("resolve error: %d %q", resp.StatusCode, body)
			}
		})
	}
}

// counting wraps a store and counts content requests.
type counting struct {
	collection.Store
	content atomic.Int64
}

func (c *counting) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	c.content.Add(1)
	return c.Store.Chunks(ctx, l, slugs)
}

func (c *counting) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	c.content.Add(1)
	return c.Store.(collection.IDReader).ChunksByID(ctx, l, ids)
}

// manyPages returns n pages in one directory, plus a page elsewhere.
func manyPages(n int) map[string]string {
	files := map[string]string{"index.md": "# Index\n"}
	for i := range n {
		files[fmt.Sprintf("pages/page-%04d.md", i)] = fmt.Sprintf("# Page %d\n%s\n", i, strings.Repeat("text ", i%50))
	}
	return files
}

// TestPropfindFetchesNoContent: a depth-1 PROPFIND over a directory of
// 1,000 pages sends no content request to the store (memstore's counts and
// a counting wrapper over real Chroma).
func TestPropfindFetchesNoContent(t *testing.T) {
	files := manyPages(1000)
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			ingestFiles(t, store, files)
			c := &counting{Store: store}
			fsys, err := chromafs.New(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			mem, _ := store.(*memstore.Store)
			if mem != nil {
				mem.ResetRequests()
			}
			srv := httptest.NewServer(webdavfs.NewHandler(func(*http.Request) (fs.FS, error) { return fsys, nil }, webdavfs.Options{}))
			defer srv.Close()
			e := &env{srv: srv, views: map[string]*chromafs.FS{"": fsys}}
			st, got, body := propfind(t, e, "/pages/", "1", nil)
			if st != webdav.StatusMulti {
				t.Fatalf("PROPFIND = %d %s", st, body)
			}
			checkListing(t, fsys, files, got, expected(files, "pages", 1), "")
			for _, p := range []string{"/", "/pages/page-0001.md"} {
				if st, _, _ := propfind(t, e, p, "1", nil); st != webdav.StatusMulti {
					t.Fatalf("PROPFIND %s = %d", p, st)
				}
			}
			if resp, _ := e.do(t, "HEAD", "/pages/page-0002.md", nil, ""); resp.StatusCode != 200 {
				t.Fatalf("HEAD = %d", resp.StatusCode)
			}
			if n := c.content.Load(); n != 0 {
				t.Errorf("PROPFIND and HEAD sent %d content requests", n)
			}
			if mem != nil {
				if r := mem.Requests(); r.Chunks+r.ChunksByID+r.Scan+r.Search != 0 {
					t.Errorf("memstore requests: %+v", r)
				}
			}
			// A GET does fetch.
			if resp, _ := e.do(t, "GET", "/pages/page-0003.md", nil, ""); resp.StatusCode != 200 || c.content.Load() == 0 {
				t.Errorf("GET = %d after %d content requests", resp.StatusCode, c.content.Load())
			}
		})
	}
}

// TestChromaDown: with Chroma stopped, GET of an uncached page is a 503
// with Retry-After (never a 200 with partial content) while listings, which need no
// content, still work; after a restart GET works again.
func TestChromaDown(t *testing.T) {
	srv := testenv.NewChroma(t)
	files := corpus(t)
	store := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL})
	ingestFiles(t, store, files)
	e := newEnv(t, store, files, webdavfs.Options{})
	if resp, body := e.do(t, "GET", "/index.md", nil, ""); resp.StatusCode != 200 || string(body) != files["index.md"] {
		t.Fatalf("GET before stop = %d", resp.StatusCode)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/reference/big.md", "/guides/quickstart.md"} {
		resp, body := e.do(t, "GET", p, nil, "")
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
			t.Errorf("GET %s with Chroma down = %d (%d bytes); want 503 with Retry-After", p, resp.StatusCode, len(body))
		}
	}
	if resp, _ := e.do(t, "GET", "/reference/big.md", map[string]string{"Range": "bytes=0-9"}, ""); resp.StatusCode != 503 {
		t.Errorf("Range GET with Chroma down = %d; want 503", resp.StatusCode)
	}
	if st, _, _ := propfind(t, e, "/guides/", "1", nil); st != webdav.StatusMulti {
		t.Errorf("PROPFIND with Chroma down = %d; want 207 (metadata only)", st)
	}
	if resp, body := e.do(t, "GET", "/index.md", nil, ""); resp.StatusCode != 200 || string(body) != files["index.md"] {
		t.Errorf("GET of a cached page with Chroma down = %d", resp.StatusCode)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if resp, body := e.do(t, "GET", "/reference/big.md", nil, ""); resp.StatusCode != 200 || string(body) != files["reference/big.md"] {
		t.Errorf("GET after restart = %d", resp.StatusCode)
	}
}

// TestFileSystem: the webdav.FileSystem refuses every write with
// fscap.ErrReadOnly, and its files and infos carry ETag and content
// type.
func TestFileSystem(t *testing.T) {
	files := corpus(t)
	mem := memstore.New("fs")
	ingestFiles(t, mem, files)
	fsys, err := chromafs.New(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	w := webdavfs.NewFileSystem(fsys)
	ctx := context.Background()
	isRO := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, fscap.ErrReadOnly) || !errors.Is(err, fs.ErrPermission) || !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s: error %v; want read-only", op, err)
		}
	}
	isRO("Mkdir", w.Mkdir(ctx, "/x", 0o755))
	isRO("RemoveAll", w.RemoveAll(ctx, "/index.md"))
	isRO("Rename", w.Rename(ctx, "/index.md", "/y.md"))
	for _, flag := range []int{os.O_WRONLY, os.O_RDWR, os.O_RDONLY | os.O_CREATE, os.O_APPEND, os.O_TRUNC, os.O_WRONLY | os.O_CREATE | os.O_EXCL} {
		_, err := w.OpenFile(ctx, "/index.md", flag, 0o644)
		isRO(fmt.Sprintf("OpenFile(%#x)", flag), err)
	}
	mem.ResetRequests()
	f, err := w.OpenFile(ctx, "/index.md", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if et, err := fi.(webdav.ETager).ETag(ctx); err != nil || !strings.HasPrefix(et, `"`) {
		t.Errorf("ETag = %q, %v", et, err)
	}
	if ct, err := f.(webdav.ContentTyper).ContentType(ctx); err != nil || ct != "text/markdown; charset=utf-8" {
		t.Errorf("ContentType = %q, %v", ct, err)
	}
	if e, ok := fi.Sys().(*tree.Entry); !ok || e == nil {
		t.Errorf("Sys() = %T; want the page's *tree.Entry", fi.Sys())
	}
	if r := mem.Requests(); r.Chunks+r.ChunksByID != 0 {
		t.Errorf("OpenFile and Stat fetched content: %+v", r)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, fscap.ErrReadOnly) {
		t.Errorf("Write: %v", err)
	}
	if n, err := f.Seek(0, io.SeekEnd); err != nil || n != int64(len(files["index.md"])) {
		t.Errorf("Seek end = %d, %v", n, err)
	}
	f.Seek(0, io.SeekStart)
	data, err := io.ReadAll(f)
	if err != nil || string(data) != files["index.md"] {
		t.Errorf("Read = %q, %v", data, err)
	}
	f.Close()
	for _, name := range []string{"/missing", "/internal/oncall.md", "/a/../../b"} {
		if _, err := w.Stat(ctx, name); !os.IsNotExist(err) {
			t.Errorf("Stat(%s) = %v; want not exist", name, err)
		}
		if _, err := w.OpenFile(ctx, name, os.O_RDONLY, 0); !os.IsNotExist(err) {
			t.Errorf("OpenFile(%s) = %v; want not exist", name, err)
		}
	}
	d, err := w.OpenFile(ctx, "/guides", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for {
		infos, err := d.Readdir(1)
		for _, fi := range infos {
			names = append(names, fi.Name())
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(names, []string{"auth", "quickstart.md"}) {
		t.Errorf("Readdir = %q", names)
	}
	d.Close()
}

// TestNoLocks: the handler's lock system grants nothing, and LOCK never
// returns a lock token.
func TestNoLocks(t *testing.T) {
	mem := memstore.New("locks")
	ingestFiles(t, mem, map[string]string{"a.md": "a"})
	e := newEnv(t, mem, nil, webdavfs.Options{})
	for _, p := range []string{"/a.md", "/b.md", "/"} {
		resp, body := e.do(t, "LOCK", p, map[string]string{"Depth": "0"}, `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>x</D:owner></D:lockinfo>`)
		if resp.StatusCode != 405 || resp.Header.Get("Lock-Token") != "" || strings.Contains(string(body), "locktoken") {
			t.Errorf("LOCK %s = %d, token %q", p, resp.StatusCode, resp.Header.Get("Lock-Token"))
		}
	}
}
