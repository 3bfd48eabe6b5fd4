package loadtest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toyServer is an MCP server over streamable HTTP with one tool, ls,
// that answers after delay. It stands in for chromafs serve --mcp where
// only loadtest's own bookkeeping is under test (the tests against the
// real server are in cmd/chromafs).
func toyServer(t *testing.T, delay time.Duration) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "toy", Version: "1"}, nil)
	type in struct {
		Path string `json:"path"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "ls"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Path + "\n"}}}, nil, nil
	})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(h.Close)
	return h.URL
}

// TestRunInterrupted: cancelling the run's context ends it early,
// marked interrupted, and the sessions cut short count neither as ok
// nor as failed.
func TestRunInterrupted(t *testing.T) {
	u := toyServer(t, 20*time.Millisecond)
	script, err := ParseScript("s", strings.NewReader(strings.Repeat(`{"tool":"ls","args":{"path":"/"}}`+"\n", 5)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	sum, err := Run(ctx, Config{URLs: []string{u}, Concurrency: 3, Duration: time.Hour, Script: script, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run returned after %v", d)
	}
	if !sum.Interrupted || sum.Sessions.OK == 0 || sum.Sessions.Failed != 0 || len(sum.Errors) != 0 || sum.Calls.Failed != 0 {
		t.Errorf("interrupted %v, sessions %+v, calls %+v, errors %v", sum.Interrupted, sum.Sessions, sum.Calls, sum.ErrorExamples)
	}
	// Each completed session made its 5 calls; those cut short, fewer.
	if ls := sum.Tools["ls"].Calls; sum.Sessions.Started <= sum.Sessions.OK || ls.OK < 5*sum.Sessions.OK || ls.OK >= 5*sum.Sessions.Started {
		t.Errorf("sessions %+v, ls %+v", sum.Sessions, sum.Tools["ls"])
	}
	if l := sum.Tools["ls"].Latency; l.P50 < 20 || l.Count != sum.Tools["ls"].Calls.OK {
		t.Errorf("ls latency %+v (the tool takes 20 ms)", l)
	}
}

// TestConfigErrors: what Run refuses before starting.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Count: 1}, "no URL"},
		{Config{URLs: []string{"127.0.0.1:80"}, Count: 1}, "is not an http:// or https:// URL"},
		{Config{URLs: []string{"http://h/mcp"}}, "neither a duration nor a count"},
		{Config{URLs: []string{"http://h/mcp"}, Count: 1, Tokens: []string{"a", "b c"}}, "token 2 is empty or holds white space"},
	}
	for _, tt := range tests {
		if _, err := Run(context.Background(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

// deadURL returns an MCP URL on which nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	return u
}

// TestRunDeadURL: a URL that refuses connections leaves the turn, its
// sessions run on the other URLs and count as refused there, not as
// failures; with every URL dead, the sessions fail as transport errors.
func TestRunDeadURL(t *testing.T) {
	script, err := ParseScript("s", strings.NewReader(`{"tool":"ls","args":{"path":"/"}}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	live, dead := toyServer(t, time.Millisecond), deadURL(t)
	sum, err := Run(context.Background(), Config{URLs: []string{live, dead}, Concurrency: 2, Count: 40, Script: script, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions.Started != 40 || sum.Sessions.OK != 40 || len(sum.Errors) != 0 {
		t.Errorf("sessions %+v, errors %v", sum.Sessions, sum.ErrorExamples)
	}
	// The dead URL is tried at first, then every downMin at most: a
	// run this short tries it a few times.
	if d := sum.PerURL[1]; d.Refused < 1 || d.Refused > 10 || d.Sessions.Started != 0 || sum.PerURL[0].Sessions.OK != 40 {
		t.Errorf("per URL %+v", sum.PerURL)
	}
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil || !strings.Contains(b.String(), dead+"  0 sessions ok, 0 failed, 0 calls; refused the connection: ") {
		t.Errorf("report:\n%s", b.String())
	}

	sum, err = Run(context.Background(), Config{URLs: []string{dead, deadURL(t)}, Concurrency: 2, Count: 6, Script: script, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions.Failed != 6 || sum.Errors[KindTransport] != 6 || sum.PerURL[0].Sessions.Failed+sum.PerURL[1].Sessions.Failed != 6 {
		t.Errorf("all dead: sessions %+v, errors %v, per URL %+v", sum.Sessions, sum.Errors, sum.PerURL)
	}
}

// TestFleet: pick skips the URLs that are down until their retry is
// due, spreads a dead URL's sessions over the others, and backs off
// while a URL keeps refusing.
func TestFleet(t *testing.T) {
	f := newFleet(3)
	now := time.Now()
	for n := range 3 {
		if got, spare := f.pick(n, n, now); got != n || !spare {
			t.Errorf("all up, session %d: %d %v", n, got, spare)
		}
	}
	f.down(1, now)
	// Sessions 1, 4, 7, 10 (turn 1) go to 0 and 2 in turn.
	got := map[int]int{}
	for n := 1; n < 12; n += 3 {
		u, spare := f.pick(1, n, now)
		if !spare {
			t.Errorf("1 down, session %d: no spare", n)
		}
		got[u]++
	}
	if got[0] != 2 || got[2] != 2 {
		t.Errorf("1 down: its sessions went to %v; want 2 each to 0 and 2", got)
	}
	f.down(2, now)
	if got, spare := f.pick(1, 1, now); got != 0 || spare {
		t.Errorf("1 and 2 down, turn 1: %d %v", got, spare)
	}
	f.down(0, now)
	if got, spare := f.pick(2, 2, now); got != 2 || spare {
		t.Errorf("all down, turn 2: %d %v", got, spare)
	}
	if got, spare := f.pick(1, 1, now.Add(downMin)); got != 1 || !spare {
		t.Errorf("retry due for all, turn 1: %d %v", got, spare)
	}
	f.down(1, now) // second refusal: twice as long
	if got, _ := f.pick(1, 2, now.Add(downMin)); got == 1 {
		t.Errorf("1 backing off, turn 1: %d", got)
	}
	if got, _ := f.pick(1, 1, now.Add(2*downMin)); got != 1 {
		t.Errorf("1 due, turn 1: %d", got)
	}
	f.up(1)
	if got, _ := f.pick(1, 1, now); got != 1 {
		t.Errorf("1 up again: %d", got)
	}
}

// TestRetryWait: the wait a refusal's Retry-After asks for, in seconds
// or as an HTTP date, bounded; none for other errors.
func TestRetryWait(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		err  error
		want time.Duration
	}{
		{"503 in seconds", &Error{Kind: KindHTTP503, RetryAfter: "2", Err: errBusy}, 2 * time.Second},
		{"429 in seconds", &Error{Kind: KindHTTP429, RetryAfter: " 1 ", Err: errBusy}, time.Second},
		{"an HTTP date", &Error{Kind: KindHTTP503, RetryAfter: now.Add(3 * time.Second).Format(http.TimeFormat), Err: errBusy}, 3 * time.Second},
		{"a date past", &Error{Kind: KindHTTP503, RetryAfter: now.Add(-time.Hour).Format(http.TimeFormat), Err: errBusy}, 0},
		{"bounded", &Error{Kind: KindHTTP503, RetryAfter: "86400", Err: errBusy}, MaxRetryWait},
		{"negative", &Error{Kind: KindHTTP503, RetryAfter: "-5", Err: errBusy}, 0},
		{"garbage", &Error{Kind: KindHTTP503, RetryAfter: "soon", Err: errBusy}, 0},
		{"no header", &Error{Kind: KindHTTP503, Err: errBusy}, 0},
		{"another kind", &Error{Kind: KindHTTP5xx, RetryAfter: "2", Err: errBusy}, 0},
		{"not an *Error", errBusy, 0},
	}
	for _, tt := range tests {
		if got := retryWait(tt.err, now); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

var errBusy = errors.New("busy")

// TestRetryAfterHonoured: against a server that refuses every session
// with 503 and Retry-After: 1, a worker waits a second after each
// refusal (two sessions in 1.5 s, one wait counted); with
// IgnoreRetryAfter it starts the next session at once (many more).
func TestRetryAfterHonoured(t *testing.T) {
	var mu sync.Mutex
	got := 0
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got++
		mu.Unlock()
		w.Header().Set("Retry-After", "1")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	run := func(ignore bool) *Summary {
		sum, err := Run(context.Background(), Config{URLs: []string{busy.URL + "/mcp"}, Duration: 1500 * time.Millisecond, IgnoreRetryAfter: ignore})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	start := time.Now()
	sum := run(false)
	if d := time.Since(start); sum.Sessions.Started != 2 || sum.Sessions.Failed != 2 || sum.RetryWaits != 2 || d > 5*time.Second {
		t.Errorf("honouring Retry-After: sessions %+v, %d waits in %v; want 2 sessions, each followed by a wait cut at the run's end", sum.Sessions, sum.RetryWaits, d)
	}
	sum = run(true)
	if sum.Sessions.Started < 5 || sum.RetryWaits != 0 {
		t.Errorf("ignoring Retry-After: sessions %+v, %d waits; want many sessions and no wait", sum.Sessions, sum.RetryWaits)
	}
}
