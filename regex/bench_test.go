package regex

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/gen"
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

// BenchmarkCompileWords compiles lists of distinct random 12-letter words
// (grep -f with a word list) as fixed strings, basic regular expressions,
// and ignoring case.
func BenchmarkCompileWords(b *testing.B) {
	for _, n := range []int{1_000, 20_000, 80_000} {
		words := randomWords(n, 1)
		for _, o := range []struct {
			name string
			opts Options
		}{{"F", Options{Syntax: Fixed}}, {"G", Options{Syntax: Basic}}, {"i", Options{Syntax: Basic, IgnoreCase: true}}} {
			b.Run(fmt.Sprintf("%d/%s", n, o.name), func(b *testing.B) {
				o.opts.Patterns = words
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					if _, err := Compile(o.opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkNextMany scans 64 KiB for 500 words, one of which occurs on
// one line.
func BenchmarkNextMany(b *testing.B) {
	words := randomWords(500, 2)
	words[250] = "access_token"
	b.Run("F", func(b *testing.B) { benchNext(b, Options{Patterns: words, Syntax: Fixed}, "x access_token y") })
	b.Run("G", func(b *testing.B) { benchNext(b, Options{Patterns: words}, "x access_token y") })
	b.Run("i", func(b *testing.B) { benchNext(b, Options{Patterns: words, IgnoreCase: true}, "x ACCESS_token y") })
	b.Run("w", func(b *testing.B) { benchNext(b, Options{Patterns: words, Word: true}, "x access_token y") })
}

// BenchmarkNoLiteral selects the lines of 1,100 generated pages (4.7 MB)
// that match regular expressions without a required literal of three
// bytes or more, with the matcher (Next, which selects lines with the
// line DFA), with the same matcher selecting lines with Go's regexp
// alone, and with ripgrep (rg -c, a whole process over the same text in
// a file).
func BenchmarkNoLiteral(b *testing.B) {
	pages := gen.Pages(1100, 1)
	var buf bytes.Buffer
	for _, slug := range slices.Sorted(maps.Keys(pages)) {
		buf.WriteString(pages[slug])
	}
	text := buf.Bytes()
	file := filepath.Join(b.TempDir(), "pages.txt")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{`[[:upper:]][[:lower:]]{9,}`, `[A-Z][a-z]+Error`, `\b[0-9]{3}\b`} {
		for _, way := range []string{"dfa", "regexp", "rg"} {
			b.Run(p+"/"+way, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				n := 0
				if way == "rg" {
					if _, err := exec.LookPath("rg"); err != nil {
						b.Skip("rg is not installed")
					}
					var cpu time.Duration
					for b.Loop() {
						cmd := exec.Command("rg", "-c", "--no-config", p, file)
						out, err := cmd.Output()
						if cmd.ProcessState != nil {
							cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
						}
						if err != nil && len(out) == 0 {
							n = 0
							continue
						}
						n, _ = strconv.Atoi(strings.TrimSpace(string(out)))
					}
					b.ReportMetric(float64(n), "lines")
					b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
					return
				}
				m := mustCompile(b, Options{Patterns: []string{p}, Syntax: Extended})
				if way == "regexp" && m.sel != nil {
					m.sel.dfa = nil
				}
				cpu := cpuTime()
				for b.Loop() {
					n = 0
					for pos := 0; pos < len(text); {
						_, e, ok := m.Next(text[pos:])
						if !ok {
							break
						}
						n++
						pos += e + 1
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(n), "lines")
			})
		}
	}
}

// BenchmarkPerl selects the one matching line of a 64 KiB buffer with
// -P patterns: through Go's regexp (with required literals, or its DFA
// without), through the backtracking engine (regexp2, with and without
// literals), and, as the baseline of the same run, Go's regexp matched
// line by line without the package.
func BenchmarkPerl(b *testing.B) {
	const needle = "x access_token=1.2.3 y"
	perl := func(p string) func(b *testing.B) {
		return func(b *testing.B) { benchNext(b, Options{Patterns: []string{p}, Syntax: Perl}, needle) }
	}
	b.Run("go-regexp-lines", func(b *testing.B) {
		re := regexp.MustCompile(`[a-z][^\w\s]\w`)
		buf := benchBuf(needle)
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			n := 0
			for line := range bytes.Lines(buf) {
				if re.Match(line) {
					n++
				}
			}
			if n != 1 {
				b.Fatalf("%d matching lines, want 1", n)
			}
		}
	})
	b.Run("regexp2-lines", func(b *testing.B) {
		// The backtracking engine alone, line by line, on the pattern
		// of backtrack-no-literal.
		m := mustCompile(b, Options{Patterns: []string{`[a-z](?=[^\w\s]\w)`}, Syntax: Perl})
		p, err := m.perl.sel.get(true, true)
		if err != nil || p.bt == nil {
			b.Fatal(err)
		}
		buf := benchBuf(needle)
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			n := 0
			for line := range bytes.Lines(buf) {
				if ok, _ := p.match(bytes.TrimSuffix(line, []byte("\n"))); ok {
					n++
				}
			}
			if n != 1 {
				b.Fatalf("%d matching lines, want 1", n)
			}
		}
	})
	b.Run("re2-literal", perl(`access_\w+=\d`))
	b.Run("re2-dfa", perl(`[a-z][^\w\s]\w`))
	b.Run("re2-keep", perl(`access_token=\K[\d.]+`))
	b.Run("backtrack-literal", perl(`(?<=x )access_\w+(?==\d)`))
	b.Run("backtrack-no-literal", perl(`[a-z](?=[^\w\s]\w)`))
}

// BenchmarkPerlCompile compiles -P patterns: one Go's regexp matches,
// one with \K (Go's regexp selects, regexp2 finds -o), one with a
// lookbehind (regexp2, screened by a Go regexp), and the -E pattern of
// the same shape as the baseline.
func BenchmarkPerlCompile(b *testing.B) {
	for _, o := range []Options{
		{Patterns: []string{`href="[^"]+`}, Syntax: Extended},
		{Patterns: []string{`\bhref="[^"]+`}, Syntax: Perl},
		{Patterns: []string{`href="\K[^"]+`}, Syntax: Perl},
		{Patterns: []string{`(?<=href=")[^"]+`}, Syntax: Perl},
	} {
		b.Run(o.Patterns[0], func(b *testing.B) {
			for b.Loop() {
				mustCompile(b, o)
			}
		})
	}
}
