package server_test

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/memstore"

	"golang.org/x/crypto/bcrypt"
)

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip (all of 127.0.0.0/8 is local on Linux), so that a
// test can play several client addresses.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
}

// get sends GET / with Basic credentials (none if name is "") and returns
// the status and the Retry-After header.
func get(t *testing.T, c *http.Client, base, name, password string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/", nil)
	if name != "" {
		req.SetBasicAuth(name, password)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// TestAuthLimits: a burst of wrong passwords from one address gets 429
// with Retry-After once the address's failures are used up, while a user
// signing in from another address still gets in; guessing one name from
// many addresses gets 429 for that name only; credentials that signed in
// before are still accepted while their name is limited.
// cheapHash returns a bcrypt hash of password at bcrypt.MinCost. The
// tests check who may sign in and how often, not bcrypt's cost: at the
// minimum cost each check (and the comparison against the dummy hash for
// unknown names, which takes the users' common cost) is 64 times cheaper
// than at HashPassword's default cost, which takes most of a second under
// the race detector.
func cheapHash(t *testing.T, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func TestAuthLimits(t *testing.T) {
	hash, bobHash := cheapHash(t, "alice-pw"), cheapHash(t, "bob-pw")
	users, err := server.ParseUsers(strings.NewReader("alice password=" + hash + " groups=staff\nbob password=" + bobHash + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New(t.Name())
	load(t, store)
	const burst = 5
	srv := server.New(server.Config{Store: store, Users: users,
		Auth:   server.AuthLimits{FailureBurst: burst, FailureInterval: time.Minute, HashWait: time.Minute},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := httptest.NewServer(srv.Wrap("http", lister(srv)))
	defer ts.Close()

	// bob signs in before anyone guesses his password.
	bobClient := clientFrom("127.0.0.5")
	if code, _ := get(t, bobClient, ts.URL, "bob", "bob-pw"); code != 200 {
		t.Fatalf("bob: %d", code)
	}

	attacker := clientFrom("127.0.0.2")
	var codes []string
	for i := range 3 * burst {
		code, ra := get(t, attacker, ts.URL, fmt.Sprintf("user%d", i), "guess")
		codes = append(codes, strconv.Itoa(code))
		if code == http.StatusTooManyRequests {
			if n, err := strconv.Atoi(ra); err != nil || n < 1 || n > 60 {
				t.Errorf("429 with Retry-After %q", ra)
			}
		}
	}
	want := strings.Repeat("401 ", burst) + strings.TrimSpace(strings.Repeat("429 ", 2*burst))
	if got := strings.Join(codes, " "); got != want {
		t.Errorf("wrong passwords from one address: %s\nwant %s", got, want)
	}
	// The attacker's address is limited even with the right password.
	if code, _ := get(t, attacker, ts.URL, "alice", "alice-pw"); code != http.StatusTooManyRequests {
		t.Errorf("alice from the limited address: %d, want 429", code)
	}
	// alice from elsewhere is not.
	if code, _ := get(t, clientFrom("127.0.0.1"), ts.URL, "alice", "alice-pw"); code != 200 {
		t.Errorf("alice from another address: %d, want 200", code)
	}
	// Anonymous requests are never limited.
	if code, _ := get(t, attacker, ts.URL, "", ""); code != 200 {
		t.Errorf("anonymous from the limited address: %d, want 200", code)
	}

	// bob's password guessed from many addresses, one guess each.
	for i := range burst {
		if code, _ := get(t, clientFrom(fmt.Sprintf("127.0.1.%d", i+1)), ts.URL, "bob", "guess"); code != 401 {
			t.Errorf("guess %d for bob: %d, want 401", i, code)
		}
	}
	if code, _ := get(t, clientFrom("127.0.2.1"), ts.URL, "bob", "another guess"); code != http.StatusTooManyRequests {
		t.Errorf("a new guess for bob after %d failures: %d, want 429", burst, code)
	}
	// bob's credentials signed in before: accepted without a check, from
	// any address.
	for _, c := range []*http.Client{bobClient, clientFrom("127.0.2.2")} {
		if code, _ := get(t, c, ts.URL, "bob", "bob-pw"); code != 200 {
			t.Errorf("bob's remembered credentials: %d, want 200", code)
		}
	}
	if code, _ := get(t, clientFrom("127.0.2.1"), ts.URL, "alice", "alice-pw"); code != 200 {
		t.Errorf("alice while bob is limited: %d, want 200", code)
	}

	// Concurrent guesses cannot overrun the limit: each reserves its
	// failure before its check.
	concurrent := clientFrom("127.0.0.4")
	results := make(chan int, 4*burst)
	for i := range 4 * burst {
		go func() {
			req, _ := http.NewRequest("GET", ts.URL+"/", nil)
			req.SetBasicAuth(fmt.Sprintf("c%d", i), "guess")
			resp, err := concurrent.Do(req)
			if err != nil {
				results <- -1
				return
			}
			resp.Body.Close()
			results <- resp.StatusCode
		}()
	}
	count := map[int]int{}
	for range 4 * burst {
		count[<-results]++
	}
	if count[401] != burst || count[429] != 3*burst {
		t.Errorf("%d concurrent wrong passwords from one address: %v; want %d x 401, the rest 429", 4*burst, count, burst)
	}

	// Tokens count against the address too.
	tokenAttacker := clientFrom("127.0.0.3")
	var last int
	for range burst + 1 {
		req, _ := http.NewRequest("GET", ts.URL+"/", nil)
		req.Header.Set("Authorization", "Bearer nope")
		resp, err := tokenAttacker.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		last = resp.StatusCode
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("wrong tokens from one address: last status %d, want 429", last)
	}
}
