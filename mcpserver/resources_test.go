package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/memstore"
)

// listAll lists the resources page by page, checking that no answer
// holds more than mcpserver.ResourcePageSize, and returns them in order
// with the number of answers.
func (c *client) listAll() ([]*mcp.Resource, int) {
	c.t.Helper()
	var all []*mcp.Resource
	cursor := ""
	for n := 1; ; n++ {
		res, err := c.cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			c.t.Fatalf("resources/list cursor %q: %v", cursor, err)
		}
		if len(res.Resources) > mcpserver.ResourcePageSize {
			c.t.Fatalf("resources/list: %d resources in one answer, more than %d", len(res.Resources), mcpserver.ResourcePageSize)
		}
		if res.CacheScope != "private" {
			c.t.Errorf("resources/list: cache scope %q, want private (the list is the user's)", res.CacheScope)
		}
		all = append(all, res.Resources...)
		if res.NextCursor == "" {
			return all, n
		}
		if len(res.Resources) == 0 {
			c.t.Fatalf("resources/list: an empty answer with a cursor")
		}
		cursor = res.NextCursor
	}
}

// readURI reads a resource and returns its text, or the JSON-RPC error.
func (c *client) readURI(uri string) (string, *jsonrpc.Error) {
	c.t.Helper()
	res, err := c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			c.t.Fatalf("resources/read %s: %v, not a JSON-RPC error", uri, err)
		}
		return "", je
	}
	if len(res.Contents) != 1 {
		c.t.Fatalf("resources/read %s: %d contents, want 1", uri, len(res.Contents))
	}
	if res.CacheScope != "private" {
		c.t.Errorf("resources/read %s: cache scope %q, want private (the page is of the user's view)", uri, res.CacheScope)
	}
	if res.Contents[0].URI != uri {
		c.t.Errorf("resources/read %s: content of URI %s", uri, res.Contents[0].URI)
	}
	return res.Contents[0].Text, nil
}

func wantMIME(name string) string {
	if strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".mdx") {
		return "text/markdown"
	}
	return "text/plain"
}

// TestResources lists and reads the resources of a public and a staff
// view of the corpus, on memstore and real Chroma: the list is exactly
// the user's pages (never one of internal/ for the public user) in walk
// order, each with its URI, name, MIME type and size; each reads back as
// its source; a hidden page reads as a missing one does, the same words
// for the same place.
func TestResources(t *testing.T) {
	for _, v := range views(t) {
		t.Run(v.name, func(t *testing.T) {
			c := connect(t, v.fsys, mcpserver.Config{})
			got, _ := c.listAll()
			var names []string
			for _, r := range got {
				name := strings.TrimPrefix(r.Name, "/")
				names = append(names, name)
				if r.URI != mcpserver.PageURI(name) || !strings.HasPrefix(r.URI, "chromafs:///") {
					t.Errorf("%s: URI %q", r.Name, r.URI)
				}
				if r.MIMEType != wantMIME(name) {
					t.Errorf("%s: MIME type %q, want %q", r.Name, r.MIMEType, wantMIME(name))
				}
				if want, ok := v.files[name]; !ok {
					t.Errorf("listed %s, which the user may not see", r.Name)
				} else {
					if r.Size != 0 && r.Size != int64(len(want)) {
						t.Errorf("%s: size %d, want %d", r.Name, r.Size, len(want))
					}
					text, jerr := c.readURI(r.URI)
					if jerr != nil || text != want {
						t.Errorf("read %s: %q %v, want %q", r.URI, text, jerr, want)
					}
				}
			}
			var want []string
			_ = fs.WalkDir(fstestOf(v.files), ".", func(name string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					want = append(want, name)
				}
				return nil
			})
			if !slices.Equal(names, want) {
				t.Errorf("resources/list:\n%q\nwant (walk order)\n%q", names, want)
			}
			for slug := range v.all {
				if _, ok := v.files[slug]; ok {
					continue
				}
				// A hidden page answers as a missing page beside it.
				twin := slug[:strings.LastIndex(slug, "/")+1] + "zz-missing-" + slug[strings.LastIndex(slug, "/")+1:]
				_, a := c.readURI(mcpserver.PageURI(slug))
				_, b := c.readURI(mcpserver.PageURI(twin))
				if a == nil || b == nil {
					t.Fatalf("read of hidden %s: %v, of missing %s: %v", slug, a, twin, b)
				}
				if a.Code != b.Code || strings.ReplaceAll(a.Message, slug, "P") != strings.ReplaceAll(b.Message, twin, "P") {
					t.Errorf("hidden %s: %d %q; missing %s: %d %q", slug, a.Code, a.Message, twin, b.Code, b.Message)
				}
				if a.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("hidden %s: code %d, want %d", slug, a.Code, jsonrpc.CodeInvalidParams)
				}
			}
		})
	}
}

// fstestOf is files as an fs.FS.
func fstestOf(files map[string]string) fs.FS {
	m := fstest.MapFS{}
	for name, content := range files {
		m[name] = &fstest.MapFile{Data: []byte(content)}
	}
	return m
}

// odd are page names that sort differently by path and by walk order
// ("a-c" < "a/b" as strings, but the directory a comes first), or that
// need percent-encoding in a URI.
var odd = []string{"a/b.md", "a-c.md", "a b/c%d.md", "a b/é ü.txt", "a/b/c/d.mdx", "q?#x.md", "z~_.-"}

// pagedFS is a memstore collection of n pages and the odd ones, read
// through chromafs.
func pagedFS(t *testing.T, n int) (*chromafs.FS, map[string]string) {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("d%d/p%04d.md", i%7, i)] = fmt.Sprintf("page %d\n", i)
	}
	for _, o := range odd {
		files[o] = "odd " + o + "\n"
	}
	store := memstore.New(t.Name())
	testcorpus.Ingest(t, store, files)
	fsys, err := chromafs.New(context.Background(), store, chromafs.WithShared(chromafs.NewShared(0)))
	if err != nil {
		t.Fatal(err)
	}
	return fsys, files
}

// TestResourcesPaginate lists 1,207 pages of memstore: three answers of
// at most ResourcePageSize, every page once, in walk order, and a cursor
// that is not one an answer gave is an invalid-params error.
func TestResourcesPaginate(t *testing.T) {
	fsys, files := pagedFS(t, 1200)
	c := connect(t, fsys, mcpserver.Config{})
	got, answers := c.listAll()
	if answers != 3 {
		t.Errorf("%d answers, want 3", answers)
	}
	var names, want []string
	for _, r := range got {
		names = append(names, strings.TrimPrefix(r.Name, "/"))
	}
	_ = fs.WalkDir(fstestOf(files), ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			want = append(want, name)
		}
		return nil
	})
	if !slices.Equal(names, want) {
		t.Errorf("%d resources listed, want %d in walk order; first differences: %q", len(names), len(want), firstDiff(names, want))
	}
	for _, cursor := range []string{"not base64!", "Li4v", "Lw"} { // "../", "/"
		_, err := c.cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "nextCursor") {
			t.Errorf("cursor %q: %v, want invalid params naming nextCursor", cursor, err)
		}
	}
}

func isASCII(s string) bool {
	for _, c := range []byte(s) {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func firstDiff(a, b []string) []string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return []string{a[i], b[i]}
		}
	}
	return nil
}

// TestResourceURIs reads the odd pages by the URIs resources/list gives,
// which are the template's RFC 6570 expansion of their paths, and by
// other encodings of the same path; and checks the answer to URIs that
// name no page: missing pages, a directory, and malformed URIs, each
// with words that say what to send instead.
func TestResourceURIs(t *testing.T) {
	fsys, files := pagedFS(t, 3)
	c := connect(t, fsys, mcpserver.Config{})
	tpl, err := c.cs.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != mcpserver.ResourceTemplate {
		t.Fatalf("templates: %+v, want one of %s", tpl.ResourceTemplates, mcpserver.ResourceTemplate)
	}
	tmpl, err := uritemplate.New(tpl.ResourceTemplates[0].URITemplate)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range odd {
		uri := mcpserver.PageURI(o)
		exp, err := tmpl.Expand(uritemplate.Values{"path": uritemplate.String(o)})
		if err != nil {
			t.Fatal(err)
		}
		// {+path} keeps ? and # as they are; and the template library
		// (the SDK's) encodes é as %E9, not as UTF-8 (%C3%A9) as RFC
		// 6570 wants, though it matches the UTF-8 form below.
		if exp != uri && o != "q?#x.md" && isASCII(o) {
			t.Errorf("%s: template expands to %q, PageURI %q", o, exp, uri)
		}
		if m := tmpl.Match(uri); m == nil {
			t.Errorf("%s: the template does not match %q", o, uri)
		}
		if text, jerr := c.readURI(uri); jerr != nil || text != files[o] {
			t.Errorf("read %s: %q %v, want %q", uri, text, jerr, files[o])
		}
	}
	for _, uri := range []string{"CHROMAFS:///a/b.md", "chromafs:///%61/b.md", "chromafs:///a%20b/c%25d.md", "chromafs:///a b/c%25d.md"} {
		if _, jerr := c.readURI(uri); jerr != nil {
			t.Errorf("read %s: %v", uri, jerr)
		}
	}
	for _, tc := range []struct {
		uri  string
		code int64
		want string
	}{
		{"chromafs:///nowhere.md", jsonrpc.CodeInvalidParams, "/nowhere.md: no such file or directory (ls / shows"},
		{"chromafs:///a/nowhere.md", jsonrpc.CodeInvalidParams, "/a/nowhere.md: no such file or directory (ls /a shows"},
		{"chromafs:///a", jsonrpc.CodeInvalidParams, "/a is a directory, not a page: resources/list lists the pages"},
		{"chromafs:///", jsonrpc.CodeInvalidParams, "names the root, a directory"},
		{"file:///a/b.md", jsonrpc.CodeInvalidParams, "is not a chromafs URI: the pages are chromafs:///path"},
		{"/a/b.md", jsonrpc.CodeInvalidParams, "is not a chromafs URI"},
		{"chromafs://host/a/b.md", jsonrpc.CodeInvalidParams, "three slashes and no host"},
		{"chromafs:a/b.md", jsonrpc.CodeInvalidParams, "three slashes and no host"},
		{"chromafs:///a/../a/b.md", jsonrpc.CodeInvalidParams, `has an empty, "." or ".." element`},
		{"chromafs:///%2e%2e/a/b.md", jsonrpc.CodeInvalidParams, `has an empty, "." or ".." element`},
		{"chromafs:////a/b.md", jsonrpc.CodeInvalidParams, `has an empty, "." or ".." element`},
		{"chromafs:///a/b.md/", jsonrpc.CodeInvalidParams, `ends with /`},
		{"chromafs:///a%2Fb.md", jsonrpc.CodeInvalidParams, "decodes to '/'"},
		{"chromafs:///a%0Ab.md", jsonrpc.CodeInvalidParams, "decodes to '\\n'"},
		{"chromafs:///a%zzb.md", jsonrpc.CodeInvalidParams, "not followed by two hexadecimal digits; a % in a path is written %25"},
		{"chromafs:///a/b.md%2", jsonrpc.CodeInvalidParams, "not followed by two hexadecimal digits"},
		{"chromafs:///%ff.md", jsonrpc.CodeInvalidParams, "not valid UTF-8"},
		{"chromafs:///a/b.md?x=1", jsonrpc.CodeInvalidParams, "no query or fragment; a ? in a path is written %3F"},
		{"chromafs:///q?#x.md", jsonrpc.CodeInvalidParams, "no query or fragment"},
	} {
		text, jerr := c.readURI(tc.uri)
		if jerr == nil {
			t.Errorf("read %s: %q, want an error", tc.uri, text)
			continue
		}
		if jerr.Code != tc.code || !strings.Contains(jerr.Message, tc.want) {
			t.Errorf("read %s: %d %q, want %d with %q", tc.uri, jerr.Code, jerr.Message, tc.code, tc.want)
		}
	}
}

// TestResourceCut reads pages longer than MaxResourceBytes: the text is
// cut at the end of the last whole line within the bound (or before the
// rune the bound splits, on a page of one line), and a last line says
// where and how to read the rest, with the tool that is served.
func TestResourceCut(t *testing.T) {
	long := strings.Repeat("0123456789\n", 20) // 220 bytes, 20 lines
	files := fstest.MapFS{
		"long.md": {Data: []byte(long)},
		"one.md":  {Data: []byte(strings.Repeat("é", 100))},
		"fits.md": {Data: []byte(long[:100])},
	}
	for _, tc := range []struct {
		tools []string
		hint  string
	}{
		{nil, "; read path=/long.md offset=10 reads the rest]"},
		{[]string{"bash"}, "; bash: sed -n '10,$p' /long.md prints the rest]"},
		{[]string{"ls"}, "resources/read returns at most 105 bytes of a page]"},
	} {
		c := connect(t, files, mcpserver.Config{MaxResourceBytes: 105, Tools: tc.tools})
		text, jerr := c.readURI("chromafs:///long.md")
		want := long[:99] + "\n[/long.md cut after 99 bytes (line 9): resources/read returns at most 105 bytes of a page"
		if jerr != nil || !strings.HasPrefix(text, want) || !strings.HasSuffix(text, tc.hint+"\n") {
			t.Errorf("tools %q: read long.md: %q %v\nwant %q...%q", tc.tools, text, jerr, want, tc.hint)
		}
		text, jerr = c.readURI("chromafs:///one.md")
		if jerr != nil || !strings.HasPrefix(text, strings.Repeat("é", 52)+"\n\n[/one.md cut after 104 bytes (line 0)") {
			t.Errorf("read one.md: %q %v", text, jerr)
		}
		if text, jerr := c.readURI("chromafs:///fits.md"); jerr != nil || text != long[:100] {
			t.Errorf("read fits.md: %q %v", text, jerr)
		}
	}
}

// TestResourceSuffix: with a site's tool suffix, resources/read's
// errors and cut notes name the tools as they are served.
func TestResourceSuffix(t *testing.T) {
	files := fstest.MapFS{
		"a/b.md":  {Data: []byte("b\n")},
		"long.md": {Data: []byte(strings.Repeat("0123456789\n", 20))},
	}
	c := connect(t, files, mcpserver.Config{MaxResourceBytes: 105, NameSuffix: "zz"})
	if _, jerr := c.readURI("chromafs:///a/nowhere.md"); jerr == nil || !strings.Contains(jerr.Message, "(ls_zz /a shows what /a holds)") {
		t.Errorf("read a missing page: %v, want the hint to name ls_zz", jerr)
	}
	if text, jerr := c.readURI("chromafs:///long.md"); jerr != nil || !strings.Contains(text, "; read_zz path=/long.md offset=10 reads the rest]") {
		t.Errorf("read a long page: %q %v, want the note to name read_zz", text, jerr)
	}
}

// TestResourcesChanged: with Config.Resources, resources/list and
// resources/read answer from the filesystem it gives at each request
// (the session's tools keep theirs), and the function NewNotifying
// returns sends notifications/resources/list_changed to every session
// of the server.
func TestResourcesChanged(t *testing.T) {
	var mu sync.Mutex
	cur := fstest.MapFS{"old.md": {Data: []byte("old\n")}}
	first := cur
	srv, changed := mcpserver.NewNotifying(mcpserver.Config{
		FS: func(context.Context) (fs.FS, error) { return first, nil },
		Resources: func(context.Context) (fs.FS, error) {
			mu.Lock()
			defer mu.Unlock()
			return cur, nil
		},
	})
	var clients []*client
	var notes []chan struct{}
	for range 2 {
		ch := make(chan struct{}, 10)
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
			ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { ch <- struct{}{} },
		}).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); ss.Wait() })
		clients = append(clients, &client{t, cs})
		notes = append(notes, ch)
	}
	c := clients[0]
	if got, _ := c.listAll(); len(got) != 1 || got[0].Name != "/old.md" {
		t.Fatalf("before: %+v", got)
	}
	if caps := c.cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.ListChanged {
		t.Errorf("capabilities: %+v, want resources with listChanged", caps.Resources)
	}
	mu.Lock()
	cur = fstest.MapFS{"new.md": {Data: []byte("new\n")}}
	mu.Unlock()
	changed()
	for i, ch := range notes {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("client %d: no notifications/resources/list_changed", i)
		}
	}
	if got, _ := c.listAll(); len(got) != 1 || got[0].Name != "/new.md" {
		t.Errorf("after: %+v, want /new.md", got)
	}
	if text, jerr := c.readURI("chromafs:///new.md"); jerr != nil || text != "new\n" {
		t.Errorf("read new.md: %q %v", text, jerr)
	}
	if _, jerr := c.readURI("chromafs:///old.md"); jerr == nil || jerr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("read old.md after the change: %v, want not found", jerr)
	}
	// The tools keep the session's view.
	if text := c.text("read", map[string]any{"path": "/old.md"}); !strings.Contains(text, "old") {
		t.Errorf("read tool: %q", text)
	}
	// Without a change, no notification.
	select {
	case <-notes[1]:
		t.Errorf("a second notification without a change")
	case <-time.After(100 * time.Millisecond):
	}
}
