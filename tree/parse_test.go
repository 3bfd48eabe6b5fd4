package tree_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/tree"
)

func mustParse(t *testing.T, doc string) *tree.Tree {
	t.Helper()
	tr, err := tree.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse(%q): %v", doc, err)
	}
	return tr
}

func slugs(tr *tree.Tree) []string {
	var s []string
	for _, e := range tr.Entries() {
		s = append(s, e.Slug)
	}
	return s
}

func problems(tr *tree.Tree) []string {
	var s []string
	for _, p := range tr.Problems() {
		s = append(s, p.String())
	}
	return s
}

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestUnsafeSlugs(t *testing.T) {
	for _, tc := range []struct {
		key    string // JSON text of the key, without quotes
		reason string // "" when valid
	}{
		{``, "empty slug"},
		{`/x`, "unsafe slug: absolute path"},
		{`/`, "unsafe slug: absolute path"},
		{`.`, "unsafe slug: . element"},
		{`..`, "unsafe slug: .. element"},
		{`../x`, "unsafe slug: .. element"},
		{`a/../b`, "unsafe slug: .. element"},
		{`a/..`, "unsafe slug: .. element"},
		{`./a`, "unsafe slug: . element"},
		{`a/./b`, "unsafe slug: . element"},
		{`a//b`, "unsafe slug: empty element"},
		{`a/`, "unsafe slug: trailing slash"},
		{`a\\b`, "unsafe slug: backslash"},
		{`\\x`, "unsafe slug: backslash"},
		{`a\u0000b`, "unsafe slug: control character"},
		{`a\nb`, "unsafe slug: control character"},
		{`a\tb`, "unsafe slug: control character"},
		{`a\u007fb`, "unsafe slug: control character"},
		{`a\u0085b`, "unsafe slug: control character"},
		{"a\xffb", "unsafe slug: invalid UTF-8"},
		{"a\xc3", "unsafe slug: invalid UTF-8"},
		{`a\ud800b`, "unsafe slug: invalid UTF-8"},
		{`\udc00`, "unsafe slug: invalid UTF-8"},
		{`a`, ""},
		{`a b/c d.md`, ""},
		{`.hidden/..x/x..`, ""},
		{`...`, ""},
		{`Makefile`, ""},
		{`ü/ñ.md`, ""},
		{`\u00fc/\ud83d\ude00.md`, ""},
		{`a\/b`, ""}, // an escaped solidus is a plain slash
	} {
		doc := `{"` + tc.key + `": {"isPublic": true}, "ok": {"isPublic": true}}`
		tr := mustParse(t, doc)
		got := tr.Problems()
		if tc.reason == "" {
			if len(got) != 0 || tr.Len() != 2 {
				t.Errorf("%q: problems %v, entries %q; want valid", tc.key, got, slugs(tr))
			}
			continue
		}
		if len(got) != 1 || got[0].Reason != tc.reason {
			t.Errorf("%q: problems %v, want reason %q", tc.key, got, tc.reason)
		}
		if s := slugs(tr); !slices.Equal(s, []string{"ok"}) {
			t.Errorf("%q: entries %q, want only ok", tc.key, s)
		}
	}
}

func TestFieldTypes(t *testing.T) {
	for _, tc := range []struct {
		entry  string
		reason string // "" when valid
	}{
		{`{"isPublic": "yes"}`, `isPublic: want a boolean, got string "yes"`},
		{`{"isPublic": 1}`, `isPublic: want a boolean, got number 1`},
		{`{"isPublic": {}}`, `isPublic: want a boolean, got object`},
		{`{"groups": "admin"}`, `groups: want an array of strings, got string "admin"`},
		{`{"groups": ["admin", 7]}`, `groups: want an array of strings, got array`},
		{`{"groups": [null]}`, `groups: want an array of strings, got array`},
		{`{"groups": {}}`, `groups: want an array of strings, got object`},
		{`{"size": -5}`, `size: want a non-negative integer, got number -5`},
		{`{"size": 1.5}`, `size: want a non-negative integer, got number 1.5`},
		{`{"size": 1e3}`, `size: want a non-negative integer, got number 1e3`},
		{`{"size": "12"}`, `size: want a non-negative integer, got string "12"`},
		{`{"size": 99999999999999999999}`, `size: want a non-negative integer, got number 99999999999999999999`},
		{`{"chunks": true}`, `chunks: want a non-negative integer, got boolean true`},
		{`{"chunks": -1}`, `chunks: want a non-negative integer, got number -1`},
		{`{"modTime": "yesterday"}`, `modTime: want an RFC 3339 time, got string "yesterday"`},
		{`{"modTime": "2023-02-30T00:00:00Z"}`, `modTime: want an RFC 3339 time, got string "2023-02-30T00:00:00Z"`},
		{`{"modTime": "2023-01-01"}`, `modTime: want an RFC 3339 time, got string "2023-01-01"`},
		{`{"modTime": 1e300}`, `modTime: want Unix seconds in years 0 to 9999, got number 1e300`},
		{`{"modTime": true}`, `modTime: want an RFC 3339 time or Unix seconds, got boolean true`},
		{`{"hash": 5}`, `hash: want a string, got number 5`},
		{`{"contentType": []}`, `contentType: want a string, got array`},
		{`{"url": false}`, `url: want a string, got boolean false`},
		{`{"splitLines": "no"}`, `splitLines: want a boolean, got string "no"`},
		{`{"isPublic": true, "isPublic": false}`, `duplicate field "isPublic"`},
		{`{"groups": [], "groups": ["a"]}`, `duplicate field "groups"`},
		{`"public"`, `entry is a string, want an object`},
		{`null`, `entry is null, want an object`},
		{`[]`, `entry is an array, want an object`},
		{`true`, `entry is a boolean, want an object`},
		{`{"isPublic": "` + strings.Repeat("x", 100) + `"}`, `isPublic: want a boolean, got string`},
		// Valid.
		{`{}`, ""},
		{`{"isPublic": null, "groups": null, "size": null, "modTime": null, "hash": null, "contentType": null, "url": null, "chunks": null, "splitLines": null}`, ""},
		{`{"unknown": {"deep": [1, {"x": null}]}, "IsPublic": "ignored"}`, ""},
		{`{"modTime": ""}`, ""},
		{`{"size": 0, "chunks": 0}`, ""},
	} {
		tr := mustParse(t, `{"x": `+tc.entry+`, "ok": {}}`)
		got := tr.Problems()
		if tc.reason == "" {
			if len(got) != 0 || tr.Len() != 2 {
				t.Errorf("%s: problems %v; want none", tc.entry, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Slug != "x" || got[0].Reason != tc.reason {
			t.Errorf("%s: problems %v; want x: %s", tc.entry, got, tc.reason)
		}
		if s := slugs(tr); !slices.Equal(s, []string{"ok"}) {
			t.Errorf("%s: entries %q; want only ok", tc.entry, s)
		}
	}
}

func TestFields(t *testing.T) {
	tr := mustParse(t, `{
		"full.md": {"isPublic": true, "groups": ["a", "b"], "size": 1234, "modTime": "2024-05-06T07:08:09Z",
			"hash": "sha256:ab", "contentType": "text/markdown", "url": "s3://bucket/spec.json",
			"chunks": 3, "splitLines": true, "extra": 1},
		"missing.md": {"groups": ["g"]},
		"empty.md": {},
		"offset.md": {"isPublic": false, "modTime": "2024-05-06T09:08:09.5+02:00"},
		"unix.md": {"modTime": 1700000000},
		"unixfrac.md": {"modTime": 1700000000.25},
		"unixexp.md": {"modTime": 1.7e9},
		"neg.md": {"modTime": -1.5},
		"esc\u00e9.md": {"hash": "a\"b\\c\u0041"}
	}`)
	if p := tr.Problems(); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
	get := func(slug string) *tree.Entry {
		t.Helper()
		e, ok := tr.Entry(slug)
		if !ok {
			t.Fatalf("Entry(%q) missing", slug)
		}
		return e
	}
	e := get("full.md")
	want := tree.Entry{Slug: "full.md", IsPublic: true, HasIsPublic: true, Groups: []string{"a", "b"}, Size: 1234,
		ModTime: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), Hash: "sha256:ab", ContentType: "text/markdown",
		URL: "s3://bucket/spec.json", Chunks: 3, SplitLines: true}
	if !equalEntry(*e, want) {
		t.Errorf("full.md = %+v\nwant %+v", *e, want)
	}
	if e := get("missing.md"); e.IsPublic || e.HasIsPublic || e.Size != -1 || !e.ModTime.IsZero() || e.Chunks != 0 {
		t.Errorf("missing.md = %+v", *e)
	}
	if e := get("empty.md"); e.HasIsPublic || e.Groups != nil || e.Size != -1 {
		t.Errorf("empty.md = %+v", *e)
	}
	if e := get("offset.md"); !e.HasIsPublic || e.IsPublic {
		t.Errorf("offset.md = %+v", *e)
	}
	for slug, want := range map[string]time.Time{
		"full.md":     time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		"offset.md":   time.Date(2024, 5, 6, 7, 8, 9, 5e8, time.UTC),
		"unix.md":     time.Unix(1700000000, 0).UTC(),
		"unixfrac.md": time.Unix(1700000000, 25e7).UTC(),
		"unixexp.md":  time.Unix(1700000000, 0).UTC(),
		"neg.md":      time.Unix(-1, -5e8).UTC(),
	} {
		got := get(slug).ModTime
		// == checks the location and the absence of a monotonic reading.
		if got != want || got.Location() != time.UTC {
			t.Errorf("%s: modTime %v (%#v), want %v", slug, got, got, want)
		}
	}
	if e := get("escé.md"); e.Hash != `a"b\cA` {
		t.Errorf("escaped hash = %q", e.Hash)
	}
	if _, ok := tr.Entry("nope"); ok {
		t.Error("Entry(nope) found")
	}
}

// equalEntry compares entries; nil and empty groups are equal.
func equalEntry(a, b tree.Entry) bool {
	if len(a.Groups) == 0 {
		a.Groups = nil
	}
	if len(b.Groups) == 0 {
		b.Groups = nil
	}
	return reflect.DeepEqual(a, b)
}

func TestMissingIsPublic(t *testing.T) {
	tr := mustParse(t, `{"a.md": {"groups": ["team"]}, "b.md": {}}`)
	if len(tr.Problems()) != 0 {
		t.Fatal(tr.Problems())
	}
	for _, e := range tr.Entries() {
		if e.IsPublic || e.HasIsPublic {
			t.Errorf("%s: IsPublic %v HasIsPublic %v", e.Slug, e.IsPublic, e.HasIsPublic)
		}
	}
	if n := tr.View(nil).Files(); n != 0 {
		t.Errorf("public view has %d files, want 0", n)
	}
	if n := tr.View([]string{"team"}).Files(); n != 1 {
		t.Errorf("team view has %d files, want 1", n)
	}
}

// TestDuplicates: the last occurrence of a slug decides, as JSON.parse and
// Python's json keep the last, so that the writers' tools and chromafs
// agree on every page's access rule.
func TestDuplicates(t *testing.T) {
	tr := mustParse(t, `{"a": {"size": 1}, "b": {}, "a": {"isPublic": false}, "a": {"isPublic": true}}`)
	e, ok := tr.Entry("a")
	if !ok || !e.IsPublic || e.Size != -1 {
		t.Errorf("a = %+v, %v; want the last one", e, ok)
	}
	if got, want := problems(tr), []string{`"a": duplicate slug`, `"a": duplicate slug`}; !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	// The last occurrence decides even when it is invalid: the slug is
	// skipped (fail closed), not served by an earlier occurrence.
	tr = mustParse(t, `{"a": {"isPublic": true}, "a": {"isPublic": "yes"}, "c": {}}`)
	if got := slugs(tr); !slices.Equal(got, []string{"c"}) {
		t.Errorf("entries %q, want [c]", got)
	}
	if got, want := problems(tr), []string{`"a": isPublic: want a boolean, got string "yes"`, `"a": duplicate slug`}; !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	// A valid last occurrence wins over an earlier invalid one.
	tr = mustParse(t, `{"a": {"isPublic": "yes"}, "a": {"isPublic": true}}`)
	if got := slugs(tr); !slices.Equal(got, []string{"a"}) {
		t.Errorf("entries %q, want [a]", got)
	}
	// Escapes do not hide a duplicate.
	tr = mustParse(t, `{"ab": {}, "a\u0062": {"groups": ["g"]}}`)
	if e, _ := tr.Entry("ab"); tr.Len() != 1 || len(tr.Problems()) != 1 || len(e.Groups) != 1 {
		t.Errorf("escaped duplicate: entries %q problems %q", slugs(tr), problems(tr))
	}
	// Out of path order too, and through a compressed document.
	for _, doc := range []string{
		`{"z": {}, "a": {"isPublic": false}, "m": {}, "a": {"isPublic": true}}`,
		base64.StdEncoding.EncodeToString(gz(t, `{"z": {}, "a": {"isPublic": false}, "m": {}, "a": {"isPublic": true}}`)),
	} {
		tr = mustParse(t, doc)
		if e, ok := tr.Entry("a"); !ok || !e.IsPublic {
			t.Errorf("unsorted duplicate: a = %+v, %v; want the last one", e, ok)
		}
	}
}

// TestDuplicatesAgreeWithJSON: for every document with duplicate slugs,
// the entry served is the one encoding/json (like JSON.parse and Python's
// json) decodes.
func TestDuplicatesAgreeWithJSON(t *testing.T) {
	for _, doc := range []string{
		`{"a": {"isPublic": true}, "a": {"isPublic": false, "groups": ["x"]}}`,
		`{"a": {"isPublic": false, "groups": ["x"]}, "b": {}, "a": {"isPublic": true}}`,
		`{"b/c": {}, "a": {"groups": ["1"]}, "a": {"groups": ["2"]}, "a": {"groups": ["3"]}}`,
	} {
		var m map[string]struct {
			IsPublic bool     `json:"isPublic"`
			Groups   []string `json:"groups"`
		}
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		tr := mustParse(t, doc)
		e, ok := tr.Entry("a")
		if !ok || e.IsPublic != m["a"].IsPublic || !slices.Equal(e.Groups, m["a"].Groups) {
			t.Errorf("%s: a = %+v; encoding/json decodes %+v", doc, e, m["a"])
		}
	}
}

func TestClash(t *testing.T) {
	for _, doc := range []string{
		`{"a": {"isPublic": true}, "a/b": {"groups": ["x"]}, "c": {"isPublic": true}}`,
		`{"c": {"isPublic": true}, "a/b": {"groups": ["x"]}, "a": {"isPublic": true}}`,
	} {
		tr := mustParse(t, doc)
		if got, want := slugs(tr), []string{"a/b", "c"}; !slices.Equal(got, want) {
			t.Errorf("entries %q, want %q", got, want)
		}
		if got, want := problems(tr), []string{`"a": clash: both a file and a directory`}; !slices.Equal(got, want) {
			t.Errorf("problems %q, want %q", got, want)
		}
		// Decided on the unpruned tree: without group x, "a" is not a
		// file either.
		v := tr.View(nil)
		if _, ok := v.Lookup("a"); ok {
			t.Error(`public view has "a"`)
		}
		if n, ok := tr.View([]string{"x"}).Lookup("a"); !ok || !n.IsDir {
			t.Errorf(`view x: "a" = %+v, %v; want a directory`, n, ok)
		}
	}
	// Chains and siblings that sort between the file and its children.
	tr := mustParse(t, `{"a": {}, "a/b": {}, "a/b/c": {}, "a-b": {}, "a.md": {}, "a/b-c": {}}`)
	if got, want := slugs(tr), []string{"a/b/c", "a/b-c", "a-b", "a.md"}; !slices.Equal(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
	if got, want := problems(tr), []string{`"a": clash: both a file and a directory`, `"a/b": clash: both a file and a directory`}; !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
}

func TestMalformed(t *testing.T) {
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	zipped := gz(t, `{"a": {"isPublic": true}}`)
	deep := `{"a": {"x": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"empty", "", "empty document"},
		{"space", " \n\t", "empty document"},
		{"array", `[{"a": {}}]`, "json: top-level value is an array, want an object at offset 0"},
		{"string", `"a"`, "json: top-level value is a string, want an object"},
		{"number", `42`, "json: top-level value is a number, want an object"},
		{"null", `null`, "json: top-level value is null, want an object"},
		{"true", `true`, "json: top-level value is a boolean, want an object"},
		{"not json", `hello, world`, "base64: illegal base64 data at input byte 5"},
		{"bad base64", `!!!!`, "base64: illegal base64 data at input byte 0"},
		{"bad gzip", b64([]byte("not gzip at all")), "gzip: invalid header"},
		{"truncated gzip", b64(zipped[:len(zipped)-10]), "gzip: unexpected EOF"},
		{"corrupt gzip", b64(append(slices.Clone(zipped[:10]), bytes.Repeat([]byte{0xff}, 20)...)), "gzip: flate: corrupt input"},
		{"gzip array", b64(gz(t, `[1]`)), "json: top-level value is an array"},
		{"gzip empty", b64(gz(t, ``)), "json: unexpected end of input at offset 0"},
		{"truncated", `{"a": {"isPublic": tr`, "json: unexpected end of input at offset 21"},
		{"truncated object", `{"a": {"isPublic": true}`, "json: unexpected end of input"},
		{"truncated string", `{"a`, "json: unexpected end of input"},
		{"trailing data", `{"a": {}} x`, "json: invalid character 'x' after top-level value at offset 10"},
		{"two objects", `{}{}`, "after top-level value"},
		{"trailing NUL", "{}\x00", "invalid character '\\x00' after top-level value"},
		{"trailing comma", `{"a": {},}`, "looking for beginning of object key string"},
		{"missing colon", `{"a" {}}`, "after object key"},
		{"bare key", `{a: {}}`, "looking for beginning of object key string"},
		{"bad escape", `{"a\q": {}}`, "in string escape code"},
		{"bad unicode escape", `{"a\u12g4": {}}`, "in \\u hexadecimal character escape"},
		{"control in string", "{\"a\tb\": {}}", "in string literal"},
		{"bad literal", `{"a": {"isPublic": tru}}`, "in literal true"},
		{"bad number", `{"a": {"size": 01}}`, "after object key:value pair"},
		{"bad number 2", `{"a": {"size": -}}`, "in numeric literal"},
		{"bad number 3", `{"a": {"size": 1.}}`, "after decimal point"},
		{"bad number 4", `{"a": {"x": 1e}}`, "in exponent"},
		{"bad in unknown", `{"a": {"x": [1 2]}}`, "after array element"},
		{"bad in groups", `{"a": {"groups": ["x" "y"]}}`, "after array element"},
		{"bad after wrong type", `{"a": {"groups": [1, }}`, "looking for beginning of value"},
		{"too deep", deep, "exceeded max depth"},
	} {
		_, err := tree.Parse([]byte(tc.doc))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !errors.Is(err, tree.ErrMalformed) {
			t.Errorf("%s: %v does not wrap ErrMalformed", tc.name, err)
		}
		if !strings.HasPrefix(err.Error(), "tree: malformed tree document: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestEncodings(t *testing.T) {
	const doc = `{"guides/a.md": {"isPublic": true, "groups": []}, "b": {"isPublic": false, "groups": ["x"]}}`
	zipped := gz(t, doc)
	std := base64.StdEncoding.EncodeToString(zipped)
	var wrapped strings.Builder // as Python's base64.encodebytes writes it
	for s := std; s != ""; {
		n := min(len(s), 76)
		wrapped.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	for name, data := range map[string]string{
		"plain":        doc,
		"plain spaced": "\n\t " + doc + "\n\n",
		"bom":          "\xef\xbb\xbf" + doc,
		"std":          std,
		"std spaced":   "  " + std + "\r\n",
		"wrapped":      wrapped.String(),
		"raw std":      base64.RawStdEncoding.EncodeToString(zipped),
		"url":          base64.URLEncoding.EncodeToString(zipped),
		"raw url":      base64.RawURLEncoding.EncodeToString(zipped),
		"gzip":         string(zipped),
	} {
		tr, err := tree.Parse([]byte(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := slugs(tr); !slices.Equal(got, []string{"b", "guides/a.md"}) {
			t.Errorf("%s: entries %q", name, got)
		}
	}
}

func TestParseDoesNotRetain(t *testing.T) {
	data := []byte(`{"abc": {"isPublic": true, "groups": ["g"], "hash": "h"}}`)
	tr, err := tree.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'z'
	}
	e := tr.Entries()[0]
	if e.Slug != "abc" || e.Groups[0] != "g" || e.Hash != "h" {
		t.Errorf("entry changed with the input: %+v", e)
	}
}

func TestEmptyTree(t *testing.T) {
	for _, doc := range []string{`{}`, ` { } `, "\n{\n}\n"} {
		tr := mustParse(t, doc)
		if tr.Len() != 0 {
			t.Errorf("%s: Len %d", doc, tr.Len())
		}
		for _, v := range []*tree.View{tr.All(), tr.View(nil), tr.View([]string{"a"})} {
			checkEmpty(t, v)
		}
	}
}

func checkEmpty(t *testing.T, v *tree.View) {
	t.Helper()
	root, ok := v.Lookup(".")
	if !ok || !root.IsDir || root.Path != "." || root.Name != "." || root.Entry != nil {
		t.Errorf("root = %+v, %v", root, ok)
	}
	kids, ok := v.ReadDir(".")
	if !ok || len(kids) != 0 {
		t.Errorf("ReadDir(.) = %v, %v; want empty", kids, ok)
	}
	if v.Files() != 0 {
		t.Errorf("Files = %d", v.Files())
	}
	n := 0
	v.Walk(func(*tree.Node) bool { n++; return true })
	if n != 1 {
		t.Errorf("Walk visited %d nodes, want 1", n)
	}
}

func TestProblemString(t *testing.T) {
	p := tree.Problem{Slug: "../x\n", Reason: "unsafe slug: .. element"}
	if got, want := p.String(), `"../x\n": unsafe slug: .. element`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestProblemsSorted(t *testing.T) {
	tr := mustParse(t, `{"z/..": {}, "b": 1, "a//": {}, "m": {"size": "x"}, "ok": {}}`)
	got := tr.Problems()
	if !slices.IsSortedFunc(got, func(a, b tree.Problem) int { return strings.Compare(a.Slug, b.Slug) }) || len(got) != 4 {
		t.Errorf("problems not sorted: %v", got)
	}
}
