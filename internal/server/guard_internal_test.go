package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

func TestClientKey(t *testing.T) {
	for _, tt := range []struct{ remote, want string }{
		{"127.0.0.1:5000", "127.0.0.1"},
		{"[::ffff:10.1.2.3]:80", "10.1.2.3"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"},
		{"not an address", "not an address"},
	} {
		if got := clientKey(&http.Request{RemoteAddr: tt.remote}); got != tt.want {
			t.Errorf("clientKey(%q) = %q, want %q", tt.remote, got, tt.want)
		}
	}
}

// TestHashingBound: with every place taken, a password check waits
// HashWait and gives up; a freed place is taken at once.
func TestHashingBound(t *testing.T) {
	g := newGuard(AuthLimits{MaxHashing: 2, HashWait: 50 * time.Millisecond})
	ctx := context.Background()
	var dones []func()
	for range 2 {
		done, ok := g.startHashing(ctx)
		if !ok {
			t.Fatal("a free place was refused")
		}
		dones = append(dones, done)
	}
	start := time.Now()
	if _, ok := g.startHashing(ctx); ok {
		t.Fatal("a third check started with MaxHashing 2")
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("gave up after %v, before HashWait", d)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok := g.startHashing(canceled); ok {
		t.Fatal("a check started for a canceled request")
	}
	dones[0]()
	if _, ok := g.startHashing(ctx); !ok {
		t.Fatal("a freed place was refused")
	}
}

// TestTrackedBound: failures from many addresses keep at most Tracked
// limiters.
func TestTrackedBound(t *testing.T) {
	g := newGuard(AuthLimits{Tracked: 100})
	for i := range 5000 {
		g.failed("10.0."+strings.Repeat("1", i%3+1)+"."+time.Duration(i).String(), "")
	}
	g.byAddr.CleanUp()
	if n := g.byAddr.EstimatedSize(); n > 100 {
		t.Errorf("%d addresses tracked, want at most 100", n)
	}
}

// TestDummyCost: an unknown name is compared against a hash of the cost
// most of the file's passwords have.
func TestDummyCost(t *testing.T) {
	h := func(cost int) string {
		b, err := bcrypt.GenerateFromPassword([]byte("x"), cost)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	u, err := ParseUsers(strings.NewReader("a password=" + h(5) + "\nb password=" + h(6) + "\nc password=" + h(6) + "\nd token-sha256=" + HashToken("t") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := bcrypt.Cost(u.dummy()); err != nil || c != 6 {
		t.Errorf("dummy hash cost %d (%v), want 6", c, err)
	}
	if _, err := u.checkPassword("nobody", "x"); err == nil {
		t.Error("an unknown name signed in")
	}
	if _, err := u.checkPassword("d", "t"); err == nil {
		t.Error("a token-only user signed in with a password")
	}
	empty, _ := ParseUsers(strings.NewReader("d token-sha256=" + HashToken("t") + "\n"))
	if c := empty.commonCost(); c != bcrypt.DefaultCost {
		t.Errorf("no passwords: cost %d, want the default", c)
	}
}
