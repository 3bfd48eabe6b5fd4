package shell

import (
	"strings"
	"testing"
)

// TestCountChars checks the word-at-a-time count of character starts
// against the byte-at-a-time one, on ASCII, multi-byte UTF-8, stray
// continuation bytes and every length around a word.
func TestCountChars(t *testing.T) {
	for _, s := range []string{
		"", "a", "hello, world\n", "é", "日本語のテキスト", "\x80\x80\xbf", "a\xc3", "\xff\xfe\xc0\x80",
		strings.Repeat("webhook é 日 \x80\n", 7), strings.Repeat("\xe2\x82\xac", 11),
	} {
		for end := 0; end <= len(s); end++ {
			p := []byte(s[:end])
			want := int64(0)
			for _, b := range p {
				if charStart(b) {
					want++
				}
			}
			if got := countChars(p); got != want {
				t.Errorf("countChars(%q) = %d, want %d", p, got, want)
			}
		}
	}
}
