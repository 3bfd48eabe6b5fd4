package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/mcpserver"
)

// Two sites' folders: each has public pages and, under internal/, a page
// for its own group only (alpha-staff, beta-staff). Every page of beta
// holds BETA, so that nothing of beta's collection can show through alpha
// unseen; alpha's staff page holds ALPHASECRET.
var (
	accessAlpha = map[string]string{
		"guide.md":                 "# Alpha guide\n\ncommon-word alpha public\n",
		"internal/alpha-secret.md": "# Alpha staff\n\ncommon-word ALPHASECRET\n",
	}
	accessBeta = map[string]string{
		"guide.md":                "# BETA guide\n\ncommon-word BETA public\n",
		"beta-only.md":            "# BETA only\n\ncommon-word BETA\n",
		"internal/beta-secret.md": "# BETA staff\n\ncommon-word BETASECRET\n",
	}
)

// missingBeside is the path of a page that no collection holds, in the
// directory of p, so that the nearest directory an error names is p's.
func missingBeside(p string) string {
	return path.Join(path.Dir(p), "nosuch.md")
}

// TestServeSitesAccess runs the access rules per site under `chromafs
// serve --sites` (the built binary, a real Chroma): sites alpha and beta
// over two collections, each with a public page and a page for its own
// group, and a users file each (bearer tokens): ann is alpha-staff on
// alpha, mal is on alpha with beta's group name, bob is beta-staff on
// beta (whose tools have the suffix beta). Over the HTTP and WebDAV listeners, MCP tools (ls, read, stat,
// glob, grep, search, bash) and resources (list, read), it checks that
// ann sees alpha's staff page only with alpha's token at alpha, that a
// token of one site opens no other, that nothing of beta's collection
// shows through alpha for anyone, and that a hidden page (or directory)
// answers exactly as a missing one (status, headers that matter, body and
// error text, with the name swapped); at beta an error names the tools
// with beta's suffix.
func TestServeSitesAccess(t *testing.T) {
	chroma := testenv.Chroma(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ingest := func(coll, group string, files map[string]string) {
		rules := write(group+".rules", "** public\ninternal/** private groups="+group+"\n")
		if out, errOut, code := cli(t, "--chroma-url", chroma.URL, "--collection", coll, "ingest", "--rules", rules, testenv.WriteTree(t, files)); code != 0 {
			t.Fatalf("ingest into %s: status %d\n%s%s", coll, code, out, errOut)
		}
	}
	alphaColl, betaColl := testenv.CollectionName(t), testenv.CollectionName(t)
	ingest(alphaColl, "alpha-staff", accessAlpha)
	ingest(betaColl, "beta-staff", accessBeta)
	alphaUsers := write("alpha.users", "ann token-sha256="+server.HashToken("ann-tok")+" groups=alpha-staff\n"+
		"mal token-sha256="+server.HashToken("mal-tok")+" groups=beta-staff\n")
	betaUsers := write("beta.users", "bob token-sha256="+server.HashToken("bob-tok")+" groups=beta-staff\n")
	sitesFile := write("sites.yaml", fmt.Sprintf(`sites:
  - name: alpha
    collection: %s
    auth:
      users: %s
  - name: beta
    collection: %s
    hosts: [beta.test]
    auth:
      users: %s
    mcp:
      suffix: beta
`, alphaColl, alphaUsers, betaColl, betaUsers))
	p := startSitesProcess(t, []string{"--chroma-url", chroma.URL}, nil, sitesFile)

	const (
		ann  = "Bearer ann-tok"
		mal  = "Bearer mal-tok"
		bob  = "Bearer bob-tok"
		anon = ""
	)
	// Who may read alpha's staff page at alpha; none of them sees beta.
	alphaUsersOf := map[string]string{"anonymous": anon, "ann": ann, "mal": mal}
	// leaks reports what text shows of what who may not see at alpha,
	// but for the path asked, which an answer may repeat.
	leaks := func(who, text, asked string) []string {
		if asked != "" && asked != "/" {
			text = strings.ReplaceAll(text, asked, "")
		}
		var found []string
		for _, w := range []string{"BETA", "beta-only", "beta-secret"} {
			if strings.Contains(text, w) {
				found = append(found, w)
			}
		}
		if who != "ann" {
			for _, w := range []string{"ALPHASECRET", "alpha-secret"} {
				if strings.Contains(text, w) {
					found = append(found, w)
				}
			}
		}
		return found
	}
	do := func(method, url, host, auth string, hdr ...string) (int, http.Header, string) {
		t.Helper()
		return siteRequest(t, method, url, host, auth, hdr...)
	}
	// alike checks that two answers (a hidden path's and a missing
	// one's) are the same once the paths are swapped.
	type answer struct {
		status int
		ctype  string
		body   string
	}
	alike := func(what string, hidden, missing answer, hiddenName, missingName string) {
		t.Helper()
		hidden.body = strings.ReplaceAll(hidden.body, hiddenName, missingName)
		if hidden != missing {
			t.Errorf("%s: a hidden path answers %+v, a missing one %+v", what, hidden, missing)
		}
	}

	t.Run("credentials per site", func(t *testing.T) {
		for _, tc := range []struct {
			name, url, host, auth string
			status                int
			body                  string
		}{
			{"ann at alpha", p.http + "/alpha/internal/alpha-secret.md", "", ann, 200, "ALPHASECRET"},
			{"bob at beta", p.http + "/beta/internal/beta-secret.md", "", bob, 200, "BETASECRET"},
			{"bob at beta by host", p.http + "/internal/beta-secret.md", "beta.test", bob, 200, "BETASECRET"},
			{"bob at alpha", p.http + "/alpha/guide.md", "", bob, 401, ""},
			{"ann at beta", p.http + "/beta/guide.md", "", ann, 401, ""},
			{"ann at beta by host", p.http + "/guide.md", "beta.test", ann, 401, ""},
			{"mal (beta's group name) at beta", p.http + "/beta/internal/beta-secret.md", "", mal, 401, ""},
			{"ann over WebDAV at alpha", p.dav + "/alpha/internal/alpha-secret.md", "", ann, 200, "ALPHASECRET"},
			{"ann over WebDAV at beta", p.dav + "/beta/guide.md", "", ann, 401, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, _, body := do("GET", tc.url, tc.host, tc.auth)
				if status != tc.status || !strings.Contains(body, tc.body) {
					t.Errorf("GET %s: %d %.200q; want %d with %q", tc.url, status, body, tc.status, tc.body)
				}
				if status != 200 && (strings.Contains(body, "SECRET") || strings.Contains(body, "common-word")) {
					t.Errorf("a refusal shows a page: %.200q", body)
				}
			})
		}
	})

	t.Run("http and webdav", func(t *testing.T) {
		for who, auth := range alphaUsersOf {
			t.Run(who, func(t *testing.T) {
				for _, base := range []string{p.http, p.dav} {
					methods := []string{"GET", "HEAD"}
					if base == p.dav {
						methods = append(methods, "PROPFIND")
					}
					get := func(method, path string, hdr ...string) answer {
						status, h, body := do(method, base+"/alpha"+path, "", auth, hdr...)
						if l := leaks(who, body, path); len(l) > 0 {
							t.Errorf("%s %s%s as %s shows %q:\n%.400s", method, base, path, who, l, body)
						}
						return answer{status, h.Get("Content-Type"), body}
					}
					// beta's pages and directories are missing at alpha for
					// everyone; alpha's staff page for all but ann.
					hiddenPaths := []string{"/beta-only.md", "/internal/beta-secret.md"}
					if who != "ann" {
						hiddenPaths = append(hiddenPaths, "/internal/alpha-secret.md")
					}
					for _, hp := range hiddenPaths {
						missing := missingBeside(hp)
						for _, m := range methods {
							alike(m+" "+base+hp, get(m, hp, "Depth", "0"), get(m, missing, "Depth", "0"), hp, missing)
						}
					}
					if who == "ann" {
						if a := get("GET", "/internal/alpha-secret.md"); a.status != 200 || !strings.Contains(a.body, "ALPHASECRET") {
							t.Errorf("ann GET %s/alpha/internal/alpha-secret.md: %+v", base, a)
						}
					} else {
						// internal/ holds only the staff page: the directory
						// is missing too.
						for _, m := range methods {
							alike(m+" "+base+"/internal/", get(m, "/internal/", "Depth", "1"), get(m, "/nosuchdir/", "Depth", "1"), "/internal/", "/nosuchdir/")
						}
					}
					// Listings of the root and of internal/.
					for _, dir := range []string{"/", "/internal/"} {
						for _, m := range methods {
							if m == "HEAD" || m == "GET" && base == p.dav {
								continue // no listing: WebDAV lists by PROPFIND
							}
							a := get(m, dir, "Depth", "1")
							if dir == "/" && (a.status >= 300 || !strings.Contains(a.body, "guide.md")) {
								t.Errorf("%s %s/alpha/ as %s: %d %.300q", m, base, who, a.status, a.body)
							}
							if who == "ann" && dir == "/internal/" && !strings.Contains(a.body, "alpha-secret.md") {
								t.Errorf("%s %s/alpha/internal/ as ann: %d %.300q", m, base, a.status, a.body)
							}
						}
					}
				}
			})
		}
	})

	// mcpAt connects to site's MCP endpoint with auth.
	mcpAt := func(t *testing.T, endpoint, host, auth string) *mcp.ClientSession {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: hostTransport{host: host, auth: auth}}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("connect to %s: %v", endpoint, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	t.Run("mcp tools and resources", func(t *testing.T) {
		for who, auth := range alphaUsersOf {
			t.Run(who, func(t *testing.T) {
				cs := mcpAt(t, p.mcp+"/alpha/mcp", "", auth)
				// call calls tool, asking about the path asked.
				call := func(tool string, args map[string]any, asked string) (string, bool) {
					t.Helper()
					got, isErr := mcpText(t, cs, tool, args)
					if l := leaks(who, got, asked); len(l) > 0 {
						t.Errorf("%s %v as %s shows %q:\n%.400s", tool, args, who, l, got)
					}
					return got, isErr
				}
				// What every tool sees of the whole site.
				for _, c := range []struct {
					tool    string
					args    map[string]any
					annSees bool // ann's answer names alpha's staff page
				}{
					{"ls", map[string]any{"path": "/"}, false},
					{"glob", map[string]any{"pattern": "**"}, true},
					{"grep", map[string]any{"pattern": "common-word", "path": "/", "output_mode": "content"}, true},
					{"grep", map[string]any{"pattern": "SECRET|BETA", "path": "/"}, true},
					{"search", map[string]any{"query": "common-word secret staff"}, false},
					{"bash", map[string]any{"command": "find / ; grep -r . / ; ls -R /; cat /*.md /internal/*.md"}, true},
					{"read", map[string]any{"path": "/guide.md"}, false},
				} {
					got, _ := call(c.tool, c.args, "")
					if who == "ann" && c.annSees && !strings.Contains(got, "alpha-secret") {
						t.Errorf("%s %v as ann: %.400q; want alpha's staff page in it", c.tool, c.args, got)
					}
				}
				if got, _ := call("read", map[string]any{"path": "/internal/alpha-secret.md"}, "/internal/alpha-secret.md"); (who == "ann") != strings.Contains(got, "ALPHASECRET") {
					t.Errorf("read /internal/alpha-secret.md as %s: %.300q", who, got)
				}
				// A hidden path answers every tool as a missing one.
				hiddenPaths := []string{"/beta-only.md", "/internal/beta-secret.md"}
				if who != "ann" {
					hiddenPaths = append(hiddenPaths, "/internal/alpha-secret.md", "/internal")
				}
				for _, hp := range hiddenPaths {
					missing := missingBeside(hp)
					if hp == "/internal" {
						missing = "/nosuchdir"
					}
					for _, c := range []struct {
						tool string
						args func(string) map[string]any
					}{
						{"read", func(p string) map[string]any { return map[string]any{"path": p} }},
						{"ls", func(p string) map[string]any { return map[string]any{"path": p} }},
						{"stat", func(p string) map[string]any { return map[string]any{"path": p} }},
						{"glob", func(p string) map[string]any { return map[string]any{"pattern": "*", "path": p} }},
						{"grep", func(p string) map[string]any { return map[string]any{"pattern": "common-word", "path": p} }},
						{"search", func(p string) map[string]any { return map[string]any{"query": "common-word", "path": p} }},
						{"bash", func(p string) map[string]any {
							return map[string]any{"command": "cat " + p + "; ls " + p + "; stat " + p + "; cd " + p}
						}},
					} {
						h, hErr := call(c.tool, c.args(hp), hp)
						m, mErr := call(c.tool, c.args(missing), missing)
						if strings.ReplaceAll(h, hp, missing) != m || hErr != mErr {
							t.Errorf("%s of hidden %s as %s: %q (error %v); of missing %s: %q (error %v)", c.tool, hp, who, h, hErr, missing, m, mErr)
						}
					}
				}
				// Resources: alpha's pages as who may see them.
				var uris []string
				for _, r := range listResources(t, cs) {
					uris = append(uris, r.URI)
				}
				want := []string{mcpserver.PageURI("guide.md")}
				if who == "ann" {
					want = append(want, mcpserver.PageURI("internal/alpha-secret.md"))
				}
				slices.Sort(want)
				if !slices.Equal(uris, want) {
					t.Errorf("resources/list as %s: %q, want %q", who, uris, want)
				}
				text, err := readResource(t, cs, mcpserver.PageURI("internal/alpha-secret.md"))
				if who == "ann" && (err != nil || !strings.Contains(text, "ALPHASECRET")) {
					t.Errorf("resources/read of alpha's staff page as ann: %q, %v", text, err)
				}
				for _, hp := range hiddenPaths {
					if hp == "/internal" {
						continue
					}
					missing := missingBeside(hp)
					hText, hErr := readResource(t, cs, mcpserver.PageURI(hp[1:]))
					mText, mErr := readResource(t, cs, mcpserver.PageURI(missing[1:]))
					if hErr == nil || mErr == nil || hText != "" || mText != "" || strings.ReplaceAll(hErr.Error(), hp, missing) != mErr.Error() {
						t.Errorf("resources/read of hidden %s as %s: %q, %v; of missing %s: %v", hp, who, hText, hErr, missing, mErr)
					}
				}
			})
		}
	})

	t.Run("mcp beta", func(t *testing.T) {
		for _, ep := range []struct{ url, host string }{{p.mcp + "/beta/mcp", ""}, {p.mcp + "/mcp", "beta.test"}} {
			cs := mcpAt(t, ep.url, ep.host, bob)
			if got, isErr := mcpText(t, cs, "read_beta", map[string]any{"path": "/internal/nosuch.md"}); !isErr || got != "/internal/nosuch.md: no such file or directory (ls_beta /internal shows what /internal holds)" {
				t.Errorf("read_beta of a missing page at beta (%s %s) as bob: %q", ep.url, ep.host, got)
			}
			if got, isErr := mcpText(t, cs, "grep_beta", map[string]any{"pattern": "common-word", "path": "/", "output_mode": "content"}); isErr || !strings.Contains(got, "BETASECRET") || strings.Contains(got, "ALPHA") || strings.Contains(got, "alpha") {
				t.Errorf("grep at beta (%s %s) as bob: %q", ep.url, ep.host, got)
			}
			for _, auth := range []string{ann, mal} {
				tr := &mcp.StreamableClientTransport{Endpoint: ep.url, HTTPClient: &http.Client{Transport: hostTransport{host: ep.host, auth: auth}}, MaxRetries: -1}
				if _, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") && !strings.Contains(err.Error(), "Too Many Requests") {
					// 429 once the failed sign-ins from this address are
					// many: a refusal all the same.
					t.Errorf("alpha's token %s at beta (%s %s): %v, want 401 (or 429)", auth, ep.url, ep.host, err)
				}
			}
		}
	})
}
