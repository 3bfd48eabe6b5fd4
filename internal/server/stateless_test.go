package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testbackend"
)

func callBash(id, command string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"bash","arguments":{"command":"` + command + `"}}}`
}

// TestMCPStateless: with MCPOptions.Stateless, two servers over one
// store answer the requests of one client in turn, with no session id
// and no affinity: an initialize on one, tool calls on the other, each as
// its user; every call starts at "/"; GET gets 405; and the session
// bounds do not refuse anything. On memstore and a real Chroma.
func TestMCPStateless(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			load(t, store)
			opt := server.MCPOptions{Stateless: true, MaxSessions: 1, MaxUserSessions: 1}
			a, bsrv := mcpServer(t, store, false, opt), mcpServer(t, store, false, opt)
			code, body, h := post(t, a, map[string]string{"Authorization": alice}, initialize)
			if code != http.StatusOK || !strings.Contains(body, `"protocolVersion"`) {
				t.Fatalf("initialize on A: %d %s", code, body)
			}
			if id := h.Get("Mcp-Session-Id"); id != "" {
				t.Errorf("a stateless server gave a session id %q", id)
			}
			for i, tc := range []struct {
				auth, want string
			}{
				{alice, "/internal/plan.md"},
				{bot, "/release/notes.md"},
				{"", "/release/public.md"},
			} {
				hdr := map[string]string{}
				if tc.auth != "" {
					hdr["Authorization"] = tc.auth
				}
				// Alternately on B and A: either answers.
				code, body, _ := post(t, []*httptest.Server{bsrv, a}[i%2], hdr, callGlob("2"))
				if code != http.StatusOK || !strings.Contains(body, tc.want) {
					t.Errorf("%q: glob on B: %d %s; want %s", tc.auth, code, body, tc.want)
				}
				if tc.auth != alice && strings.Contains(body, "internal") {
					t.Errorf("%q: glob on B shows a staff page: %s", tc.auth, body)
				}
			}
			// Each call starts at "/": a cd does not carry over.
			hdr := map[string]string{"Authorization": alice}
			if code, body, _ := post(t, a, hdr, callBash("3", "cd /internal; pwd")); code != http.StatusOK || !strings.Contains(body, `/internal\n`) {
				t.Fatalf("cd; pwd on A: %d %s", code, body)
			}
			if code, body, _ := post(t, bsrv, hdr, callBash("4", "pwd")); code != http.StatusOK || !strings.Contains(body, `"stdout":"/\n"`) {
				t.Errorf("pwd after a cd in another call: %d %s; want /", code, body)
			}
			// Past MaxSessions and MaxUserSessions (1): nothing refused.
			var wg sync.WaitGroup
			var refused atomic.Int64
			for range 4 {
				wg.Go(func() {
					if code, _, _ := post(t, a, hdr, initialize); code != http.StatusOK {
						refused.Add(1)
					}
				})
			}
			wg.Wait()
			if n := refused.Load(); n > 0 {
				t.Errorf("%d of 4 concurrent initializes refused", n)
			}
			req, _ := http.NewRequest("GET", a.URL+server.MCPPath, nil)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("GET: %d, want 405", resp.StatusCode)
			}
		})
	}
}

// TestMCPHooks: MCPOptions.Middleware sees each tool call, and OnSession
// counts the sessions that hold a place, back to zero once they close.
func TestMCPHooks(t *testing.T) {
	store := testbackend.Backends()[0].New(t)
	load(t, store)
	var calls, open atomic.Int64
	mw := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				calls.Add(1)
			}
			return next(ctx, method, req)
		}
	}
	ts := mcpServer(t, store, false, server.MCPOptions{Middleware: []mcp.Middleware{mw}, OnSession: func(d int) { open.Add(int64(d)) }})
	cs1, cs2 := mustConnect(t, ts, alice), mustConnect(t, ts, "")
	if n := open.Load(); n != 2 {
		t.Errorf("%d sessions open, want 2", n)
	}
	toolText(t, cs1, "glob", map[string]any{"pattern": "**"})
	toolText(t, cs2, "ls", map[string]any{"path": "/"})
	if n := calls.Load(); n != 2 {
		t.Errorf("the middleware saw %d tool calls, want 2", n)
	}
	cs1.Close()
	cs2.Close()
	deadline := time.Now().Add(10 * time.Second)
	for open.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d sessions open after both closed, want 0", n)
	}
}

// TestOnRefused: Config.OnRefused hears of each request refused for its
// credentials, and not of those served.
func TestOnRefused(t *testing.T) {
	store := testbackend.Backends()[0].New(t)
	load(t, store)
	var mu sync.Mutex
	var got []string
	srv := server.New(server.Config{Store: store, Users: mcpUsers(t), OnRefused: func(why string) {
		mu.Lock()
		got = append(got, why)
		mu.Unlock()
	}})
	ts := httptest.NewServer(srv.Wrap("mcp", srv.MCPHandler(server.MCPOptions{})))
	defer ts.Close()
	for _, auth := range []string{alice, "", "Bearer nope", "Basic YWxpY2U6bm9wZQ=="} {
		hdr := map[string]string{}
		if auth != "" {
			hdr["Authorization"] = auth
		}
		post(t, ts, hdr, initialize)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != "credentials,credentials" {
		t.Errorf("OnRefused heard %q; want two refusals for credentials", got)
	}
}
