// Package identity verifies the bearer tokens (signed JWTs) that a site's
// identity provider issues, for one site: its issuer, its audience, its
// groups claim. It is a resource server's half of OAuth: it issues nothing.
//
// Signatures, JWK parsing and the registered claims are checked by
// github.com/go-jose/go-jose/v4; this package adds the policy: which
// algorithms (asymmetric only, never "none" or HMAC), which key (by kid, of
// a type that fits the algorithm), required claims (sub, exp), the groups
// claim, and a key set that is fetched over bounded HTTP, cached, refreshed
// at most once per interval, and kept when its endpoint is down.
//
// A Verifier is safe for concurrent use. It does no I/O until it needs
// keys (the first Verify, or Refresh).
package identity

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Defaults of Config's zero values.
const (
	DefaultGroupsClaim      = "groups"
	DefaultClockSkew        = 60 * time.Second
	DefaultRefreshInterval  = time.Minute
	DefaultMaxKeyAge        = time.Hour
	DefaultFetchTimeout     = 10 * time.Second
	DefaultMaxDocumentBytes = 1 << 20
	DefaultMaxTokenBytes    = 16 << 10
	// MaxRedirects is how many redirects a fetch follows.
	MaxRedirects = 3
)

// DefaultAlgorithms are the algorithms allowed when Config.Algorithms is
// empty.
var DefaultAlgorithms = []string{"EdDSA", "ES256", "RS256"}

// supported are the algorithms Config.Algorithms may name: asymmetric
// signatures only, so that a public key can never serve as an HMAC secret.
var supported = []string{"EdDSA", "ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}

// minRSABits is the smallest RSA modulus a key may have.
const minRSABits = 2048

// Config is one site's sign-in: where its keys are, and what its tokens
// must say. Exactly one of JWKS and OIDCIssuer is set; Audience is
// required.
type Config struct {
	// JWKS is the issuer's JSON Web Key Set: an https URL, or the path of
	// a file (read as the URL is fetched, so that replacing it rotates
	// keys).
	JWKS string
	// OIDCIssuer is the alternative to JWKS: the key set is the jwks_uri
	// of OIDCIssuer + "/.well-known/openid-configuration", whose issuer
	// must equal OIDCIssuer exactly.
	OIDCIssuer string
	// Issuer is the iss every token must carry exactly. With OIDCIssuer,
	// empty means OIDCIssuer. Required with JWKS.
	Issuer string
	// Audience must be one of the token's aud values: the site's own
	// audience, so that a token for one site never opens another.
	Audience string
	// GroupsClaim is the top-level claim holding the user's groups
	// (default "groups"): a list of strings, or a string. A string is split
	// at GroupsDelimiter when that is set (spaces around each group are
	// trimmed), and is one group otherwise. An absent or null claim is no
	// groups.
	GroupsClaim     string
	GroupsDelimiter string
	// Algorithms are the allowed values of the token's alg (default
	// DefaultAlgorithms); only asymmetric ones can be named.
	Algorithms []string
	// ClockSkew is the tolerance on exp, nbf and iat (default 60 s; at
	// most 5 minutes).
	ClockSkew time.Duration

	// RefreshInterval is the least time between two fetches of the key set
	// (default 1 minute): a token with an unknown kid triggers a fetch only
	// if the last one began longer ago, so a flood of them costs at most
	// one fetch per interval.
	RefreshInterval time.Duration
	// MaxKeyAge is how long a fetched key set is used before it is fetched
	// again in the background (default 1 hour); while that fails, the old
	// keys stay in use.
	MaxKeyAge time.Duration
	// FetchTimeout bounds each fetch, discovery included (default 10 s).
	FetchTimeout time.Duration
	// MaxDocumentBytes bounds the key set and the discovery document
	// (default 1 MiB); a larger answer is refused.
	MaxDocumentBytes int64
	// MaxTokenBytes bounds a token (default 16 KiB); BearerToken and
	// Verify refuse a larger one before parsing it.
	MaxTokenBytes int

	// Transport, if set, carries the fetches (tests pass a TLS test
	// server's); nil means a clone of http.DefaultTransport.
	Transport http.RoundTripper
	// AllowHTTPLoopback allows http:// URLs (JWKS, issuer, jwks_uri,
	// redirects) whose host is a loopback address: for a development
	// identity provider on localhost, and tests. Otherwise only https.
	AllowHTTPLoopback bool
	// Logger receives a warning when a background refresh fails (nil:
	// slog.Default()).
	Logger *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Verifier verifies the bearer tokens of one site. Create it with New.
type Verifier struct {
	cfg    Config
	algs   []jose.SignatureAlgorithm
	keys   *keySource
	issuer string
}

// New checks cfg and returns its Verifier. It does no I/O: the keys are
// fetched on first use (call Refresh to fetch them now).
func New(cfg Config) (*Verifier, error) {
	if (cfg.JWKS == "") == (cfg.OIDCIssuer == "") {
		return nil, errors.New("identity: set exactly one of jwks and oidc_issuer")
	}
	if cfg.Audience == "" {
		return nil, errors.New("identity: audience is required (the site's own, so that tokens for other sites are refused)")
	}
	if cfg.OIDCIssuer != "" {
		if err := checkURL(cfg.OIDCIssuer, cfg.AllowHTTPLoopback); err != nil {
			return nil, fmt.Errorf("identity: oidc_issuer: %w", err)
		}
		if cfg.Issuer == "" {
			cfg.Issuer = cfg.OIDCIssuer
		}
	}
	if cfg.Issuer == "" {
		return nil, errors.New("identity: issuer is required with jwks (the iss every token must carry)")
	}
	if isURL(cfg.JWKS) {
		if err := checkURL(cfg.JWKS, cfg.AllowHTTPLoopback); err != nil {
			return nil, fmt.Errorf("identity: jwks: %w", err)
		}
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = DefaultGroupsClaim
	}
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = DefaultAlgorithms
	}
	v := &Verifier{}
	for _, a := range cfg.Algorithms {
		if !slices.Contains(supported, a) {
			return nil, fmt.Errorf("identity: algorithm %q is not allowed; use some of %s (asymmetric signatures only: never none or HMAC)", a, strings.Join(supported, ", "))
		}
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	switch {
	case cfg.ClockSkew < 0 || cfg.ClockSkew > 5*time.Minute:
		return nil, fmt.Errorf("identity: clock skew %v is outside 0-5m", cfg.ClockSkew)
	case cfg.ClockSkew == 0:
		cfg.ClockSkew = DefaultClockSkew
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = DefaultRefreshInterval
	}
	if cfg.MaxKeyAge <= 0 {
		cfg.MaxKeyAge = DefaultMaxKeyAge
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.MaxDocumentBytes <= 0 {
		cfg.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if cfg.MaxTokenBytes <= 0 {
		cfg.MaxTokenBytes = DefaultMaxTokenBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Algorithms = slices.Clone(cfg.Algorithms)
	v.cfg = cfg
	v.issuer = cfg.Issuer
	v.keys = newKeySource(&v.cfg)
	return v, nil
}

// Issuer is the iss the Verifier requires (the authorization server a
// site's protected resource metadata names).
func (v *Verifier) Issuer() string { return v.issuer }

// Audience is the aud the Verifier requires.
func (v *Verifier) Audience() string { return v.cfg.Audience }

// Refresh fetches the key set now (discovery first, with OIDCIssuer),
// regardless of RefreshInterval, and returns why it failed; the cached keys
// stay in use after a failure. Useful at start-up and on reload.
func (v *Verifier) Refresh(ctx context.Context) error {
	return v.keys.refresh(ctx)
}

// BearerToken returns the token of an Authorization header value
// `Bearer <token>` (the scheme in any case). An empty value or another
// scheme is ErrNoToken; a value longer than the token limit is ErrTooLarge
// (checked first, so a huge header costs nothing); a token with characters
// outside RFC 6750's b64token is ErrBadRequest.
func (v *Verifier) BearerToken(authorization string) (string, error) {
	if len(authorization) > v.cfg.MaxTokenBytes+len("Bearer ")+16 {
		return "", fail(ErrTooLarge, fmt.Sprintf("the Authorization header has %d bytes; tokens are limited to %d", len(authorization), v.cfg.MaxTokenBytes))
	}
	if authorization == "" {
		return "", fail(ErrNoToken, "send Authorization: Bearer <token>")
	}
	scheme, token, _ := strings.Cut(authorization, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", fail(ErrNoToken, "the Authorization scheme is not Bearer")
	}
	token = strings.Trim(token, " ")
	if token == "" {
		return "", fail(ErrBadRequest, "the Bearer token is empty")
	}
	if len(token) > v.cfg.MaxTokenBytes {
		return "", fail(ErrTooLarge, fmt.Sprintf("the token has %d bytes; the limit is %d", len(token), v.cfg.MaxTokenBytes))
	}
	end := len(token)
	for end > 0 && token[end-1] == '=' {
		end--
	}
	for i := range end {
		c := token[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/') {
			return "", fail(ErrBadRequest, fmt.Sprintf("the Bearer token has a character outside RFC 6750's b64token at byte %d", i))
		}
	}
	return token, nil
}

// claims are the registered claims Verify reads.
type claims struct {
	Issuer    string           `json:"iss"`
	Subject   string           `json:"sub"`
	Audience  jwt.Audience     `json:"aud"`
	Expiry    *jwt.NumericDate `json:"exp"`
	NotBefore *jwt.NumericDate `json:"nbf"`
	IssuedAt  *jwt.NumericDate `json:"iat"`
}

// Verify checks token (the bare token, see BearerToken) and returns its
// subject and groups. It checks, in this order: the size; the compact JWS
// form; alg among Config.Algorithms; the key its kid names (a token without
// kid is accepted only when exactly one key fits its alg), of a type that
// fits alg; the signature; iss; aud contains Config.Audience; exp (required)
// and nbf and iat within the clock skew; sub (required); the groups claim.
// A kid that is not cached makes the key set be fetched again, at most once
// per RefreshInterval. Every error is an *Error (see Status, Challenge).
func (v *Verifier) Verify(ctx context.Context, token string) (subject string, groups []string, err error) {
	if len(token) > v.cfg.MaxTokenBytes {
		return "", nil, fail(ErrTooLarge, fmt.Sprintf("the token has %d bytes; the limit is %d", len(token), v.cfg.MaxTokenBytes))
	}
	if token == "" {
		return "", nil, fail(ErrNoToken, "the token is empty")
	}
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		if alg, ok := errors.AsType[*jose.ErrUnexpectedSignatureAlgorithm](err); ok {
			return "", nil, fail(ErrAlgorithm, fmt.Sprintf("alg %q is not one of %s", clip(string(alg.Got)), strings.Join(v.cfg.Algorithms, ", ")))
		}
		return "", nil, fail(ErrMalformed, "not a signed JWT in compact form (header.payload.signature, base64url, JSON header)")
	}
	if len(tok.Headers) != 1 {
		return "", nil, fail(ErrMalformed, "a token must have exactly one signature")
	}
	h := tok.Headers[0]
	alg := jose.SignatureAlgorithm(h.Algorithm)
	key, err := v.keys.key(ctx, h.KeyID, alg)
	if err != nil {
		return "", nil, err
	}
	var c claims
	var extra map[string]json.RawMessage
	if err := tok.Claims(key.Key, &c, &extra); err != nil {
		if errors.Is(err, jose.ErrCryptoFailure) {
			return "", nil, fail(ErrSignature, fmt.Sprintf("the signature does not verify with key %q", clip(key.KeyID)))
		}
		return "", nil, fail(ErrClaims, "the claims are not a JSON object with registered claims of their types (iss and sub strings, aud a string or list, exp, nbf and iat numbers)")
	}
	if c.Issuer != v.issuer {
		return "", nil, fail(ErrIssuer, fmt.Sprintf("iss %q is not %q", clip(c.Issuer), v.issuer))
	}
	if !c.Audience.Contains(v.cfg.Audience) {
		return "", nil, fail(ErrAudience, fmt.Sprintf("aud does not contain %q (the token is for another audience)", v.cfg.Audience))
	}
	now, skew := v.cfg.Now(), v.cfg.ClockSkew
	if c.Expiry == nil {
		return "", nil, fail(ErrClaims, "the token has no exp")
	}
	if exp := c.Expiry.Time(); now.Add(-skew).After(exp) {
		return "", nil, fail(ErrExpired, fmt.Sprintf("expired at %s (clock skew %v)", exp.UTC().Format(time.RFC3339), skew))
	}
	if c.NotBefore != nil {
		if nbf := c.NotBefore.Time(); now.Add(skew).Before(nbf) {
			return "", nil, fail(ErrNotYetValid, fmt.Sprintf("nbf is %s (clock skew %v)", nbf.UTC().Format(time.RFC3339), skew))
		}
	}
	if c.IssuedAt != nil {
		if iat := c.IssuedAt.Time(); now.Add(skew).Before(iat) {
			return "", nil, fail(ErrNotYetValid, fmt.Sprintf("iat is %s, in the future (clock skew %v)", iat.UTC().Format(time.RFC3339), skew))
		}
	}
	if c.Subject == "" {
		return "", nil, fail(ErrClaims, "the token has no sub")
	}
	groups, err = v.groups(extra[v.cfg.GroupsClaim])
	if err != nil {
		return "", nil, err
	}
	return c.Subject, groups, nil
}

// groups decodes the groups claim.
func (v *Verifier) groups(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var out []string
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			break
		}
		if v.cfg.GroupsDelimiter == "" {
			s = strings.TrimSpace(s)
			if s == "" {
				return nil, nil
			}
			return []string{s}, nil
		}
		for g := range strings.SplitSeq(s, v.cfg.GroupsDelimiter) {
			if g = strings.TrimSpace(g); g != "" {
				out = append(out, g)
			}
		}
		return out, nil
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			break
		}
		out = make([]string, 0, len(list))
		for i, e := range list {
			var s string
			if len(e) == 0 || e[0] != '"' || json.Unmarshal(e, &s) != nil {
				return nil, fail(ErrGroups, fmt.Sprintf("claim %q: element %d is a %s, not a string", v.cfg.GroupsClaim, i, jsonKind(e)))
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, fail(ErrGroups, fmt.Sprintf("claim %q is a %s; want a list of strings or a string", v.cfg.GroupsClaim, jsonKind(raw)))
}

// jsonKind names the JSON type of a raw value.
func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "list"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// clip bounds a value from the token that an error message quotes.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// fits reports whether key can verify alg: the key type and curve alg
// names, an RSA modulus of at least minRSABits, and the JWK's own alg (if
// it states one) equal to alg.
func fits(key *jose.JSONWebKey, alg jose.SignatureAlgorithm) bool {
	if key.Algorithm != "" && key.Algorithm != string(alg) {
		return false
	}
	switch k := key.Key.(type) {
	case ed25519.PublicKey:
		return alg == jose.EdDSA
	case *ecdsa.PublicKey:
		switch alg {
		case jose.ES256:
			return k.Curve == elliptic.P256()
		case jose.ES384:
			return k.Curve == elliptic.P384()
		case jose.ES512:
			return k.Curve == elliptic.P521()
		}
	case *rsa.PublicKey:
		switch alg {
		case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512:
			return k.N.BitLen() >= minRSABits
		}
	}
	return false
}

// isURL reports whether a jwks value is a URL rather than a file path.
func isURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// checkURL refuses anything but https (and http to a loopback host when
// allowed).
func checkURL(raw string, allowLoopback bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	return checkParsedURL(u, allowLoopback)
}
