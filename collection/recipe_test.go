package collection_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
