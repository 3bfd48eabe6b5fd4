package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testbackend"
)

// listNames lists a session's resources (every answer) by name.
func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		names = append(names, r.Name)
	}
	return names
}

// TestMCPResourcesListChanged: an ingest that changes the collection's
// tree, seen by Run's readiness check, sends
// notifications/resources/list_changed to every open session, of every
// group set; a second resources/list then has the new pages of each
// user's view (a staff page for the staff user only) and reads them,
// while the sessions' tools keep the view they started with. No second
// notification follows while the tree stays as it is. On memstore and
// on a real Chroma.
func TestMCPResourcesListChanged(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			load(t, store)
			srv := server.New(server.Config{Store: store, Users: mcpUsers(t),
				Options:       []chromafs.Option{chromafs.WithTreeMaxAge(50 * time.Millisecond)},
				CheckInterval: 100 * time.Millisecond,
				Logger:        slog.New(slog.NewTextHandler(io.Discard, nil))})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { srv.Run(ctx); close(done) }()
			t.Cleanup(func() { cancel(); <-done })
			ts := httptest.NewServer(srv.Wrap("mcp", srv.MCPHandler(server.MCPOptions{ViewMaxAge: time.Minute})))
			t.Cleanup(ts.Close)

			type user struct {
				name, auth    string
				before, after []string
				cs            *mcp.ClientSession
				notes         chan struct{}
			}
			users := []*user{
				{name: "anonymous", before: []string{"/guide.md", "/release/public.md"},
					after: []string{"/guide.md", "/new.md", "/release/public.md"}},
				{name: "alice", auth: alice, before: []string{"/guide.md", "/internal/plan.md", "/release/public.md"},
					after: []string{"/guide.md", "/internal/new.md", "/internal/plan.md", "/new.md", "/release/public.md"}},
			}
			for _, u := range users {
				u.notes = make(chan struct{}, 10)
				tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + server.MCPPath, HTTPClient: &http.Client{Transport: authTransport{u.auth}}, MaxRetries: -1}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
					ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { u.notes <- struct{}{} },
				}).Connect(context.Background(), tr, nil)
				if err != nil {
					t.Fatalf("%s: connect: %v", u.name, err)
				}
				t.Cleanup(func() { cs.Close() })
				u.cs = cs
				if got := listNames(t, cs); !slices.Equal(got, u.before) {
					t.Errorf("%s: resources before the ingest %q, want %q", u.name, got, u.before)
				}
				toolText(t, cs, "ls", map[string]any{"path": "/"}) // the session's view
			}
			select {
			case <-users[0].notes:
				t.Fatalf("a notification before any change")
			case <-time.After(300 * time.Millisecond):
			}

			src := fstest.MapFS{"new.md": {Data: []byte("new page\n")}, "internal/new.md": {Data: []byte("new staff page\n")}}
			for p, c := range site {
				src[p] = &fstest.MapFile{Data: []byte(c)}
			}
			rules, err := ingest.ParseRules(strings.NewReader("** public\ninternal/** private groups=staff\nrelease/notes.md private groups=release\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ingest.Run(context.Background(), store, src, ingest.Options{Rules: rules}); err != nil {
				t.Fatal(err)
			}
			for _, u := range users {
				select {
				case <-u.notes:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: no notifications/resources/list_changed within 10 s of the ingest", u.name)
				}
				if got := listNames(t, u.cs); !slices.Equal(got, u.after) {
					t.Errorf("%s: resources after the ingest %q, want %q", u.name, got, u.after)
				}
				res, err := u.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "chromafs:///new.md"})
				if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "new page\n" {
					t.Errorf("%s: read chromafs:///new.md: %+v %v", u.name, res, err)
				}
				if ls := toolText(t, u.cs, "ls", map[string]any{"path": "/"}); strings.Contains(ls, "new.md") {
					t.Errorf("%s: the session's ls shows the new tree: %q", u.name, ls)
				}
			}
			_, err = users[0].cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "chromafs:///internal/new.md"})
			if err == nil || !strings.Contains(err.Error(), "/internal/new.md: no such file or directory") {
				t.Errorf("anonymous: read of the new staff page: %v, want no such file", err)
			}
			select {
			case <-users[1].notes:
				t.Errorf("a second notification while the tree is unchanged")
			case <-time.After(500 * time.Millisecond):
			}
		})
	}
}
