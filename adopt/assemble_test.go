package adopt

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

func TestAssembleCases(t *testing.T) {
	trimmed := Rules{Trimmed: true, Overlap: true}
	exact := Rules{Sep: ""}
	tests := []struct {
		name   string
		pieces []Piece
		rules  Rules
		want   string
		exact  Exactness
	}{
		{
			name:   "chromafs layout, shuffled",
			pieces: []Piece{pc("b", "world\n", -1, -1, 1), pc("a", "hello ", -1, -1, 0)},
			rules:  exact,
			want:   "hello world\n",
			exact:  Exact,
		},
		{
			name:   "overlap found by text",
			pieces: []Piece{pc("a", "one two three", -1, 0, -1), pc("b", "three four", -1, 0, -1)},
			rules:  trimmed,
			want:   "one two three four\n",
			exact:  EdgesAssumed,
		},
		{
			name: "overlap with a line break, checked against line numbers",
			pieces: []Piece{pc("a", "# Title\n\nfirst para\nsecond", -1, 0, -1),
				pc("b", "first para\nsecond line", -1, 2, -1)},
			rules: trimmed,
			want:  "# Title\n\nfirst para\nsecond line\n",
			exact: EdgesAssumed,
		},
		{
			name:   "no overlap: line breaks from the line numbers, inexact",
			pieces: []Piece{pc("a", "para one", -1, 0, -1), pc("b", "para two", -1, 2, -1)},
			rules:  trimmed,
			want:   "para one\n\npara two\n",
			exact:  Inexact,
		},
		{
			name:   "an overlap the line numbers rule out",
			pieces: []Piece{pc("a", "x y\nab", -1, 0, -1), pc("b", "ab cd", -1, 3, -1)},
			rules:  trimmed,
			want:   "x y\nab\n\nab cd\n",
			exact:  Inexact,
		},
		{
			name:   "two overlaps fit: the longer, inexact",
			pieces: []Piece{pc("a", "go ab ab", -1, 0, -1), pc("b", "ab ab cd", -1, 0, -1)},
			rules:  trimmed,
			want:   "go ab ab cd\n",
			exact:  Inexact,
		},
		{
			name:   "a shared word part is no overlap",
			pieces: []Piece{pc("a", "foo the", -1, 0, -1), pc("b", "then bar", -1, 0, -1)},
			rules:  trimmed,
			want:   "foo the then bar\n",
			exact:  Inexact,
		},
		{
			name:   "CRLF page gets CRLF line breaks",
			pieces: []Piece{pc("a", "one\r\ntwo", -1, 0, -1), pc("b", "three\r\nfour", -1, 3, -1)},
			rules:  trimmed,
			want:   "one\r\ntwo\r\n\r\nthree\r\nfour\r\n",
			exact:  Inexact,
		},
		{
			name: "UTF-16 offsets across a character outside the BMP",
			pieces: []Piece{
				{ID: "a", Text: "😀 héllo wörld", Start: 0, End: 14, Line: -1, Order: -1},
				{ID: "b", Text: "wörld 日本", Start: 9, End: 17, Line: -1, Order: -1, Seq: 1},
			},
			rules: Rules{Unit: AutoUnit, Trimmed: true, Overlap: true},
			want:  "😀 héllo wörld 日本\n",
			exact: EdgesAssumed,
		},
		{
			name: "code point offsets across a character outside the BMP",
			pieces: []Piece{
				{ID: "a", Text: "😀 héllo wörld", Start: 0, End: 13, Line: -1, Order: -1},
				{ID: "b", Text: "wörld 日本", Start: 8, End: 16, Line: -1, Order: -1, Seq: 1},
			},
			rules: Rules{Unit: AutoUnit, Trimmed: true, Overlap: true},
			want:  "😀 héllo wörld 日本\n",
			exact: EdgesAssumed,
		},
		{
			name: "offset gap is guessed",
			pieces: []Piece{
				{ID: "a", Text: "alpha", Start: 0, End: 5, Line: -1, Order: -1},
				{ID: "b", Text: "beta", Start: 7, End: 11, Line: -1, Order: -1, Seq: 1},
			},
			rules: Rules{Unit: CodePoints, Trimmed: true, Overlap: true},
			want:  "alpha\n\nbeta\n",
			exact: Inexact,
		},
		{
			name: "a chunk that contradicts its offset",
			pieces: []Piece{
				{ID: "a", Text: "alpha beta", Start: 0, End: 10, Line: -1, Order: -1},
				{ID: "b", Text: "gamma delta", Start: 6, End: 17, Line: -1, Order: -1, Seq: 1},
			},
			rules: Rules{Unit: CodePoints, Trimmed: true, Overlap: true},
			want:  "alpha beta\ngamma delta\n",
			exact: Inexact,
		},
		{
			name: "offsets on some chunks only: ordered by line",
			pieces: []Piece{
				{ID: "b", Text: "two", Start: -1, End: -1, Line: 1, Order: -1, Seq: 1},
				{ID: "a", Text: "one", Start: 0, End: 3, Line: 0, Order: -1},
			},
			rules: Rules{Unit: CodePoints, Trimmed: true, Overlap: true},
			want:  "one\ntwo\n",
			exact: Inexact,
		},
		{
			// Stored twice, or a repeat that LlamaIndex.TS placed at the
			// first copy's offset (indexOf from 0): the chunks do not say.
			name: "two chunks of the same text at the same offset",
			pieces: []Piece{
				{ID: "a", Text: "abc def", Start: 0, End: 7, Line: -1, Order: -1},
				{ID: "a2", Text: "abc def", Start: 0, End: 7, Line: -1, Order: -1, Seq: 1},
				{ID: "b", Text: "def ghi", Start: 4, End: 11, Line: -1, Order: -1, Seq: 2},
			},
			rules: Rules{Unit: CodePoints, Trimmed: true, Overlap: true},
			want:  "abc def\nabc def ghi\n",
			exact: Inexact,
		},
		{
			name:   "two chunks of the same text on the same line",
			pieces: []Piece{pc("a", "abab", -1, 0, -1), {ID: "b", Text: "abab", Start: -1, End: -1, Line: 0, Order: -1, Seq: 1}},
			rules:  trimmed,
			want:   "abab abab\n",
			exact:  Inexact,
		},
		{
			name: "an offset before that of a chunk stored earlier",
			pieces: []Piece{
				{ID: "a", Text: "ab cd ab", Start: 0, End: 8, Line: -1, Order: -1},
				{ID: "b", Text: "ab ef", Start: 0, End: 5, Line: -1, Order: -1, Seq: 1},
			},
			rules: Rules{Unit: CodePoints, Trimmed: true, Overlap: true},
			want:  "ab cd ab ef\n",
			exact: Inexact,
		},
		{
			name:   "a trimming writer's empty chunk",
			pieces: []Piece{{ID: "a", Text: "", Start: 0, End: 0, Line: -1, Order: -1}},
			rules:  Rules{Unit: AutoUnit, Trimmed: true, Overlap: true},
			want:   "",
			exact:  EdgesAssumed,
		},
		{
			name:   "text without spaces, cut without overlap",
			pieces: []Piece{pc("a", "这是第一句。这是", -1, 0, -1), {ID: "b", Text: "第二句。", Start: -1, End: -1, Line: 0, Order: -1, Seq: 1}},
			rules:  trimmed,
			want:   "这是第一句。这是第二句。\n",
			exact:  Inexact,
		},
		{
			name: "a chunk inside the one before it adds nothing",
			pieces: []Piece{
				{ID: "a", Text: "abc def ghi", Start: 0, End: 11, Line: -1, Order: -1},
				{ID: "b", Text: "def", Start: 4, End: 7, Line: -1, Order: -1, Seq: 1},
			},
			rules: Rules{Unit: CodePoints},
			want:  "abc def ghi",
			exact: Exact,
		},
		{
			name: "first chunk after blank lines",
			pieces: []Piece{
				{ID: "a", Text: "text", Start: -1, End: -1, Line: 2, Order: -1},
			},
			rules: trimmed,
			want:  "\n\ntext\n",
			exact: EdgesAssumed,
		},
		{
			name:   "Chroma docs layout: non-overlapping, untrimmed, by order",
			pieces: []Piece{pc("b", "b\n", -1, 1, 1), pc("a", "a\n", -1, 0, 0)},
			rules:  Rules{},
			want:   "a\nb\n",
			exact:  Exact,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg, err := Assemble(tt.pieces, tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			if string(pg.Content) != tt.want {
				t.Errorf("content %q, want %q", pg.Content, tt.want)
			}
			if pg.Exactness != tt.exact {
				t.Errorf("exactness %v (%s), want %v", pg.Exactness, pg.Why, tt.exact)
			}
			if (pg.Why == "") != (pg.Exactness == Exact) {
				t.Errorf("Why %q for a page that is %v", pg.Why, pg.Exactness)
			}
			if got := string(rebuild(tt.pieces, pg)); got != string(pg.Content) {
				t.Errorf("parts rebuild %q, content is %q", got, pg.Content)
			}
		})
	}
	if _, err := Assemble(nil, Rules{}); err != ErrNoChunks {
		t.Errorf("no pieces: %v, want ErrNoChunks", err)
	}
}

// pc is a piece with a line and an order but no offsets; Seq follows
// the order, or 0.
func pc(id, text string, _ int, line, order int) Piece {
	return Piece{ID: id, Text: text, Start: -1, End: -1, Line: line, Order: order, Seq: max(order, 0)}
}

// rebuild reads a page the way a reader of an adopted collection does:
// the recipe, encoded for the tree and parsed again, and the chunks, in
// collection.AssembleRecipe, which checks the size and hash recorded.
func rebuild(pieces []Piece, pg *Page) []byte {
	r, err := collection.ParseRecipe(pg.Recipe().Encode())
	if err != nil {
		return []byte("ParseRecipe: " + err.Error())
	}
	chunks := map[string]string{}
	for _, p := range pieces {
		chunks[p.ID] = p.Text
	}
	sum := sha256.Sum256(pg.Content)
	e := &tree.Entry{Slug: "p", Size: int64(len(pg.Content)), Hash: "sha256:" + hex.EncodeToString(sum[:])}
	b, err := collection.AssembleRecipe(e, r, chunks)
	if err != nil {
		return []byte("AssembleRecipe: " + err.Error())
	}
	return b
}

// TestAssembleSplitters splits a corpus with ports of LangChain's
// splitters and checks the promise adopt makes: no page marked Exact
// differs from its source, no page marked EdgesAssumed differs from it
// beyond whitespace at its two ends. It reports, per writer, how many
// pages come back byte-identical, and fails when that falls below what
// the overlap should give.
func TestAssembleSplitters(t *testing.T) {
	docs := corpus(t)
	writers := []struct {
		name  string
		rules Rules
		split func(string) []Piece
		// minIdentical is the least fraction of pages that must come back
		// byte-identical.
		minIdentical float64
	}{
		{"langchain.js 1000/200", Rules{Trimmed: true, Overlap: true}, func(s string) []Piece { return jsPieces(newJSSplitter(1000, 200), s) }, 0.78},
		{"langchain.js 1000/0", Rules{Trimmed: true, Overlap: true}, func(s string) []Piece { return jsPieces(newJSSplitter(1000, 0), s) }, 0.5},
		{"langchain.js 200/50", Rules{Trimmed: true, Overlap: true}, func(s string) []Piece { return jsPieces(newJSSplitter(200, 50), s) }, 0.6},
		{"langchain python 4000/200 start_index", Rules{Unit: CodePoints, Trimmed: true, Overlap: true}, func(s string) []Piece { return pyPieces(newPySplitter(4000, 200), s) }, 0.8},
		{"langchain python 300/60 start_index", Rules{Unit: CodePoints, Trimmed: true, Overlap: true}, func(s string) []Piece { return pyPieces(newPySplitter(300, 60), s) }, 0.7},
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			var identical, byExact [3]int
			why := map[string]int{}
			for name, src := range docs {
				pieces := w.split(src)
				if len(pieces) == 0 {
					continue // a page of whitespace: the writer stores nothing
				}
				pg, err := Assemble(pieces, w.rules)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := string(pg.Content)
				if got2 := string(rebuild(pieces, pg)); got2 != got {
					t.Fatalf("%s: parts rebuild a different page", name)
				}
				byExact[pg.Exactness]++
				if pg.Exactness == Inexact {
					why[reasonKind(pg.Why)]++
				}
				if got == src {
					identical[pg.Exactness]++
					continue
				}
				switch pg.Exactness {
				case Exact:
					t.Errorf("%s: marked exact but differs from its source at byte %d", name, diffAt(got, src))
				case EdgesAssumed:
					if strings.TrimSpace(got) != strings.TrimSpace(src) {
						t.Errorf("%s: marked edges-assumed but differs inside, at byte %d", name, diffAt(got, src))
					}
				}
			}
			total := byExact[0] + byExact[1] + byExact[2]
			same := identical[0] + identical[1] + identical[2]
			t.Logf("%d pages: %d byte-identical (%.0f%%); exact %d, edges-assumed %d (%d identical), inexact %d (%d identical)",
				total, same, 100*float64(same)/float64(total), byExact[0], byExact[1], identical[1], byExact[2], identical[2])
			t.Logf("inexact because: %v", why)
			if f := float64(same) / float64(total); f < w.minIdentical {
				t.Errorf("%.2f of pages byte-identical, want at least %.2f", f, w.minIdentical)
			}
		})
	}
}

func diffAt(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// corpus is the example docs site plus generated pages with what trips
// reassembly: indented code, blank lines holding spaces, CRLF, long
// lines, text outside the BMP, repeated paragraphs, no final newline.
func corpus(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	root := filepath.Join("..", "examples", "docs")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		docs[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"the", "token", "rotates", "every", "hour", "clé", "données", "日本語", "テキスト", "😀", "naïve", "API", "`id`", "request,", "response.", "Über", "🚀", "x", "configuration"}
	para := func() string {
		var b strings.Builder
		for i := range 5 + rng.IntN(60) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for i := range generatedPages {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", i)
		for range 1 + rng.IntN(30) {
			switch rng.IntN(8) {
			case 7:
				if rng.IntN(5) == 0 {
					b.WriteString("  \n") // a blank line holding spaces
				} else {
					b.WriteString(para() + "\n\n")
				}
			case 0:
				b.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hi\")\n    indented := 1\n}\n```\n\n")
			case 1:
				b.WriteString("Some text:\n\n    indented block\n    second line\n\n")
			case 2:
				for j := range 20 { // a long line
					if j > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(para())
				}
				b.WriteString("\n\n")
			case 3:
				b.WriteString("- item one\n- item two\n  - nested\n\n")
			case 4:
				b.WriteString("| a | b |\n|---|---|\n| 1 | 2 |\n\n")
			default:
				b.WriteString(para() + "\n\n")
			}
		}
		s := strings.TrimRight(b.String(), "\n") + "\n"
		switch i % 10 {
		case 0:
			s = strings.ReplaceAll(s, "\n", "\r\n")
		case 1:
			s = strings.TrimRight(s, "\n")
		case 2:
			s += s // a page that repeats itself
		}
		docs[fmt.Sprintf("gen/%03d.md", i)] = s
	}
	return docs
}

// reasonKind is a Why without its ids and numbers.
func reasonKind(why string) string {
	var b strings.Builder
	for _, f := range strings.Fields(why) {
		if strings.ContainsAny(f, "0123456789") {
			f = "N"
		}
		b.WriteString(f + " ")
	}
	return b.String()
}
