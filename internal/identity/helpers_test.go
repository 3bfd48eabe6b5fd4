package identity_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/chromafs/chromafs/internal/identity"
)

const (
	issuer   = "https://idp.example"
	audience = "site-a"
)

// signer is a test key: its private half signs, its public half is in the
// key set under kid.
type signer struct {
	alg  jose.SignatureAlgorithm
	kid  string
	priv crypto.Signer
}

func (s signer) jwk() jose.JSONWebKey {
	return jose.JSONWebKey{Key: s.priv.Public(), KeyID: s.kid, Algorithm: string(s.alg), Use: "sig"}
}

var (
	keysOnce sync.Once
	testKeys struct{ ed, ec, rsa, other signer }
)

// keys returns the test's keys: Ed25519, P-256 and RSA-2048 in the key
// set, and another Ed25519 key that is not.
func keys(t testing.TB) (ed, ec, rs, other signer) {
	t.Helper()
	keysOnce.Do(func() {
		_, edPriv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		ecPriv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		rsaPriv, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		_, otherPriv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		testKeys.ed = signer{jose.EdDSA, "ed-1", edPriv}
		testKeys.ec = signer{jose.ES256, "ec-1", ecPriv}
		testKeys.rsa = signer{jose.RS256, "rsa-1", rsaPriv}
		testKeys.other = signer{jose.EdDSA, "ed-1", otherPriv} // same kid as ed, not in the set
	})
	return testKeys.ed, testKeys.ec, testKeys.rsa, testKeys.other
}

// jwksOf is the JSON key set of signers.
func jwksOf(t testing.TB, ss ...signer) []byte {
	t.Helper()
	var set jose.JSONWebKeySet
	for _, s := range ss {
		set.Keys = append(set.Keys, s.jwk())
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// claims are a valid token's claims at now; edit them per case.
func claims(now time.Time) map[string]any {
	return map[string]any{
		"iss":    issuer,
		"aud":    audience,
		"sub":    "alice",
		"exp":    now.Add(time.Hour).Unix(),
		"nbf":    now.Add(-time.Minute).Unix(),
		"iat":    now.Add(-time.Minute).Unix(),
		"groups": []string{"staff", "eng"},
	}
}

// sign makes a compact JWS of c with s (extra header fields in hdr).
func sign(t testing.TB, s signer, c map[string]any, hdr map[jose.HeaderKey]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("JWT")
	for k, v := range hdr {
		opts = opts.WithHeader(k, v)
	}
	key := any(s.priv)
	if s.kid != "" {
		key = jose.JSONWebKey{Key: s.priv, KeyID: s.kid}
	}
	sg, err := jose.NewSigner(jose.SigningKey{Algorithm: s.alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := sg.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// raw makes a token from a header and claims and a signature function over
// the signing input, as an attacker would (for alg none and HMAC).
func raw(t testing.TB, hdr, c map[string]any, sig func(input []byte) []byte) string {
	t.Helper()
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	p, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(p)
	return input + "." + enc.EncodeToString(sig([]byte(input)))
}

// hs256 signs with secret as an HMAC key.
func hs256(secret []byte) func([]byte) []byte {
	return func(input []byte) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write(input)
		return m.Sum(nil)
	}
}

// clock is a settable clock for Config.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// jwksServer is an https key set endpoint that counts its fetches and
// whose answer the test can change.
type jwksServer struct {
	*httptest.Server
	fetches atomic.Int64
	stop    chan struct{} // closed when the test ends, to release hanging handlers
	mu      sync.Mutex
	handler http.HandlerFunc
}

func newJWKSServer(t testing.TB, body []byte) *jwksServer {
	t.Helper()
	s := &jwksServer{stop: make(chan struct{})}
	s.serve(body)
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		h := s.handler
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(s.stop) }) // runs first
	return s
}

// hang blocks a handler until the client gives up or the test ends.
func (s *jwksServer) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.stop:
	}
}

// serve makes the server answer body.
func (s *jwksServer) serve(body []byte) {
	s.handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}

func (s *jwksServer) handle(h http.HandlerFunc) {
	s.mu.Lock()
	s.handler = h
	s.mu.Unlock()
}

// config is a key set config for s.
func (s *jwksServer) config(c *clock) identity.Config {
	return identity.Config{
		JWKS:      s.URL + "/jwks.json",
		Issuer:    issuer,
		Audience:  audience,
		Transport: s.Client().Transport,
		Now:       c.Now,
		Logger:    slog.New(slog.DiscardHandler),
	}
}

func mustNew(t testing.TB, cfg identity.Config) *identity.Verifier {
	t.Helper()
	v, err := identity.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
