package identity_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/identity"
)

// verifyAll verifies tokens concurrently and returns their errors.
func verifyAll(v *identity.Verifier, tokens []string) []error {
	errs := make([]error, len(tokens))
	var wg sync.WaitGroup
	for i, tok := range tokens {
		wg.Go(func() { _, _, errs[i] = v.Verify(context.Background(), tok) })
	}
	wg.Wait()
	return errs
}

// TestUnknownKidFlood checks that tokens with unknown kids cost at most one
// key set fetch per refresh interval, however many arrive at once, and
// that a rotated-in key is found by the one refresh they cause.
func TestUnknownKidFlood(t *testing.T) {
	ed, ec, _, _ := keys(t)
	srv := newJWKSServer(t, jwksOf(t, ed))
	clk := newClock()
	cfg := srv.config(clk)
	cfg.RefreshInterval = time.Minute
	v := mustNew(t, cfg)
	if _, _, err := v.Verify(context.Background(), sign(t, ed, claims(clk.Now()), nil)); err != nil {
		t.Fatal(err)
	}
	flood := func() []string {
		var toks []string
		for i := range 200 {
			toks = append(toks, sign(t, signer{ed.alg, fmt.Sprintf("kid-%d", i), ed.priv}, claims(clk.Now()), nil))
		}
		return toks
	}
	check := func(step string, want int64) {
		t.Helper()
		for i, err := range verifyAll(v, flood()) {
			if !errors.Is(err, identity.ErrUnknownKey) {
				t.Fatalf("%s: token %d: %v; want ErrUnknownKey", step, i, err)
			}
		}
		if n := srv.fetches.Load(); n != want {
			t.Fatalf("%s: %d fetches; want %d", step, n, want)
		}
	}
	check("within the interval of the first fetch", 1)
	clk.Advance(61 * time.Second)
	check("after the interval, 200 at once", 2)
	check("again within the interval", 2)

	// The issuer rotates a key in: a token with its kid is refused until
	// the interval has passed, then one fetch finds it.
	srv.serve(jwksOf(t, ed, ec))
	rotated := sign(t, ec, claims(clk.Now()), nil)
	if _, _, err := v.Verify(context.Background(), rotated); !errors.Is(err, identity.ErrUnknownKey) {
		t.Fatalf("new kid within the interval: %v; want ErrUnknownKey", err)
	}
	clk.Advance(61 * time.Second)
	for i, err := range verifyAll(v, []string{rotated, rotated, rotated, rotated}) {
		if err != nil {
			t.Fatalf("rotated key, token %d: %v", i, err)
		}
	}
	if n := srv.fetches.Load(); n != 3 {
		t.Fatalf("%d fetches after the rotation; want 3", n)
	}
}

// TestJWKSUnreachable checks fetches that never complete or are too large:
// Verify answers ErrKeysUnavailable (503) within the fetch deadline, and
// the size cap refuses a 10 MB answer.
func TestJWKSUnreachable(t *testing.T) {
	ed, _, _, _ := keys(t)
	ten := 10 << 20
	var srv *jwksServer // the subtest's
	tests := []struct {
		name    string
		handler http.HandlerFunc
		detail  string
	}{
		{"hangs before answering", func(w http.ResponseWriter, r *http.Request) {
			srv.hang(r)
		}, "within 300ms"},
		{"answers headers, then trickles", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"keys":[`))
			for {
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-srv.stop:
					return
				case <-time.After(20 * time.Millisecond):
					w.Write([]byte(" "))
				}
			}
		}, "within 300ms"}, // "did not end", or "no answer" when the machine is slow to answer at all
		{"10 MB with Content-Length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(ten))
			w.Write([]byte(`{"keys":[` + strings.Repeat(" ", ten-11) + `]}`))
		}, "larger than 1048576 bytes"},
		{"10 MB chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"keys":[`))
			chunk := []byte(strings.Repeat(" ", 64<<10))
			for range ten / len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			w.Write([]byte(`]}`))
		}, "larger than 1048576 bytes"},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, "HTTP status 500"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("<html>"))
		}, "not a JWK Set"},
		{"only an HMAC key", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"keys":[{"kty":"oct","kid":"ed-1","k":"c2VjcmV0"}]}`))
		}, "no usable public signature key among its 1 keys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv = newJWKSServer(t, nil)
			srv.handle(tc.handler)
			cfg := srv.config(newClock())
			// The deadline cases wait for it; the others must not meet it,
			// even on a machine too busy to finish a TLS handshake in
			// 300 ms.
			cfg.FetchTimeout = 10 * time.Second
			if strings.Contains(tc.detail, "300ms") {
				cfg.FetchTimeout = 300 * time.Millisecond
			}
			v := mustNew(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second) // a hang fails, not blocks
			defer cancel()
			start := time.Now()
			_, _, err := v.Verify(ctx, sign(t, ed, claims(time.Now()), nil))
			d := time.Since(start)
			if !errors.Is(err, identity.ErrKeysUnavailable) || identity.Status(err) != 503 || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("Verify = %v (status %d); want ErrKeysUnavailable saying %q, 503", err, identity.Status(err), tc.detail)
			}
			if d > cfg.FetchTimeout+3*time.Second {
				t.Errorf("Verify took %v; the fetch deadline is %v", d, cfg.FetchTimeout)
			}
			// Fail closed, and no second fetch within the interval.
			if _, _, err := v.Verify(context.Background(), sign(t, ed, claims(time.Now()), nil)); !errors.Is(err, identity.ErrKeysUnavailable) {
				t.Fatalf("second Verify = %v; want ErrKeysUnavailable", err)
			}
			if n := srv.fetches.Load(); n != 1 {
				t.Errorf("%d fetches; want 1", n)
			}
			if err := v.Refresh(context.Background()); err == nil || !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("Refresh = %v; want an error saying %q", err, tc.detail)
			}
		})
	}
}

// TestJWKSDown checks that after a good fetch, a key set endpoint that
// fails, hangs or is gone keeps the cached keys in use, past their maximum
// age, while unknown kids stay unknown.
func TestJWKSDown(t *testing.T) {
	ed, ec, _, _ := keys(t)
	for _, mode := range []string{"500", "hangs", "gone"} {
		t.Run(mode, func(t *testing.T) {
			srv := newJWKSServer(t, jwksOf(t, ed, ec))
			clk := newClock()
			cfg := srv.config(clk)
			cfg.FetchTimeout = 2 * time.Second // the first fetch must succeed on a busy machine
			v := mustNew(t, cfg)
			if err := v.Refresh(context.Background()); err != nil {
				t.Fatal(err)
			}
			switch mode {
			case "500":
				srv.handle(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) })
			case "hangs":
				srv.handle(func(w http.ResponseWriter, r *http.Request) { srv.hang(r) })
			case "gone":
				srv.Close()
			}
			clk.Advance(2 * time.Hour) // past MaxKeyAge and RefreshInterval
			for range 3 {
				if _, _, err := v.Verify(context.Background(), sign(t, ed, claims(clk.Now()), nil)); err != nil {
					t.Fatalf("cached key: %v", err)
				}
				if _, _, err := v.Verify(context.Background(), sign(t, ec, claims(clk.Now()), nil)); err != nil {
					t.Fatalf("cached key: %v", err)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := v.Refresh(context.Background()); err == nil {
				t.Fatal("Refresh succeeded against a failing endpoint")
			}
			_, _, err := v.Verify(context.Background(), sign(t, signer{ed.alg, "new", ed.priv}, claims(clk.Now()), nil))
			if !errors.Is(err, identity.ErrUnknownKey) {
				t.Fatalf("unknown kid while down: %v; want ErrUnknownKey", err)
			}
		})
	}
}

// TestKeySetFile checks a key set read from a file, and a rotation by
// replacing it.
func TestKeySetFile(t *testing.T) {
	ed, ec, _, _ := keys(t)
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, jwksOf(t, ed), 0o644); err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	v := mustNew(t, identity.Config{JWKS: path, Issuer: issuer, Audience: audience, Now: clk.Now})
	if _, _, err := v.Verify(context.Background(), sign(t, ed, claims(clk.Now()), nil)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, jwksOf(t, ec), 0o644); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	if _, _, err := v.Verify(context.Background(), sign(t, ec, claims(clk.Now()), nil)); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(`{"keys":[`+strings.Repeat(" ", 2<<20)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	v = mustNew(t, identity.Config{JWKS: big, Issuer: issuer, Audience: audience})
	if err := v.Refresh(context.Background()); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("Refresh of a 2 MB file = %v; want the size cap", err)
	}
}

// oidcServer serves a discovery document (made by doc from the server's
// own URL) and a key set.
func oidcServer(t *testing.T, jwks []byte, doc func(base string) any) (*jwksServer, *int64) {
	t.Helper()
	srv := newJWKSServer(t, nil)
	var discoveries int64
	var mu sync.Mutex
	srv.handle(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tenant/.well-known/openid-configuration":
			mu.Lock()
			discoveries++
			mu.Unlock()
			json.NewEncoder(w).Encode(doc(srv.URL))
		case "/keys":
			w.Write(jwks)
		default:
			http.NotFound(w, r)
		}
	})
	return srv, &discoveries
}

// TestOIDC checks discovery: the key set is the document's jwks_uri, the
// document's issuer must be the configured one, and the document is bounded
// like the key set.
func TestOIDC(t *testing.T) {
	ed, _, _, _ := keys(t)
	good := func(base string) any {
		return map[string]any{"issuer": base + "/tenant", "jwks_uri": base + "/keys", "authorization_endpoint": base + "/auth"}
	}
	tests := []struct {
		name   string
		doc    func(base string) any
		detail string // "" for success
	}{
		{"valid", good, ""},
		{"mismatched issuer", func(base string) any {
			return map[string]any{"issuer": "https://evil.example/tenant", "jwks_uri": base + "/keys"}
		}, `issuer "https://evil.example/tenant" is not the configured`},
		{"issuer with a trailing slash", func(base string) any {
			return map[string]any{"issuer": base + "/tenant/", "jwks_uri": base + "/keys"}
		}, "is not the configured"},
		{"no jwks_uri", func(base string) any { return map[string]any{"issuer": base + "/tenant"} }, "no jwks_uri"},
		{"http jwks_uri", func(base string) any {
			return map[string]any{"issuer": base + "/tenant", "jwks_uri": "http://idp.example/keys"}
		}, "not an https URL"},
		{"jwks_uri not a string", func(base string) any {
			return map[string]any{"issuer": base + "/tenant", "jwks_uri": 7}
		}, "not a JSON object"},
		{"10 MB document", func(base string) any {
			return map[string]any{"issuer": base + "/tenant", "jwks_uri": base + "/keys", "pad": strings.Repeat("x", 10<<20)}
		}, "larger than 1048576 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, discoveries := oidcServer(t, jwksOf(t, ed), tc.doc)
			clk := newClock()
			v := mustNew(t, identity.Config{OIDCIssuer: srv.URL + "/tenant", Audience: audience, Transport: srv.Client().Transport, Now: clk.Now})
			c := claims(clk.Now())
			c["iss"] = srv.URL + "/tenant"
			sub, _, err := v.Verify(context.Background(), sign(t, ed, c, nil))
			if tc.detail == "" {
				if err != nil || sub != "alice" {
					t.Fatalf("Verify = %q, %v", sub, err)
				}
				// Discovery is cached with the keys.
				clk.Advance(2 * time.Minute)
				if err := v.Refresh(context.Background()); err != nil {
					t.Fatal(err)
				}
				if *discoveries != 1 || srv.fetches.Load() != 3 {
					t.Errorf("%d discoveries, %d requests; want 1, 3", *discoveries, srv.fetches.Load())
				}
				return
			}
			if !errors.Is(err, identity.ErrKeysUnavailable) || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("Verify = %v; want ErrKeysUnavailable saying %q", err, tc.detail)
			}
		})
	}
}

// TestRedirects checks the fetch's redirect policy: https redirects are
// followed up to a limit, redirects to http are refused (to loopback hosts
// too, unless AllowHTTPLoopback).
func TestRedirects(t *testing.T) {
	ed, _, _, _ := keys(t)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(jwksOf(t, ed))
	}))
	t.Cleanup(plain.Close)
	srv := newJWKSServer(t, nil)
	srv.handle(func(w http.ResponseWriter, r *http.Request) {
		var n int
		switch _, err := fmt.Sscanf(r.URL.Path, "/hop/%d", &n); {
		case r.URL.Path == "/keys":
			w.Write(jwksOf(t, ed))
		case r.URL.Path == "/to-http":
			http.Redirect(w, r, plain.URL+"/keys", http.StatusFound)
		case r.URL.Path == "/to-remote-http":
			http.Redirect(w, r, "http://idp.example/keys", http.StatusFound)
		case err == nil && n > 0:
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		case err == nil:
			http.Redirect(w, r, "/keys", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	tests := []struct {
		path     string
		loopback bool
		detail   string // "" for success
	}{
		{"/hop/2", false, ""}, // 3 redirects
		{"/hop/3", false, "more than 3 redirects"},
		{"/to-http", false, "is not https"},
		{"/to-http", true, ""},
		{"/to-remote-http", true, "not an https URL"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s loopback=%v", tc.path, tc.loopback), func(t *testing.T) {
			cfg := srv.config(newClock())
			cfg.JWKS, cfg.AllowHTTPLoopback = srv.URL+tc.path, tc.loopback
			err := mustNew(t, cfg).Refresh(context.Background())
			if tc.detail == "" {
				if err != nil {
					t.Fatalf("Refresh = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("Refresh = %v; want an error saying %q", err, tc.detail)
			}
		})
	}
}

// TestWaitHonoursContext checks that a caller whose context ends while the
// key set is being fetched gets an answer then, not at the fetch deadline.
func TestWaitHonoursContext(t *testing.T) {
	ed, _, _, _ := keys(t)
	srv := newJWKSServer(t, nil)
	srv.handle(func(w http.ResponseWriter, r *http.Request) { srv.hang(r) })
	cfg := srv.config(newClock())
	v := mustNew(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := v.Verify(ctx, sign(t, ed, claims(time.Now()), nil))
	if !errors.Is(err, identity.ErrKeysUnavailable) || time.Since(start) > 2*time.Second {
		t.Fatalf("Verify = %v after %v; want ErrKeysUnavailable after about 100ms", err, time.Since(start))
	}
}
