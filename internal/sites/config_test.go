package sites

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/server"
)

// TestParse checks that good files parse (with defaults filled in and
// file names made absolute) and that each kind of mistake is refused with
// a message that names the site, the line and what to do.
func TestParse(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"acme.users", "acme.key", "jwks.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	good := `sites:
  - name: acme
    collection: acme-docs
    tenant: t1
    database: d1
    chroma_url: http://chroma:8000
    chroma_token_file: acme.key
    slug_field: s
    index_field: i
    tree_id: tr
    separator: "\n"
    hosts: [Docs.Acme.com.]
    auth:
      anonymous: deny
      users: acme.users
      jwt:
        jwks: jwks.json
        issuer: https://login.acme.com
        audience: https://docs.acme.com/mcp
        groups_claim: roles
        groups_delimiter: " "
        algorithms: [ES256]
    mcp:
      tools: [bash, search]
      suffix: acme
  - name: beta_2
    collection: beta
    auth:
      jwt:
        oidc_issuer: https://login.beta.com
        audience: beta
`
	cfg, err := Parse(strings.NewReader(good), dir)
	if err != nil {
		t.Fatalf("good file: %v", err)
	}
	a, b := cfg.Sites[0], cfg.Sites[1]
	if a.Line != 2 || b.Line != 26 {
		t.Errorf("lines %d, %d; want 2, 26", a.Line, b.Line)
	}
	if a.Hosts[0] != "docs.acme.com" {
		t.Errorf("host %q not normalized", a.Hosts[0])
	}
	if a.Auth.Users != filepath.Join(dir, "acme.users") || a.ChromaTokenFile != filepath.Join(dir, "acme.key") || a.Auth.JWT.JWKS != filepath.Join(dir, "jwks.json") {
		t.Errorf("files not made absolute: %q %q %q", a.Auth.Users, a.ChromaTokenFile, a.Auth.JWT.JWKS)
	}
	if a.Separator == nil || *a.Separator != "\n" || b.Separator != nil {
		t.Errorf("separator %v, %v", a.Separator, b.Separator)
	}
	if !a.DenyAnonymous() || b.DenyAnonymous() || b.Auth.Anonymous != AnonymousPublic {
		t.Errorf("anonymous %q, %q", a.Auth.Anonymous, b.Auth.Anonymous)
	}
	if a.Issuer() != "https://login.acme.com" || b.Issuer() != "https://login.beta.com" {
		t.Errorf("issuers %q, %q", a.Issuer(), b.Issuer())
	}
	if got := a.Identity(); got.GroupsClaim != "roles" || got.Audience != "https://docs.acme.com/mcp" || len(got.Algorithms) != 1 {
		t.Errorf("identity config %+v", got)
	}

	for _, tc := range []struct {
		name, file string
		want       []string // substrings of the error
	}{
		{"empty", ``, []string{"empty"}},
		{"no sites", "sites: []\n", []string{"no sites"}},
		{"unknown top key", "site:\n  - name: a\n", []string{"line 1", "unknown key site"}},
		{"unknown site key", "sites:\n  - name: a\n    colection: c\n", []string{"line 3", "unknown key colection"}},
		{"unknown jwt key", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        audiance: x\n", []string{"line 6", "unknown key audiance"}},
		{"no name", "sites:\n  - collection: c\n", []string{"site 1 (line 2)", "no name"}},
		{"unsafe name", "sites:\n  - name: Acme\n    collection: c\n", []string{"not URL-safe"}},
		{"slash in name", "sites:\n  - name: a/b\n    collection: c\n", []string{"not URL-safe"}},
		{"dots name", "sites:\n  - name: ..\n    collection: c\n", []string{"not URL-safe"}},
		{"long name", "sites:\n  - name: " + strings.Repeat("a", 64) + "\n    collection: c\n", []string{"not URL-safe"}},
		{"reserved name", "sites:\n  - name: healthz\n    collection: c\n", []string{"reserved"}},
		{"duplicate name", "sites:\n  - name: a\n    collection: c\n  - name: a\n    collection: d\n", []string{"site a (line 4)", "line 2", "unique"}},
		{"no collection", "sites:\n  - name: a\n", []string{"site a (line 2)", "no collection"}},
		{"bad chroma url", "sites:\n  - name: a\n    collection: c\n    chroma_url: chroma:8000\n", []string{"chroma_url"}},
		{"bad host", "sites:\n  - name: a\n    collection: c\n    hosts: [\"https://docs.a.com\"]\n", []string{"host", "no scheme"}},
		{"host with port", "sites:\n  - name: a\n    collection: c\n    hosts: [\"docs.a.com:8080\"]\n", []string{"host"}},
		{"duplicate host", "sites:\n  - name: a\n    collection: c\n    hosts: [docs.x.com]\n  - name: b\n    collection: c\n    hosts: [DOCS.x.com]\n", []string{"site b", "also a host of site a"}},
		{"bad anonymous", "sites:\n  - name: a\n    collection: c\n    auth:\n      anonymous: maybe\n", []string{"public or deny"}},
		{"deny without sign-in", "sites:\n  - name: a\n    collection: c\n    auth:\n      anonymous: deny\n", []string{"nobody could sign in"}},
		{"missing users", "sites:\n  - name: a\n    collection: c\n    auth:\n      users: nosuch.users\n", []string{"auth.users", "nosuch.users"}},
		{"users is a dir", "sites:\n  - name: a\n    collection: c\n    auth:\n      users: adir\n", []string{"auth.users", "directory"}},
		{"missing token file", "sites:\n  - name: a\n    collection: c\n    chroma_token_file: no.key\n", []string{"chroma_token_file"}},
		{"jwks and oidc", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        jwks: https://x/j\n        oidc_issuer: https://x\n        audience: a\n", []string{"both jwks and oidc_issuer"}},
		{"neither jwks nor oidc", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        audience: a\n", []string{"neither jwks"}},
		{"no audience", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        oidc_issuer: https://x\n", []string{"no audience"}},
		{"missing jwks file", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        jwks: keys.json\n        issuer: https://x\n        audience: a\n", []string{"auth.jwt.jwks"}},
		{"http jwks", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        jwks: http://idp.example.com/jwks\n        issuer: https://x\n        audience: a\n", []string{"auth.jwt", "https"}},
		{"jwks without issuer", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        jwks: https://x/jwks\n        audience: a\n", []string{"auth.jwt", "ssuer"}},
		{"hmac algorithm", "sites:\n  - name: a\n    collection: c\n    auth:\n      jwt:\n        oidc_issuer: https://x\n        audience: a\n        algorithms: [HS256]\n", []string{"auth.jwt", "HS256"}},
		{"unknown tool", "sites:\n  - name: a\n    collection: c\n    mcp:\n      tools: [bash, cat]\n", []string{"unknown tool \"cat\"", "bash, read"}},
		{"bad suffix", "sites:\n  - name: a\n    collection: c\n    mcp:\n      suffix: Acme\n", []string{"mcp.suffix"}},
		{"negative rate", "sites:\n  - name: a\n    collection: c\n    limits:\n      rate: -1\n", []string{"site a", "limits", "negative"}},
		{"negative site burst", "sites:\n  - name: a\n    collection: c\n    limits:\n      site_burst: -5\n", []string{"limits"}},
		{"unknown limits key", "sites:\n  - name: a\n    collection: c\n    limits:\n      rps: 5\n", []string{"line 5", "unknown key rps"}},
		{"negative sessions", "sites:\n  - name: a\n    collection: c\n    mcp:\n      max_sessions: -1\n", []string{"mcp.max_sessions"}},
		{"two documents", "sites:\n  - name: a\n    collection: c\n---\nsites: []\n", []string{"more than one YAML document"}},
		{"wrong type", "sites:\n  - name: a\n    collection: [c]\n", []string{"line 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.file), dir)
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.file)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestLoad checks that Load resolves file names against the sites
// file's directory, not the working directory, and names the file in
// its errors.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.users"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sites.yaml")
	if err := os.WriteFile(path, []byte("sites:\n  - name: a\n    collection: c\n    auth:\n      users: a.users\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Sites[0].Auth.Users; got != filepath.Join(dir, "a.users") {
		t.Errorf("users %q", got)
	}
	if _, err := Load(filepath.Join(dir, "nosuch.yaml")); err == nil || !strings.Contains(err.Error(), "nosuch.yaml") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("sites:\n  - name: a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file: %v", err)
	}
}

// TestREADMESitesFile checks that the sites file README.md shows under
// "Serve many sites" parses (with the files it names present) into the
// three sites it describes.
func TestREADMESitesFile(t *testing.T) {
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(text), "### Serve many sites\n")
	if !ok {
		t.Fatal("README.md has no section \"Serve many sites\"")
	}
	_, block, ok := strings.Cut(sec, "```yaml\n")
	if !ok {
		t.Fatal("the section has no yaml block")
	}
	block, _, _ = strings.Cut(block, "```")
	dir := t.TempDir()
	for _, f := range []string{"users.txt", "acme-chroma.key"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := Parse(strings.NewReader(block), dir)
	if err != nil {
		t.Fatalf("the README's sites file: %v", err)
	}
	var kinds []string
	for _, s := range cfg.Sites {
		switch j := s.Auth.JWT; {
		case j == nil && !s.DenyAnonymous():
			kinds = append(kinds, "public")
		case j != nil && j.JWKS != "":
			kinds = append(kinds, "jwks")
		case j != nil && j.OIDCIssuer != "":
			kinds = append(kinds, "oidc")
		}
	}
	if strings.Join(kinds, " ") != "public jwks oidc" {
		t.Errorf("the README's sites are %q, want a public, a JWKS and an OIDC site", kinds)
	}
}

// TestSiteRateLimits: a site's limits keys take the place of serve's
// flags one by one; a rate given without a burst gets the rate's default
// burst, not the flag's; rate 0 turns the flag's limit off.
func TestSiteRateLimits(t *testing.T) {
	def := server.RateLimits{Rate: 20, Burst: 40, SiteRate: 500, SiteBurst: 1000}
	for _, tc := range []struct {
		name, limits string
		want         server.RateLimits
	}{
		{"none", "", def},
		{"rate only", "{rate: 5}", server.RateLimits{Rate: 5, SiteRate: 500, SiteBurst: 1000}},
		{"burst only", "{burst: 7}", server.RateLimits{Rate: 20, Burst: 7, SiteRate: 500, SiteBurst: 1000}},
		{"all", "{rate: 1.5, burst: 3, site_rate: 10, site_burst: 30}", server.RateLimits{Rate: 1.5, Burst: 3, SiteRate: 10, SiteBurst: 30}},
		{"off", "{rate: 0, site_rate: 0}", server.RateLimits{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := "sites:\n  - name: a\n    collection: c\n"
			if tc.limits != "" {
				file += "    limits: " + tc.limits + "\n"
			}
			cfg, err := Parse(strings.NewReader(file), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Sites[0].RateLimits(def); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
