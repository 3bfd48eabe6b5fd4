package identity_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/chromafs/chromafs/internal/identity"
)

// TestVerify checks each kind of token against one site's key set served
// over https: valid tokens of each algorithm, and every way a token must
// be refused, with the reason and the HTTP status.
func TestVerify(t *testing.T) {
	ed, ec, rs, other := keys(t)
	srv := newJWKSServer(t, jwksOf(t, ed, ec, rs))
	clk := newClock()
	v := mustNew(t, srv.config(clk))
	now := clk.Now()

	edit := func(f func(c map[string]any)) map[string]any {
		c := claims(now)
		f(c)
		return c
	}
	pubDER := func(s signer) []byte {
		b, err := x509.MarshalPKIXPublicKey(s.priv.Public())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pubPEM := func(s signer) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER(s)})
	}
	jwkJSON := func(s signer) []byte {
		k := s.jwk()
		b, err := k.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	noKid := ed
	noKid.kid = ""
	rsAsES := ec
	rsAsES.kid = rs.kid // an ES256 token naming the RSA key
	tampered := func(tok string) string {
		parts := strings.Split(tok, ".")
		forged := sign(t, other, edit(func(c map[string]any) { c["sub"] = "root" }), nil)
		parts[1] = strings.Split(forged, ".")[1]
		return strings.Join(parts, ".")
	}
	validEd := sign(t, ed, claims(now), nil)

	tests := []struct {
		name   string
		token  string
		sub    string
		groups []string
		want   error // nil: valid
		status int
		detail string // a part of the error message
	}{
		{name: "EdDSA", token: validEd, sub: "alice", groups: []string{"staff", "eng"}},
		{name: "ES256", token: sign(t, ec, claims(now), nil), sub: "alice", groups: []string{"staff", "eng"}},
		{name: "RS256", token: sign(t, rs, claims(now), nil), sub: "alice", groups: []string{"staff", "eng"}},
		{name: "aud list with ours", token: sign(t, ec, edit(func(c map[string]any) { c["aud"] = []string{"other", audience} }), nil), sub: "alice", groups: []string{"staff", "eng"}},
		{name: "no kid, one key fits", token: sign(t, noKid, claims(now), nil), sub: "alice", groups: []string{"staff", "eng"}},
		{name: "expired within skew", token: sign(t, ed, edit(func(c map[string]any) { c["exp"] = now.Add(-30 * time.Second).Unix() }), nil), sub: "alice", groups: []string{"staff", "eng"}},
		{name: "nbf within skew", token: sign(t, ed, edit(func(c map[string]any) { c["nbf"] = now.Add(30 * time.Second).Unix() }), nil), sub: "alice", groups: []string{"staff", "eng"}},

		{name: "alg none", token: raw(t, map[string]any{"alg": "none", "kid": ed.kid, "typ": "JWT"}, claims(now), func([]byte) []byte { return nil }),
			want: identity.ErrAlgorithm, status: 401, detail: `alg "none"`},
		{name: "alg None", token: raw(t, map[string]any{"alg": "None", "typ": "JWT"}, claims(now), func([]byte) []byte { return nil }),
			want: identity.ErrAlgorithm, status: 401},
		{name: "HS256 with the RSA key's PEM as secret", token: raw(t, map[string]any{"alg": "HS256", "kid": rs.kid}, claims(now), hs256(pubPEM(rs))),
			want: identity.ErrAlgorithm, status: 401, detail: "HS256"},
		{name: "HS256 with the RSA key's DER as secret", token: raw(t, map[string]any{"alg": "HS256", "kid": rs.kid}, claims(now), hs256(pubDER(rs))),
			want: identity.ErrAlgorithm, status: 401},
		{name: "HS256 with the EC key's JWK as secret", token: raw(t, map[string]any{"alg": "HS256", "kid": ec.kid}, claims(now), hs256(jwkJSON(ec))),
			want: identity.ErrAlgorithm, status: 401},
		{name: "HS256 with the EC key's PEM as secret, no kid", token: raw(t, map[string]any{"alg": "HS256"}, claims(now), hs256(pubPEM(ec))),
			want: identity.ErrAlgorithm, status: 401},
		{name: "RS384 not allowed", token: sign(t, signer{jose.RS384, rs.kid, rs.priv}, claims(now), nil),
			want: identity.ErrAlgorithm, status: 401},
		{name: "ES256 naming the RSA key", token: sign(t, rsAsES, claims(now), nil),
			want: identity.ErrAlgorithm, status: 401, detail: "cannot verify alg ES256"},
		{name: "known kid, other key", token: sign(t, other, claims(now), nil),
			want: identity.ErrSignature, status: 401},
		{name: "embedded jwk header", token: sign(t, other, claims(now), map[jose.HeaderKey]any{"jwk": other.jwk()}),
			want: identity.ErrSignature, status: 401},
		{name: "payload swapped", token: tampered(validEd),
			want: identity.ErrSignature, status: 401},
		{name: "unknown kid", token: sign(t, signer{ed.alg, "nope", ed.priv}, claims(now), nil),
			want: identity.ErrUnknownKey, status: 401, detail: `"nope"`},
		{name: "expired", token: sign(t, ed, edit(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() }), nil),
			want: identity.ErrExpired, status: 401, detail: "expired at"},
		{name: "not yet valid", token: sign(t, ed, edit(func(c map[string]any) { c["nbf"] = now.Add(2 * time.Minute).Unix() }), nil),
			want: identity.ErrNotYetValid, status: 401, detail: "nbf"},
		{name: "issued in the future", token: sign(t, ed, edit(func(c map[string]any) { c["iat"] = now.Add(2 * time.Minute).Unix() }), nil),
			want: identity.ErrNotYetValid, status: 401, detail: "iat"},
		{name: "wrong issuer", token: sign(t, ed, edit(func(c map[string]any) { c["iss"] = "https://evil.example" }), nil),
			want: identity.ErrIssuer, status: 401, detail: `"https://evil.example"`},
		{name: "issuer with a trailing slash", token: sign(t, ed, edit(func(c map[string]any) { c["iss"] = issuer + "/" }), nil),
			want: identity.ErrIssuer, status: 401},
		{name: "wrong audience", token: sign(t, ed, edit(func(c map[string]any) { c["aud"] = "https://api.example" }), nil),
			want: identity.ErrAudience, status: 401},
		{name: "another site's audience", token: sign(t, rs, edit(func(c map[string]any) { c["aud"] = []string{"site-b"} }), nil),
			want: identity.ErrAudience, status: 401, detail: `"site-a"`},
		{name: "no aud", token: sign(t, ed, edit(func(c map[string]any) { delete(c, "aud") }), nil),
			want: identity.ErrAudience, status: 401},
		{name: "no exp", token: sign(t, ed, edit(func(c map[string]any) { delete(c, "exp") }), nil),
			want: identity.ErrClaims, status: 401, detail: "exp"},
		{name: "no sub", token: sign(t, ed, edit(func(c map[string]any) { delete(c, "sub") }), nil),
			want: identity.ErrClaims, status: 401, detail: "sub"},
		{name: "exp a string", token: sign(t, ed, edit(func(c map[string]any) { c["exp"] = "tomorrow" }), nil),
			want: identity.ErrClaims, status: 401},
		{name: "not a JWT", token: "hello", want: identity.ErrMalformed, status: 401},
		{name: "three parts, not base64", token: "a!.b.c", want: identity.ErrMalformed, status: 401},
		{name: "empty", token: "", want: identity.ErrNoToken, status: 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub, groups, err := v.Verify(context.Background(), tc.token)
			if tc.want == nil {
				if err != nil || sub != tc.sub || !slices.Equal(groups, tc.groups) {
					t.Fatalf("Verify = %q, %q, %v; want %q, %q, nil", sub, groups, err, tc.sub, tc.groups)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %q, %q, %v; want %v", sub, groups, err, tc.want)
			}
			if sub != "" || groups != nil {
				t.Errorf("Verify returned %q, %q with an error", sub, groups)
			}
			if _, ok := errors.AsType[*identity.Error](err); !ok {
				t.Errorf("error %T is not an *identity.Error", err)
			}
			if got := identity.Status(err); got != tc.status {
				t.Errorf("Status = %d; want %d", got, tc.status)
			}
			if !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("error %q does not say %q", err, tc.detail)
			}
			if len(tc.token) > 20 && strings.Contains(err.Error(), tc.token[len(tc.token)-20:]) {
				t.Errorf("error %q echoes the token", err)
			}
		})
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("the key set was fetched %d times; want 1 (the unknown kid is within the refresh interval of the first fetch)", n)
	}
}

// TestGroups checks the groups claim: lists, strings with and without a
// delimiter, absent or null, and the wrong types, which are 403.
func TestGroups(t *testing.T) {
	ed, _, _, _ := keys(t)
	srv := newJWKSServer(t, jwksOf(t, ed))
	clk := newClock()
	tests := []struct {
		name      string
		claim     string // GroupsClaim ("" for the default)
		delimiter string
		value     any // the claim's value; absent if missing
		missing   bool
		want      []string
		err       bool
		detail    string
	}{
		{name: "list", value: []string{"a", "b c"}, want: []string{"a", "b c"}},
		{name: "empty list", value: []string{}, want: []string{}},
		{name: "empty strings dropped", value: []string{"a", ""}, want: []string{"a"}},
		{name: "absent", missing: true, want: nil},
		{name: "null", value: nil, want: nil},
		{name: "string, no delimiter", value: "docs-team", want: []string{"docs-team"}},
		{name: "comma-delimited", delimiter: ",", value: "a, b,,c ", want: []string{"a", "b", "c"}},
		{name: "space-delimited", delimiter: " ", value: "a b  c", want: []string{"a", "b", "c"}},
		{name: "delimiter with a list", delimiter: ",", value: []string{"a,b"}, want: []string{"a,b"}},
		{name: "custom claim", claim: "roles", value: []string{"admin"}, want: []string{"admin"}},
		{name: "custom claim with a URL name", claim: "https://example.com/groups", value: []string{"x"}, want: []string{"x"}},
		{name: "number", value: 42, err: true, detail: "is a number"},
		{name: "object", value: map[string]any{"a": true}, err: true, detail: "is a object"},
		{name: "boolean", value: true, err: true, detail: "is a boolean"},
		{name: "mixed list", value: []any{"a", 1}, err: true, detail: "element 1 is a number"},
		{name: "list of lists", value: []any{[]string{"a"}}, err: true, detail: "element 0 is a list"},
		{name: "list with null", value: []any{"a", nil}, err: true, detail: "element 1 is a null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := srv.config(clk)
			cfg.GroupsClaim, cfg.GroupsDelimiter = tc.claim, tc.delimiter
			v := mustNew(t, cfg)
			name := tc.claim
			if name == "" {
				name = "groups"
			}
			c := claims(clk.Now())
			delete(c, "groups")
			if !tc.missing {
				c[name] = tc.value
			}
			sub, groups, err := v.Verify(context.Background(), sign(t, ed, c, nil))
			if tc.err {
				if !errors.Is(err, identity.ErrGroups) || identity.Status(err) != http.StatusForbidden || !strings.Contains(err.Error(), tc.detail) {
					t.Fatalf("Verify = %q, %q, %v (status %d); want ErrGroups saying %q, 403", sub, groups, err, identity.Status(err), tc.detail)
				}
				return
			}
			if err != nil || sub != "alice" || !slices.Equal(groups, tc.want) || (groups == nil) != (tc.want == nil) {
				t.Fatalf("Verify = %q, %#v, %v; want alice, %#v", sub, groups, err, tc.want)
			}
		})
	}
}

// TestBearerToken checks the parsing of the Authorization header, and
// that a 1 MB header is refused before anything else.
func TestBearerToken(t *testing.T) {
	ed, _, _, _ := keys(t)
	srv := newJWKSServer(t, jwksOf(t, ed))
	v := mustNew(t, srv.config(newClock()))
	huge := "Bearer " + strings.Repeat("a", 1<<20)
	tests := []struct {
		header string
		token  string
		want   error
		status int
	}{
		{header: "Bearer abc.def.ghi", token: "abc.def.ghi"},
		{header: "bearer abc.def.ghi", token: "abc.def.ghi"},
		{header: "BEARER  a-b_c~d+e/f==", token: "a-b_c~d+e/f=="},
		{header: "", want: identity.ErrNoToken, status: 401},
		{header: "Basic YWxpY2U6c2VjcmV0", want: identity.ErrNoToken, status: 401},
		{header: "Bearertoken", want: identity.ErrNoToken, status: 401},
		{header: "Bearer ", want: identity.ErrBadRequest, status: 400},
		{header: "Bearer a b", want: identity.ErrBadRequest, status: 400},
		{header: `Bearer a"b`, want: identity.ErrBadRequest, status: 400},
		{header: "Bearer a=b", want: identity.ErrBadRequest, status: 400},
		{header: huge, want: identity.ErrTooLarge, status: 400},
	}
	for _, tc := range tests {
		name := tc.header
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			tok, err := v.BearerToken(tc.header)
			if tc.want == nil {
				if err != nil || tok != tc.token {
					t.Fatalf("BearerToken = %q, %v; want %q", tok, err, tc.token)
				}
				return
			}
			if !errors.Is(err, tc.want) || identity.Status(err) != tc.status {
				t.Fatalf("BearerToken = %q, %v (status %d); want %v, %d", tok, err, identity.Status(err), tc.want, tc.status)
			}
		})
	}

	// A 1 MB token given to Verify directly is refused before parsing:
	// no key set fetch.
	_, _, err := v.Verify(context.Background(), strings.Repeat("a", 1<<20)+"."+strings.Repeat("b", 10)+".c")
	if !errors.Is(err, identity.ErrTooLarge) || identity.Status(err) != 400 {
		t.Fatalf("Verify(1 MB) = %v; want ErrTooLarge, 400", err)
	}
	if strings.Contains(err.Error(), "aaaaaaaa") {
		t.Errorf("error %q echoes the token", err)
	}
	if n := srv.fetches.Load(); n != 0 {
		t.Errorf("the key set was fetched %d times for refused tokens; want 0", n)
	}
}

// TestChallenge checks the WWW-Authenticate values for each kind of error.
func TestChallenge(t *testing.T) {
	meta := "https://docs.example/.well-known/oauth-protected-resource/acme"
	tests := []struct {
		err  error
		want string
	}{
		{&identity.Error{Reason: identity.ErrNoToken, Detail: "send Authorization: Bearer <token>"},
			`Bearer resource_metadata="` + meta + `"`},
		{&identity.Error{Reason: identity.ErrExpired, Detail: `expired at 2026-01-01T00:00:00Z "x"` + "\n\u00e9"},
			`Bearer resource_metadata="` + meta + `", error="invalid_token", error_description="token expired: expired at 2026-01-01T00:00:00Z 'x'??"`},
		{&identity.Error{Reason: identity.ErrTooLarge, Detail: "big"},
			`Bearer resource_metadata="` + meta + `", error="invalid_request", error_description="token too large: big"`},
		{&identity.Error{Reason: identity.ErrGroups, Detail: "x"}, `Bearer resource_metadata="` + meta + `"`},
		{&identity.Error{Reason: identity.ErrKeysUnavailable, Detail: "https://idp.internal/jwks down"}, `Bearer resource_metadata="` + meta + `"`},
	}
	for _, tc := range tests {
		if got := identity.Challenge(tc.err, "resource_metadata", meta); got != tc.want {
			t.Errorf("Challenge(%v) =\n%s\nwant\n%s", tc.err, got, tc.want)
		}
	}
}

// TestConfig checks that New refuses configurations that could not work
// or would be unsafe.
func TestConfig(t *testing.T) {
	ok := identity.Config{JWKS: "https://idp.example/jwks", Issuer: issuer, Audience: audience}
	tests := []struct {
		name   string
		edit   func(c *identity.Config)
		detail string // "" when New must succeed
	}{
		{"valid", func(c *identity.Config) {}, ""},
		{"file path", func(c *identity.Config) { c.JWKS = "/etc/chromafs/jwks.json" }, ""},
		{"oidc", func(c *identity.Config) { c.JWKS, c.Issuer, c.OIDCIssuer = "", "", issuer }, ""},
		{"all supported algorithms", func(c *identity.Config) {
			c.Algorithms = []string{"EdDSA", "ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
		}, ""},
		{"both sources", func(c *identity.Config) { c.OIDCIssuer = issuer }, "exactly one"},
		{"no source", func(c *identity.Config) { c.JWKS = "" }, "exactly one"},
		{"no audience", func(c *identity.Config) { c.Audience = "" }, "audience"},
		{"no issuer", func(c *identity.Config) { c.Issuer = "" }, "issuer"},
		{"http jwks", func(c *identity.Config) { c.JWKS = "http://idp.example/jwks" }, "not an https URL"},
		{"http loopback jwks", func(c *identity.Config) { c.JWKS = "http://127.0.0.1:9/jwks" }, "AllowHTTPLoopback"},
		{"http oidc", func(c *identity.Config) { c.JWKS, c.OIDCIssuer = "", "http://idp.example" }, "not an https URL"},
		{"HS256", func(c *identity.Config) { c.Algorithms = []string{"RS256", "HS256"} }, `"HS256" is not allowed`},
		{"none", func(c *identity.Config) { c.Algorithms = []string{"none"} }, `"none" is not allowed`},
		{"negative skew", func(c *identity.Config) { c.ClockSkew = -time.Second }, "clock skew"},
		{"huge skew", func(c *identity.Config) { c.ClockSkew = time.Hour }, "clock skew"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.edit(&cfg)
			v, err := identity.New(cfg)
			if tc.detail == "" {
				if err != nil {
					t.Fatalf("New = %v", err)
				}
				if v.Issuer() != issuer || v.Audience() != audience {
					t.Errorf("Issuer, Audience = %q, %q", v.Issuer(), v.Audience())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("New = %v; want an error saying %q", err, tc.detail)
			}
		})
	}
}
