package ingest

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunk(t *testing.T) {
	tests := []struct {
		name    string
		content string
		max     int
		want    []string
		split   bool
	}{
		{"empty", "", 10, []string{""}, false},
		{"one short line", "hello\n", 10, []string{"hello\n"}, false},
		{"no final newline", "a\nb", 10, []string{"a\nb"}, false},
		{"exact fit", "abcd\nefgh\n", 10, []string{"abcd\nefgh\n"}, false},
		{"packs whole lines", "aa\nbb\ncc\ndd\n", 6, []string{"aa\nbb\n", "cc\ndd\n"}, false},
		{"one line per chunk", "aa\nbb\ncc\n", 4, []string{"aa\n", "bb\n", "cc\n"}, false},
		{"line of exactly max", "abc\nd\n", 4, []string{"abc\n", "d\n"}, false},
		{"long line split", "abcdefghij\n", 4, []string{"abcd", "efgh", "ij\n"}, true},
		{"tail joins next lines", "abcdefg\nx\ny\nzzz\n", 4, []string{"abcd", "efg\n", "x\ny\n", "zzz\n"}, true},
		{"long line after short", "x\nabcdefgh\n", 4, []string{"x\n", "abcd", "efgh", "\n"}, true},
		{"newline only lines", "\n\n\n\n\n", 2, []string{"\n\n", "\n\n", "\n"}, false},
		{"crlf", "a\r\nb\r\n", 3, []string{"a\r\n", "b\r\n"}, false},
		{"unicode not cut", "ééééé\n", 3, []string{"é", "é", "é", "é", "é\n"}, true},
		{"emoji not cut", "🔑🔑x", 5, []string{"🔑", "🔑x"}, true},
		{"rune longer than max", "🔑🔑", 2, []string{"🔑", "🔑"}, true},
		{"max below one", "ab", 0, []string{"a", "b"}, true},
		{"cjk", "日本語のテキスト\n", 7, []string{"日本", "語の", "テキ", "スト\n"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, split := Chunk([]byte(tt.content), tt.max)
			if !slices.Equal(got, tt.want) || split != tt.split {
				t.Fatalf("Chunk(%q, %d) = %q, %v; want %q, %v", tt.content, tt.max, got, split, tt.want, tt.split)
			}
		})
	}
}

func TestChunkDefaultSize(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	content := strings.Repeat(line, 25)    // 2500 bytes
	got, split := Chunk([]byte(content), DefaultMaxChunk)
	if split || len(got) != 3 || len(got[0]) != 1000 || len(got[1]) != 1000 || len(got[2]) != 500 {
		t.Fatalf("got %d chunks (split %v) of sizes %v", len(got), split, lens(got))
	}
}

func lens(ss []string) []int {
	var n []int
	for _, s := range ss {
		n = append(n, len(s))
	}
	return n
}

// checkChunks verifies the properties that the package documentation
// promises for Chunk(content, limit).
func checkChunks(t *testing.T, content []byte, limit int) {
	t.Helper()
	chunks, split := Chunk(content, limit)
	if got := strings.Join(chunks, ""); got != string(content) {
		t.Fatalf("Chunk(%q, %d) = %q does not join back", content, limit, chunks)
	}
	if len(content) == 0 {
		if len(chunks) != 1 || chunks[0] != "" || split {
			t.Fatalf("empty content: %q, %v", chunks, split)
		}
		return
	}
	limit = max(limit, 1)
	longLine := false
	for line := range bytes.Lines(content) {
		if len(line) > limit {
			longLine = true
		}
	}
	if split != longLine {
		t.Fatalf("Chunk(%q, %d): splitLines = %v, but a line longer than limit: %v", content, limit, split, longLine)
	}
	valid := utf8.Valid(content)
	for i, c := range chunks {
		if c == "" {
			t.Fatalf("Chunk(%q, %d): chunk %d empty", content, limit, i)
		}
		if len(c) > limit {
			if r, size := utf8.DecodeRuneInString(c); r == utf8.RuneError || size != len(c) {
				t.Fatalf("Chunk(%q, %d): chunk %d %q longer than limit", content, limit, i, c)
			}
		}
		if valid && !utf8.ValidString(c) {
			t.Fatalf("Chunk(%q, %d): chunk %d %q cuts a rune", content, limit, i, c)
		}
		if !split && i < len(chunks)-1 && !strings.HasSuffix(c, "\n") {
			t.Fatalf("Chunk(%q, %d): chunk %d %q does not end a line", content, limit, i, c)
		}
		// Two neighbours could have been one chunk only if a line was cut.
		if !split && i > 0 && len(chunks[i-1])+len(firstLine(c)) <= limit {
			t.Fatalf("Chunk(%q, %d): chunk %d could take the first line of chunk %d", content, limit, i-1, i)
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}

func FuzzChunk(f *testing.F) {
	f.Add([]byte(""), 1024)
	f.Add([]byte("hello\nworld\n"), 6)
	f.Add([]byte("a very long line without newline"), 5)
	f.Add([]byte("ünïcödé\n日本語\n🔑🔑🔑"), 4)
	f.Add([]byte("\xff\xfe\x80 invalid\n"), 2)
	f.Add([]byte("\n\n\n"), 1)
	f.Fuzz(func(t *testing.T, content []byte, limit int) {
		checkChunks(t, content, limit%300)
	})
}
