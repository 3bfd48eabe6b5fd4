package toolcall_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/toolcall"
)

type ctxKey struct{}

// TestMiddleware: each tools/call is observed once by every observer,
// in order, with the served tool's name (else "other") and the call's
// outcome; the first observer's context reaches the second and the
// tool; other methods are not observed.
func TestMiddleware(t *testing.T) {
	var mu sync.Mutex
	var got []string
	observer := func(name string) toolcall.Observer {
		return func(ctx context.Context, site, tool string) (context.Context, func(toolcall.Outcome, error)) {
			seen, _ := ctx.Value(ctxKey{}).(string)
			ctx = context.WithValue(ctx, ctxKey{}, seen+name)
			return ctx, func(o toolcall.Outcome, err error) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, fmt.Sprintf("%s %s %s %s err=%v after=%q", name, site, tool, o, err != nil, seen))
			}
		}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	type in struct {
		Fail bool `json:"fail,omitempty"`
		Err  bool `json:"err,omitempty"`
	}
	var chain string
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		chain, _ = ctx.Value(ctxKey{}).(string)
		if a.Fail {
			return nil, nil, errors.New("asked to fail") // an isError answer
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	srv.AddReceivingMiddleware(toolcall.Middleware("acme", []string{"echo"}, observer("A"), observer("B")))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		params *mcp.CallToolParams
		want   []string
	}{
		{&mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}},
			[]string{`B acme echo ok err=false after="A"`, `A acme echo ok err=false after=""`}},
		{&mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"fail": true}},
			[]string{`B acme echo tool_error err=false after="A"`, `A acme echo tool_error err=false after=""`}},
		{&mcp.CallToolParams{Name: "made-up-" + strings.Repeat("x", 40), Arguments: map[string]any{}},
			[]string{`B acme other error err=true after="A"`, `A acme other error err=true after=""`}},
	}
	for _, tt := range tests {
		mu.Lock()
		got = nil
		mu.Unlock()
		_, _ = cs.CallTool(ctx, tt.params) // the unknown tool fails the call
		mu.Lock()
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: observed %q, want %q", tt.params.Name, got, tt.want)
		}
		mu.Unlock()
	}
	if chain != "AB" {
		t.Errorf("the tool ran with the observers' context %q, want AB", chain)
	}
}

// TestNoObservers: without observers the middleware is the handler.
func TestNoObservers(t *testing.T) {
	called := false
	h := toolcall.Middleware("", nil)(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		called = true
		return nil, nil
	})
	if _, err := h(context.Background(), "tools/call", nil); err != nil || !called {
		t.Errorf("called %v, err %v", called, err)
	}
}
