package webdavfs_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/net/webdav"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/memstore"
)

// propfindCases are PROPFIND bodies for the differential test: the three
// forms (allprop, also as an empty body and with include; propname; prop
// with live, collection-less, hidden, foreign-namespace and no-namespace
// properties) and some spellings of them.
var propfindCases = []struct{ name, body string }{
	{"allprop", `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`},
	{"empty", ``},
	{"propname", `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>`},
	{"prop", `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop>` +
		`<D:getetag/><D:displayname/><D:getcontentlength/><D:resourcetype/><D:creationdate/><D:lockdiscovery/>` +
		`<D:getcontentlanguage/><x:color xmlns:x="urn:example:x"/><plain xmlns=""/><D:getcontenttype/>` +
		`<D:getlastmodified/><D:supportedlock/><D:nosuchprop/></D:prop></D:propfind>`},
	{"prop-client", propfindBodies[1].body},
	{"prop-unknown", `<D:propfind xmlns:D="DAV:"><D:prop><x:a xmlns:x="urn:a&amp;b"/><D:quota-used-bytes/></D:prop></D:propfind>`},
	{"allprop-include", `<D:propfind xmlns:D="DAV:"><D:allprop/><D:include><D:getetag/><D:creationdate/><x:color xmlns:x="urn:example:x"/></D:include></D:propfind>`},
	{"default-ns", "<?xml version=\"1.0\"?>\n<!-- comment --><propfind xmlns=\"DAV:\">\n  <prop>\n    <getetag/>\n    <!-- c --><displayname></displayname>\n  </prop>\n  <vendor xmlns=\"urn:v\">ignored</vendor>\n</propfind>\n"},
}

// invalidPropfinds are bodies both handlers refuse.
var invalidPropfinds = []string{
	`<D:propfind`,
	"  \n",
	`not xml`,
	`<D:propfind xmlns:D="DAV:"/>`,
	`<D:propfind xmlns:D="DAV:"><D:prop/></D:propfind>`,
	`<D:propfind xmlns:D="DAV:"><D:prop><D:getetag>v</D:getetag></D:prop></D:propfind>`,
	`<D:propfind xmlns:D="DAV:"><D:allprop/><D:propname/></D:propfind>`,
	`<D:propfind xmlns:D="DAV:"><D:allprop/><D:prop><D:getetag/></D:prop></D:propfind>`,
	`<D:propfind xmlns:D="DAV:"><D:propname/><D:prop><D:getetag/></D:prop></D:propfind>`,
	`<D:propfind xmlns:D="DAV:"><D:include><D:getetag/></D:include></D:propfind>`,
	`<x:propfind xmlns:x="urn:x"><x:allprop/></x:propfind>`,
}

// oddFS has names that need URL and XML escaping, invalid UTF-8 and
// control characters, and times in other zones.
func oddFS() fstest.MapFS {
	t0 := time.Date(2024, 2, 29, 13, 4, 5, 123456789, time.FixedZone("X", 5*3600))
	m := fstest.MapFS{}
	for i, name := range []string{
		"top.md", "README", "odd/a&b.md", "odd/it's (1).md", "odd/sp ace.txt", "odd/ü.md",
		"odd/q?x.md", "odd/100%.md", "odd/semi;colon=x+y@z,w$.md", "odd/img.png", "odd/data.json",
		"odd/<tag>.md", "odd/#frag.md", "odd/tab\tname.md", "odd/ctl\x01.md", "odd/bad\xff.md",
		"odd/quote\".md", "odd/sub/deep.md", "odd/sub/deeper/x.html", "empty/.keep", "日本/語.md",
	} {
		m[name] = &fstest.MapFile{Data: []byte(strings.Repeat("x", i*7)), Mode: 0o644, ModTime: t0.Add(time.Duration(i) * time.Hour)}
	}
	return m
}

// propstats is a parsed multistatus: for each href, for each status, the
// properties ("{namespace}local=value") it lists, sorted.
type propstats map[string]map[string][]string

// zeroTime is webdav.Handler's getlastmodified for the zero Time.
const zeroTime = "Mon, 01 Jan 0001 00:00:00 GMT"

func parseMultistatus(body []byte, ref bool) (propstats, error) {
	out := propstats{}
	d := xml.NewDecoder(strings.NewReader(string(body)))
	var href, status string
	var props []string
	inHref, inStatus := false, false
	cur := map[string][]string{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch {
			case tok.Name == xml.Name{Space: "DAV:", Local: "response"}:
				href, cur = "", map[string][]string{}
			case tok.Name == xml.Name{Space: "DAV:", Local: "href"}:
				inHref = true
			case tok.Name == xml.Name{Space: "DAV:", Local: "status"}:
				inStatus = true
			case tok.Name == xml.Name{Space: "DAV:", Local: "propstat"}:
				status, props = "", nil
			case tok.Name == xml.Name{Space: "DAV:", Local: "prop"}:
				for {
					t, err := d.Token()
					if err != nil {
						return nil, err
					}
					if _, ok := t.(xml.EndElement); ok {
						break
					}
					se, ok := t.(xml.StartElement)
					if !ok {
						continue
					}
					v, err := innerValue(d)
					if err != nil {
						return nil, err
					}
					name := "{" + se.Name.Space + "}" + se.Name.Local
					if ref && name == "{DAV:}supportedlock" {
						// webdav.Handler advertises a write lock; the
						// handler, which grants none, an empty list.
						v = ""
					}
					props = append(props, name+"="+v)
				}
			}
		case xml.CharData:
			if inHref {
				href += string(tok)
			}
			if inStatus {
				status += string(tok)
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "href":
				inHref = false
			case "status":
				inStatus = false
			case "propstat":
				slices.Sort(props)
				cur[status] = append(cur[status], props...)
			case "response":
				if strings.HasSuffix(href, "/") {
					// A directory's unknown time: webdav.Handler answers
					// the zero Time, the handler leaves the property
					// out, or lists it in the 404 propstat when named
					// (see TestPropfindUnknownTimes).
					for status, props := range cur {
						props = slices.DeleteFunc(props, func(p string) bool {
							return ref && p == "{DAV:}getlastmodified="+zeroTime ||
								!ref && strings.Contains(status, " 404 ") && p == "{DAV:}getlastmodified="
						})
						if len(props) == 0 {
							delete(cur, status)
						} else {
							cur[status] = props
						}
					}
				}
				if _, dup := out[href]; dup {
					return nil, fmt.Errorf("href %q listed twice", href)
				}
				out[href] = cur
			}
		}
	}
}

// innerValue reads the content of the element just started, up to its
// end, as a canonical string: elements by namespace and local name, text
// as it is.
func innerValue(d *xml.Decoder) (string, error) {
	var b strings.Builder
	for depth := 0; ; {
		t, err := d.Token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			fmt.Fprintf(&b, "<{%s}%s>", t.Name.Space, t.Name.Local)
		case xml.EndElement:
			if depth == 0 {
				return b.String(), nil
			}
			depth--
			b.WriteString("</>")
		case xml.CharData:
			b.Write(t)
		}
	}
}

func doPropfind(t *testing.T, srv *httptest.Server, p, depth, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("PROPFIND", srv.URL+p, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if depth != "" {
		req.Header.Set("Depth", depth)
	}
	resp, err := srv.Client().Do(req)
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

// TestPropfindDifferential compares the handler's PROPFIND answers with
// webdav.Handler's over the same filesystems (a chromafs view and a
// MapFS with awkward names), with and without a prefix, for every form of
// request at depths 0, 1 and infinity: same status, same hrefs (byte for
// byte), same properties with the same values and statuses, in any order
// and with any namespace prefixes. The intended differences:
// DAV:supportedlock is empty (no lock is granted), and getlastmodified is
// left out for directories whose modification time is unknown (MapFS's
// implicit directories, a tree without times), where webdav.Handler
// answers the zero Time.
func TestPropfindDifferential(t *testing.T) {
	files := corpus(t)
	mem := memstore.New("differential")
	ingestFiles(t, mem, files)
	view, err := chromafs.New(context.Background(), mem, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	odd := oddFS()
	var oddPaths []string
	fs.WalkDir(odd, ".", func(p string, d fs.DirEntry, err error) error {
		if p == "." {
			p = ""
		}
		oddPaths = append(oddPaths, "/"+(&url.URL{Path: p}).EscapedPath())
		return err
	})
	filesystems := []struct {
		name  string
		fsys  fs.FS
		paths []string
	}{
		{"chromafs", view, []string{
			"/", "/guides", "/guides/", "/guides/auth/", "/i18n/caf%C3%A9/", "/i18n/caf%C3%A9",
			"/i18n/caf%C3%A9/r%C3%A9sum%C3%A9.md", "/api/users", "/api/", "/reference/api/users.md",
			"/empty.md", "/.well-known/", "/internal/", "/internal/secret/plan.md", "/index.md/",
			"/missing.md", "/guides/missing/",
		}},
		{"mapfs", odd, append(oddPaths, "/missing", "/odd/missing/x")},
	}
	compared, entries := 0, 0
	for _, fsys := range filesystems {
		for _, prefix := range []string{"", "/dav"} {
			t.Run(fsys.name+"/prefix="+prefix, func(t *testing.T) {
				ours := httptest.NewServer(webdavfs.NewHandler(func(*http.Request) (fs.FS, error) { return fsys.fsys, nil },
					webdavfs.Options{Prefix: prefix, AllowInfiniteDepth: true}))
				defer ours.Close()
				ref := httptest.NewServer(&webdav.Handler{Prefix: prefix, FileSystem: webdavfs.NewFileSystem(fsys.fsys), LockSystem: webdav.NewMemLS()})
				defer ref.Close()
				check := func(p, depth, body string) {
					t.Helper()
					r1, b1 := doPropfind(t, ours, prefix+p, depth, body)
					r2, b2 := doPropfind(t, ref, prefix+p, depth, body)
					if r1.StatusCode != r2.StatusCode {
						t.Errorf("PROPFIND %s depth %q %.40q: status %d, webdav.Handler %d", p, depth, body, r1.StatusCode, r2.StatusCode)
						return
					}
					if r1.StatusCode != webdav.StatusMulti {
						return
					}
					if c1, c2 := r1.Header.Get("Content-Type"), r2.Header.Get("Content-Type"); c1 != c2 {
						t.Errorf("PROPFIND %s: Content-Type %q, webdav.Handler %q", p, c1, c2)
					}
					m1, err := parseMultistatus(b1, false)
					if err != nil {
						t.Fatalf("PROPFIND %s depth %s: %v\n%s", p, depth, err, b1)
					}
					m2, err := parseMultistatus(b2, true)
					if err != nil {
						t.Fatalf("webdav.Handler PROPFIND %s depth %s: %v\n%s", p, depth, err, b2)
					}
					compared++
					entries += len(m1)
					for href, want := range m2 {
						got, ok := m1[href]
						if !ok {
							t.Errorf("PROPFIND %s depth %s %.40q: no href %q (have %q)", p, depth, body, href, slices.Sorted(mapKeys(m1)))
							continue
						}
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Errorf("PROPFIND %s depth %s %.40q, %s:\n got %q\nwant %q", p, depth, body, href, got, want)
						}
					}
					for href := range m1 {
						if _, ok := m2[href]; !ok {
							t.Errorf("PROPFIND %s depth %s: extra href %q", p, depth, href)
						}
					}
				}
				for _, p := range fsys.paths {
					for _, c := range propfindCases {
						for _, depth := range []string{"0", "1"} {
							check(p, depth, c.body)
						}
					}
				}
				for _, c := range propfindCases {
					for _, depth := range []string{"infinity", ""} {
						check("/", depth, c.body)
					}
				}
				for _, body := range invalidPropfinds {
					check("/", "1", body)
					check("/missing-dir/", "1", body)
				}
			})
		}
	}
	t.Logf("%d multistatus answers with %d responses compared", compared, entries)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
