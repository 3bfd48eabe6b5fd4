package collection_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// TestAssemble checks that Assemble joins chunks in index order whatever
// order they come in, and names what is wrong with a page that cannot be
// assembled.
func TestAssemble(t *testing.T) {
	chunk := func(slug string, i int, text string) collection.Chunk {
		return collection.Chunk{ID: fmt.Sprintf("%s#%d", slug, i), Slug: slug, Index: i, Text: text}
	}
	// many is a page of 40 chunks (more than Assemble keeps on its
	// stack), in reverse order.
	var many []collection.Chunk
	var manyText []string
	for i := 39; i >= 0; i-- {
		many = append(many, chunk("p", i, fmt.Sprintf("chunk %d", i)))
	}
	for i := range 40 {
		manyText = append(manyText, fmt.Sprintf("chunk %d", i))
	}
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	for _, tc := range []struct {
		name    string
		entry   tree.Entry
		chunks  []collection.Chunk
		want    string
		wantErr string // "": no error
	}{
		{"in order", tree.Entry{Slug: "p", Size: -1}, []collection.Chunk{chunk("p", 0, "ab"), chunk("p", 1, "cd")}, "ab\ncd", ""},
		{"shuffled, size, count and hash", tree.Entry{Slug: "p", Size: 8, Chunks: 3, Hash: hash("ab\ncd\nef")},
			[]collection.Chunk{chunk("p", 2, "ef"), chunk("p", 0, "ab"), chunk("p", 1, "cd")}, "ab\ncd\nef", ""},
		{"more chunks than the stack holds", tree.Entry{Slug: "p", Size: -1}, many, strings.Join(manyText, "\n"), ""},
		{"empty page", tree.Entry{Slug: "p", Size: 0}, nil, "", ""},
		{"no chunks", tree.Entry{Slug: "p", Size: -1}, nil, "", `page "p" has no chunks`},
		{"no index", tree.Entry{Slug: "p", Size: -1}, []collection.Chunk{chunk("p", collection.NoIndex, "x")}, "", `chunk "p#-1" has no valid chunk index`},
		{"another page's chunk", tree.Entry{Slug: "p", Size: -1}, []collection.Chunk{chunk("q", 0, "x")}, "", `store returned chunk "q#0" of page "q"`},
		{"duplicate", tree.Entry{Slug: "p", Size: -1}, []collection.Chunk{chunk("p", 1, "b"), chunk("p", 0, "a"), {ID: "dup", Slug: "p", Index: 1, Text: "c"}},
			"", `duplicate chunk index 1 (chunks "p#1" and "dup")`},
		{"gap", tree.Entry{Slug: "p", Size: -1}, []collection.Chunk{chunk("p", 0, "a"), chunk("p", 3, "d")}, "", "missing chunk index 1-2"},
		{"missing first", tree.Entry{Slug: "p", Size: -1}, []collection.Chunk{chunk("p", 1, "b")}, "", "missing chunk index 0"},
		{"count", tree.Entry{Slug: "p", Size: -1, Chunks: 3}, []collection.Chunk{chunk("p", 0, "a")}, "", "tree records 3 chunks, store has 1"},
		{"size", tree.Entry{Slug: "p", Size: 5}, []collection.Chunk{chunk("p", 0, "a")}, "", "tree records 5 bytes, chunks hold 1"},
		{"hash", tree.Entry{Slug: "p", Size: -1, Hash: hash("b")}, []collection.Chunk{chunk("p", 0, "a")}, "",
			"content hash " + hash("a") + " does not match the tree's " + hash("b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order := fmt.Sprint(tc.chunks)
			got, err := collection.Assemble(&tc.entry, tc.chunks, "\n")
			if fmt.Sprint(tc.chunks) != order {
				t.Errorf("Assemble reordered its argument")
			}
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, collection.ErrCorruptPage) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrCorruptPage with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Assemble = %q, %v, want %q", got, err, tc.want)
			}
		})
	}
}
