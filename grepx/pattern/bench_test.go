package pattern

import (
	"bytes"
	"fmt"
	"testing"
)

// benchBuf returns a 64 KiB buffer of prose-like lines with needle on
// one line near the end.
func benchBuf(needle string) []byte {
	var b bytes.Buffer
	words := []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "return", "func", "value", "error", "context"}
	for i := 0; b.Len() < 64<<10; i++ {
		for j := range 10 {
			b.WriteString(words[(i*7+j*3)%len(words)])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d\n", i)
	}
	buf := b.Bytes()[:64<<10]
	at := bytes.LastIndexByte(buf[:len(buf)-200], '\n') + 1
	copy(buf[at:], needle)
	return buf
}

func benchNext(b *testing.B, o Options, needle string) {
	m := mustCompile(b, o)
	buf := benchBuf(needle)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for pos := 0; pos < len(buf); {
			_, e, ok := m.Next(buf[pos:])
			if !ok {
				break
			}
			n++
			pos += e + 1
		}
		if n != 1 {
			b.Fatalf("%d matching lines, want 1", n)
		}
	}
}

func BenchmarkNext(b *testing.B) {
	b.Run("literal", func(b *testing.B) {
		benchNext(b, Options{Patterns: []string{"access_token"}}, "x access_token y")
	})
	b.Run("literal-i", func(b *testing.B) {
		benchNext(b, Options{Patterns: []string{"access_token"}, IgnoreCase: true}, "x ACCESS_Token y")
	})
	b.Run("literal-w", func(b *testing.B) {
		benchNext(b, Options{Patterns: []string{"access_token"}, Word: true}, "x access_token y")
	})
	b.Run("regex-literal", func(b *testing.B) {
		benchNext(b, Options{Patterns: []string{`acc[a-z]*_tok[e]n`}}, "x access_token y")
	})
	b.Run("word-assertion", func(b *testing.B) {
		benchNext(b, Options{Patterns: []string{`\<access_token\>`}}, "x access_token y")
	})
	b.Run("no-literal", func(b *testing.B) {
		benchNext(b, Options{Patterns: []string{`[0-9]+x[0-9]+`}, Syntax: Extended}, "x 12x34 y")
	})
	b.Run("no-literal-i", func(b *testing.B) {
		benchNext(b, Options{Patterns: []string{`[a-z]+_[a-z]+en`}, Syntax: Extended, IgnoreCase: true}, "x ACCESS_TOKEN y")
	})
}

func BenchmarkFindAll(b *testing.B) {
	m := mustCompile(b, Options{Patterns: []string{"fox|dog"}, Syntax: Extended})
	line := []byte("the quick brown fox jumps over the lazy dog and the fox again")
	b.ReportAllocs()
	var dst [][2]int
	for b.Loop() {
		dst = m.FindAll(line, dst[:0])
	}
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(Options{Patterns: []string{"func [[:upper:]][[:alnum:]]*Handler"}, IgnoreCase: true}); err != nil {
			b.Fatal(err)
		}
	}
}
