// Package sites is what `chromafs serve --sites FILE` serves: many doc
// sites (each a collection, with its own sign-in and MCP tools) in one
// server. It reads the sites file (Load, Parse) and routes requests to
// the sites (Registry): /NAME/... is site NAME's root, /NAME/mcp its MCP
// endpoint, and a Host listed under a site's hosts reaches it at / and
// /mcp.
//
// # The sites file
//
// A YAML document with one key, sites, a list of sites:
//
//	sites:
//	  - name: acme                  # URL-safe: [a-z0-9][a-z0-9_-]*, at most 63
//	    collection: acme-docs       # required
//	    tenant: t1                  # optional, as the global flags
//	    database: d1
//	    chroma_url: http://chroma:8000
//	    chroma_token_file: acme.key # the API key, read from a file
//	    slug_field: slug
//	    index_field: index
//	    tree_id: __tree__
//	    separator: "\n"
//	    hosts: [docs.acme.com]      # routed to this site at / and /mcp
//	    auth:
//	      anonymous: public         # or deny (default public)
//	      users: acme.users         # today's users file
//	      jwt:
//	        jwks: https://login.acme.com/jwks.json # or a file; or oidc_issuer
//	        issuer: https://login.acme.com
//	        audience: https://docs.acme.com/mcp
//	        groups_claim: groups
//	        groups_delimiter: " "
//	        algorithms: [EdDSA, ES256, RS256]
//	    mcp:
//	      tools: [bash, search]     # default all
//	      suffix: acme              # bash_acme, search_acme
//	      max_sessions: 200         # default --mcp-max-sessions
//	      max_user_sessions: 10     # default --mcp-max-user-sessions
//	    limits:                     # requests/s, default the serve flags
//	      rate: 20                  # of one client (user, else address)
//	      burst: 40
//	      site_rate: 500            # of all clients of the site
//	      site_burst: 1000
//
// Keys not listed here are errors naming their line. Relative file names
// are relative to the sites file's directory. Optional Chroma and layout
// keys left out take the values of the command line's global flags.
//
// # Reload
//
// Registry.Reload swaps the sites (serve reloads the file on SIGHUP): a
// site whose configuration is unchanged keeps its instance and MCP
// sessions; a changed site is made again at its next request (its old
// MCP sessions end: their next request gets "session not found", and
// clients start a new one); a removed site answers 404 and is closed once
// its requests in flight have ended.
//
// # Memory
//
// Registry.SetEviction bounds the sites kept made (serve's --site-idle,
// --max-sites-loaded and --max-memory): idle sites are closed, and the
// least recently used past the count or the memory budget; a site with
// a request in flight or an MCP session open is not. A closed site is
// made again at its next request.
package sites

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/chromafs/chromafs/internal/identity"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/mcpserver"
)

// Config is a sites file.
type Config struct {
	Sites []*Site `yaml:"sites"`
}

// Site is one site of a sites file. Empty optional fields mean the
// command line's value (or its default).
type Site struct {
	Name            string   `yaml:"name"`
	Collection      string   `yaml:"collection"`
	Tenant          string   `yaml:"tenant"`
	Database        string   `yaml:"database"`
	ChromaURL       string   `yaml:"chroma_url"`
	ChromaTokenFile string   `yaml:"chroma_token_file"`
	SlugField       string   `yaml:"slug_field"`
	IndexField      string   `yaml:"index_field"`
	TreeID          string   `yaml:"tree_id"`
	Separator       *string  `yaml:"separator"` // nil: not given
	Hosts           []string `yaml:"hosts"`
	Auth            Auth     `yaml:"auth"`
	MCP             MCP      `yaml:"mcp"`
	Limits          Limits   `yaml:"limits"`

	// Line is the line of the site in the file (for messages).
	Line int `yaml:"-"`
}

// Auth is a site's sign-in.
type Auth struct {
	// Anonymous is AnonymousPublic (the default: requests without
	// credentials see public pages) or AnonymousDeny (they get 401).
	Anonymous string `yaml:"anonymous"`
	// Users is a users file (package server's format).
	Users string `yaml:"users"`
	// JWT, if set, signs users in with bearer tokens of an identity
	// provider.
	JWT *JWT `yaml:"jwt"`
}

// Values of Auth.Anonymous.
const (
	AnonymousPublic = "public"
	AnonymousDeny   = "deny"
)

// JWT is a site's identity provider (see identity.Config).
type JWT struct {
	JWKS            string   `yaml:"jwks"`
	OIDCIssuer      string   `yaml:"oidc_issuer"`
	Issuer          string   `yaml:"issuer"`
	Audience        string   `yaml:"audience"`
	GroupsClaim     string   `yaml:"groups_claim"`
	GroupsDelimiter string   `yaml:"groups_delimiter"`
	Algorithms      []string `yaml:"algorithms"`
}

// MCP is a site's MCP tools.
type MCP struct {
	// Tools are the tools served, among mcpserver.ToolNames (default
	// all).
	Tools []string `yaml:"tools"`
	// Suffix is appended to every tool's name (mcpserver.Config.NameSuffix).
	Suffix string `yaml:"suffix"`
	// MaxSessions and MaxUserSessions bound the site's MCP sessions open
	// at once, of all users and of one user (server.MCPOptions); 0 or
	// absent: serve's --mcp-max-sessions and --mcp-max-user-sessions.
	MaxSessions     int `yaml:"max_sessions"`
	MaxUserSessions int `yaml:"max_user_sessions"`
}

// Limits are a site's request rate limits (server.RateLimits): requests
// per second of one client (the signed-in user, else the client address)
// and of all clients together, each with a burst. An absent key takes
// serve's flag (--rate-limit, --rate-burst, --site-rate-limit,
// --site-rate-burst); a rate of 0 given here means no limit.
type Limits struct {
	Rate      *float64 `yaml:"rate"`
	Burst     int      `yaml:"burst"`
	SiteRate  *float64 `yaml:"site_rate"`
	SiteBurst int      `yaml:"site_burst"`
}

// DenyAnonymous reports whether requests without credentials are refused.
func (s *Site) DenyAnonymous() bool { return s.Auth.Anonymous == AnonymousDeny }

// RateLimits are the site's rate limits, its keys taking the place of
// def's (serve's flags).
func (s *Site) RateLimits(def server.RateLimits) server.RateLimits {
	l := def
	if s.Limits.Rate != nil {
		l.Rate, l.Burst = *s.Limits.Rate, 0
	}
	if s.Limits.Burst > 0 {
		l.Burst = s.Limits.Burst
	}
	if s.Limits.SiteRate != nil {
		l.SiteRate, l.SiteBurst = *s.Limits.SiteRate, 0
	}
	if s.Limits.SiteBurst > 0 {
		l.SiteBurst = s.Limits.SiteBurst
	}
	return l
}

// Identity returns the identity.Config of the site's JWT section (the
// zero Config when it has none).
func (s *Site) Identity() identity.Config {
	j := s.Auth.JWT
	if j == nil {
		return identity.Config{}
	}
	return identity.Config{
		JWKS: j.JWKS, OIDCIssuer: j.OIDCIssuer, Issuer: j.Issuer, Audience: j.Audience,
		GroupsClaim: j.GroupsClaim, GroupsDelimiter: j.GroupsDelimiter, Algorithms: j.Algorithms,
	}
}

// Issuer is the authorization server that the site's protected resource
// metadata names: the JWT section's issuer, else its oidc_issuer; empty
// without one.
func (s *Site) Issuer() string {
	j := s.Auth.JWT
	switch {
	case j == nil:
		return ""
	case j.Issuer != "":
		return j.Issuer
	}
	return j.OIDCIssuer
}

// MaxNameLen is the length of the longest site name.
const MaxNameLen = 63

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// hostRE matches a host name (no port, no scheme), lower case.
var hostRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// reserved are names a site cannot have: the paths the server answers
// itself at the root.
var reserved = []string{"healthz", "readyz"}

// Load reads and checks a sites file (see Parse). Relative file names in
// it are made absolute, relative to the file's directory, and must exist.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sites file: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sites file: %w", err)
	}
	cfg, err := Parse(bytes.NewReader(b), filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("sites file %s: %w", path, err)
	}
	return cfg, nil
}

// Parse reads a sites file from r and checks it: every key known, every
// site with a valid and unique name and a collection, hosts unique
// across sites, anonymous public or deny (deny with users or jwt), jwt
// with exactly one of jwks and oidc_issuer (see identity.New for the
// rest), known MCP tools and a valid suffix, and the files it names
// present. Relative file names are made absolute against dir. Errors
// name the site and its line.
func Parse(r io.Reader, dir string) (*Config, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty: want a list `sites:` of sites, each with a name and a collection")
		}
		return nil, yamlError(err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document: want one, with a list `sites:`")
	}
	// The lines of the sites, for messages.
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err == nil && len(doc.Content) == 1 {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "sites" && m.Content[i+1].Kind == yaml.SequenceNode {
				for j, n := range m.Content[i+1].Content {
					if j < len(cfg.Sites) && cfg.Sites[j] != nil {
						cfg.Sites[j].Line = n.Line
					}
				}
			}
		}
	}
	if err := cfg.check(dir); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// yamlError rewords the decoder's errors: "yaml: unmarshal errors:\n
// line 5: field colection not found in type sites.Site" becomes "line 5:
// unknown key colection".
func yamlError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var msgs []string
	for _, e := range te.Errors {
		if i := strings.Index(e, ": field "); i >= 0 && strings.Contains(e, " not found in type ") {
			key := strings.TrimPrefix(e[i:], ": field ")
			key, _, _ = strings.Cut(key, " not found in type ")
			e = e[:i] + ": unknown key " + key + " (see `chromafs serve --help` for the keys of a sites file)"
		}
		msgs = append(msgs, e)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// check validates the configuration and resolves its file names.
func (cfg *Config) check(dir string) error {
	if len(cfg.Sites) == 0 {
		return errors.New("no sites: want a list `sites:` of sites, each with a name and a collection")
	}
	names := map[string]*Site{}
	hosts := map[string]*Site{}
	for i, s := range cfg.Sites {
		if s == nil {
			return fmt.Errorf("site %d is empty: give it a name and a collection", i+1)
		}
		where := fmt.Sprintf("site %d (line %d)", i+1, s.Line)
		if s.Name != "" {
			where = fmt.Sprintf("site %s (line %d)", s.Name, s.Line)
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s: %s", where, fmt.Sprintf(format, a...))
		}
		switch {
		case s.Name == "":
			return fail("no name: give it a name of a-z, 0-9, _ and -, such as acme")
		case len(s.Name) > MaxNameLen || !nameRE.MatchString(s.Name):
			return fail("name %q is not URL-safe: want 1 to %d characters of a-z, 0-9, _ and -, starting with a letter or a digit", s.Name, MaxNameLen)
		case slices.Contains(reserved, s.Name):
			return fail("name %q is reserved (the server answers /%s itself): choose another", s.Name, s.Name)
		}
		if other := names[s.Name]; other != nil {
			return fail("name %q is also the name of the site at line %d: names must be unique", s.Name, other.Line)
		}
		names[s.Name] = s
		if s.Collection == "" {
			return fail("no collection: name the Chroma collection it serves")
		}
		if s.ChromaURL != "" {
			if u, err := url.Parse(s.ChromaURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("chroma_url %q: want an http:// or https:// URL", s.ChromaURL)
			}
		}
		for j, h := range s.Hosts {
			n := strings.TrimSuffix(strings.ToLower(h), ".")
			if !hostRE.MatchString(n) {
				return fail("host %q: want a host name such as docs.acme.com (no scheme, port or path)", h)
			}
			if other := hosts[n]; other != nil {
				return fail("host %q is also a host of site %s: a host reaches one site", h, other.Name)
			}
			hosts[n] = s
			s.Hosts[j] = n
		}
		switch s.Auth.Anonymous {
		case "":
			s.Auth.Anonymous = AnonymousPublic
		case AnonymousPublic, AnonymousDeny:
		default:
			return fail("auth.anonymous %q: want public or deny", s.Auth.Anonymous)
		}
		if s.DenyAnonymous() && s.Auth.Users == "" && s.Auth.JWT == nil {
			return fail("auth.anonymous is deny with neither auth.users nor auth.jwt: nobody could sign in")
		}
		var err error
		if s.Auth.Users, err = existing(dir, s.Auth.Users); err != nil {
			return fail("auth.users: %v", err)
		}
		if s.ChromaTokenFile, err = existing(dir, s.ChromaTokenFile); err != nil {
			return fail("chroma_token_file: %v", err)
		}
		if j := s.Auth.JWT; j != nil {
			switch {
			case j.JWKS != "" && j.OIDCIssuer != "":
				return fail("auth.jwt has both jwks and oidc_issuer: give one (oidc_issuer finds the key set by discovery)")
			case j.JWKS == "" && j.OIDCIssuer == "":
				return fail("auth.jwt has neither jwks (a key set's https URL or file) nor oidc_issuer")
			case j.Audience == "":
				return fail("auth.jwt has no audience: name the aud this site's tokens carry (a token for another site must not open this one)")
			}
			if j.JWKS != "" && !strings.Contains(j.JWKS, "://") {
				if j.JWKS, err = existing(dir, j.JWKS); err != nil {
					return fail("auth.jwt.jwks: %v", err)
				}
			}
			if _, err := identity.New(s.Identity()); err != nil {
				return fail("auth.jwt: %v", err)
			}
		}
		for _, t := range s.MCP.Tools {
			if !slices.Contains(mcpserver.ToolNames(), t) {
				return fail("mcp.tools: unknown tool %q: the tools are %s", t, strings.Join(mcpserver.ToolNames(), ", "))
			}
		}
		if err := (mcpserver.Config{NameSuffix: s.MCP.Suffix}).Validate(); err != nil {
			return fail("mcp.suffix: %v", err)
		}
		if s.MCP.MaxSessions < 0 || s.MCP.MaxUserSessions < 0 {
			return fail("mcp.max_sessions and mcp.max_user_sessions: want a number of sessions, at least 1 (or leave the key out for serve's flag)")
		}
		l := s.Limits
		if (l.Rate != nil && *l.Rate < 0) || (l.SiteRate != nil && *l.SiteRate < 0) || l.Burst < 0 || l.SiteBurst < 0 {
			return fail("limits: rates and bursts cannot be negative: want requests per second (0: no limit) and a burst of at least 1")
		}
	}
	return nil
}

// existing makes name absolute against dir and checks that it is a
// readable file; an empty name stays empty.
func existing(dir, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s is a directory, not a file", name)
	}
	return name, nil
}
