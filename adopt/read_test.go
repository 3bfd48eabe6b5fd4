package adopt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

// docs are the pages the layout tests write, by path under /home/ci/site.
var readDocs = map[string]string{
	"guides/auth.md": "# Auth\n\nRotate keys every hour. " + strings.Repeat("Tokens expire; refresh them. ", 12) + "\n\n## OAuth\n\nUse the code flow.\n",
	"intro.md":       "# Intro\n\nwelcome 😀 to the docs — 日本語 too\n",
	"api/users.md":   "# Users\n\n" + strings.Repeat("GET /users returns a list.\n", 30),
}

type writeFn func(st *memstore.Store, path, src string)

// writers write a page as each layout's writer does, with the ports of
// the splitters in splitter_test.go.
var writers = map[string]writeFn{
	"langchain.js": func(st *memstore.Store, p, src string) {
		var recs []collection.Record
		for i, pc := range jsPieces(newJSSplitter(120, 30), src) {
			recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, i), Document: pc.Text, Metadata: map[string]any{
				"source": "/home/ci/site/" + p, "locFrom": pc.Line + 1, "locTo": pc.Line + 1 + strings.Count(pc.Text, "\n")}})
		}
		upsert(st, recs)
	},
	"langchain": func(st *memstore.Store, p, src string) {
		var recs []collection.Record
		for i, pc := range pyPieces(newPySplitter(120, 30), src) {
			recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, i), Document: pc.Text, Metadata: map[string]any{
				"source": "/home/ci/site/" + p, "start_index": pc.Start}})
		}
		upsert(st, recs)
	},
	"llamaindex": func(st *memstore.Store, p, src string) {
		// TypeScript: offsets in UTF-16 units.
		var recs []collection.Record
		for i, pc := range pyPieces(newJSSplitter(120, 30), src) {
			start := len(utf16.Encode([]rune(string([]rune(src)[:pc.Start]))))
			nc, _ := json.Marshal(map[string]any{"id_": "n", "start_char_idx": start, "end_char_idx": start + len(utf16.Encode([]rune(pc.Text)))})
			recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, i), Document: pc.Text, Metadata: map[string]any{
				"file_path": "/home/ci/site/" + p, "file_name": p[strings.LastIndex(p, "/")+1:], "_node_content": string(nc),
				"_node_type": "TextNode", "document_id": "d-" + p, "doc_id": "d-" + p, "ref_doc_id": "d-" + p}})
		}
		upsert(st, recs)
	},
	"chroma-docs": func(st *memstore.Store, p, src string) {
		var recs []collection.Record
		line := 0
		for i, text := range strings.SplitAfter(src, "\n\n") {
			if text == "" {
				continue
			}
			recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, i), Document: text, Metadata: map[string]any{
				"slug": p, "chunk_id": i, "line_no": line}})
			line += strings.Count(text, "\n")
		}
		upsert(st, recs)
	},
}

func upsert(st *memstore.Store, recs []collection.Record) {
	if err := st.Upsert(context.Background(), recs); err != nil {
		panic(err)
	}
}

func TestReadLayouts(t *testing.T) {
	ctx := context.Background()
	for _, name := range slices.Sorted(maps.Keys(writers)) {
		t.Run(name, func(t *testing.T) {
			st := memstore.New(name)
			for _, p := range slices.Sorted(maps.Keys(readDocs)) {
				writers[name](st, p, readDocs[p])
			}
			// chromafs's own records are not chunks.
			upsert(st, []collection.Record{{ID: "__path_tree__", Document: "{}", System: true, Metadata: map[string]any{collection.SystemKey: true}}})
			res, err := Read(ctx, st, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Layout.Name != name {
				t.Fatalf("layout %s, want %s (counts %v)", res.Layout.Name, name, res.Counts)
			}
			if res.System != 1 || res.Other != 0 || len(res.Problems) > 0 {
				t.Errorf("system %d, other %d, problems %q; want 1, 0, none", res.System, res.Other, res.Problems)
			}
			if len(res.Pages) != len(readDocs) {
				t.Fatalf("%d pages, want %d", len(res.Pages), len(readDocs))
			}
			for _, pg := range res.Pages {
				if pg.Exactness == Inexact {
					t.Logf("%s: inexact: %s", pg.Slug, pg.Why)
				}
				src, ok := readDocs[pg.Slug]
				if !ok {
					t.Errorf("page %q (key %q) is not a page written", pg.Slug, pg.Key)
					continue
				}
				if string(pg.Content) != src {
					if pg.Exactness != Inexact {
						t.Errorf("%s: %v but differs from its source:\n got %q\nwant %q", pg.Slug, pg.Exactness, pg.Content, src)
					}
					continue
				}
				if name == "chroma-docs" && pg.Exactness != Exact {
					t.Errorf("%s: %v (%s), want exact: the layout neither trims nor overlaps", pg.Slug, pg.Exactness, pg.Why)
				}
			}
			ex, ed, in := res.Count()
			t.Logf("%s: %d exact, %d edges-assumed, %d inexact", name, ex, ed, in)
			if ex+ed == 0 {
				t.Errorf("no page exact or edges-assumed (%d inexact): intro.md is one chunk", in)
			}
		})
	}
}

func TestReadRefuses(t *testing.T) {
	ctx := context.Background()
	t.Run("no layout", func(t *testing.T) {
		st := memstore.New("none")
		upsert(st, []collection.Record{{ID: "a", Document: "x", Metadata: map[string]any{"url": "u", "title": "t"}}})
		_, err := Read(ctx, st, Options{})
		if !errors.Is(err, ErrNoLayout) || !strings.Contains(err.Error(), "{title,url}") || !strings.Contains(err.Error(), "--path-field") {
			t.Errorf("err %v, want ErrNoLayout naming the keys and --path-field", err)
		}
	})
	t.Run("mixed layouts", func(t *testing.T) {
		st := memstore.New("mixed")
		writers["langchain.js"](st, "a.md", readDocs["intro.md"])
		writers["llamaindex"](st, "b.md", readDocs["api/users.md"])
		_, err := Read(ctx, st, Options{})
		if !errors.Is(err, ErrNoLayout) || !strings.Contains(err.Error(), "--layout llamaindex") {
			t.Fatalf("err %v, want ErrNoLayout suggesting --layout llamaindex", err)
		}
		l := LangChainJS
		res, err := Read(ctx, st, Options{Layout: &l})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Pages) != 1 || res.Pages[0].Slug != "a.md" || res.Other == 0 {
			t.Errorf("pages %v, other %d: want a.md only, the rest counted as other", res.Pages, res.Other)
		}
	})
	t.Run("custom layout that nothing fits", func(t *testing.T) {
		st := memstore.New("custom")
		writers["langchain"](st, "a.md", readDocs["intro.md"])
		l := Layout{Name: "custom", PathFields: []string{"path"}}
		if _, err := Read(ctx, st, Options{Layout: &l}); !errors.Is(err, ErrNoLayout) || !strings.Contains(err.Error(), "page path") {
			t.Errorf("err %v, want ErrNoLayout naming the missing field", err)
		}
	})
	t.Run("bad pages", func(t *testing.T) {
		st := memstore.New("bad")
		upsert(st, []collection.Record{
			{ID: "1", Document: "secret", Metadata: map[string]any{"source": "../../etc/passwd", "start_index": 0}},
			{ID: "2", Document: "ok", Metadata: map[string]any{"source": "docs/ok.md", "start_index": 0}},
			{ID: "3", Document: "bad index", Metadata: map[string]any{"source": "docs/idx.md", "start_index": "zero"}},
			{ID: "4", Document: "one", Metadata: map[string]any{"source": "docs/dup.md", "start_index": 0}},
			{ID: "5", Document: "two", Metadata: map[string]any{"source": "./docs//dup.md", "start_index": 0}},
			{ID: "6", Document: "ctl", Metadata: map[string]any{"source": "docs/a\x01b.md", "start_index": 0}},
		})
		res, err := Read(ctx, st, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var slugs []string
		for _, p := range res.Pages {
			slugs = append(slugs, p.Slug)
		}
		if !slices.Equal(slugs, []string{"docs/idx.md", "docs/ok.md"}) {
			t.Errorf("pages %q, want docs/idx.md and docs/ok.md", slugs)
		}
		want := []string{"leaves the root", "start_index is \"zero\"", "would both be docs/dup.md", "control character"}
		all := strings.Join(res.Problems, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("problems %q lack %q", res.Problems, w)
			}
		}
	})
}

func TestSlugs(t *testing.T) {
	tests := []struct {
		keys  []string
		strip string
		want  map[string]string
		bad   []string
	}{
		{keys: []string{"/home/ci/docs/a.md", "/home/ci/docs/b/c.md"}, want: map[string]string{"/home/ci/docs/a.md": "a.md", "/home/ci/docs/b/c.md": "b/c.md"}},
		{keys: []string{"/home/ci/docs/a.md"}, want: map[string]string{"/home/ci/docs/a.md": "a.md"}},
		{keys: []string{"https://docs.example.com/guides/", "https://docs.example.com/api/users?x=1#top", "https://docs.example.com"},
			want: map[string]string{"https://docs.example.com/guides/": "guides/index", "https://docs.example.com/api/users?x=1#top": "api/users", "https://docs.example.com": "index"}},
		{keys: []string{`C:\Users\ci\docs\a.md`, `C:\Users\ci\docs\sub\b.md`}, want: map[string]string{`C:\Users\ci\docs\a.md`: "a.md", `C:\Users\ci\docs\sub\b.md`: "sub/b.md"}},
		{keys: []string{"docs/a.md", "./docs/b.md"}, want: map[string]string{"docs/a.md": "docs/a.md", "./docs/b.md": "docs/b.md"}},
		{keys: []string{"docs/a.md", "docs/b.md"}, strip: "docs", want: map[string]string{"docs/a.md": "a.md", "docs/b.md": "b.md"}},
		{keys: []string{"../x.md", "/a/../../y.md", "a\x00b"}, want: map[string]string{}, bad: []string{"../x.md", "/a/../../y.md", "a\x00b"}},
		{keys: []string{"a.md", "./a.md"}, want: map[string]string{}, bad: []string{"a.md", "./a.md"}},
	}
	for _, tt := range tests {
		got, bad := Slugs(tt.keys, tt.strip)
		if !maps.Equal(got, tt.want) {
			t.Errorf("Slugs(%q, %q) = %v, want %v", tt.keys, tt.strip, got, tt.want)
		}
		if b := slices.Sorted(maps.Keys(bad)); !slices.Equal(b, slices.Sorted(slices.Values(tt.bad))) {
			t.Errorf("Slugs(%q) bad %v, want %q", tt.keys, bad, tt.bad)
		}
	}
}

// TestReadDocuments: LlamaIndex's Markdown reader makes one document per
// heading, each with offsets from its own start; camelCase offsets are
// TypeScript's.
func TestReadDocuments(t *testing.T) {
	ctx := context.Background()
	st := memstore.New("docs")
	node := func(start, end int) string {
		b, _ := json.Marshal(map[string]any{"startCharIdx": start, "endCharIdx": end})
		return string(b)
	}
	md := func(doc string, start, end int) map[string]any {
		return map[string]any{"file_path": "/d/a.md", "file_name": "a.md", "ref_doc_id": doc, "_node_content": node(start, end)}
	}
	// The reader's documents are "\n\n# One\n\nalpha beta gamma\n" and
	// "\n\n# Two\n\ndelta\n": two line breaks before each heading.
	upsert(st, []collection.Record{
		{ID: "1", Document: "# One\n\nalpha beta", Metadata: md("/d/a.md_1", 2, 19)},
		{ID: "2", Document: "beta gamma", Metadata: md("/d/a.md_1", 14, 24)},
		{ID: "3", Document: "# Two\n\ndelta", Metadata: md("/d/a.md_2", 2, 14)},
	})
	res, err := Read(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 1 {
		t.Fatalf("pages %v", res.Pages)
	}
	pg := res.Pages[0]
	if want := "# One\n\nalpha beta gamma\n\n# Two\n\ndelta\n"; string(pg.Content) != want || pg.Exactness != Inexact || !strings.Contains(pg.Why, "Markdown reader read the file (2 documents)") {
		t.Errorf("page %q %v %q, want %q, inexact", pg.Content, pg.Exactness, pg.Why, want)
	}
	chunks := []Piece{{ID: "1", Text: "# One\n\nalpha beta"}, {ID: "2", Text: "beta gamma"}, {ID: "3", Text: "# Two\n\ndelta"}}
	if got := string(rebuild(chunks, pg.Page)); got != string(pg.Content) {
		t.Errorf("the recipe builds %q, the page is %q", got, pg.Content)
	}
}
