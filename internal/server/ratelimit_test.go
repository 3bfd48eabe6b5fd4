package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/memstore"
)

// TestRateLimits: past a client's burst, its requests get 429 with a
// Retry-After from the bucket's refill (one request a minute: 60 s), other
// clients are not concerned, a signed-in user counts by name and not by
// address, and the site's total bucket refuses whoever comes after it is
// empty. Each 429 is reported to OnRefused as "rate".
func TestRateLimits(t *testing.T) {
	hash := cheapHash(t, "alice-pw")
	users, err := server.ParseUsers(strings.NewReader("alice password=" + hash + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	type req struct {
		ip, user string
		want     int
	}
	const perMinute = 1.0 / 60
	tests := []struct {
		name string
		lim  server.RateLimits
		reqs []req
	}{{
		name: "per client",
		lim:  server.RateLimits{Rate: perMinute, Burst: 2},
		reqs: []req{
			{"127.0.0.2", "", 200}, {"127.0.0.2", "", 200}, {"127.0.0.2", "", 429},
			{"127.0.0.3", "", 200},                                   // another address
			{"127.0.0.2", "alice", 200}, {"127.0.0.3", "alice", 200}, // alice by name
			{"127.0.0.4", "alice", 429}, {"127.0.0.2", "", 429},
		},
	}, {
		name: "per site",
		lim:  server.RateLimits{SiteRate: perMinute, SiteBurst: 3},
		reqs: []req{{"127.0.0.2", "", 200}, {"127.0.0.3", "", 200}, {"127.0.0.4", "alice", 200}, {"127.0.0.5", "", 429}, {"127.0.0.6", "alice", 429}},
	}, {
		name: "both: a client refused takes nothing from the site",
		lim:  server.RateLimits{Rate: perMinute, Burst: 1, SiteRate: perMinute, SiteBurst: 3},
		reqs: []req{{"127.0.0.2", "", 200}, {"127.0.0.2", "", 429}, {"127.0.0.2", "", 429}, {"127.0.0.3", "", 200}, {"127.0.0.4", "", 200}, {"127.0.0.5", "", 429}},
	}, {
		name: "none",
		reqs: []req{{"127.0.0.2", "", 200}, {"127.0.0.2", "", 200}, {"127.0.0.2", "", 200}, {"127.0.0.2", "", 200}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memstore.New(t.Name())
			load(t, store)
			var refused atomic.Int64
			srv := server.New(server.Config{Store: store, Users: users, Rate: tt.lim,
				OnRefused: func(why string) {
					if why == server.RefusedRate {
						refused.Add(1)
					}
				},
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			ts := httptest.NewServer(srv.Wrap("http", lister(srv)))
			defer ts.Close()
			var n429 int64
			for i, r := range tt.reqs {
				pw := ""
				if r.user != "" {
					pw = "alice-pw"
				}
				code, ra := get(t, clientFrom(r.ip), ts.URL, r.user, pw)
				if code != r.want {
					t.Errorf("request %d (%s %q): %d, want %d", i, r.ip, r.user, code, r.want)
				}
				if code == http.StatusTooManyRequests {
					n429++
					if s, err := strconv.Atoi(ra); err != nil || s < 55 || s > 60 {
						t.Errorf("request %d: 429 with Retry-After %q, want about 60 (the bucket's refill)", i, ra)
					}
				}
			}
			if got := refused.Load(); got != n429 {
				t.Errorf("OnRefused(rate) called %d times for %d 429s", got, n429)
			}
		})
	}
}
