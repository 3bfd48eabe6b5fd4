package search_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/search"
)

// memFS ingests pages into memstore and opens them for groups.
func memFS(t *testing.T, pages map[string]string, rules string, groups ...string) (*chromafs.FS, *memstore.Store) {
	t.Helper()
	store := memstore.New(t.Name())
	src := fstest.MapFS{}
	for name, content := range pages {
		src[name] = &fstest.MapFile{Data: []byte(content)}
	}
	opt := ingest.Options{MaxChunk: 64}
	if rules != "" {
		rs, err := ingest.ParseRules(strings.NewReader(rules))
		if err != nil {
			t.Fatal(err)
		}
		opt.Rules = rs
	}
	if _, err := ingest.Run(context.Background(), store, src, opt); err != nil {
		t.Fatal(err)
	}
	return newFS(t, store, groups...), store
}

var lexicalPages = map[string]string{
	"guides/auth/oauth.md": "# OAuth\n\nClients get tokens from the server.\n\nTo rotate credentials, revoke the old client secret\nand issue a new one; rotate credentials every 90 days.\n\nUnrelated closing words.\n",
	"guides/start.md":      "# Start\n\nInstall the tool.\nRun it.\n",
	"reference/cli.md":     "# CLI\n\nThe rotate command rotates logs.\n",
	"internal/keys.md":     "Rotate credentials of the vault: rotate credentials rotate credentials.\n",
}

func TestLexical(t *testing.T) {
	rules := "**/* public\ninternal/** private groups=staff\n"
	fsys, _ := memFS(t, lexicalPages, rules)
	var eng search.Engine // no embedder: lexical only
	ctx := context.Background()
	tests := []struct {
		query string
		opt   search.Options
		want  []string // path:start-end, best first
	}{
		{"rotate credentials", search.Options{Lexical: true}, []string{"guides/auth/oauth.md:5-6", "reference/cli.md:3-3"}},
		{"rotate credentials", search.Options{Lexical: true, K: 1}, []string{"guides/auth/oauth.md:5-6"}},
		{"ROTATE", search.Options{Lexical: true, Path: "/reference"}, []string{"reference/cli.md:3-3"}},
		{"install", search.Options{Lexical: true, Path: "guides"}, []string{"guides/start.md:3-3"}},
		{"nothing-like-this", search.Options{Lexical: true}, nil},
		// "rotates" has the stem of "rotate" (Snowball), so both pages
		// match; cli.md, which holds both, ranks first.
		{"rotates", search.Options{Lexical: true}, []string{"reference/cli.md:3-3", "guides/auth/oauth.md:5-6"}},
		// "otat" is in "rotate" but is no word of it: the coarse
		// filter's substring match is checked term by term.
		{"otat", search.Options{Lexical: true}, nil},
	}
	for _, tc := range tests {
		hits, err := eng.Search(ctx, fsys, tc.query, tc.opt)
		if err != nil {
			t.Fatalf("%q %+v: %v", tc.query, tc.opt, err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Path+":"+itoa(h.Start)+"-"+itoa(h.End))
			if h.Score <= 0 {
				t.Errorf("%q: %s has score %v", tc.query, h.Path, h.Score)
			}
			if lines := strings.Split(lexicalPages[h.Path], "\n"); strings.Join(lines[h.Start-1:h.End], "\n")+"\n" != h.Text {
				t.Errorf("%q: %s:%d-%d text %q is not those lines", tc.query, h.Path, h.Start, h.End, h.Text)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q %+v: hits %v, want %v", tc.query, tc.opt, got, tc.want)
		}
	}
	// The staff see the private page, which ranks first.
	staff, _ := memFS(t, lexicalPages, rules, "staff")
	hits, err := eng.Search(ctx, staff, "rotate credentials", search.Options{Lexical: true})
	if err != nil || len(hits) == 0 || hits[0].Path != "internal/keys.md" {
		t.Errorf("staff: hits %v, error %v; want internal/keys.md first", summaries(hits), err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestErrors(t *testing.T) {
	fsys, _ := memFS(t, lexicalPages, "")
	ctx := context.Background()
	var eng search.Engine
	tests := []struct {
		name  string
		fsys  fs.FS
		query string
		opt   search.Options
		is    error
		says  string
	}{
		{"empty query", fsys, " ", search.Options{}, nil, "empty query"},
		{"no words", fsys, "...", search.Options{Lexical: true}, search.ErrNoWords, "no words"},
		{"bad k", fsys, "x", search.Options{K: -1}, nil, "want 1 to 1000"},
		{"k too large", fsys, "x", search.Options{K: search.MaxK + 1}, nil, "want 1 to 1000"},
		{"no embedder", fsys, "x", search.Options{}, search.ErrNoEmbedder, "no usable embedding function"},
		{"no directory", fsys, "x", search.Options{Lexical: true, Path: "nope"}, fs.ErrNotExist, "nope"},
		{"no directory, semantic", fsys, "x", search.Options{Path: "nope"}, fs.ErrNotExist, "nope"},
		{"not searchable", fstest.MapFS{"a": {Data: []byte("x")}}, "x", search.Options{}, search.ErrNotSearchable, "no vector search"},
		{"no vector store", fsys, "x", search.Options{}, search.ErrNotSearchable, chromafs.ErrNoVectorQuery.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &eng
			if tc.name == "no vector store" {
				e = &search.Engine{Embedder: fixed{}}
			}
			hits, err := e.Search(ctx, tc.fsys, tc.query, tc.opt)
			if err == nil {
				t.Fatalf("hits %v, no error", summaries(hits))
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
		})
	}
}

// fixed embeds every query as the same vector.
type fixed struct{}

func (fixed) EmbedQuery(context.Context, string) ([]float32, error) { return []float32{1, 0}, nil }

func ExampleFormat() {
	hits := []search.Hit{
		{Path: "guides/auth/oauth.md", Start: 40, End: 58, Score: 0.834, Text: "\n## Rotating credentials\nRevoke the old secret.\n"},
		{Path: "reference/cli.md", Start: 3, End: 3, Score: 0.61, Text: "The rotate command rotates logs.\n"},
	}
	search.Format(os.Stdout, hits, false)
	fmt.Println("--- verbose:")
	search.Format(os.Stdout, hits[1:], true)
	// Output:
	// /guides/auth/oauth.md:40-58  0.83  ## Rotating credentials
	// /reference/cli.md:3-3  0.61  The rotate command rotates logs.
	// --- verbose:
	// /reference/cli.md:3-3  0.61  The rotate command rotates logs.
	//     The rotate command rotates logs.
	//
}

var fieldPages = map[string]string{
	"customize/custom-domain.mdx": "---\ntitle: Custom domain\ndescription: Serve the site from a name you own.\n---\n\nAdd a CNAME record at your registrar for the docs.\n",
	"guides/setup.md":             "# Setup\n\nThe docs are served from our domain; the domain of each\nproject is its slug. Any domain serves your docs.\n",
	"reference/headers.md":        "# Headers\n\nSend the `x-api-key` header with each call.\n",
	"reference/oauth.md":          "# Tokens\n\nThe answer holds access_token and expires_in.\n",
	"reference/sdk.md":            "# SDK\n\nCall getUser(id) to fetch one account.\n",
	"guides/keys.md":              "# Keys\n\nAn API key names the caller; the key is secret.\nUsers get a token from the console.\n",
	"guides/long.md":              "# Long\n\nRetry the webhook.\n" + strings.Repeat("filler line\n", 20) + "A webhook retry waits.\n" + strings.Repeat("filler line\n", 20) + "webhook\n",
}

// TestLexicalFields: BM25F ranks a page whose path and title name the
// query's words above one that repeats them in its body; identifiers
// match as written and by their parts; a page's other ranges are listed
// in More, with their exact lines.
func TestLexicalFields(t *testing.T) {
	fsys, _ := memFS(t, fieldPages, "")
	var eng search.Engine
	tests := []struct {
		query string
		first string // path:start-end of the best hit
		more  []string
	}{
		// The question of issue 28: its words are in the page's path
		// and title, and repeated in the body of another page.
		{"how do I point my own domain name at my docs", "customize/custom-domain.mdx:2-6", nil},
		{"x-api-key", "reference/headers.md:3-3", nil},
		{"X-API-Key header", "reference/headers.md:1-3", nil},
		{"access_token", "reference/oauth.md:1-3", nil},
		{"access token", "reference/oauth.md:1-3", nil},
		{"getUser", "reference/sdk.md:3-3", nil},
		{"get user", "reference/sdk.md:3-3", nil},
		{"webhook retries", "guides/long.md:3-3", []string{"24-24", "45-45"}},
		// Stop words only: they are searched for.
		{"the", "guides/keys.md:3-4", nil},
	}
	for _, tc := range tests {
		hits, err := eng.Search(context.Background(), fsys, tc.query, search.Options{Lexical: true})
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if len(hits) == 0 {
			t.Errorf("%q: no hits, want %s first", tc.query, tc.first)
			continue
		}
		h := hits[0]
		if got := h.Path + ":" + itoa(h.Start) + "-" + itoa(h.End); got != tc.first {
			t.Errorf("%q: first hit %s (all: %v), want %s", tc.query, got, summaries(hits), tc.first)
		}
		var more []string
		for _, r := range h.More {
			more = append(more, itoa(r.Start)+"-"+itoa(r.End))
			lines := strings.Split(fieldPages[h.Path], "\n")
			if strings.Join(lines[r.Start-1:r.End], "\n")+"\n" != r.Text {
				t.Errorf("%q: %s:%d-%d text %q is not those lines", tc.query, h.Path, r.Start, r.End, r.Text)
			}
		}
		if tc.more != nil && !slices.Equal(more, tc.more) {
			t.Errorf("%q: more ranges %v, want %v", tc.query, more, tc.more)
		}
		seen := map[string]bool{}
		for _, h := range hits {
			if seen[h.Path] {
				t.Errorf("%q: %s has two hits; want one a page", tc.query, h.Path)
			}
			seen[h.Path] = true
		}
	}
}

// irregularPages hold words whose Snowball stem is no prefix of them
// ("dying" stems to "die", "tying" to "tie", "lying" to "lie"), in no
// page's path.
var irregularPages = map[string]string{
	"ops/shutdown.md": "# Shutdown\n\nA worker that is dying finishes its jobs first.\n",
	"net/cables.md":   "# Cables\n\nKeep the rack neat by tying each cable to it.\n",
	"ops/health.md":   "# Health\n\nThe check is lying when the disk is full.\n",
	"ops/other.md":    "# Other\n\nNothing of the kind here.\n",
}

// TestLexicalIrregularStems: the coarse filter keeps every page that the
// ranking matches, also for a word whose stem is not a prefix of it, on
// memstore and on a real Chroma collection (whose coarse filter is a
// $contains/$regex search of the chunks).
func TestLexicalIrregularStems(t *testing.T) {
	var eng search.Engine
	mem, _ := memFS(t, irregularPages, "")
	chroma, _ := collectionOf(t, irregularPages, "", false)
	tests := []struct{ query, want string }{
		{"die", "ops/shutdown.md:3-3"},
		{"dies", "ops/shutdown.md:3-3"},
		{"dying", "ops/shutdown.md:3-3"},
		{"Dying workers", "ops/shutdown.md:3-3"},
		{"tie", "net/cables.md:3-3"},
		{"tying", "net/cables.md:3-3"},
		{"lie", "ops/health.md:3-3"},
		{"lies", "ops/health.md:3-3"},
	}
	for _, backend := range []struct {
		name string
		fsys fs.FS
	}{{"memstore", mem}, {"chroma", newFS(t, chroma)}} {
		for _, tc := range tests {
			hits, err := eng.Search(context.Background(), backend.fsys, tc.query, search.Options{Lexical: true})
			if err != nil {
				t.Fatalf("%s %q: %v", backend.name, tc.query, err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Path+":"+itoa(h.Start)+"-"+itoa(h.End))
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("%s %q: hits %v, want [%s]", backend.name, tc.query, got, tc.want)
			}
		}
	}
}

// TestLexicalStopWords: the stop words of a query with other words are
// weak terms: they order the pages that its other words find (b/two.md,
// which holds "who", above a/one.md, which the path would put first),
// and find no page alone (c/three.md holds only "who" and "is").
func TestLexicalStopWords(t *testing.T) {
	pages := map[string]string{
		"a/one.md":   "# Alpha\n\nThe key was deleted.\n",
		"b/two.md":   "# Beta\n\nWho deleted the key.\n",
		"c/three.md": "# Gamma\n\nWho is who.\n",
	}
	fsys, _ := memFS(t, pages, "")
	var eng search.Engine
	tests := []struct {
		query string
		want  []string
	}{
		{"who deleted the key", []string{"b/two.md:3-3", "a/one.md:3-3"}},
		{"deleted key", []string{"a/one.md:3-3", "b/two.md:3-3"}},
		{"who is", []string{"c/three.md:3-3", "b/two.md:3-3"}}, // stop words only: searched for
	}
	for _, tc := range tests {
		hits, err := eng.Search(context.Background(), fsys, tc.query, search.Options{Lexical: true})
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Path+":"+itoa(h.Start)+"-"+itoa(h.End))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: hits %v, want %v", tc.query, got, tc.want)
		}
	}
}
