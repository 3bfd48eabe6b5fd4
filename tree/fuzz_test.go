package tree

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"a/b.md": {"isPublic": true, "groups": []}, "a/c": {"groups": ["x"]}, "a": {}}`,
		`{"x": {"isPublic": "yes"}, "../y": {}, "a//b": {"size": 1}, "z": {"modTime": "2024-01-01T00:00:00Z", "size": 3}}`,
		`{"a\u0000": {}, "\ud800": {}, "d/e/f": {"groups": ["g", "h"], "url": "u", "chunks": 2, "splitLines": true}}`,
		`{"a": {"x": [1, {"y": null}, "z", 1.5e3]}, "a": {}}`,
		`[1]`, `"s"`, `{"a":`, `H4sIAAAAAAAA`, ` 12 `,
	} {
		f.Add([]byte(s))
	}
	doc, _ := Encode(GenEntries(20, 1), true)
	f.Add(doc)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data)
		// Plain JSON documents: Parse accepts exactly what encoding/json
		// accepts, except a document whose entries are all skipped.
		if trimmed := strings.TrimLeft(string(data), " \t\r\n"); strings.HasPrefix(trimmed, "{") && !errors.Is(err, ErrNoEntries) {
			if valid := json.Valid([]byte(trimmed)); valid != (err == nil) {
				t.Fatalf("json.Valid = %v, Parse error = %v, for %q", valid, err, data)
			}
		}
		if err != nil {
			if tr != nil || !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse error %v (tree %v)", err, tr)
			}
			return
		}
		for _, e := range tr.Entries() {
			if checkSlug(e.Slug) != "" {
				t.Fatalf("invalid slug %q served", e.Slug)
			}
		}
		fuzzCheckView(t, tr.All())
		for _, groups := range [][]string{nil, {"g", "x", "admin"}} {
			v := tr.View(groups)
			fuzzCheckView(t, v)
			// Exactly the visible entries are files of the view.
			for i := range tr.Entries() {
				e := &tr.Entries()[i]
				n, ok := v.Lookup(e.Slug)
				if e.Visible(groups) != (ok && n.Entry == e) {
					t.Fatalf("view %q: entry %q visible %v, in view %v", groups, e.Slug, e.Visible(groups), ok)
				}
			}
		}
		// What Parse accepted, Encode writes and Parse reads back.
		doc, err := Encode(tr.Entries(), false)
		if err != nil {
			t.Fatalf("Encode of parsed entries: %v", err)
		}
		again, err := Parse(doc)
		if err != nil || again.Len() != tr.Len() || len(again.Problems()) != 0 {
			t.Fatalf("round trip: %v, %d entries (want %d), problems %v", err, again.Len(), tr.Len(), again.Problems())
		}
	})
}

func fuzzCheckView(t *testing.T, v *View) {
	files := 0
	v.Walk(func(n *Node) bool {
		if !fs.ValidPath(n.Path) {
			t.Fatalf("node path %q is not valid", n.Path)
		}
		if got, ok := v.Lookup(n.Path); !ok || got != n {
			t.Fatalf("Lookup(%q) = %v, %v", n.Path, got, ok)
		}
		if n.Path != "." {
			kids, ok := v.ReadDir(path.Dir(n.Path))
			found := false
			for _, k := range kids {
				found = found || k == n
			}
			if !ok || !found {
				t.Fatalf("%q not listed in its directory", n.Path)
			}
		}
		if !n.IsDir {
			files++
		}
		return true
	})
	if files != v.Files() {
		t.Fatalf("Files() = %d, walked %d", v.Files(), files)
	}
}

func FuzzSlug(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a", "a/b", "/a", "a/", "a//b", "a/./b", "a/../b", `a\b`, "a\x00", "\xff", "a\u0085", "ü/ñ", "...", ".a/b."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		reason := checkSlug(s)
		safe := fs.ValidPath(s) && s != "." && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return r == '\\' || unicode.IsControl(r)
		})
		if (reason == "") != safe {
			t.Fatalf("checkSlug(%q) = %q, but safe = %v", s, reason, safe)
		}
		if reason != "" {
			return
		}
		if path.Clean(s) != s || path.IsAbs(s) || strings.HasPrefix(s, "../") {
			t.Fatalf("accepted slug %q is not clean", s)
		}
		// A valid slug round-trips through a document and is served.
		tr := New([]Entry{{Slug: s, IsPublic: true, Size: -1}})
		if _, ok := tr.View(nil).Lookup(s); !ok || len(tr.Problems()) != 0 {
			t.Fatalf("slug %q not served: %v", s, tr.Problems())
		}
		doc, err := Encode(tr.Entries(), false)
		if err != nil {
			t.Fatal(err)
		}
		if tr2, err := Parse(doc); err != nil || tr2.Len() != 1 || tr2.Entries()[0].Slug != s {
			t.Fatalf("slug %q did not round-trip: %v", s, err)
		}
	})
}

// FuzzComparePaths checks that comparePaths orders like comparing the
// elements of the paths.
func FuzzComparePaths(f *testing.F) {
	f.Add("a/b", "a-b")
	f.Add("a", "a/b")
	f.Add("a.b/c", "a/c")
	f.Fuzz(func(t *testing.T, a, b string) {
		if checkSlug(a) != "" || checkSlug(b) != "" {
			return
		}
		want := 0
		as, bs := strings.Split(a, "/"), strings.Split(b, "/")
		for i := 0; i < len(as) && i < len(bs) && want == 0; i++ {
			want = strings.Compare(as[i], bs[i])
		}
		if want == 0 {
			want = len(as) - len(bs)
			want = max(min(want, 1), -1)
		}
		if got := comparePaths(a, b); got != want {
			t.Fatalf("comparePaths(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}
