package collection_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/tree"
)

func TestRecipe(t *testing.T) {
	r := &collection.Recipe{
		Parts:     []collection.Part{{ID: "b-1", Skip: 0, Len: 8}, {ID: "a\"2", Skip: 4, Len: 7, Gap: "\n\n"}},
		Tail:      "\n",
		Exactness: "inexact",
		Why:       "whitespace between chunks",
	}
	text := r.Encode()
	if want := `{"p":[["b-1",0,8],["a\"2",4,7,"\n\n"]],"t":"\n","x":"inexact","w":"whitespace between chunks"}`; text != want {
		t.Errorf("Encode = %s, want %s", text, want)
	}
	got, err := collection.ParseRecipe(text)
	if err != nil || got.Encode() != text || strings.Join(got.IDs(), ",") != `b-1,a"2` {
		t.Fatalf("ParseRecipe: %+v, %v", got, err)
	}
	chunks := map[string]string{`a"2`: "one two", "b-1": "zero one", "other": "x"}
	want := "zero one\n\ntwo\n"
	sum := sha256.Sum256([]byte(want))
	e := &tree.Entry{Slug: "p.md", Size: int64(len(want)), Hash: "sha256:" + hex.EncodeToString(sum[:])}
	data, err := collection.AssembleRecipe(e, got, chunks)
	if err != nil || string(data) != want {
		t.Fatalf("AssembleRecipe = %q, %v; want %q", data, err, want)
	}
	// Offset: after the first part's 8 bytes and the second's gap, less
	// the 4 bytes the second repeats.
	if o0, o1 := got.Offset(0), got.Offset(1); o0 != 0 || o1 != 6 {
		t.Errorf("Offset(0), Offset(1) = %d, %d", o0, o1)
	}

	for _, tc := range []struct {
		name, parts string
		entry       tree.Entry
		chunks      map[string]string
		want        string
	}{
		{name: "not JSON", parts: `{"p":`, want: "bad parts"},
		{name: "no parts", parts: `{"p":[]}`, want: "no parts"},
		{name: "empty id", parts: `{"p":[["",0,1]]}`, want: "without an id"},
		{name: "negative skip", parts: `{"p":[["a",-1,1]]}`, want: "non-negative"},
		{name: "no length", parts: `{"p":[["a",0]]}`, want: "want 3 or 4"},
		{name: "missing chunk", parts: `{"p":[["a",0,1],["b",1,2]]}`, entry: tree.Entry{Slug: "p", Size: -1},
			chunks: map[string]string{"a": "x"}, want: `chunk "b" is gone`},
		{name: "changed chunk", parts: `{"p":[["a",5,9]]}`, entry: tree.Entry{Slug: "p", Size: -1},
			chunks: map[string]string{"a": "x"}, want: "not the 9 it held"},
		{name: "size", parts: `{"p":[["a",0,1]]}`, entry: tree.Entry{Slug: "p", Size: 9},
			chunks: map[string]string{"a": "x"}, want: "tree records 9 bytes"},
		{name: "hash", parts: `{"p":[["a",0,1]]}`, entry: tree.Entry{Slug: "p", Size: 1, Hash: "sha256:00"},
			chunks: map[string]string{"a": "x"}, want: "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := collection.ParseRecipe(tc.parts)
			if err == nil {
				_, err = collection.AssembleRecipe(&tc.entry, r, tc.chunks)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, collection.ErrCorruptPage) || !errors.Is(err, fscap.ErrContent) {
				t.Errorf("err %v, want one wrapping ErrCorruptPage that says %q", err, tc.want)
			}
		})
	}
}

// BenchmarkParseRecipe decodes the recipe of a page of 12 chunks, as an
// adopted page's tree entry holds it.
func BenchmarkParseRecipe(b *testing.B) {
	r := &collection.Recipe{Tail: "\n", Exactness: "edges-assumed", Why: "the last line break"}
	for i := range 12 {
		p := collection.Part{ID: fmt.Sprintf("3f2a9c1e-8b7d-4e6f-a5c4-%012d", i), Skip: 40 * min(i, 1), Len: 1000}
		if i%3 == 1 {
			p.Gap = "\n\n"
		}
		r.Parts = append(r.Parts, p)
	}
	text := r.Encode()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := collection.ParseRecipe(text); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseRecipeForms: the streaming decoder reads what Encode writes,
// escapes and all, skips keys it does not know, and refuses what is not
// a recipe with an error that wraps ErrCorruptPage and says why.
func TestParseRecipeForms(t *testing.T) {
	want := &collection.Recipe{
		Parts: []collection.Part{
			{ID: `a"b\c`, Len: 3},
			{ID: "é-\u2028", Skip: 1, Len: 2, Gap: "\n\t</x>"},
		},
		Tail: "\n", Exactness: "inexact", Why: `a "why"`,
	}
	got, err := collection.ParseRecipe(want.Encode())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip of %s: %+v, %v", want.Encode(), got, err)
	}
	if got, err := collection.ParseRecipe(` { "z": {"k": [1, {"q": null}]}, "p" : [ ["a", 0, 1] ], "t": null } `); err != nil || len(got.Parts) != 1 || got.Tail != "" {
		t.Errorf("unknown keys, spaces and a null: %+v, %v", got, err)
	}
	var p collection.Part
	if err := json.Unmarshal([]byte(`["a",1,2,"g"]`), &p); err != nil || p != (collection.Part{ID: "a", Skip: 1, Len: 2, Gap: "g"}) {
		t.Errorf("Part.UnmarshalJSON: %+v, %v", p, err)
	}
	for _, tc := range []struct{ text, want string }{
		{``, "bad parts"},
		{`[]`, "want an object"},
		{`{"p":null}`, "no parts"},
		{`{"p":{}}`, "want an array"},
		{`{"p":[{"id":"a"}]}`, "want an array [id, skip, len, gap]"},
		{`{"p":[[1,0,1]]}`, "part id: a number, want a string"},
		{`{"p":[["a",1.5,2]]}`, "skip 1.5: want a non-negative integer"},
		{`{"p":[["a","0",2]]}`, "want a non-negative integer"},
		{`{"p":[["a",2,1]]}`, "want an integer of at least the skip, 2"},
		{`{"p":[["a",0,1,"g","h"]]}`, "more than 4 fields"},
		{`{"p":[["a",0,1,7]]}`, "gap: a number, want a string"},
		{`{"p":[["a",0,1]],"t":1}`, `"t": a number, want a string`},
		{`{"p":[["a",0,1]]} {}`, "followed by more JSON"},
		{`{"p":[["a",0,1]]`, "bad parts"},
		{`{"p":[["a",0,1]],"p":[["b",0,1]]}`, "bad parts"},
	} {
		_, err := collection.ParseRecipe(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, collection.ErrCorruptPage) {
			t.Errorf("ParseRecipe(%q): %v, want an ErrCorruptPage that says %q", tc.text, err, tc.want)
		}
	}
}
