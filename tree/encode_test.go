package tree_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/tree"
)

func TestEncodeRoundTrip(t *testing.T) {
	entries := tree.GenEntries(500, 11)
	entries = append(entries,
		tree.Entry{Slug: "odd/quote\"q.md", IsPublic: true, HasIsPublic: true, Size: -1},
		tree.Entry{Slug: "odd/ünï cødé ✓.md", Groups: []string{"g\n1", "\u2028"}, Size: 0, HasIsPublic: true},
		tree.Entry{Slug: "odd/lazy.json", IsPublic: true, HasIsPublic: true, Size: 1 << 40, URL: "https://example.com/a?b=c&d",
			SplitLines: true, ModTime: time.Date(2020, 2, 29, 12, 0, 0, 123456789, time.UTC)},
		tree.Entry{Slug: "odd/minimal", HasIsPublic: true, Size: -1},
		tree.Entry{Slug: "odd/adopted.md", IsPublic: true, HasIsPublic: true, Size: 40, Chunks: 2,
			Parts: `{"v":1,"p":[["0f8c-\"q\"",0,""],["a\u2028b",12,"\n\n"]],"t":"\n"}`},
	)
	want := tree.New(entries)
	for _, compressed := range []bool{false, true} {
		doc, err := tree.Encode(entries, compressed)
		if err != nil {
			t.Fatal(err)
		}
		if compressed == (doc[0] == '{') {
			t.Errorf("compressed=%v: document starts with %q", compressed, doc[:1])
		}
		again, err := tree.Encode(entries, compressed)
		if err != nil || !bytes.Equal(doc, again) {
			t.Errorf("compressed=%v: output not deterministic", compressed)
		}
		got, err := tree.Parse(doc)
		if err != nil {
			t.Fatalf("compressed=%v: %v", compressed, err)
		}
		if len(got.Problems()) != 0 {
			t.Errorf("compressed=%v: problems %v", compressed, got.Problems())
		}
		if got.Len() != want.Len() {
			t.Fatalf("compressed=%v: %d entries, want %d", compressed, got.Len(), want.Len())
		}
		for i, e := range got.Entries() {
			if w := want.Entries()[i]; !equalEntry(e, w) {
				t.Errorf("compressed=%v: entry\n%+v\nwant\n%+v", compressed, e, w)
			}
		}
	}
}

func TestEncodeFormat(t *testing.T) {
	doc, err := tree.Encode([]tree.Entry{
		{Slug: "b", Groups: []string{"x"}, Size: -1},
		{Slug: "a/c.md", IsPublic: true, Size: 12, Hash: "sha256:00", ModTime: time.Unix(0, 0), Chunks: 2, ContentType: "text/markdown"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
"a/c.md":{"chunks":2,"contentType":"text/markdown","groups":[],"hash":"sha256:00","isPublic":true,"modTime":"1970-01-01T00:00:00Z","size":12},
"b":{"groups":["x"],"isPublic":false}
}
`
	if string(doc) != want {
		t.Errorf("Encode:\n%s\nwant\n%s", doc, want)
	}
	// encoding/json reads it too, as older readers do.
	var m map[string]struct {
		IsPublic bool     `json:"isPublic"`
		Groups   []string `json:"groups"`
	}
	if err := json.Unmarshal(doc, &m); err != nil || len(m) != 2 || !m["a/c.md"].IsPublic || m["b"].Groups[0] != "x" {
		t.Errorf("encoding/json: %v, %+v", err, m)
	}
	empty, err := tree.Encode(nil, false)
	if err != nil || string(empty) != "{}\n" {
		t.Errorf("Encode(nil) = %q, %v", empty, err)
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, entries := range [][]tree.Entry{
		{{Slug: "../x"}},
		{{Slug: "a"}, {Slug: "a"}},
		{{Slug: "a"}, {Slug: "a/b"}},
		{{Slug: "a", Size: -3}},
		{{Slug: "a", URL: "https://x", Parts: "{}"}},
	} {
		if _, err := tree.Encode(entries, false); err == nil || !strings.HasPrefix(err.Error(), "tree: cannot encode ") {
			t.Errorf("Encode(%+v) error = %v", entries, err)
		}
	}
}
