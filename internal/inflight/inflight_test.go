package inflight_test

import (
	"context"
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

// TestPatient: with the one slot held, a patient request waits and is
// served once the slot frees within Wait; meanwhile a request that is
// not patient is refused (it does not pass the waiting one), and so is
// a second patient one (at most the bound's worth wait); a patient
// request whose wait ends first gets 503 with Retry-After, as does one
// whose context ends.
func TestPatient(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	l := inflight.New(1, time.Second)
	l.Wait = 5 * time.Second
	l.Patient = func(r *http.Request) bool { return r.Header.Get("Mcp-Session-Id") != "" }
	h := l.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	patient := func(path string) *http.Request {
		r := httptest.NewRequest("POST", path, nil)
		r.Header.Set("Mcp-Session-Id", "s1")
		return r
	}
	serve := func(r *http.Request) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	var wg sync.WaitGroup
	wg.Go(func() { serve(httptest.NewRequest("POST", "/hold", nil)) })
	<-entered
	waited := make(chan int, 1)
	wg.Go(func() { waited <- serve(patient("/")) })
	deadline := time.Now().Add(10 * time.Second)
	for l.Waiting() != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if l.Waiting() != 1 {
		t.Fatalf("%d waiting, want the patient request", l.Waiting())
	}
	if code := serve(httptest.NewRequest("POST", "/", nil)); code != http.StatusServiceUnavailable {
		t.Errorf("a request that is not patient, with one waiting: %d, want 503", code)
	}
	if code := serve(patient("/")); code != http.StatusServiceUnavailable {
		t.Errorf("a second patient request past the bound's worth of waiters: %d, want 503", code)
	}
	close(release)
	if code := <-waited; code != http.StatusNoContent {
		t.Errorf("the waiting request after the slot freed: %d, want it served", code)
	}
	wg.Wait()

	// Waits that end unserved.
	release = make(chan struct{})
	defer close(release)
	go serve(httptest.NewRequest("POST", "/hold", nil))
	<-entered
	l.Wait = 50 * time.Millisecond
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, patient("/"))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("a patient request past its wait: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	l.Wait = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if code := serve(patient("/").WithContext(ctx)); code != http.StatusServiceUnavailable || time.Since(start) > 30*time.Second {
		t.Errorf("a patient request whose context ends: %d after %v", code, time.Since(start))
	}
	if l.Waiting() != 0 || l.Refused() != 4 {
		t.Errorf("%d waiting, %d refused; want 0 and 4", l.Waiting(), l.Refused())
	}
}
