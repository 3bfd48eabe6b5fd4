package webdavfs

import (
	"bytes"
	"encoding/xml"
	"math/rand/v2"
	"testing"
)

// TestAppendEscaped: appendEscaped escapes as encoding/xml.EscapeText,
// with and without its fast path.
func TestAppendEscaped(t *testing.T) {
	cases := []string{
		"", "plain", "page-0001.md", "a&b", "<tag>", `it's "quoted"`, "tab\tnl\ncr\r",
		"ctl\x01\x1f", "caf\u00e9", "日本語", "bad\xff\xfe", "\ufffe\uffff", "\U0001F600", "x\xed\xa0\x80y",
		"text/markdown; charset=utf-8", `"e3b0c44298fc1c149afbf4c8996fb924"`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var want bytes.Buffer
		xml.EscapeText(&want, []byte(s))
		if got := appendEscaped([]byte("pre"), s); string(got) != "pre"+want.String() {
			t.Errorf("appendEscaped(%q) = %q, want %q", s, got[3:], want.String())
		}
	}
}
