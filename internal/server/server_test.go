package server_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
)

func TestParseUsers(t *testing.T) {
	hash, err := server.HashPassword("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	tok := server.HashToken("tok")
	tests := []struct {
		name, file, wantErr string
	}{
		{"ok", "# comment\n\nalice password=" + hash + " groups=staff,sales\nbot token-sha256=" + tok + "\n", ""},
		{"no secret", "alice groups=staff\n", "neither a password nor a token"},
		{"bad hash", "alice password=plain\n", "not a bcrypt hash"},
		{"bad token", "alice token-sha256=abc\n", "64 hex digits"},
		{"unknown field", "alice pass=x\n", `unknown field "pass"`},
		{"not key=value", "alice staff\n", "not key=value"},
		{"duplicate", "a token-sha256=" + tok + "\na password=" + hash + "\n", "defined twice"},
		{"same token", "a token-sha256=" + tok + "\nb token-sha256=" + tok + "\n", "same token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := server.ParseUsers(strings.NewReader(tt.file))
			if tt.wantErr == "" {
				if err != nil || u.Len() != 2 {
					t.Fatalf("ParseUsers = %v, %v", u, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v; want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// lister answers with the names of the files the request's user sees.
func lister(srv *server.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fsys, err := srv.Resolve(r)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				fmt.Fprintln(w, p)
			}
			return err
		})
	})
}

var site = map[string]string{
	"guide.md":          "public\n",
	"internal/plan.md":  "staff only\n",
	"release/notes.md":  "release only\n",
	"release/public.md": "for everyone\n",
}

func load(t *testing.T, store ingest.Target) {
	t.Helper()
	src := fstest.MapFS{}
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
}

// TestAccess checks who sees what: anonymous requests the public pages
// (or 401 with DenyAnonymous), users by password or token their groups'
// pages, wrong credentials 401; /healthz needs none. On memstore and on a
// real Chroma.
func TestAccess(t *testing.T) {
	hash := cheapHash(t, "alice-pw")
	users, err := server.ParseUsers(strings.NewReader(
		"alice password=" + hash + " groups=staff\n" +
			"bot token-sha256=" + server.HashToken("bot-token") + " groups=release\n"))
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]func(t *testing.T) ingest.Target{
		"memstore": func(t *testing.T) ingest.Target { return memstore.New(t.Name()) },
		"chroma": func(t *testing.T) ingest.Target {
			return testbackend.Chroma(t)
		},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			store := newStore(t)
			load(t, store)
			for _, deny := range []bool{false, true} {
				srv := server.New(server.Config{Store: store, Users: users, DenyAnonymous: deny,
					Options: []chromafs.Option{chromafs.WithTreeMaxAge(time.Second)},
					Logger:  slog.New(slog.NewTextHandler(io.Discard, nil))})
				ts := httptest.NewServer(srv.Wrap("http", lister(srv)))
				anon := "200 guide.md release/public.md"
				if deny {
					anon = "401"
				}
				cases := []struct {
					name string
					set  func(r *http.Request)
					want string
				}{
					{"anonymous", func(*http.Request) {}, anon},
					{"alice", func(r *http.Request) { r.SetBasicAuth("alice", "alice-pw") }, "200 guide.md internal/plan.md release/public.md"},
					{"alice again (cached check)", func(r *http.Request) { r.SetBasicAuth("alice", "alice-pw") }, "200 guide.md internal/plan.md release/public.md"},
					{"alice wrong password", func(r *http.Request) { r.SetBasicAuth("alice", "nope") }, "401"},
					{"unknown user", func(r *http.Request) { r.SetBasicAuth("mallory", "alice-pw") }, "401"},
					{"token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer bot-token") }, "200 guide.md release/notes.md release/public.md"},
					{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }, "401"},
					{"garbage authorization", func(r *http.Request) { r.Header.Set("Authorization", "Digest x") }, "401"},
					// RFC 7235: the scheme is case-insensitive.
					{"token, lower-case scheme", func(r *http.Request) { r.Header.Set("Authorization", "bearer bot-token") }, "200 guide.md release/notes.md release/public.md"},
					{"token, upper-case scheme", func(r *http.Request) { r.Header.Set("Authorization", "BEARER bot-token") }, "200 guide.md release/notes.md release/public.md"},
					{"password, lower-case scheme", func(r *http.Request) {
						r.Header.Set("Authorization", "basic "+base64.StdEncoding.EncodeToString([]byte("alice:alice-pw")))
					}, "200 guide.md internal/plan.md release/public.md"},
					{"bad base64", func(r *http.Request) { r.Header.Set("Authorization", "Basic !!!") }, "401"},
					{"no colon", func(r *http.Request) {
						r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("alice")))
					}, "401"},
				}
				for _, tc := range cases {
					req, _ := http.NewRequest("GET", ts.URL+"/", nil)
					tc.set(req)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					got := fmt.Sprint(resp.StatusCode)
					if resp.StatusCode == 200 {
						got += " " + strings.Join(strings.Fields(string(body)), " ")
					} else if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") == "" {
						t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
					}
					if got != tc.want {
						t.Errorf("deny=%v %s: got %q, want %q", deny, tc.name, got, tc.want)
					}
				}
				resp, err := http.Get(ts.URL + "/healthz")
				if err != nil || resp.StatusCode != 200 {
					t.Errorf("healthz: %v %v", resp, err)
				} else {
					resp.Body.Close()
				}
				ts.Close()
			}
		})
	}
}

// TestServeShutdown: Serve stops when its context ends, letting a running
// request finish.
func TestServeShutdown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(200 * time.Millisecond)
		fmt.Fprint(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Serve(ctx, server.DefaultLimits, slog.New(slog.NewTextHandler(io.Discard, nil)), server.Listener{Listener: l, Handler: h})
	}()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + l.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-started
	cancel()
	if s := <-got; s != "finished" {
		t.Fatalf("request during shutdown: %q", s)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := http.Get("http://" + l.Addr().String() + "/"); err == nil {
		t.Fatal("server still answers after shutdown")
	}
}
