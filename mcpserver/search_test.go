package mcpserver_test

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/faulttest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/search"
)

// TestSearch: the search tool over a real Chroma collection embedded with
// the n-gram function answers with the page of a sentence first, its
// lines and its text; path resolves against the working directory; a
// private page is found by its group only; bash has the search command.
// Where a semantic search cannot run (no usable embedding function, a
// filesystem without vector search), the tool answers from the lexical
// ranking after one line that says so, while a failure that may pass (a
// deadline, Chroma unreachable) stays an error; neither names an option
// of a program, which the agent cannot give.
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

	// The fallback to the lexical ranking, and the errors that stay.
	proxy := faulttest.NewProxy(t, testenv.Chroma(t).URL)
	behind, err := chromastore.Open(ctx, chromastore.Config{URL: proxy.URL, Collection: store.Name()})
	if err != nil {
		t.Fatal(err)
	}
	defer behind.Close()
	unreachable, err := chromafs.New(ctx, behind)
	if err != nil {
		t.Fatal(err)
	}
	proxy.Close()
	noKey := fmt.Errorf("%w: \"openai\" reads its API key from $OPENAI_API_KEY, which is not set (--embedding NAME names another)", search.ErrNoEmbedder)
	const lexical = "(lexical ranking: this collection has no usable embedding function, so pages are ranked by the query's words)\n"
	vectorHit := `^/guides/auth/keys\.md:\d+-\d+  \d\.\d\d  `
	for _, tc := range []struct {
		name   string
		fsys   fs.FS
		search search.Searcher
		want   string // a regular expression the answer matches
		err    bool
	}{
		{"usable function", fsys, eng, vectorHit, false},
		{"no embedder", fsys, &search.Engine{}, "^" + regexp.QuoteMeta(lexical) + `/guides/auth/keys\.md:\d+-\d+  \d+\.\d\d  # Keys\n(    .*\n)*    Rotate keys at least`, false},
		{"function cannot be built", fsys, semanticFails{noKey}, "^" + regexp.QuoteMeta(lexical) + `/guides/auth/keys\.md:\d+-\d+  `, false},
		{"no vector search", fstest.MapFS{"a.md": {Data: []byte("Rotate keys every ninety days.\n")}}, eng, "^" + regexp.QuoteMeta(lexical) + `/a\.md:1-1  `, false},
		{"deadline", fsys, semanticFails{fmt.Errorf("search: embed the query: %w", context.DeadlineExceeded)}, `^search timed out \(embed the query: context deadline exceeded\): try again`, true},
		{"Chroma unreachable", unreachable, eng, `^search failed: .*; try again, or grep for the exact words$`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, tc.fsys, mcpserver.Config{Search: tc.search})
			r := c.call("search", map[string]any{"query": "rotate keys every ninety days", "k": 3})
			if r.isError != tc.err || !regexp.MustCompile(tc.want).MatchString(r.text) {
				t.Errorf("search: %q (error %v); want %s (error %v)", r.text, r.isError, tc.want, tc.err)
			}
			if tc.err && strings.Contains(r.text, "lexical ranking") {
				t.Errorf("search: %q; a failure that may pass falls back", r.text)
			}
			if strings.Contains(r.text, "--") || strings.Contains(r.text, "API_KEY") {
				t.Errorf("search: %q names what the agent cannot give", r.text)
			}
		})
	}
	// The shell's search --vectors fails, and names the option it has.
	c = connect(t, fsys, mcpserver.Config{Search: semanticFails{noKey}})
	if got := c.text("bash", map[string]any{"command": "search --vectors rotate keys"}); !strings.HasSuffix(got, "; search --lexical ranks the pages by the query's words\n[exit status 2]") {
		t.Errorf("bash search without a usable function: %q", got)
	}
}

// semanticFails is a Searcher whose semantic searches fail with err and
// whose lexical ones run.
type semanticFails struct{ err error }

func (s semanticFails) Search(ctx context.Context, fsys fs.FS, query string, opt search.Options) ([]search.Hit, error) {
	if opt.Lexical {
		return (&search.Engine{}).Search(ctx, fsys, query, opt)
	}
	return nil, s.err
}
