package pattern

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
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
