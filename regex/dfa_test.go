package regex

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLineDFA compares the line DFA with Go's regexp on random lines of
// a small alphabet (ASCII, non-ASCII letters and digits), for patterns
// with anchors, alternation, repetition and Unicode classes.
func TestLineDFA(t *testing.T) {
	pats := []string{
		`a`, `ab|ba`, `^a`, `a$`, `^$`, `^a|b$`, `^(a|b)*$`, `[[:upper:]][[:lower:]]{2,}`,
		`\p{Lu}\p{Ll}+`, `[0-9]{2}`, `a.b`, `(?s:a.b)`, `é+`, `[^a]b`, `x*`, `(ab)+c|d`, `[A-Z][a-z]+E`,
		`^[a-z]+$`, `(?i:É)`, `a{2,3}$`,
	}
	alphabet := []string{"a", "b", "c", "d", "x", "A", "B", "E", "é", "É", "ß", "1", "2", " ", "-"}
	rng := rand.New(rand.NewPCG(3, 5))
	for _, p := range pats {
		re := regexp.MustCompile(p)
		d := newLineDFA(p)
		if d == nil {
			t.Fatalf("%s: no DFA", p)
		}
		for range 300 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			line := []byte(b.String())
			got, ok := d.match(line)
			if !ok {
				t.Fatalf("%s: DFA gave up on %q", p, line)
			}
			if want := re.Match(line); got != want {
				t.Fatalf("%s on %q: DFA %v, regexp %v", p, line, got, want)
			}
		}
	}
	if newLineDFA(`\bab\b`) != nil {
		t.Error("a DFA for a pattern with word boundaries")
	}
}

// TestLineDFAGivesUp checks that a pattern whose DFA has exponentially
// many states turns the DFA off rather than building states for every
// line.
func TestLineDFAGivesUp(t *testing.T) {
	d := newLineDFA(`a[ab]{14}$`)
	rng := rand.New(rand.NewPCG(1, 1))
	line := make([]byte, 100_000)
	for i := range line {
		line[i] = "ab"[rng.IntN(2)]
	}
	for range 2 {
		if _, ok := d.match(line); ok {
			t.Fatal("the DFA of a[ab]{14}$ kept up with 100,000 random a and b")
		}
	}
	if !d.off.Load() {
		t.Error("the DFA is still on")
	}
}

// TestDFAScan compares the DFA's scan of whole buffers (several lines,
// empty lines, lines that are not valid UTF-8, with and without a final
// '\n') with Go's regexp line by line, and Matcher.Next, which uses the
// scan, with Matcher.Match line by line.
func TestDFAScan(t *testing.T) {
	pats := []string{
		`a`, `ab|ba`, `^a`, `a$`, `^$`, `^a|b$`, `^(a|b)*$`, `[[:upper:]][[:lower:]]{2,}`,
		`[0-9]{2}`, `a.b`, `é+`, `[^a]b`, `x*`, `(ab)+c|d`, `^[a-z]+$`, `a{2,3}$`, `.`,
	}
	alphabet := []string{"a", "b", "c", "d", "x", "A", "B", "é", "É", "1", "2", " ", "\n", "\n", "\n", "\xff", "\xc3"}
	rng := rand.New(rand.NewPCG(7, 11))
	for _, p := range pats {
		re := regexp.MustCompile(p)
		d := newLineDFA(p)
		m, err := Compile(Options{Patterns: []string{p}, Syntax: Extended})
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			var b strings.Builder
			for range rng.IntN(30) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			buf := []byte(b.String())
			// The first line the scan returns, by Go's regexp.
			wantLs, wantLe, want := 0, 0, scanNone
			for ls := 0; ls < len(buf); {
				le := strings.IndexByte(string(buf[ls:]), '\n')
				if le < 0 {
					le = len(buf)
				} else {
					le += ls
				}
				line := buf[ls:le]
				if !utf8.Valid(line) {
					wantLs, wantLe, want = ls, le, scanUndecided
					break
				}
				if re.Match(line) {
					wantLs, wantLe, want = ls, le, scanMatch
					break
				}
				ls = le + 1
			}
			ls, le, res := d.scan(buf)
			if want == scanUndecided && res == scanMatch && ls == wantLs && le == wantLe {
				// A match before the line's first invalid byte: the
				// matcher must agree.
				if !m.Match(buf[ls:le]) {
					t.Fatalf("%s on %q: scan matched the line at %d, Match does not", p, buf, ls)
				}
				res = scanUndecided
			}
			if res != want || want != scanNone && (ls != wantLs || le != wantLe) {
				t.Fatalf("%s on %q: scan (%d, %d, %d), want (%d, %d, %d)", p, buf, ls, le, res, wantLs, wantLe, want)
			}
			if !m.scansWithDFA() {
				continue
			}
			for pos := 0; pos < len(buf); {
				s, e, ok := m.Next(buf[pos:])
				// What Match says line by line.
				ws, we, wok := 0, 0, false
				for l := pos; l < len(buf); {
					le := strings.IndexByte(string(buf[l:]), '\n')
					if le < 0 {
						le = len(buf)
					} else {
						le += l
					}
					if m.Match(buf[l:le]) {
						ws, we, wok = l-pos, le-pos, true
						break
					}
					l = le + 1
				}
				if ok != wok || ok && (s != ws || e != we) {
					t.Fatalf("%s on %q from %d: Next (%d, %d, %v), Match line by line (%d, %d, %v)", p, buf, pos, s, e, ok, ws, we, wok)
				}
				if !ok {
					break
				}
				pos += e + 1
			}
		}
	}
}
