package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/mcpserver"
)

// resourceRules: internal/ is for staff only, the rest is public.
const resourceRules = "** public\ninternal/** private groups=staff\n"

// ingestResources ingests the folder dir into collection coll of the
// Chroma at url with resourceRules.
func ingestResources(t *testing.T, url, coll, dir string) {
	t.Helper()
	rules := filepath.Join(t.TempDir(), "access.rules")
	if err := os.WriteFile(rules, []byte(resourceRules), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := cli(t, "--chroma-url", url, "--collection", coll, "ingest", "--rules", rules, dir); code != 0 {
		t.Fatalf("ingest %s into %s: status %d\n%s%s", dir, coll, code, out, errOut)
	}
}

// publicURIs are the URIs of files' public pages (not under internal/),
// sorted as resources/list lists them for these flat test folders.
func publicURIs(files map[string]string) []string {
	var uris []string
	for slug := range files {
		if !strings.HasPrefix(slug, "internal/") {
			uris = append(uris, mcpserver.PageURI(slug))
		}
	}
	slices.Sort(uris)
	return uris
}

// resourceClient connects the SDK's streamable client to endpoint (with
// the Host header host when not empty); each notifications/
// resources/list_changed it receives is sent on the returned channel.
func resourceClient(t *testing.T, endpoint, host string) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	notes := make(chan struct{}, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: hostTransport{host: host}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { notes <- struct{}{} },
	}).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, notes
}

// listResources lists every resource of cs (all its answers), each
// request bounded by 30 s.
func listResources(t *testing.T, cs *mcp.ClientSession) []*mcp.Resource {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var all []*mcp.Resource
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		all = append(all, r)
	}
	return all
}

func resourceURIs(rs []*mcp.Resource) []string {
	var uris []string
	for _, r := range rs {
		uris = append(uris, r.URI)
	}
	return uris
}

// readResource reads uri and returns its one text, or the error's text.
func readResource(t *testing.T, cs *mcp.ClientSession, uri string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0].Text, nil
}

// checkReads reads every public page of files through cs and compares
// it with the file's content.
func checkReads(t *testing.T, who string, cs *mcp.ClientSession, files map[string]string) {
	t.Helper()
	for slug, want := range files {
		if strings.HasPrefix(slug, "internal/") {
			continue
		}
		got, err := readResource(t, cs, mcpserver.PageURI(slug))
		if err != nil || got != want {
			t.Errorf("%s: read %s: %q, %v; want %q", who, mcpserver.PageURI(slug), got, err, want)
		}
	}
}

// noNote fails if a notification arrives on notes within d.
func noNote(t *testing.T, who string, notes chan struct{}, d time.Duration) {
	t.Helper()
	select {
	case <-notes:
		t.Errorf("%s: notifications/resources/list_changed, but its collection did not change", who)
	case <-time.After(d):
	}
}

// Two sites' folders, with pages of the same path and different content,
// and a page for staff only in alpha.
var (
	alphaFiles = map[string]string{
		"guide.md":                 "# Alpha guide\n\nthe guide of site alpha\n",
		"alpha-only.md":            "# Alpha only\n",
		"reference/a page (2).md":  "# A page\n\nwhose name needs percent-encoding\n",
		"internal/alpha-secret.md": "# Staff\n\nalpha's staff page\n",
	}
	betaFiles = map[string]string{
		"guide.md":           "# Beta guide\n\nthe guide of site beta\n",
		"beta-only.md":       "# Beta only\n",
		"reference/notes.md": "# Notes\n\nof site beta\n",
	}
)

// TestServeSitesResources: under `chromafs serve --sites` (the built
// binary, a real Chroma) with two sites over two collections, each site's
// MCP sessions list and read only their own site's pages (a page of the
// same path reads each site's content; the other site's pages and the
// staff page read as missing ones), and the URIs, templates and errors
// are those of `serve --mcp` over the same collection. Then an ingest
// into alpha's collection sends notifications/resources/list_changed to
// alpha's sessions, which list and read the new tree, and not to beta's,
// whose resources stay as they were.
func TestServeSitesResources(t *testing.T) {
	chroma := testenv.Chroma(t)
	alphaColl, betaColl := testenv.CollectionName(t), testenv.CollectionName(t)
	ingestResources(t, chroma.URL, alphaColl, testenv.WriteTree(t, alphaFiles))
	ingestResources(t, chroma.URL, betaColl, testenv.WriteTree(t, betaFiles))
	sitesFile := filepath.Join(t.TempDir(), "sites.yaml")
	if err := os.WriteFile(sitesFile, []byte(fmt.Sprintf(`sites:
  - name: alpha
    collection: %s
  - name: beta
    collection: %s
    hosts: [beta.test]
`, alphaColl, betaColl)), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startSitesProcess(t, []string{"--chroma-url", chroma.URL}, []string{"--tree-max-age", "1s"}, sitesFile)
	single, _ := resourceClient(t, startMCPServe(t, []string{"--chroma-url", chroma.URL, "--collection", alphaColl}), "")
	alpha, alphaNotes := resourceClient(t, p.mcp+"/alpha/mcp", "")
	alpha2, alpha2Notes := resourceClient(t, p.mcp+"/alpha/mcp", "")
	beta, betaNotes := resourceClient(t, p.mcp+"/beta/mcp", "")
	betaHost, betaHostNotes := resourceClient(t, p.mcp+"/mcp", "beta.test") // beta by its host

	// Each site lists its own pages; alpha's list is serve --mcp's.
	singleList := listResources(t, single)
	for _, c := range []struct {
		who   string
		cs    *mcp.ClientSession
		files map[string]string
	}{{"alpha", alpha, alphaFiles}, {"beta", beta, betaFiles}, {"beta by host", betaHost, betaFiles}} {
		list := listResources(t, c.cs)
		if got, want := resourceURIs(list), publicURIs(c.files); !slices.Equal(got, want) {
			t.Errorf("%s: resources %q, want %q", c.who, got, want)
		}
		checkReads(t, c.who, c.cs, c.files)
	}
	alphaList := listResources(t, alpha)
	if len(alphaList) != len(singleList) {
		t.Fatalf("alpha lists %d resources, serve --mcp %d", len(alphaList), len(singleList))
	}
	for i, r := range alphaList {
		if s := singleList[i]; !reflect.DeepEqual(r, s) {
			t.Errorf("alpha's resource %+v, serve --mcp's %+v", *r, *s)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err1 := single.ListResourceTemplates(ctx, nil)
	at, err2 := alpha.ListResourceTemplates(ctx, nil)
	if err1 != nil || err2 != nil || len(at.ResourceTemplates) != 1 || at.ResourceTemplates[0].URITemplate != mcpserver.ResourceTemplate ||
		!reflect.DeepEqual(at.ResourceTemplates, st.ResourceTemplates) {
		t.Errorf("resource templates: alpha %+v %v, serve --mcp %+v %v", at, err2, st, err1)
	}

	// The errors: the other site's pages and the staff page read as
	// missing ones, with serve --mcp's words.
	for _, uri := range []string{
		"chromafs:///beta-only.md", "chromafs:///reference/notes.md", "chromafs:///internal/alpha-secret.md",
		"chromafs:///nowhere.md", "chromafs:///reference", "chromafs:///../guide.md", "https://example.com/guide.md", "chromafs://host/guide.md",
	} {
		_, serr := readResource(t, single, uri)
		_, aerr := readResource(t, alpha, uri)
		if serr == nil || aerr == nil || serr.Error() != aerr.Error() {
			t.Errorf("read %s: alpha %v, serve --mcp %v; want the same error", uri, aerr, serr)
		}
	}
	for _, c := range []struct{ uri, path string }{
		{"chromafs:///alpha-only.md", "/alpha-only.md"},
		{"chromafs:///internal/alpha-secret.md", "/internal/alpha-secret.md"},
		{"chromafs:///reference/a%20page%20%282%29.md", "/reference/a page (2).md"},
	} {
		for _, s := range []struct {
			who string
			cs  *mcp.ClientSession
		}{{"beta", beta}, {"beta by host", betaHost}} {
			if got, err := readResource(t, s.cs, c.uri); err == nil || !strings.Contains(err.Error(), c.path+": no such file or directory") {
				t.Errorf("%s: read of alpha's %s: %q, %v; want %s: no such file or directory", s.who, c.uri, got, err, c.path)
			}
		}
	}

	// An ingest into alpha's collection: alpha's sessions hear of it
	// and list and read the new tree; beta's hear nothing.
	changed := maps.Clone(alphaFiles)
	changed["alpha-new.md"] = "# New\n\nadded after the server started\n"
	changed["guide.md"] += "\nchanged after the server started\n"
	delete(changed, "alpha-only.md")
	ingestResources(t, chroma.URL, alphaColl, testenv.WriteTree(t, changed))
	ingested := time.Now()
	for _, c := range []struct {
		who   string
		notes chan struct{}
	}{{"alpha", alphaNotes}, {"alpha's second session", alpha2Notes}} {
		select {
		case <-c.notes:
			t.Logf("%s: notifications/resources/list_changed %v after the ingest", c.who, time.Since(ingested).Round(10*time.Millisecond))
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no notifications/resources/list_changed within 30 s of the ingest into its collection", c.who)
		}
	}
	// beta's readiness check runs every 5 s: 7 s covers one.
	noNote(t, "beta", betaNotes, 7*time.Second)
	noNote(t, "beta by host", betaHostNotes, 0)
	for _, c := range []struct {
		who string
		cs  *mcp.ClientSession
	}{{"alpha", alpha}, {"alpha's second session", alpha2}} {
		if got, want := resourceURIs(listResources(t, c.cs)), publicURIs(changed); !slices.Equal(got, want) {
			t.Errorf("%s: resources after the ingest %q, want %q", c.who, got, want)
		}
		checkReads(t, c.who, c.cs, changed)
		if got, err := readResource(t, c.cs, "chromafs:///alpha-only.md"); err == nil || !strings.Contains(err.Error(), "/alpha-only.md: no such file or directory") {
			t.Errorf("%s: read of the removed page: %q, %v", c.who, got, err)
		}
	}
	for _, c := range []struct {
		who string
		cs  *mcp.ClientSession
	}{{"beta", beta}, {"beta by host", betaHost}} {
		if got, want := resourceURIs(listResources(t, c.cs)), publicURIs(betaFiles); !slices.Equal(got, want) {
			t.Errorf("%s: resources after alpha's ingest %q, want %q", c.who, got, want)
		}
		checkReads(t, c.who, c.cs, betaFiles)
		if got, err := readResource(t, c.cs, "chromafs:///alpha-new.md"); err == nil || !strings.Contains(err.Error(), "/alpha-new.md: no such file or directory") {
			t.Errorf("%s: read of alpha's new page: %q, %v", c.who, got, err)
		}
	}
}

// TestMCPStatelessResources: `chromafs serve --mcp --mcp-stateless` (the
// built binary, a real Chroma) answers resources/list, resources/read and
// resources/templates/list to the SDK's client, each request bounded by
// a deadline, and to a lone POST that no initialize came before; GET
// (the stream that notifications would come on) gets 405 at once, so
// nothing waits for notifications. After an ingest, a later list and
// read see the new tree (within the tree max age), no notification having
// come, and the client closes at once.
func TestMCPStatelessResources(t *testing.T) {
	chroma := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	ingestResources(t, chroma.URL, coll, testenv.WriteTree(t, alphaFiles))
	endpoint := startMCPServe(t, []string{"--chroma-url", chroma.URL, "--collection", coll}, "--mcp-stateless", "--tree-max-age", "1s")
	cs, notes := resourceClient(t, endpoint, "")
	if got, want := resourceURIs(listResources(t, cs)), publicURIs(alphaFiles); !slices.Equal(got, want) {
		t.Errorf("resources %q, want %q", got, want)
	}
	checkReads(t, "stateless", cs, alphaFiles)
	if got, err := readResource(t, cs, "chromafs:///internal/alpha-secret.md"); err == nil || !strings.Contains(err.Error(), "/internal/alpha-secret.md: no such file or directory") {
		t.Errorf("read of the staff page: %q, %v; want no such file or directory", got, err)
	}
	if got, err := readResource(t, cs, "https://example.com/guide.md"); err == nil || !strings.Contains(err.Error(), "is not a chromafs URI") {
		t.Errorf("read of an https URI: %q, %v; want not a chromafs URI", got, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if tl, err := cs.ListResourceTemplates(ctx, nil); err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != mcpserver.ResourceTemplate {
		t.Errorf("resources/templates/list: %+v %v", tl, err)
	}

	// A lone POST: no initialize, no session id.
	post := func(body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, "POST", endpoint, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"chromafs:///guide.md"}}`); code != http.StatusOK || !strings.Contains(body, `"text":"# Alpha guide\n\nthe guide of site alpha\n"`) {
		t.Errorf("a lone resources/read: %d %s", code, body)
	}
	if code, body := post(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`); code != http.StatusOK || !strings.Contains(body, `"uri":"chromafs:///alpha-only.md"`) || strings.Contains(body, "internal") {
		t.Errorf("a lone resources/list: %d %s", code, body)
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", endpoint, nil)
	req.Header.Set("Accept", "text/event-stream")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || time.Since(start) > 5*time.Second {
		t.Errorf("GET: %d after %v; want 405 at once", resp.StatusCode, time.Since(start))
	}

	changed := maps.Clone(alphaFiles)
	changed["alpha-new.md"] = "# New\n\nadded after the server started\n"
	delete(changed, "alpha-only.md")
	ingestResources(t, chroma.URL, coll, testenv.WriteTree(t, changed))
	want := publicURIs(changed)
	ingested := time.Now()
	var got []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = resourceURIs(listResources(t, cs)); slices.Equal(got, want) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("resources 30 s after the ingest %q, want %q", got, want)
	}
	t.Logf("resources/list had the new tree %v after the ingest (--tree-max-age 1s)", time.Since(ingested).Round(10*time.Millisecond))
	checkReads(t, "stateless, after the ingest", cs, changed)
	noNote(t, "stateless", notes, 0)
	closed := make(chan error, 1)
	go func() { closed <- cs.Close() }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Errorf("the client's Close took more than 5 s")
	}
}
