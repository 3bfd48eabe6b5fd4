package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/adopt"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testenv"
)

// writeForeignIDs writes the example docs into a new collection of srv
// the way LangChain.js's Chroma store lays chunks out (source, locFrom,
// locTo, uuid-like ids): each paragraph a chunk, trimmed, no overlap. It
// returns the number of pages written and the id of the first chunk.
func writeForeignIDs(t *testing.T, url, coll string) (int, string) {
	t.Helper()
	ctx := context.Background()
	c, err := chromastore.Open(ctx, chromastore.Config{URL: url, Collection: coll, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, files := sourceFiles(t, docsDir, all)
	var recs []collection.Record
	n := 0
	for rel, content := range files {
		line := 1
		wrote := false
		for _, para := range strings.SplitAfter(string(content), "\n\n") {
			text := strings.TrimSpace(para)
			lead := strings.Count(para[:strings.Index(para+"x", strings.TrimLeft(para, " \t\r\n")+"x")], "\n")
			if text != "" {
				from := line + lead
				recs = append(recs, collection.Record{
					ID:       fmt.Sprintf("6f1c%04x-%04d-4d2e-9b1a-%012d", n, len(recs), len(recs)),
					Document: text,
					Metadata: map[string]any{"source": "/srv/site/docs/" + rel, "locFrom": from, "locTo": from + strings.Count(text, "\n")},
				})
				wrote = true
			}
			line += strings.Count(para, "\n")
		}
		if wrote {
			n++
		}
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	return n, recs[0].ID
}

func TestAdopt(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	pages, firstID := writeForeignIDs(t, srv.URL, coll)

	out, errOut, code := cli(t, append(g, "adopt", "--dry-run")...)
	if code != 0 {
		t.Fatalf("adopt --dry-run: status %d\n%s%s", code, out, errOut)
	}
	t.Logf("adopt --dry-run:\n%s%s", out, errOut)
	for _, want := range []string{"layout: langchain.js (", fmt.Sprintf("pages: %d: ", pages), fmt.Sprintf("%d added", pages), "dry run: nothing written"} {
		if !strings.Contains(out, want) {
			t.Errorf("adopt --dry-run says\n%s\nwithout %q", out, want)
		}
	}
	c, err := chromastore.Open(context.Background(), chromastore.Config{URL: srv.URL, Collection: coll})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Tree(context.Background(), collection.DefaultLayout().TreeID); err == nil {
		t.Fatal("adopt --dry-run wrote a tree record")
	}

	out, errOut, code = cli(t, append(g, "adopt", "--rules", "../../examples/access.rules")...)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("%d added, 0 changed, 0 removed, 0 unchanged", pages)) {
		t.Fatalf("adopt: status %d\n%s%s", code, out, errOut)
	}
	doc, err := collection.ReadTree(context.Background(), c, collection.DefaultLayout().TreeID)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Metadata[ingest.MetaWriter] != adopt.WriterName || doc.Metadata[adopt.LayoutKey] != "langchain.js" {
		t.Errorf("tree record metadata %v", doc.Metadata)
	}
	out, _, code = cli(t, append(g, "adopt")...)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("0 added, 0 changed, 0 removed, %d unchanged", pages)) {
		t.Errorf("adopt again: status %d\n%s", code, out)
	}
	// Every command reads the adopted pages: cat gives adopt's page, and
	// grep -rn over the collection says what GNU grep says over adopt's
	// pages (public ones: without --groups the rules hide internal/).
	res, err := adopt.Read(context.Background(), c, adopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pagesOf := map[string][]byte{}
	for _, p := range res.Pages {
		if public(p.Slug) {
			pagesOf[p.Slug] = p.Content
		}
	}
	out, errOut, code = cli(t, append(g, "cat", "/index.md")...)
	if code != 0 || out != string(pagesOf["index.md"]) {
		t.Errorf("cat /index.md: status %d, %q%s; want adopt's page %q", code, out, errOut, pagesOf["index.md"])
	}
	dir := copyTree(t, pagesOf)
	for _, args := range [][]string{{"-rn", "token"}, {"-rli", "key"}, {"-rc", "e"}} {
		want := sortedLines(realTool(t, dir, "grep", append(args, ".")...))
		for i, l := range want {
			want[i] = "/" + strings.TrimPrefix(l, "./")
		}
		out, errOut, code := cli(t, append(append(g, "grep"), append(args, "/")...)...)
		if got := sortedLines(out); code != 0 || !slices.Equal(got, want) {
			t.Errorf("grep %q: status %d%s\n got %q\nwant %q", args, code, errOut, got, want)
		}
	}
	out, _, code = cli(t, append(g, "stat", "/index.md")...)
	if code != 0 || !strings.Contains(out, "Reassembled: inexact: ") {
		t.Errorf("stat /index.md: status %d\n%s", code, out)
	}

	// validate builds every page from its chunks by id, as readers do.
	out, errOut, code = cli(t, append(g, "validate")...)
	if code != 0 || !strings.Contains(out, "reassembled inexactly, with guessed whitespace") || !strings.Contains(out, " 0 errors") {
		t.Errorf("validate: status %d\n%s%s", code, out, errOut)
	}
	// The other tool rewrites a chunk: validate says to adopt again.
	if err := c.Upsert(context.Background(), []collection.Record{{ID: firstID, Document: "changed", Metadata: map[string]any{"source": "/srv/site/docs/x.md"}}}); err != nil {
		t.Fatal(err)
	}
	out, _, code = cli(t, append(g, "validate", "-q")...)
	if code != 1 || !strings.Contains(out, "adopt it again") {
		t.Errorf("validate after a chunk changed: status %d\n%s", code, out)
	}
}

func TestAdoptRefuses(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	ctx := context.Background()
	c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: coll, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Upsert(ctx, []collection.Record{{ID: "a", Document: "text", Metadata: map[string]any{"url": "https://x/a", "title": "A"}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"adopt"}, 2, "none of LangChain"},
		{[]string{"adopt"}, 2, "{title,url}"},
		{[]string{"adopt", "--layout", "nope"}, 2, `unknown --layout "nope"`},
		{[]string{"adopt", "--layout", "langchain", "--path-field", "url"}, 2, "do not go together"},
		{[]string{"adopt", "--order-field", "n"}, 2, "needs --path-field"},
		{[]string{"adopt", "--path-field", "url", "--offset-unit", "km", "--start-field", "s"}, 2, `--offset-unit "km"`},
		{[]string{"adopt", "--layout", "llamaindex"}, 2, "no chunk has the fields of layout llamaindex"},
	} {
		out, errOut, code := cli(t, append(g, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q (stdout %q)", tc.args, code, errOut, tc.code, tc.want, out)
		}
	}
	// A layout of one's own: the URL's path is the page.
	out, errOut, code := cli(t, append(g, "adopt", "--path-field", "url", "--dry-run")...)
	if code != 0 || !strings.Contains(out, "layout: custom (") || !strings.Contains(out, "pages: 1: 1 exact") {
		t.Errorf("adopt --path-field url: status %d\n%s%s", code, out, errOut)
	}
}
