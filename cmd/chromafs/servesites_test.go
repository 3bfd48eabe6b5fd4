package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/testenv"
)

// tlsIDP is a test identity provider over https: its key set at
// /jwks.json and its OpenID discovery document, served by an httptest TLS
// server, over a key the test generates. Its issuer is the server's URL.
type tlsIDP struct {
	srv *httptest.Server
	alg jose.SignatureAlgorithm
	key crypto.Signer
}

func newTLSIDP(t *testing.T, alg jose.SignatureAlgorithm, key crypto.Signer) *tlsIDP {
	t.Helper()
	p := &tlsIDP{alg: alg, key: key}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Algorithm: string(alg), Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/jwks.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(set)
	})
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": p.srv.URL, "jwks_uri": p.srv.URL + "/jwks.json"})
	})
	p.srv = httptest.NewTLSServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// token issues a token for aud with the claims, valid for an hour.
func (p *tlsIDP) token(t *testing.T, aud string, claims map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: p.alg, Key: jose.JSONWebKey{Key: p.key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]any{"iss": p.srv.URL, "aud": aud, "sub": "user-1", "exp": time.Now().Add(time.Hour).Unix()}
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

// startSitesServe runs `chromafs serve --sites FILE` (the built binary)
// on HTTP, WebDAV, MCP and admin listeners with env added, and returns
// each listener's base URL (http://ADDR).
func startSitesServe(t *testing.T, global []string, sitesFile string, env ...string) (httpBase, davBase, mcpBase, adminBase string) {
	t.Helper()
	p := startSitesProcess(t, global, nil, sitesFile, env...)
	return p.http, p.dav, p.mcp, p.admin
}

// sitesProcess is a running `chromafs serve --sites`.
type sitesProcess struct {
	cmd                   *exec.Cmd
	stderr                *lockedBuffer
	http, dav, mcp, admin string // base URLs
}

// startSitesProcess is startSitesServe with serve flags added and the
// process and its standard error returned.
func startSitesProcess(t *testing.T, global, flags []string, sitesFile string, env ...string) *sitesProcess {
	t.Helper()
	args := append(slices.Clone(global), "serve", "--sites", sitesFile, "--http", "127.0.0.1:0", "--webdav", "127.0.0.1:0", "--mcp", "127.0.0.1:0", "--admin", "127.0.0.1:0")
	args = append(args, flags...)
	cmd := exec.Command(chromafsBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "CHROMAFS_GROUPS=", "CHROMAFS_REDIS_URL=", "CHROMAFS_COLLECTION="), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve: %v\n%s", err, stderr.String())
		}
	})
	bases := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(bases) < 4 && sc.Scan() {
		var kind, url string
		if _, err := fmt.Sscanf(sc.Text(), "chromafs: %s on %s", &kind, &url); err == nil {
			base, _, _ := strings.Cut(url, "/NAME")
			bases[kind] = strings.TrimSuffix(base, "/metrics")
		}
	}
	if len(bases) < 4 {
		t.Fatalf("serve --sites did not start:\n%s", stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return &sitesProcess{cmd: cmd, stderr: &stderr, http: bases["http"], dav: bases["webdav"], mcp: bases["mcp"], admin: bases["admin"]}
}

// hostTransport sends every request with a Host header and an
// Authorization header (when set).
type hostTransport struct{ host, auth string }

func (h hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.host != "" {
		r.Host = h.host
	}
	if h.auth != "" {
		r.Header.Set("Authorization", h.auth)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeSites runs `chromafs serve --sites` over three sites of one
// real Chroma: docs (public, two MCP tools with a suffix), team (sign-in
// required, JWTs checked against an https JWKS of a P-256 key) and
// partner (public pages without sign-in, JWTs of an RSA key found by OIDC
// discovery, groups in a delimited string, also reached by its host). It
// checks the pages each user sees over HTTP and WebDAV under /NAME/, the
// official TypeScript MCP client signing in with a bearer token at
// /NAME/mcp (every tool, every page it may and may not see), the
// TypeScript SDK reading the protected resource metadata from the 401's
// challenge and from the well-known URL, and that a token for one site
// opens no other, by path or by host.
func TestServeSites(t *testing.T) {
	tsClient(t)
	chroma := testenv.Chroma(t)
	tsGlobal, corpusDir, private := tsCorpus(t)
	tsColl := tsGlobal[slices.Index(tsGlobal, "--collection")+1]
	docsColl := testenv.CollectionName(t)
	if _, errOut, code := cli(t, "--chroma-url", chroma.URL, "--collection", docsColl, "ingest", "--embedding", "ngram", "--rules", "../../examples/access.rules", docsDir); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}

	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	teamIDP := newTLSIDP(t, jose.ES256, ecKey)
	partnerIDP := newTLSIDP(t, jose.RS256, rsaKey)
	dir := t.TempDir()
	// serve trusts the identity providers' test certificates.
	var certs bytes.Buffer
	for _, p := range []*tlsIDP{teamIDP, partnerIDP} {
		_ = pem.Encode(&certs, &pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
	}
	certFile := filepath.Join(dir, "idp-certs.pem")
	if err := os.WriteFile(certFile, certs.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	sitesFile := filepath.Join(dir, "sites.yaml")
	if err := os.WriteFile(sitesFile, []byte(fmt.Sprintf(`sites:
  - name: docs
    collection: %s
    mcp:
      tools: [bash, search]
      suffix: docs
  - name: team
    collection: %s
    auth:
      anonymous: deny
      jwt:
        jwks: %s/jwks.json
        issuer: %s
        audience: team-docs
  - name: partner
    collection: %s
    hosts: [partner.test]
    auth:
      jwt:
        oidc_issuer: %s
        audience: partner-docs
        groups_claim: roles
        groups_delimiter: " "
`, docsColl, tsColl, teamIDP.srv.URL, teamIDP.srv.URL, tsColl, partnerIDP.srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	httpBase, davBase, mcpBase, adminBase := startSitesServe(t, []string{"--chroma-url", chroma.URL}, sitesFile, "SSL_CERT_FILE="+certFile)

	teamStaff := teamIDP.token(t, "team-docs", map[string]any{"groups": []string{"staff"}})
	partnerStaff := partnerIDP.token(t, "partner-docs", map[string]any{"roles": "sales staff"})
	partnerSales := partnerIDP.token(t, "partner-docs", map[string]any{"roles": "sales"})
	// A token of team's provider with partner's audience: the right
	// audience, the wrong issuer and key.
	teamForPartner := teamIDP.token(t, "partner-docs", map[string]any{"groups": []string{"staff"}})

	get := func(method, url, host, auth string, hdr ...string) (int, http.Header, string) {
		t.Helper()
		return siteRequest(t, method, url, host, auth, hdr...)
	}
	oncall, err := os.ReadFile(filepath.Join(docsDir, "internal/oncall.md"))
	if err != nil {
		t.Fatal(err)
	}
	privPage, err := os.ReadFile(filepath.Join(corpusDir, private[0]))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("http", func(t *testing.T) {
		for _, tc := range []struct {
			name, path, host, auth string
			status                 int
			body                   string
		}{
			{"docs public page", "/docs/index.md", "", "", 200, "#"},
			{"docs staff page hidden", "/docs/internal/oncall.md", "", "", 404, ""},
			{"team anonymous", "/team/index.md", "", "", 401, ""},
			{"team staff token", "/team/" + private[0], "", "Bearer " + teamStaff, 200, string(privPage)},
			{"team with partner's token", "/team/index.md", "", "Bearer " + partnerStaff, 401, ""},
			{"partner anonymous private page", "/partner/" + private[0], "", "", 404, ""},
			{"partner staff token", "/partner/" + private[0], "", "Bearer " + partnerStaff, 200, string(privPage)},
			{"partner sales token", "/partner/" + private[0], "", "Bearer " + partnerSales, 404, ""},
			{"partner with team's token", "/partner/index.md", "", "Bearer " + teamStaff, 401, ""},
			{"partner, team's provider, partner's audience", "/partner/index.md", "", "Bearer " + teamForPartner, 401, ""},
			{"partner's host", "/" + private[0], "partner.test", "Bearer " + partnerStaff, 200, string(privPage)},
			{"team's token replayed on partner's host", "/" + private[0], "partner.test", "Bearer " + teamStaff, 401, ""},
			{"partner's host on docs' path", "/docs/internal/oncall.md", "partner.test", "Bearer " + partnerStaff, 404, ""},
			{"dot-dot from docs to team", "/docs/../team/index.md", "", "Bearer " + teamStaff, 404, ""},
			{"unknown site", "/nosuch/index.md", "", "", 404, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// The literal path: http.NewRequest keeps "..".
				status, h, body := get("GET", httpBase+tc.path, tc.host, tc.auth)
				if status != tc.status || (tc.body != "" && !strings.Contains(body, tc.body)) {
					t.Fatalf("GET %s: %d %.200q; want %d with %.80q", tc.path, status, body, tc.status, tc.body)
				}
				if status == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("401 with challenge %q", h.Get("WWW-Authenticate"))
				}
				if status != 200 && (strings.Contains(body, string(oncall)) || strings.Contains(body, string(privPage))) {
					t.Errorf("refusal shows a page")
				}
			})
		}
	})
	t.Run("webdav", func(t *testing.T) {
		status, _, body := get("PROPFIND", davBase+"/docs/", "", "", "Depth", "1")
		if status != 207 || !strings.Contains(body, "<D:href>/docs/index.md</D:href>") || strings.Contains(body, "internal") {
			t.Errorf("PROPFIND /docs/: %d\n%s", status, body)
		}
		status, _, body = get("PROPFIND", davBase+"/", "partner.test", "Bearer "+partnerStaff, "Depth", "1")
		if status != 207 || !strings.Contains(body, "<D:href>/internal/</D:href>") {
			t.Errorf("PROPFIND / on partner's host with a staff token: %d\n%s", status, body)
		}
		if status, _, _ := get("PROPFIND", davBase+"/team/", "", "", "Depth", "0"); status != 401 {
			t.Errorf("PROPFIND /team/ anonymous: %d, want 401", status)
		}
	})
	t.Run("mcp tools of docs", func(t *testing.T) {
		cs, err := streamableClient(mcpBase+"/docs/mcp", "")
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if want := []string{"bash_docs", "search_docs"}; !slices.Equal(names, want) {
			t.Errorf("tools %q, want %q", names, want)
		}
		if got, isErr := mcpText(t, cs, "bash_docs", map[string]any{"command": "cat /index.md | head -1"}); isErr || !strings.HasPrefix(got, "#") {
			t.Errorf("bash_docs: %q", got)
		}
	})
	t.Run("mcp by host", func(t *testing.T) {
		tr := &mcp.StreamableClientTransport{Endpoint: mcpBase + "/mcp", HTTPClient: &http.Client{Transport: hostTransport{"partner.test", "Bearer " + partnerStaff}}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if got, isErr := mcpText(t, cs, "read", map[string]any{"path": "/" + private[0]}); isErr || !strings.Contains(got, "1\t") {
			t.Errorf("read of a staff page on partner's host: %q", got)
		}
		tr = &mcp.StreamableClientTransport{Endpoint: mcpBase + "/mcp", HTTPClient: &http.Client{Transport: hostTransport{"partner.test", "Bearer " + teamStaff}}, MaxRetries: -1}
		if _, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("team's token on partner's host: %v, want 401", err)
		}
		tr = &mcp.StreamableClientTransport{Endpoint: mcpBase + "/docs/mcp", HTTPClient: &http.Client{Transport: hostTransport{"evil.test", ""}}, MaxRetries: -1}
		if _, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("an unlisted host on a loopback address (DNS rebinding): %v, want 403", err)
		}
	})
	t.Run("typescript client", func(t *testing.T) {
		publicArgs := []string{"--docs", corpusDir}
		for _, p := range private {
			publicArgs = append(publicArgs, "--private", p)
		}
		for _, c := range []struct {
			name string
			args []string
		}{
			{"team staff", []string{"--docs", corpusDir, "--url", mcpBase + "/team/mcp", "--token", teamStaff}},
			{"partner sales", append(slices.Clone(publicArgs), "--url", mcpBase+"/partner/mcp", "--token", partnerSales)},
			{"partner anonymous", append(slices.Clone(publicArgs), "--url", mcpBase+"/partner/mcp")},
		} {
			t.Run(c.name, func(t *testing.T) {
				if rep := runTSClient(t, c.args...); rep.Transport != "http" {
					t.Errorf("transport %q, want http", rep.Transport)
				}
			})
		}
	})
	t.Run("metrics by site", func(t *testing.T) {
		status, _, body := get("GET", adminBase+"/metrics", "", "")
		if status != 200 {
			t.Fatalf("/metrics: %d", status)
		}
		for _, want := range []string{
			`chromafs_http_requests_total{code="200",listener="http",method="get",site="partner"}`,
			`chromafs_http_requests_total{code="401",listener="http",method="get",site="team"}`,
			`chromafs_http_requests_total{code="404",listener="http",method="get",site=""}`,
			`chromafs_mcp_tool_calls_total{outcome="ok",site="docs",tool="bash_docs"} 1`,
			`chromafs_signin_failures_total{reason="credentials",site="partner"}`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics has no %s", want)
			}
		}
		if status, _, body := get("GET", adminBase+"/readyz", "", ""); status != 200 || !strings.Contains(body, "sites: 3 configured, 3 loaded") {
			t.Errorf("admin /readyz: %d %q", status, body)
		}
	})
	t.Run("typescript metadata", func(t *testing.T) {
		node, script := tsClient(t)
		cmd := exec.Command(node, filepath.Join(filepath.Dir(script), "meta.mjs"), mcpBase+"/team/mcp")
		cmd.Dir = filepath.Dir(script)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("meta.mjs: %v\n%s%s", err, out, stderr.String())
		}
		type doc struct {
			Resource               string   `json:"resource"`
			AuthorizationServers   []string `json:"authorization_servers"`
			BearerMethodsSupported []string `json:"bearer_methods_supported"`
		}
		var rep struct {
			Status              int    `json:"status"`
			ResourceMetadataURL string `json:"resourceMetadataUrl"`
			ByHeader, ByPath    *doc
			Allowed             bool `json:"allowed"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("meta.mjs: %v\n%s", err, out)
		}
		want := doc{Resource: mcpBase + "/team/mcp", AuthorizationServers: []string{teamIDP.srv.URL}, BearerMethodsSupported: []string{"header"}}
		if rep.Status != 401 || rep.ResourceMetadataURL != mcpBase+"/.well-known/oauth-protected-resource/team/mcp" || !rep.Allowed {
			t.Errorf("meta.mjs: %s", out)
		}
		for name, d := range map[string]*doc{"from the challenge": rep.ByHeader, "from the well-known URL": rep.ByPath} {
			if d == nil || d.Resource != want.Resource || !slices.Equal(d.AuthorizationServers, want.AuthorizationServers) || !slices.Equal(d.BearerMethodsSupported, want.BearerMethodsSupported) {
				t.Errorf("metadata %s: %+v, want %+v", name, d, want)
			}
		}
	})
}

// TestServeSitesErrors checks that serve --sites stops at start, with a
// message naming the problem, on a bad sites file or flags that do not
// apply.
func TestServeSitesErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "sites:\n  - name: a\n    collection: c\n")
	badUsers := write("bad.users", "alice nopassword\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"--sites", filepath.Join(dir, "nosuch.yaml")}, "nosuch.yaml"},
		{"unknown key", []string{"--sites", write("k.yaml", "sites:\n  - name: a\n    colection: c\n")}, "line 3: unknown key colection"},
		{"bad users file", []string{"--sites", write("u.yaml", "sites:\n  - name: a\n    collection: c\n    auth:\n      users: "+badUsers+"\n")}, "site a: users file"},
		{"--users", []string{"--sites", good, "--users", badUsers}, "--users and --deny-anonymous do not apply with --sites"},
		{"--rate-limit without --sites", []string{"--collection", "c", "--rate-limit", "5"}, "--rate-limit applies with --sites only"},
		{"--site-idle without --sites", []string{"--collection", "c", "--site-idle", "1m"}, "--site-idle applies with --sites only"},
		{"bad --max-memory", []string{"--sites", good, "--max-memory", "lots"}, "not a size"},
		{"negative rate", []string{"--sites", write("r.yaml", "sites:\n  - name: a\n    collection: c\n    limits: {rate: -2}\n")}, "site a (line 2): limits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := cli(t, append([]string{"serve", "--http", "127.0.0.1:0"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, %q; want 2 with %q", code, errOut, tc.want)
			}
		})
	}
}

// siteRequest sends a request without a body to url, with the Host
// host (if not empty), the Authorization auth (if not empty) and the
// header pairs hdr, and returns the answer's status, header and body.
func siteRequest(t *testing.T, method, url, host, auth string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
