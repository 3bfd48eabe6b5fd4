package sites_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/identity"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/sites"
	"github.com/chromafs/chromafs/memstore"
)

const testIssuer = "https://idp.example"

// idp is a test identity provider: an Ed25519 key whose public half is in
// a JWKS file.
type idp struct {
	priv ed25519.PrivateKey
	jwks string
}

func newIDP(t *testing.T) *idp {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: priv.Public(), KeyID: "k1", Algorithm: "EdDSA", Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, set, 0o600); err != nil {
		t.Fatal(err)
	}
	return &idp{priv: priv, jwks: path}
}

// token issues a token for aud with groups, valid for an hour.
func (p *idp) token(t *testing.T, aud string, groups ...string) string {
	t.Helper()
	return p.tokenWith(t, map[string]any{"aud": aud, "groups": groups})
}

// tokenWith issues a token with claims over the defaults (issuer, sub,
// an hour of validity).
func (p *idp) tokenWith(t *testing.T, claims map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: p.priv, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]any{"iss": testIssuer, "sub": "alice", "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		c[k] = v
	}
	payload, _ := json.Marshal(c)
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// siteStore is a memstore collection with a public page naming the site
// and a page for group staff only.
func siteStore(t *testing.T, name string) *memstore.Store {
	t.Helper()
	store := memstore.New(name)
	src := fstest.MapFS{
		"guide.md":         {Data: []byte("guide of " + name + "\n")},
		"internal/plan.md": {Data: []byte("plan of " + name + "\n")},
	}
	rules, err := ingest.ParseRules(strings.NewReader("** public\ninternal/** private groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), store, src, ingest.Options{Rules: rules}); err != nil {
		t.Fatal(err)
	}
	return store
}

// fixture is a registry of four sites on memstore: pub (public), b
// (public, host b.test), j (jwt, anonymous deny, audience aud-j) and k
// (jwt, host k.test, audience aud-k), served on one listener per kind.
type fixture struct {
	reg          *sites.Registry
	idp          *idp
	http, dav, m *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	p := newIDP(t)
	file := fmt.Sprintf(`sites:
  - name: pub
    collection: pub
  - name: b
    collection: b
    hosts: [b.test]
  - name: j
    collection: j
    auth:
      anonymous: deny
      jwt: {jwks: %[1]s, issuer: %[2]s, audience: aud-j}
  - name: k
    collection: k
    hosts: [k.test]
    auth:
      jwt: {jwks: %[1]s, issuer: %[2]s, audience: aud-k}
`, p.jwks, testIssuer)
	cfg, err := sites.Parse(strings.NewReader(file), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	build := func(s *sites.Site) (*sites.Instance, error) {
		// Many refused tokens come from one address here: no 429.
		sc := server.Config{Store: siteStore(t, s.Name), DenyAnonymous: s.DenyAnonymous(), Logger: log,
			Auth:    server.AuthLimits{FailureBurst: 1000},
			Options: []chromafs.Option{chromafs.WithTreeMaxAge(time.Second)}}
		if s.Auth.JWT != nil {
			v, err := identity.New(s.Identity())
			if err != nil {
				return nil, err
			}
			sc.Tokens = v
		}
		srv := server.New(sc)
		var mcpH http.Handler
		return &sites.Instance{Server: srv, Handler: func(kind, prefix string) http.Handler {
			switch kind {
			case sites.KindHTTP:
				return httpfs.NewHandler(srv.Resolve, httpfs.Options{Prefix: prefix})
			case sites.KindWebDAV:
				return webdavfs.NewHandler(srv.Resolve, webdavfs.Options{Prefix: prefix, Logger: log})
			}
			if mcpH == nil {
				mcpH = srv.MCPHandler(server.MCPOptions{Hosts: s.Hosts})
			}
			return mcpH
		}}, nil
	}
	reg := sites.NewRegistry(cfg, build, log)
	f := &fixture{reg: reg, idp: p,
		http: httptest.NewServer(reg.Handler(sites.KindHTTP)),
		dav:  httptest.NewServer(reg.Handler(sites.KindWebDAV)),
		m:    httptest.NewServer(reg.Handler(sites.KindMCP))}
	t.Cleanup(func() {
		f.http.Close()
		f.dav.Close()
		f.m.Close()
		if err := reg.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// raw sends a request with a literal request target (no client-side
// cleaning of the path) and returns the response.
func raw(t *testing.T, srv *httptest.Server, method, target string, hdr map[string]string) (status int, h http.Header, body string) {
	t.Helper()
	return rawBody(t, srv, method, target, hdr, "")
}

// rawBody is raw with a request body.
func rawBody(t *testing.T, srv *httptest.Server, method, target string, hdr map[string]string, reqBody string) (status int, h http.Header, body string) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host := srv.Listener.Addr().String()
	if v, ok := hdr["Host"]; ok {
		host = v
	}
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, host)
	for k, v := range hdr {
		if k != "Host" && k != "Content-Length" {
			fmt.Fprintf(conn, "%s: %s\r\n", k, v)
		}
	}
	if reqBody != "" {
		fmt.Fprintf(conn, "Content-Length: %d\r\n", len(reqBody))
	}
	fmt.Fprint(conn, "\r\n"+reqBody)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// unsigned is a compact JWS of header and claims with an empty signature.
func unsigned(header, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(header)) + "." + enc([]byte(claims)) + "."
}

// TestRouting checks that /NAME/ and a site's hosts reach that site and
// no other, that sites are made on first use, and that path tricks reach
// no site.
func TestRouting(t *testing.T) {
	f := newFixture(t)
	if n := f.reg.Loaded(); n != 0 {
		t.Fatalf("%d sites loaded before any request", n)
	}
	for _, tc := range []struct {
		name, target string
		hdr          map[string]string
		status       int
		body         string // substring; "" for none
	}{
		{"site pub", "/pub/guide.md", nil, 200, "guide of pub"},
		{"site b by path", "/b/guide.md", nil, 200, "guide of b"},
		{"site b by host", "/guide.md", map[string]string{"Host": "B.test:8080"}, 200, "guide of b"},
		{"host b with trailing dot", "/guide.md", map[string]string{"Host": "b.test."}, 200, "guide of b"},
		{"hidden page", "/pub/internal/plan.md", nil, 404, ""},
		{"root of no site", "/", nil, 404, ""},
		{"unknown site", "/nosuch/guide.md", nil, 404, ""},
		{"dot-dot to another site", "/pub/../b/guide.md", nil, 404, ""},
		{"encoded dot-dot", "/pub/%2e%2e/b/guide.md", nil, 404, ""},
		{"dot element", "/./b/guide.md", nil, 404, ""},
		{"encoded slash", "/pub%2Fguide.md", nil, 404, ""},
		{"encoded slash in site", "/b/x%2f..%2fguide.md", nil, 404, ""},
		{"encoded backslash", "/pub/..%5Cb/guide.md", nil, 404, ""},
		{"empty first element", "//b/guide.md", nil, 404, ""},
		{"host b on pub's path", "/pub/guide.md", map[string]string{"Host": "b.test"}, 404, ""},
		{"host b on its own path prefix", "/b/guide.md", map[string]string{"Host": "b.test"}, 404, ""},
		{"site name as a host", "/guide.md", map[string]string{"Host": "pub"}, 404, ""},
		{"healthz", "/healthz", nil, 200, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := raw(t, f.http, "GET", tc.target, tc.hdr)
			if status != tc.status || (tc.body != "" && !strings.Contains(body, tc.body)) {
				t.Fatalf("GET %s: %d %q; want %d with %q", tc.target, status, body, tc.status, tc.body)
			}
			for _, other := range []string{"guide of pub", "guide of b"} {
				if tc.status == 404 && strings.Contains(body, other) {
					t.Fatalf("404 with another site's page: %q", body)
				}
			}
		})
	}
	if n := f.reg.Loaded(); n != 2 {
		t.Errorf("%d sites loaded; want 2 (pub and b, not j or k)", n)
	}
	_, _, body := raw(t, f.http, "GET", "/readyz", nil)
	if !strings.Contains(body, "sites: 4 configured, 2 loaded") {
		t.Errorf("readyz: %q", body)
	}

	// WebDAV: a PROPFIND of a site's root lists its pages with hrefs
	// under /NAME/, and its own host's with hrefs under /.
	for _, tc := range []struct{ target, host, href string }{
		{"/b/", "", "<D:href>/b/guide.md</D:href>"},
		{"/", "b.test", "<D:href>/guide.md</D:href>"},
	} {
		hdr := map[string]string{"Depth": "1"}
		if tc.host != "" {
			hdr["Host"] = tc.host
		}
		status, _, body := raw(t, f.dav, "PROPFIND", tc.target, hdr)
		if status != 207 || !strings.Contains(body, tc.href) {
			t.Errorf("PROPFIND %s (Host %q): %d, want 207 with %s in\n%s", tc.target, tc.host, status, tc.href, body)
		}
	}
}

// TestUnknownSiteLooksMissing checks that an unknown site's 404 is the
// 404 of a missing page of a site, byte for byte, on every kind of
// listener.
func TestUnknownSiteLooksMissing(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		kind           string
		srv            *httptest.Server
		method         string
		missing, other string
	}{
		{"http", f.http, "GET", "/pub/nosuch.md", "/nosuch/nosuch.md"},
		{"webdav", f.dav, "PROPFIND", "/pub/nosuch.md", "/nosuch/nosuch.md"},
		{"mcp", f.m, "POST", "/pub/nosuch", "/nosuch/mcp"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			hdr := map[string]string{"Depth": "0"}
			s1, h1, b1 := raw(t, tc.srv, tc.method, tc.missing, hdr)
			s2, h2, b2 := raw(t, tc.srv, tc.method, tc.other, hdr)
			if s1 != 404 || s1 != s2 || b1 != b2 {
				t.Fatalf("missing page %d %q; unknown site %d %q", s1, b1, s2, b2)
			}
			for _, k := range []string{"Content-Type", "X-Content-Type-Options", "Cache-Control", "Www-Authenticate"} {
				if h1.Get(k) != h2.Get(k) {
					t.Errorf("%s: missing page %q; unknown site %q", k, h1.Get(k), h2.Get(k))
				}
			}
		})
	}
}

// TestSiteTokens checks per-site sign-in: a token opens the site whose
// audience it carries, by path or by host, and no other; refusals carry
// the Bearer challenge with the site's resource metadata URL, which
// answers with the RFC 9728 document.
func TestSiteTokens(t *testing.T) {
	f := newFixture(t)
	tokJ := f.idp.token(t, "aud-j", "staff")
	tokK := f.idp.token(t, "aud-k", "staff")
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	for _, tc := range []struct {
		name, target string
		hdr          map[string]string
		status       int
		body         string
	}{
		{"j anonymous", "/j/guide.md", nil, 401, ""},
		{"j with j's token sees staff pages", "/j/internal/plan.md", bearer(tokJ), 200, "plan of j"},
		{"j with k's token", "/j/guide.md", bearer(tokK), 401, ""},
		{"k anonymous sees public", "/k/guide.md", nil, 200, "guide of k"},
		{"k anonymous, staff page hidden", "/k/internal/plan.md", nil, 404, ""},
		{"k with k's token", "/k/internal/plan.md", bearer(tokK), 200, "plan of k"},
		{"k with j's token", "/k/guide.md", bearer(tokJ), 401, ""},
		{"j's token replayed on k's host", "/internal/plan.md", map[string]string{"Host": "k.test", "Authorization": "Bearer " + tokJ}, 401, ""},
		{"k's token on k's host", "/internal/plan.md", map[string]string{"Host": "k.test", "Authorization": "Bearer " + tokK}, 200, "plan of k"},
		{"k's token on j's path with k's host", "/j/internal/plan.md", map[string]string{"Host": "k.test", "Authorization": "Bearer " + tokK}, 404, ""},
		{"garbage token", "/k/guide.md", bearer("not.a.jwt"), 401, ""},
		{"alg none", "/k/guide.md", bearer(unsigned(`{"alg":"none","kid":"k1"}`, `{"iss":"`+testIssuer+`","aud":"aud-k","sub":"x","exp":9999999999}`)), 401, ""},
		{"expired", "/k/internal/plan.md", bearer(f.idp.tokenWith(t, map[string]any{"aud": "aud-k", "groups": []string{"staff"}, "exp": time.Now().Add(-time.Hour).Unix()})), 401, ""},
		{"not yet valid", "/k/internal/plan.md", bearer(f.idp.tokenWith(t, map[string]any{"aud": "aud-k", "groups": []string{"staff"}, "nbf": time.Now().Add(time.Hour).Unix()})), 401, ""},
		{"wrong issuer", "/k/internal/plan.md", bearer(f.idp.tokenWith(t, map[string]any{"aud": "aud-k", "groups": []string{"staff"}, "iss": "https://evil.example"})), 401, ""},
		{"groups of the wrong type", "/k/internal/plan.md", bearer(f.idp.tokenWith(t, map[string]any{"aud": "aud-k", "groups": map[string]any{"staff": true}})), 403, ""},
		{"a 20 KiB token", "/k/guide.md", bearer(strings.Repeat("a", 20<<10)), 400, ""},
		{"bad header", "/k/guide.md", map[string]string{"Authorization": "Bearer a b"}, 400, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, h, body := raw(t, f.http, "GET", tc.target, tc.hdr)
			if status != tc.status || (tc.body != "" && !strings.Contains(body, tc.body)) {
				t.Fatalf("GET %s: %d %q; want %d with %q", tc.target, status, body, tc.status, tc.body)
			}
			if status == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 with challenge %q", h.Get("WWW-Authenticate"))
			}
			if status != 200 && (strings.Contains(body, "guide of ") || strings.Contains(body, "plan of ")) {
				t.Errorf("refusal shows a page: %q", body)
			}
		})
	}

	// MCP: 401 names the resource metadata, by path and by host.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	mcpHdr := func(extra map[string]string) map[string]string {
		h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Content-Length": fmt.Sprint(len(init))}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	base := "http://" + f.m.Listener.Addr().String()
	for _, tc := range []struct {
		name, target string
		hdr          map[string]string
		metadata     string
		errorCode    string
	}{
		{"j without token", "/j/mcp", nil, base + "/.well-known/oauth-protected-resource/j/mcp", ""},
		{"j with k's token", "/j/mcp", map[string]string{"Authorization": "Bearer " + tokK}, base + "/.well-known/oauth-protected-resource/j/mcp", `error="invalid_token"`},
		{"k's host with j's token", "/mcp", map[string]string{"Host": "k.test", "Authorization": "Bearer " + tokJ}, "http://k.test/.well-known/oauth-protected-resource/mcp", `error="invalid_token"`},
		{"behind TLS proxy", "/j/mcp", map[string]string{"X-Forwarded-Proto": "https"}, "https://" + f.m.Listener.Addr().String() + "/.well-known/oauth-protected-resource/j/mcp", ""},
	} {
		t.Run("mcp "+tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", f.m.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			hdr := mcpHdr(tc.hdr)
			host := f.m.Listener.Addr().String()
			if h, ok := hdr["Host"]; ok {
				host = h
				delete(hdr, "Host")
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", tc.target, host)
			for k, v := range hdr {
				fmt.Fprintf(conn, "%s: %s\r\n", k, v)
			}
			fmt.Fprintf(conn, "\r\n%s", init)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			ch := resp.Header.Get("WWW-Authenticate")
			if resp.StatusCode != 401 || !strings.HasPrefix(ch, `Bearer resource_metadata="`+tc.metadata+`"`) || !strings.Contains(ch, tc.errorCode) {
				t.Fatalf("%d, WWW-Authenticate %q; want 401 naming %s (%s)", resp.StatusCode, ch, tc.metadata, tc.errorCode)
			}
		})
	}

	// DNS rebinding: on a loopback address, a site's own host passes, an
	// unlisted one gets 403.
	for _, tc := range []struct {
		name, target, host, auth string
		status                   int
	}{
		{"k's host", "/mcp", "k.test", "Bearer " + tokK, 200},
		{"k by path, unlisted host", "/k/mcp", "evil.test", "Bearer " + tokK, 403},
		{"pub by path, unlisted host", "/pub/mcp", "evil.test", "", 403},
		{"pub by path, loopback host", "/pub/mcp", "", "", 200},
	} {
		t.Run("mcp host "+tc.name, func(t *testing.T) {
			hdr := mcpHdr(nil)
			if tc.host != "" {
				hdr["Host"] = tc.host
			}
			if tc.auth != "" {
				hdr["Authorization"] = tc.auth
			}
			status, _, body := rawBody(t, f.m, "POST", tc.target, hdr, init)
			if status != tc.status {
				t.Fatalf("%d %q; want %d", status, body, tc.status)
			}
		})
	}

	// The metadata documents.
	for _, tc := range []struct {
		name, target, host string
		status             int
		resource           string
	}{
		{"j by path", "/.well-known/oauth-protected-resource/j/mcp", "", 200, base + "/j/mcp"},
		{"k by path", "/.well-known/oauth-protected-resource/k/mcp", "", 200, base + "/k/mcp"},
		{"k by host", "/.well-known/oauth-protected-resource/mcp", "k.test", 200, "http://k.test/mcp"},
		{"public site has none", "/.well-known/oauth-protected-resource/pub/mcp", "", 404, ""},
		{"unknown site", "/.well-known/oauth-protected-resource/nosuch/mcp", "", 404, ""},
		{"not the mcp resource", "/.well-known/oauth-protected-resource/j", "", 404, ""},
		{"j's on k's host", "/.well-known/oauth-protected-resource/j/mcp", "k.test", 404, ""},
		{"bare well-known", "/.well-known/oauth-protected-resource", "", 404, ""},
	} {
		t.Run("metadata "+tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.host != "" {
				hdr["Host"] = tc.host
			}
			status, h, body := raw(t, f.m, "GET", tc.target, hdr)
			if status != tc.status {
				t.Fatalf("%d %q; want %d", status, body, tc.status)
			}
			if status != 200 {
				return
			}
			var m struct {
				Resource               string   `json:"resource"`
				AuthorizationServers   []string `json:"authorization_servers"`
				BearerMethodsSupported []string `json:"bearer_methods_supported"`
			}
			if err := json.Unmarshal([]byte(body), &m); err != nil || h.Get("Content-Type") != "application/json" {
				t.Fatalf("%v, %q: %s", err, h.Get("Content-Type"), body)
			}
			if m.Resource != tc.resource || len(m.AuthorizationServers) != 1 || m.AuthorizationServers[0] != testIssuer ||
				len(m.BearerMethodsSupported) != 1 || m.BearerMethodsSupported[0] != "header" {
				t.Errorf("metadata %+v; want resource %s, issuer %s, header", m, tc.resource, testIssuer)
			}
		})
	}
}

// TestRegistryMakesOnce checks that concurrent first requests to a site
// make it once, that a failed making answers 503 and is tried again at
// the next request, and that Close stops what it made.
func TestRegistryMakesOnce(t *testing.T) {
	cfg, err := sites.Parse(strings.NewReader("sites:\n  - name: a\n    collection: a\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var builds atomic.Int32
	fail := atomic.Bool{}
	fail.Store(true)
	store := siteStore(t, "a")
	reg := sites.NewRegistry(cfg, func(s *sites.Site) (*sites.Instance, error) {
		builds.Add(1)
		time.Sleep(50 * time.Millisecond) // let concurrent requests pile up
		if fail.Load() {
			return nil, errors.New("boom")
		}
		srv := server.New(server.Config{Store: store, Logger: log})
		return &sites.Instance{Server: srv, Handler: func(kind, prefix string) http.Handler {
			return httpfs.NewHandler(srv.Resolve, httpfs.Options{Prefix: prefix})
		}}, nil
	}, log)
	ts := httptest.NewServer(reg.Handler(sites.KindHTTP))
	defer ts.Close()
	get := func() int {
		resp, err := http.Get(ts.URL + "/a/guide.md")
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(); got != 503 {
		t.Fatalf("failed making: %d, want 503", got)
	}
	fail.Store(false)
	builds.Store(0)
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Go(func() { codes[i] = get() })
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("request %d: %d", i, c)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("%d makings for 20 concurrent first requests, want 1", n)
	}
	if err := reg.Close(); err != nil {
		t.Error(err)
	}
	if got := get(); got != 503 {
		t.Errorf("after Close: %d, want 503", got)
	}
}
