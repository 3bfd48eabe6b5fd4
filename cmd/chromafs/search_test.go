package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestMCPSearchEmbedding: the MCP search tool of `chromafs mcp` and of
// `chromafs serve --mcp` embeds queries with the function that
// --embedding (mcp) or --mcp-embedding (serve) names, in place of the
// collection's recorded one: here the collection records none (ingest's
// default, the consistent hash), so the search fails without the flag
// and answers with it. A name chromafs does not know is refused at start.
func TestMCPSearchEmbedding(t *testing.T) {
	t.Setenv("CHROMAFS_EMBED_BIN", embedBinary(t))
	srv := testenv.Chroma(t)
	g := []string{"--chroma-url", srv.URL, "--collection", testenv.CollectionName(t)}
	if out, errOut, code := cli(t, append(g, "ingest", docsDir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	hit := regexp.MustCompile(`^/[^ ]+:[0-9]+-[0-9]+  `)
	stdio := func(flags ...string) *mcp.ClientSession {
		cmd := exec.Command(chromafsBinary(t), append(append(append([]string(nil), g...), "mcp"), flags...)...)
		cmd.Env = append(os.Environ(), "CHROMAFS_GROUPS=", "CHROMAFS_REDIS_URL=")
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr.String())
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for _, c := range []struct {
		name string
		cs   func() *mcp.ClientSession
		ok   bool
	}{
		{"mcp", func() *mcp.ClientSession { return stdio() }, false},
		{"mcp --embedding hash", func() *mcp.ClientSession { return stdio("--embedding", "hash") }, true},
		{"serve --mcp", func() *mcp.ClientSession {
			cs, err := streamableClient(startMCPServe(t, g), "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		}, false},
		{"serve --mcp --mcp-embedding hash", func() *mcp.ClientSession {
			cs, err := streamableClient(startMCPServe(t, g, "--mcp-embedding", "hash"), "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, isErr := mcpText(t, c.cs(), "search", map[string]any{"query": "rotate keys", "k": 1})
			if c.ok && (isErr || !hit.MatchString(got)) {
				t.Errorf("search: %q (error %v), want a hit /PATH:START-END", got, isErr)
			}
			if !c.ok && (!isErr || !strings.Contains(got, "records no embedding function") || !strings.Contains(got, "--lexical")) {
				t.Errorf("search: %q (error %v), want the error that the collection records no function", got, isErr)
			}
		})
	}
	for _, args := range [][]string{
		{"mcp", "--embedding", "bogus"},
		{"serve", "--mcp", "127.0.0.1:0", "--mcp-embedding", "bogus"},
		{"sh", "--embedding", "bogus", "-c", "true"},
	} {
		_, errOut, code := cli(t, append(append([]string(nil), g...), args...)...)
		if code != 2 || !strings.Contains(errOut, `invalid argument "bogus"`) || !strings.Contains(errOut, "ngram") {
			t.Errorf("%q: status %d, %q; want 2 and the names it takes", args, code, errOut)
		}
	}
}
