package mcpserver_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/search"
)

// TestSearch: the search tool over a real Chroma collection embedded with
// the n-gram function answers with the page of a sentence first, its
// lines and its text; path resolves against the working directory; a
// private page is found by its group only; bash has the search command.
func TestSearch(t *testing.T) {
	ctx := context.Background()
	pages := map[string]string{
		"guides/auth/keys.md": "# Keys\n\nCreate a key in the console.\nRotate keys at least every ninety days with the rotate command.\nRevoke a key that leaked.\n",
		"guides/start.md":     "# Start\n\nInstall the tool, then log in.\n",
		"reference/cli.md":    "# CLI\n\nThe login command opens a browser.\n",
		"internal/vault.md":   "The vault master secret sits in the north cabinet.\n",
	}
	ngram := chromastore.NgramEmbedding(0)
	store := testbackend.OpenChroma(t, chromastore.Config{URL: testenv.Chroma(t).URL, Embedding: ngram})
	src := fstest.MapFS{}
	for name, content := range pages {
		src[name] = &fstest.MapFile{Data: []byte(content)}
	}
	rules, err := ingest.ParseRules(strings.NewReader("**/* public\ninternal/** private groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, store, src, ingest.Options{MaxChunk: 64, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	eng := &search.Engine{Embedder: ngram, Space: store.Embedding().Space}
	open := func(groups ...string) *client {
		fsys, err := chromafs.New(ctx, store, chromafs.WithGroups(groups...))
		if err != nil {
			t.Fatal(err)
		}
		return connect(t, fsys, mcpserver.Config{Search: eng})
	}
	c := open()
	got := c.text("search", map[string]any{"query": "rotate keys every ninety days", "k": 2})
	first := regexp.MustCompile(`^/guides/auth/keys\.md:(\d+)-(\d+)  \d\.\d\d  `).FindStringSubmatch(got)
	if first == nil || first[1] > "4" || first[2] < "4" {
		t.Errorf("search: %q, want /guides/auth/keys.md first with a range holding line 4", got)
	}
	if !strings.Contains(got, "    Rotate keys at least every ninety days with the rotate command.\n") {
		t.Errorf("search: %q, want the hit's text", got)
	}
	c.text("bash", map[string]any{"command": "cd /reference"})
	got = c.text("search", map[string]any{"query": "rotate keys every ninety days", "path": "."})
	if !strings.HasPrefix(got, "/reference/cli.md:") || strings.Contains(got, "/guides/") {
		t.Errorf("search with path . in /reference: %q, want hits under /reference only", got)
	}
	if msg := c.fail("search", map[string]any{"query": "x", "k": -1}); !strings.Contains(msg, "want 1 to 1000") {
		t.Errorf("k -1: %q", msg)
	}
	if msg := c.fail("search", map[string]any{"query": "x", "path": "/internal"}); !strings.Contains(msg, "/internal: no such file or directory") {
		t.Errorf("path /internal for the public: %q", msg)
	}
	if got := c.text("search", map[string]any{"query": "vault master secret north cabinet", "path": "/"}); strings.Contains(got, "internal") {
		t.Errorf("public search: %q shows a private page", got)
	}
	staff := open("staff")
	if got := staff.text("search", map[string]any{"query": "vault master secret north cabinet"}); !strings.HasPrefix(got, "/internal/vault.md:1-1  ") {
		t.Errorf("staff search: %q, want /internal/vault.md:1-1 first", got)
	}
	if got := c.text("bash", map[string]any{"command": "search --lexical -n 1 --path /guides install | cut -d ' ' -f 1"}); got != "/guides/start.md:3-3\n" {
		t.Errorf("bash search --lexical: %q", got)
	}

	// The answer is bounded like every tool's: cut at whole lines, with
	// a note that says how to ask for less.
	fsys, err := chromafs.New(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	small := connect(t, fsys, mcpserver.Config{Search: eng, MaxOutput: 300})
	got = small.text("search", map[string]any{"query": "rotate keys every ninety days", "k": 20})
	body, note, _ := strings.Cut(got, "[")
	if len(body) > 300 || !strings.HasPrefix(got, "/guides/auth/keys.md:") || !regexp.MustCompile(`^\d+ more lines not shown; ask for fewer results \(k\) or a narrower path\]\n$`).MatchString(note) {
		t.Errorf("search with MaxOutput 300: %q; want at most 300 characters of hits and the note", got)
	}
}
