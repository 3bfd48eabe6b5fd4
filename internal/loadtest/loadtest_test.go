package loadtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
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
