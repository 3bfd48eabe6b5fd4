package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/testenv"
)

// lockedBuffer is a bytes.Buffer that a process may write while a test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mcpClient runs the built binary's `chromafs mcp` with args over stdio
// (the SDK's CommandTransport) and returns the client session; stderr
// receives what the process writes there.
func mcpClient(t *testing.T, stderr *lockedBuffer, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(chromafsBinary(t), append(args, "mcp")...)
	cmd.Env = append(os.Environ(), "CHROMAFS_GROUPS=", "CHROMAFS_REDIS_URL=")
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return cs
}

func mcpText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String(), res.IsError
}

// TestMCPStdio drives the built binary over stdio against a real Chroma:
// the tools answer with the source files, the working directory persists
// between calls, a public user never sees a staff page, standard output
// carries only the protocol, and closing standard input ends the process.
func TestMCPStdio(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	var stderr lockedBuffer
	cs := mcpClient(t, &stderr, g...)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"bash", "glob", "grep", "ls", "read", "search", "stat"}) {
		t.Fatalf("tools: %v", names)
	}

	src, err := os.ReadFile(filepath.Join(docsDir, "guides/auth/oauth.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := mcpText(t, cs, "bash", map[string]any{"command": "cd /guides/auth && cat oauth.mdx"}); got != string(src) {
		t.Errorf("bash cat:\n%s\nwant\n%s", got, src)
	}
	if got, _ := mcpText(t, cs, "bash", map[string]any{"command": "pwd; ls"}); got != "/guides/auth\napi-keys.md\noauth.mdx\n" {
		t.Errorf("bash pwd; ls after cd: %q", got)
	}
	got, _ := mcpText(t, cs, "read", map[string]any{"path": "oauth.mdx", "limit": 1})
	first, _, _ := strings.Cut(string(src), "\n")
	if !strings.HasPrefix(got, "     1\t"+first+"\n(lines 1-1 of ") {
		t.Errorf("read relative path, limit 1: %q", got)
	}
	if got, _ := mcpText(t, cs, "grep", map[string]any{"pattern": "access_token", "path": "/"}); got != "/guides/auth/oauth.mdx\n/reference/api/errors.md\n" {
		t.Errorf("grep: %q", got)
	}
	if got, isErr := mcpText(t, cs, "read", map[string]any{"path": "/internal/oncall.md"}); !isErr || got != "/internal/oncall.md: no such file or directory (ls / shows what / holds)" {
		t.Errorf("public read of a staff page: %q", got)
	}
	if got, _ := mcpText(t, cs, "ls", map[string]any{"path": "/"}); strings.Contains(got, "internal") {
		t.Errorf("public ls /: %q", got)
	}

	var staffErr lockedBuffer
	staff := mcpClient(t, &staffErr, append(g, "--groups", "staff")...)
	oncall, err := os.ReadFile(filepath.Join(docsDir, "internal/oncall.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := mcpText(t, staff, "bash", map[string]any{"command": "cat /internal/oncall.md"}); got != string(oncall) {
		t.Errorf("staff cat /internal/oncall.md: %q", got)
	}
	if stderr.String() != "" || staffErr.String() != "" {
		t.Errorf("chromafs mcp wrote to stderr: %s%s", stderr.String(), staffErr.String())
	}
}

// TestMCPStdioErrors: a configuration error ends `chromafs mcp` with
// status 2 and a message, before any protocol.
func TestMCPStdioErrors(t *testing.T) {
	srv := testenv.Chroma(t)
	cmd := exec.Command(chromafsBinary(t), "--chroma-url", srv.URL, "--collection", testenv.CollectionName(t)+"-missing", "mcp")
	cmd.Env = append(os.Environ(), "CHROMAFS_GROUPS=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("status: %v", err)
	}
	if stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "chromafs mcp: ") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// startMCPServe runs the built binary's `chromafs serve --mcp` with the
// global flags g and serve's flags, and returns the endpoint's URL; the
// process is stopped with SIGTERM when t ends and must exit 0.
func startMCPServe(t *testing.T, g []string, flags ...string) string {
	t.Helper()
	cmd := exec.Command(chromafsBinary(t), append(append(g, "serve", "--mcp", "127.0.0.1:0"), flags...)...)
	cmd.Env = append(os.Environ(), "CHROMAFS_GROUPS=", "CHROMAFS_REDIS_URL=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve: %v\n%s", err, stderr.String())
		}
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "chromafs: mcp on "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return u
		}
	}
	t.Fatalf("serve did not start:\n%s", stderr.String())
	return ""
}

// headerTransport adds an Authorization header to every request.
type headerTransport struct{ auth string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.auth != "" {
		r.Header.Set("Authorization", h.auth)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func streamableClient(endpoint, auth string) (*mcp.ClientSession, error) {
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: headerTransport{auth}}, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), t, nil)
}

// TestMCPServe drives `chromafs serve --mcp` (the built binary, a real
// Chroma) with the SDK's streamable client: users see their pages, a
// session keeps its working directory, wrong credentials get 401, and a
// client that sends its request too slowly is cut off.
func TestMCPServe(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice password="+cheapHash(t, "alice-pw")+" groups=staff\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpoint := startMCPServe(t, g, "--users", users, "--read-timeout", "1s")
	if !strings.HasSuffix(endpoint, "/mcp") {
		t.Fatalf("endpoint %q", endpoint)
	}
	oncall, err := os.ReadFile(filepath.Join(docsDir, "internal/oncall.md"))
	if err != nil {
		t.Fatal(err)
	}

	alice, err := streamableClient(endpoint, "Basic YWxpY2U6YWxpY2UtcHc=")
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	if got, _ := mcpText(t, alice, "bash", map[string]any{"command": "cd /internal && cat oncall.md"}); got != string(oncall) {
		t.Errorf("alice: cd /internal && cat oncall.md: %q", got)
	}
	if got, _ := mcpText(t, alice, "read", map[string]any{"path": "oncall.md", "limit": 1}); !strings.HasPrefix(got, "     1\t") {
		t.Errorf("alice: read relative to the working directory: %q", got)
	}

	anon, err := streamableClient(endpoint, "")
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if got, isErr := mcpText(t, anon, "read", map[string]any{"path": "/internal/oncall.md"}); !isErr || got != "/internal/oncall.md: no such file or directory (ls / shows what / holds)" {
		t.Errorf("anonymous read of a staff page: %q", got)
	}
	if got, _ := mcpText(t, anon, "bash", map[string]any{"command": "pwd; ls /"}); strings.Contains(got, "internal") || !strings.HasPrefix(got, "/\n") {
		t.Errorf("anonymous pwd; ls /: %q", got)
	}

	if _, err := streamableClient(endpoint, "Basic YWxpY2U6bm9wZQ=="); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("wrong password: %v, want 401", err)
	}

	// A client that sends half a request and stops is cut off after
	// --read-timeout (the wait is bounded by 20 s).
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", conn.RemoteAddr())
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("a slow client's connection is still open after 20 s")
	}
}

// TestMCPStdioUnreachable: `chromafs mcp` starts while Chroma cannot be
// reached; a tool call answers with a tool error saying so, and the
// process keeps serving.
func TestMCPStdioUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	var stderr lockedBuffer
	cs := mcpClient(t, &stderr, "--chroma-url", "http://"+addr, "--collection", "docs", "--timeout", "10s")
	for range 2 {
		got, isErr := mcpText(t, cs, "ls", map[string]any{"path": "/"})
		if !isErr || !strings.HasPrefix(got, "the filesystem cannot be opened: ") {
			t.Errorf("ls / with Chroma unreachable: %q (error %v)", got, isErr)
		}
	}
	if !strings.Contains(stderr.String(), "the collection cannot be opened yet") {
		t.Errorf("stderr: %q", stderr.String())
	}
}
