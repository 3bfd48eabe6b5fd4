package server_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testbackend"
)

// mcpUsers: alice (password) is staff, bot (token) is release.
func mcpUsers(t *testing.T) *server.Users {
	t.Helper()
	users, err := server.ParseUsers(strings.NewReader(
		"alice password=" + cheapHash(t, "alice-pw") + " groups=staff\n" +
			"bot token-sha256=" + server.HashToken("bot-token") + " groups=release\n"))
	if err != nil {
		t.Fatal(err)
	}
	return users
}

// mcpServer serves store's MCP endpoint with opt on a loopback test
// server.
func mcpServer(t *testing.T, store ingest.Target, deny bool, opt server.MCPOptions) *httptest.Server {
	t.Helper()
	srv := server.New(server.Config{Store: store, Users: mcpUsers(t), DenyAnonymous: deny,
		Options: []chromafs.Option{chromafs.WithTreeMaxAge(time.Second)},
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := httptest.NewServer(srv.Wrap("mcp", srv.MCPHandler(opt)))
	t.Cleanup(ts.Close)
	return ts
}

// authTransport adds an Authorization header to every request.
type authTransport struct{ header string }

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if a.header != "" {
		r.Header.Set("Authorization", a.header)
	}
	return http.DefaultTransport.RoundTrip(r)
}

const (
	alice = "Basic YWxpY2U6YWxpY2UtcHc=" // alice:alice-pw
	bot   = "Bearer bot-token"
)

// mcpConnect opens an MCP session at ts as the user of the Authorization
// header auth ("" for anonymous).
func mcpConnect(ts *httptest.Server, auth string) (*mcp.ClientSession, error) {
	t := &mcp.StreamableClientTransport{Endpoint: ts.URL + server.MCPPath, HTTPClient: &http.Client{Transport: authTransport{auth}}, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), t, nil)
}

func mustConnect(t *testing.T, ts *httptest.Server, auth string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcpConnect(ts, auth)
	if err != nil {
		t.Fatalf("connect as %q: %v", auth, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String()
}

// TestMCPAccess: each user's MCP session sees that user's pages; an
// anonymous one the public pages (none with DenyAnonymous); wrong
// credentials are refused, never served the anonymous view. On memstore
// and on a real Chroma.
func TestMCPAccess(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			load(t, store)
			for _, deny := range []bool{false, true} {
				ts := mcpServer(t, store, deny, server.MCPOptions{})
				cases := []struct{ name, auth, want string }{
					{"anonymous", "", "/guide.md\n/release/\n/release/public.md\n"},
					{"alice", alice, "/guide.md\n/internal/\n/internal/plan.md\n/release/\n/release/public.md\n"},
					{"bot", bot, "/guide.md\n/release/\n/release/notes.md\n/release/public.md\n"},
					{"wrong password", "Basic YWxpY2U6bm9wZQ==", ""},
					{"wrong token", "Bearer nope", ""},
				}
				for _, tc := range cases {
					want := tc.want
					if deny && tc.auth == "" {
						want = ""
					}
					cs, err := mcpConnect(ts, tc.auth)
					if want == "" {
						if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
							t.Errorf("deny=%v %s: connect: %v, want 401", deny, tc.name, err)
						}
						if cs != nil {
							cs.Close()
						}
						continue
					}
					if err != nil {
						t.Fatalf("deny=%v %s: %v", deny, tc.name, err)
					}
					if got := toolText(t, cs, "glob", map[string]any{"pattern": "**"}); got != want {
						t.Errorf("deny=%v %s: glob **: %q, want %q", deny, tc.name, got, want)
					}
					got := toolText(t, cs, "grep", map[string]any{"pattern": "only", "output_mode": "content"})
					if strings.Contains(got, "staff only") != strings.Contains(want, "internal") || strings.Contains(got, "release only") != strings.Contains(want, "notes") {
						t.Errorf("deny=%v %s: grep: %q", deny, tc.name, got)
					}
					cs.Close()
				}
			}
		})
	}
}

// post sends one JSON-RPC message to the endpoint with the headers h and
// returns the status and body.
func post(t *testing.T, ts *httptest.Server, h map[string]string, body string) (int, string, http.Header) {
	t.Helper()
	return postWith(t, http.DefaultClient, ts, h, body)
}

// postWith is post through client.
func postWith(t *testing.T, client *http.Client, ts *httptest.Server, h map[string]string, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", ts.URL+server.MCPPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func callGlob(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"**"}}}`
}

// TestMCPSessionOwner: a session belongs to the user who opened it;
// another user (or an anonymous request) with its id gets 404, as for an
// id that does not exist, and never the owner's view.
func TestMCPSessionOwner(t *testing.T) {
	store := testbackend.Backends()[0].New(t)
	load(t, store)
	ts := mcpServer(t, store, false, server.MCPOptions{})
	status, _, h := post(t, ts, map[string]string{"Authorization": alice}, initialize)
	id := h.Get("Mcp-Session-Id")
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d, session %q", status, id)
	}
	sess := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	with := func(auth string) map[string]string {
		m := map[string]string{"Authorization": auth}
		for k, v := range sess {
			m[k] = v
		}
		return m
	}
	if status, body, _ := post(t, ts, with(alice), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
		t.Fatalf("initialized: %d %s", status, body)
	}
	status, body, _ := post(t, ts, with(alice), callGlob("2"))
	if status != 200 || !strings.Contains(body, "/internal/plan.md") {
		t.Fatalf("alice's call: %d %s", status, body)
	}
	for _, auth := range []string{bot, ""} {
		status, body, _ := post(t, ts, with(auth), callGlob("3"))
		if status != 404 || strings.Contains(body, "plan.md") {
			t.Errorf("call of %q in alice's session: %d %s", auth, status, body)
		}
		status2, body2, _ := post(t, ts, map[string]string{"Authorization": auth, "Mcp-Session-Id": "no-such-session", "Mcp-Protocol-Version": "2025-06-18"}, callGlob("3"))
		if status2 != status || body2 != body {
			t.Errorf("%q: another user's session answers %d %q, an unknown one %d %q", auth, status, body, status2, body2)
		}
	}
	// DELETE by another user does not end it.
	req, _ := http.NewRequest("DELETE", ts.URL+server.MCPPath, nil)
	req.Header.Set("Authorization", bot)
	req.Header.Set("Mcp-Session-Id", id)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 404 {
		t.Errorf("DELETE by bot: %v %v", resp, err)
	}
	if status, body, _ := post(t, ts, with(alice), callGlob("4")); status != 200 || !strings.Contains(body, "/internal/plan.md") {
		t.Errorf("alice's call after bot's DELETE: %d %s", status, body)
	}
}

// TestMCPAnonymousSessionOwner: an anonymous session belongs to the
// client address that opened it: the same id sent from another address
// gets 404, as an unknown id does, while the opener keeps using it.
func TestMCPAnonymousSessionOwner(t *testing.T) {
	store := testbackend.Backends()[0].New(t)
	load(t, store)
	ts := mcpServer(t, store, false, server.MCPOptions{})
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
	}
	opener, other := from("127.0.0.1"), from("127.0.0.3")
	status, _, h := postWith(t, opener, ts, nil, initialize)
	id := h.Get("Mcp-Session-Id")
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d, session %q", status, id)
	}
	sess := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	if status, body, _ := postWith(t, opener, ts, sess, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
		t.Fatalf("initialized: %d %s", status, body)
	}
	status, body, _ := postWith(t, other, ts, sess, callGlob("2"))
	unknown := map[string]string{"Mcp-Session-Id": "no-such-session", "Mcp-Protocol-Version": "2025-06-18"}
	status2, body2, _ := postWith(t, other, ts, unknown, callGlob("2"))
	if status != 404 || status2 != status || body2 != body {
		t.Errorf("another address in an anonymous session: %d %q; an unknown session: %d %q", status, body, status2, body2)
	}
	if status, body, _ := postWith(t, opener, ts, sess, callGlob("3")); status != 200 || !strings.Contains(body, "/guide.md") {
		t.Errorf("the opener's call: %d %s", status, body)
	}
}

// TestMCPHostile: bad Origin and Host headers, oversize bodies, and more
// sessions than the cap.
func TestMCPHostile(t *testing.T) {
	store := testbackend.Backends()[0].New(t)
	load(t, store)
	ts := mcpServer(t, store, false, server.MCPOptions{MaxBodyBytes: 4096, MaxSessions: 3, AllowedOrigins: []string{"https://app.example"}})
	host := strings.TrimPrefix(ts.URL, "http://")
	for _, tc := range []struct {
		name   string
		h      map[string]string
		body   string
		status int
	}{
		{"no origin", nil, initialize, 200},
		{"own origin", map[string]string{"Origin": ts.URL}, initialize, 200},
		{"allowed origin", map[string]string{"Origin": "https://app.example"}, initialize, 200},
		{"other origin", map[string]string{"Origin": "https://evil.example"}, initialize, 403},
		{"null origin", map[string]string{"Origin": "null"}, initialize, 403},
		{"origin on another port", map[string]string{"Origin": "http://127.0.0.1:1"}, initialize, 403},
		{"rebinding host", map[string]string{"Host": "evil.example"}, initialize, 403},
		{"rebinding host and matching origin", map[string]string{"Host": "evil.example", "Origin": "http://evil.example"}, initialize, 403},
		{"loopback host", map[string]string{"Host": "localhost" + host[strings.LastIndex(host, ":"):]}, initialize, 200},
		{"oversize body", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("a", 8192) + `"}}`, 413},
	} {
		status, body, h := post(t, ts, tc.h, tc.body)
		if status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, status, body, tc.status)
		}
		if id := h.Get("Mcp-Session-Id"); id != "" {
			del(t, ts, id)
		}
	}
	// The cap: three sessions, then 503 with Retry-After; closing one
	// makes room.
	var open []*mcp.ClientSession
	for range 3 {
		open = append(open, mustConnect(t, ts, ""))
	}
	status, body, h := post(t, ts, nil, initialize)
	if status != 503 || h.Get("Retry-After") == "" {
		t.Errorf("a fourth session: %d %s %v", status, body, h)
	}
	if err := open[0].Close(); err != nil {
		t.Fatal(err)
	}
	cs := mustConnect(t, ts, "")
	if got := toolText(t, cs, "ls", map[string]any{"path": "/"}); got != "guide.md  7 bytes\nrelease/\n" {
		t.Errorf("ls / in the new session: %q", got)
	}
}

// del ends a session with DELETE.
func del(t *testing.T, ts *httptest.Server, id string) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", ts.URL+server.MCPPath, nil)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestMCPIdle: a session without requests for SessionIdle is closed, and
// its place is free again.
func TestMCPIdle(t *testing.T) {
	store := testbackend.Backends()[0].New(t)
	load(t, store)
	ts := mcpServer(t, store, false, server.MCPOptions{MaxSessions: 1, SessionIdle: 50 * time.Millisecond})
	status, _, h := post(t, ts, nil, initialize)
	id := h.Get("Mcp-Session-Id")
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d", status)
	}
	// Wait (up to 10 s) for the session to be closed.
	hdr := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	for i := 0; ; i++ {
		status, _, _ := post(t, ts, hdr, callGlob("2"))
		if status == 404 {
			break
		}
		if i == 200 {
			t.Fatalf("the idle session still answers %d", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i := 0; ; i++ {
		status, _, h := post(t, ts, nil, initialize)
		if status == 200 {
			del(t, ts, h.Get("Mcp-Session-Id"))
			break
		}
		if i == 200 {
			t.Fatalf("no place for a new session after the idle one closed: %d", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMCPUserCap: one user cannot take every place: past
// MaxUserSessions that user's new sessions get 429, while others still
// get theirs.
func TestMCPUserCap(t *testing.T) {
	store := testbackend.Backends()[0].New(t)
	load(t, store)
	ts := mcpServer(t, store, false, server.MCPOptions{MaxSessions: 10, MaxUserSessions: 2})
	a1 := mustConnect(t, ts, alice)
	mustConnect(t, ts, alice)
	status, body, h := post(t, ts, map[string]string{"Authorization": alice}, initialize)
	if status != 429 || h.Get("Retry-After") == "" {
		t.Errorf("alice's third session: %d %s", status, body)
	}
	// Others are not concerned: another user, and anonymous ones (two
	// per client address).
	mustConnect(t, ts, bot)
	mustConnect(t, ts, "")
	mustConnect(t, ts, "")
	if status, body, _ := post(t, ts, nil, initialize); status != 429 {
		t.Errorf("a third anonymous session from one address: %d %s", status, body)
	}
	// Closing one of alice's sessions gives her a place again.
	if err := a1.Close(); err != nil {
		t.Fatal(err)
	}
	mustConnect(t, ts, alice)
}
