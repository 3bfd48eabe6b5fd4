package search_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
		// "rotates" is not the word "rotate": the coarse filter's substring
		// match is checked word by word.
		{"rotates", search.Options{Lexical: true}, []string{"reference/cli.md:3-3"}},
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
