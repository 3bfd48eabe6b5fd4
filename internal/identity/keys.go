package identity

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keySource is a site's key set: fetched on demand, cached, fetched again
// at most once per RefreshInterval, kept when a fetch fails.
type keySource struct {
	cfg    *Config
	client *http.Client

	mu        sync.Mutex
	keys      []jose.JSONWebKey // the last good set (nil before one)
	fetchedAt time.Time         // when keys were fetched
	lastTry   time.Time         // when the last fetch began
	lastErr   error             // why the last fetch failed (nil if it did not)
	inflight  chan struct{}     // closed when the running fetch ends
	jwksURI   string            // discovered (OIDCIssuer) or cfg.JWKS
	jwksAt    time.Time         // when jwksURI was discovered
}

func newKeySource(cfg *Config) *keySource {
	tr := cfg.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	}
	ks := &keySource{cfg: cfg}
	ks.client = &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("more than %d redirects", MaxRedirects)
			}
			if err := checkParsedURL(req.URL, cfg.AllowHTTPLoopback); err != nil {
				return fmt.Errorf("redirect refused: %w", err)
			}
			return nil
		},
	}
	if cfg.OIDCIssuer == "" {
		ks.jwksURI = cfg.JWKS
	}
	return ks
}

// key returns the key for a token's kid and alg, fetching the set first
// if kid is not cached and a fetch is allowed.
func (ks *keySource) key(ctx context.Context, kid string, alg jose.SignatureAlgorithm) (*jose.JSONWebKey, error) {
	ks.mu.Lock()
	keys, now := ks.keys, ks.cfg.Now()
	found := keys != nil && hasKid(keys, kid)
	switch {
	case found && now.Sub(ks.fetchedAt) >= ks.cfg.MaxKeyAge && ks.inflight == nil && now.Sub(ks.lastTry) >= ks.cfg.RefreshInterval:
		// Old but usable: refresh in the background, answer now.
		done := ks.startLocked(now)
		ks.mu.Unlock()
		go func() {
			<-done
			ks.mu.Lock()
			err := ks.lastErr
			ks.mu.Unlock()
			if err != nil {
				ks.cfg.Logger.Warn("identity: refreshing the key set failed; keeping the cached keys",
					slog.String("issuer", ks.cfg.Issuer), slog.String("error", err.Error()))
			}
		}()
	case !found && (ks.inflight != nil || now.Sub(ks.lastTry) >= ks.cfg.RefreshInterval):
		// Unknown kid: fetch (or wait for the running fetch) once.
		done := ks.inflight
		if done == nil {
			done = ks.startLocked(now)
		}
		ks.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, fail(ErrKeysUnavailable, "gave up waiting for the key set: "+ctx.Err().Error())
		}
		ks.mu.Lock()
		keys = ks.keys
		ks.mu.Unlock()
	default:
		ks.mu.Unlock()
	}
	if keys == nil {
		ks.mu.Lock()
		err := ks.lastErr
		ks.mu.Unlock()
		detail := "no keys fetched yet"
		if err != nil {
			detail = err.Error()
		}
		return nil, fail(ErrKeysUnavailable, detail+fmt.Sprintf(" (next attempt within %v)", ks.cfg.RefreshInterval))
	}
	return pick(keys, kid, alg)
}

// startLocked begins a fetch; ks.mu is held.
func (ks *keySource) startLocked(now time.Time) chan struct{} {
	done := make(chan struct{})
	ks.inflight = done
	ks.lastTry = now
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), ks.cfg.FetchTimeout)
		defer cancel()
		keys, err := ks.fetch(ctx)
		ks.mu.Lock()
		if err == nil {
			ks.keys, ks.fetchedAt = keys, ks.cfg.Now()
		}
		ks.lastErr = err
		ks.inflight = nil
		ks.mu.Unlock()
		close(done)
	}()
	return done
}

// refresh fetches now (or waits for the running fetch) and reports its
// error.
func (ks *keySource) refresh(ctx context.Context) error {
	ks.mu.Lock()
	done := ks.inflight
	if done == nil {
		done = ks.startLocked(ks.cfg.Now())
	}
	ks.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.lastErr != nil {
		return fmt.Errorf("identity: %w", ks.lastErr)
	}
	return nil
}

func hasKid(keys []jose.JSONWebKey, kid string) bool {
	if kid == "" {
		return true // chosen by alg in pick
	}
	for i := range keys {
		if keys[i].KeyID == kid {
			return true
		}
	}
	return false
}

// pick chooses the key of kid (or, without a kid, the only key that fits
// alg) and checks that it fits alg.
func pick(keys []jose.JSONWebKey, kid string, alg jose.SignatureAlgorithm) (*jose.JSONWebKey, error) {
	if kid == "" {
		var found *jose.JSONWebKey
		n := 0
		for i := range keys {
			if fits(&keys[i], alg) {
				found = &keys[i]
				n++
			}
		}
		if n != 1 {
			return nil, fail(ErrUnknownKey, fmt.Sprintf("the token has no kid and %d keys of the set fit %s", n, alg))
		}
		return found, nil
	}
	for i := range keys {
		if keys[i].KeyID != kid {
			continue
		}
		if fits(&keys[i], alg) {
			return &keys[i], nil
		}
		return nil, fail(ErrAlgorithm, fmt.Sprintf("key %q is %s; it cannot verify alg %s", clip(kid), keyKind(&keys[i]), alg))
	}
	return nil, fail(ErrUnknownKey, fmt.Sprintf("no key %q in the issuer's key set", clip(kid)))
}

func keyKind(k *jose.JSONWebKey) string {
	s := fmt.Sprintf("%T", k.Key)
	if k.Algorithm != "" {
		s += " for " + k.Algorithm
	}
	return s
}

// fetch reads the key set (after discovery, with OIDCIssuer).
func (ks *keySource) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	if ks.cfg.OIDCIssuer != "" {
		ks.mu.Lock()
		uri, at := ks.jwksURI, ks.jwksAt
		ks.mu.Unlock()
		if uri == "" || ks.cfg.Now().Sub(at) >= ks.cfg.MaxKeyAge {
			var err error
			if uri, err = ks.discover(ctx); err != nil {
				return nil, err
			}
			ks.mu.Lock()
			ks.jwksURI, ks.jwksAt = uri, ks.cfg.Now()
			ks.mu.Unlock()
		}
	}
	ks.mu.Lock()
	uri := ks.jwksURI
	ks.mu.Unlock()
	body, err := ks.read(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("key set %s: %w", uri, err)
	}
	keys, err := parseKeySet(body)
	if err != nil {
		return nil, fmt.Errorf("key set %s: %w", uri, err)
	}
	return keys, nil
}

// discover reads the issuer's OpenID configuration and returns its
// jwks_uri.
func (ks *keySource) discover(ctx context.Context) (string, error) {
	where := strings.TrimSuffix(ks.cfg.OIDCIssuer, "/") + "/.well-known/openid-configuration"
	body, err := ks.read(ctx, where)
	if err != nil {
		return "", fmt.Errorf("OIDC discovery %s: %w", where, err)
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("OIDC discovery %s: not a JSON object with string issuer and jwks_uri: %v", where, err)
	}
	if doc.Issuer != ks.cfg.OIDCIssuer {
		return "", fmt.Errorf("OIDC discovery %s: the document's issuer %q is not the configured %q", where, clip(doc.Issuer), ks.cfg.OIDCIssuer)
	}
	if doc.JWKSURI == "" {
		return "", fmt.Errorf("OIDC discovery %s: no jwks_uri", where)
	}
	if err := checkURL(doc.JWKSURI, ks.cfg.AllowHTTPLoopback); err != nil {
		return "", fmt.Errorf("OIDC discovery %s: jwks_uri: %w", where, err)
	}
	return doc.JWKSURI, nil
}

// read returns the document at where (a URL, or a file path), at most
// MaxDocumentBytes, within ctx.
func (ks *keySource) read(ctx context.Context, where string) ([]byte, error) {
	limit := ks.cfg.MaxDocumentBytes
	tooBig := fmt.Errorf("larger than %d bytes", limit)
	if !isURL(where) {
		f, err := os.Open(where)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > limit {
			return nil, tooBig
		}
		return b, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := ks.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %v", ks.cfg.FetchTimeout)
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP status %s", resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, tooBig
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if ctx.Err() != nil {
		// Also when err is nil: a body cut short by the deadline can
		// read as a clean end.
		return nil, fmt.Errorf("the answer did not end within %v", ks.cfg.FetchTimeout)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooBig
	}
	return b, nil
}

// parseKeySet reads a JWK Set and keeps its public signature keys of the
// types Verify can use (Ed25519, ECDSA, RSA); keys it cannot use (other
// types, "use": "enc", private or symmetric keys) are skipped, so that one
// odd key does not take the others down. A set with no usable key is an
// error.
func parseKeySet(body []byte) ([]jose.JSONWebKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("not a JWK Set (a JSON object with a keys list): %v", err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !k.IsPublic() || k.Use == "enc" {
			continue
		}
		switch k.Key.(type) {
		case ed25519.PublicKey, *ecdsa.PublicKey, *rsa.PublicKey:
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no usable public signature key among its %d keys", len(set.Keys))
	}
	return keys, nil
}

// checkParsedURL refuses anything but https (and http to a loopback host
// when allowed).
func checkParsedURL(u *url.URL, allowLoopback bool) error {
	switch {
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && allowLoopback && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return fmt.Errorf("%s is not https (http is allowed to loopback hosts only with AllowHTTPLoopback)", u.Redacted())
	}
	return fmt.Errorf("%s is not an https URL", u.Redacted())
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
