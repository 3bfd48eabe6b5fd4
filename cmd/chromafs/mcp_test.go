package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

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
	if !slices.Equal(names, []string{"bash", "glob", "grep", "ls", "read", "stat"}) {
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
