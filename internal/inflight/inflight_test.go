package inflight_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/inflight"
)

// TestLimiter: with the bound's worth of requests held in the handler,
// the next gets 503 with Retry-After at once, an event stream passes,
// and once one ends a new request is served again.
func TestLimiter(t *testing.T) {
	tests := []struct {
		name       string
		max        int
		retryAfter time.Duration
		want       string
	}{
		{"one", 1, 0, "1"},
		{"three, 2.5 s", 3, 2500 * time.Millisecond, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			entered := make(chan struct{}, 100)
			l := inflight.New(tt.max, tt.retryAfter)
			refused := 0
			l.OnRefused = func(*http.Request) { refused++ }
			h := l.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/hold" {
					entered <- struct{}{}
					<-release
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			var wg sync.WaitGroup
			for range tt.max {
				wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/hold", nil)) })
				<-entered
			}
			if got := l.InFlight(); got != int64(tt.max) {
				t.Errorf("InFlight %d, want %d", got, tt.max)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != tt.want {
				t.Errorf("past the bound: %d Retry-After %q; want 503 and %q", rec.Code, rec.Header().Get("Retry-After"), tt.want)
			}
			if refused != 1 || l.Refused() != 1 {
				t.Errorf("refused %d (OnRefused), %d (Refused); want 1", refused, l.Refused())
			}
			stream := httptest.NewRequest("GET", "/", nil)
			stream.Header.Set("Accept", "application/json, text/event-stream")
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, stream)
			if rec.Code != http.StatusNoContent {
				t.Errorf("an event stream past the bound: %d, want it served", rec.Code)
			}
			close(release)
			wg.Wait()
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/", nil))
			if rec.Code != http.StatusNoContent || l.InFlight() != 0 {
				t.Errorf("after the held requests ended: %d, %d in flight", rec.Code, l.InFlight())
			}
		})
	}
}

// TestUnbounded: a negative bound, and a nil limiter, pass everything.
func TestUnbounded(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	var nilLimiter *inflight.Limiter
	for name, h := range map[string]http.Handler{"negative": inflight.New(-1, 0).Middleware(ok), "nil": nilLimiter.Middleware(ok)} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if rec.Code != http.StatusNoContent {
			t.Errorf("%s: %d", name, rec.Code)
		}
	}
	if inflight.DefaultMax() < inflight.PerProc {
		t.Errorf("DefaultMax %d", inflight.DefaultMax())
	}
}
