package regex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/testenv"
)

// randomWords returns n distinct words of 12 random lowercase letters.
func randomWords(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	b := make([]byte, 12)
	for len(out) < n {
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// manyCorpus returns lines of words from a vocabulary (pseudo-words, some
// capitalized or upper-cased, and words with characters whose case
// folding is special), and the vocabulary.
func manyCorpus(lines int, seed uint64) (corpus, vocab []string) {
	rng := rand.New(rand.NewPCG(seed, 11))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qu", "ex", "ph", "st", "ng"}
	seen := map[string]bool{}
	for len(vocab) < 3000 {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	vocab = append(vocab, "straße", "STRASSE", "\u212aelvin", "ſtar", "İstanbul", "ıi", "σίσυφος", "ΣΊΣΥΦΟΣ", "café", "naïve", "日本語", "a.b", "x*y", "[br]")
	seps := []string{" ", " ", " ", ", ", "_", "-", ".", ":", "/", "\t"}
	for range lines {
		var b strings.Builder
		for j := range 3 + rng.IntN(10) {
			if j > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			w := vocab[rng.IntN(len(vocab))]
			switch rng.IntN(12) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				w = strings.ToUpper(w[:1]) + w[1:]
			case 2:
				w += fmt.Sprint(rng.IntN(100))
			}
			b.WriteString(w)
		}
		if rng.IntN(50) == 0 {
			b.WriteString(" \xff\xfe")
		}
		corpus = append(corpus, b.String())
	}
	return corpus, vocab
}

// manyPatterns returns n patterns: vocabulary words (some with a case
// change), words that occur nowhere, and, for regular expressions, a
// few constructs around a word.
func manyPatterns(n int, vocab []string, syn Syntax, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 13))
	absent := randomWords(n, seed)
	var out []string
	for i := range n {
		w := vocab[rng.IntN(len(vocab))]
		switch k := rng.IntN(20); {
		case k < 8:
			out = append(out, w)
		case k < 10:
			out = append(out, strings.ToUpper(w))
		case k < 15:
			out = append(out, absent[i])
		case syn == Fixed:
			out = append(out, w[:len(w)/2+1])
		default:
			v := vocab[rng.IntN(3000)] // a pseudo-word: no special character
			or := `\|`
			if syn == Extended {
				or = "|"
			}
			forms := []string{w + "[0-9]", "^" + w, w + "$", w + ".." + v[:2], w + or + v, w + "[[:digit:]]*", `\<` + w, w + `\>`}
			out = append(out, forms[rng.IntN(len(forms))])
		}
	}
	return out
}

// TestGNUManyPatterns compares long pattern lists (500 and 5,000
// patterns, matched through the literal automaton) with GNU grep 3.8,
// for line selection and -o, with -F, -G and -E and the flags -i, -w and
// -x. The lists of 5,000 select nearly every line of the corpus and cost
// the most per line (most of the test's time over all 1,500 lines): they
// run over the first 400 lines and every later line with a word whose
// case folding is special, a byte that is not UTF-8 or a character
// special in patterns.
func TestGNUManyPatterns(t *testing.T) {
	testenv.Battery(t)
	grep := gnuGrep(t)
	corpus, vocab := manyCorpus(1500, 1)
	short := corpus[:400:400]
	for _, l := range corpus[400:] {
		if strings.ContainsAny(l, "*[") || !isASCII(l) {
			short = append(short, l)
		}
	}
	sizes := []int{500, 5000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		var cases []diffCase
		compiled := map[diffCase]*Matcher{}
		for _, syn := range []Syntax{Fixed, Basic, Extended} {
			pats := manyPatterns(n, vocab, syn, uint64(n)+uint64(syn))
			flags := [][3]bool{{}, {true}, {false, true}, {false, false, true}, {true, true}}
			if n > 1000 && syn != Fixed {
				// GNU grep takes seconds to compile 5,000 regular
				// expressions: fewer runs.
				flags = [][3]bool{{}, {true, true}}
			}
			for _, f := range flags {
				c := diffCase{strings.Join(pats, "\n"), syn, f[0], f[1], f[2]}
				m, err := Compile(Options{Patterns: pats, Syntax: syn, IgnoreCase: c.i, Word: c.w, Line: c.x})
				if err != nil {
					t.Fatalf("%d patterns, %v: %v", n, c.args()[:1], err)
				}
				if m.multi == nil {
					t.Fatalf("%d patterns are not matched through their literals", n)
				}
				cases = append(cases, c)
				compiled[c] = m
			}
		}
		if n > 1000 {
			runDiffCompiled(t, grep, short, cases, compiled)
		} else {
			runDiffCompiled(t, grep, corpus, cases, compiled)
		}
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestManyPatternsNext checks that Next, which looks for the literals in
// the whole buffer, selects the lines that Match selects.
func TestManyPatternsNext(t *testing.T) {
	corpus, vocab := manyCorpus(800, 2)
	buf := []byte(strings.Join(corpus, "\n") + "\n")
	for _, syn := range []Syntax{Fixed, Basic} {
		for _, fold := range []bool{false, true} {
			pats := manyPatterns(700, vocab, syn, 3)
			m := mustCompile(t, Options{Patterns: pats, Syntax: syn, IgnoreCase: fold})
			var want, got []int
			for i, l := range corpus {
				if m.Match([]byte(l)) {
					want = append(want, i)
				}
			}
			line := 0
			for pos := 0; pos < len(buf); {
				s, e, ok := m.Next(buf[pos:])
				if !ok {
					break
				}
				line += bytes.Count(buf[pos:pos+s], []byte{'\n'})
				got = append(got, line)
				line++
				pos += e + 1
			}
			if !slices.Equal(got, want) {
				t.Errorf("syntax %d, fold %v: Next selects %d lines, Match %d", syn, fold, len(got), len(want))
			}
			if len(want) == 0 || len(want) == len(corpus) {
				t.Errorf("syntax %d, fold %v: %d of %d lines match; the test needs some of each", syn, fold, len(want), len(corpus))
			}
		}
	}
}

// compileWork compiles o and returns the work it counted.
func compileWork(t testing.TB, o Options) int64 {
	t.Helper()
	c := &compiler{ctx: context.Background(), patterns: len(o.Patterns)}
	if _, err := c.compile(o); err != nil {
		t.Fatal(err)
	}
	return c.work
}

// TestCompileScales checks that compiling grows linearly with the number
// of patterns, by the work Compile counts (every step that could grow
// faster than its input, such as removing redundant literals, counts
// its comparisons), not by time. (The ratio is about 4.15 from 1,000
// patterns on; a quadratic step makes it 16.)
func TestCompileScales(t *testing.T) {
	for _, o := range []Options{{Syntax: Fixed}, {Syntax: Basic}, {Syntax: Basic, IgnoreCase: true}, {Syntax: Extended, Word: true}} {
		n := 2000
		o.Patterns = randomWords(n, 1)
		small := compileWork(t, o)
		o.Patterns = randomWords(4*n, 1)
		large := compileWork(t, o)
		if ratio := float64(large) / float64(small); ratio > 4.6 {
			t.Errorf("%+v: work %d for %d patterns, %d for %d: ratio %.2f, want about 4", o.Syntax, small, n, large, 4*n, ratio)
		}
		// Literals that contain each other: the redundancy check is
		// where a quadratic step was.
		var nested []string
		for _, w := range randomWords(n, 2) {
			nested = append(nested, w, w[:8], w[2:])
		}
		o.Patterns = nested
		if w := compileWork(t, o); w > 200*int64(len(nested)) {
			t.Errorf("%+v: work %d for %d nested patterns", o.Syntax, w, len(nested))
		}
	}
}

// TestCompileLongLiteral: a 100 KB literal compiles in work linear in its
// size, and matches (Go's regexp alone would take seconds here). With -i
// it is refused with an error (its case classes make it too large).
func TestCompileLongLiteral(t *testing.T) {
	long := strings.Repeat("abcdefghij", 10_000)
	opts := []Options{{Syntax: Fixed}, {Syntax: Basic}, {Syntax: Extended, Word: true}, {Syntax: Fixed, Line: true}}
	lines := []struct {
		line string
		want [4]bool // -F, -G, -E -w, -F -x
	}{
		{long, [4]bool{true, true, true, true}},
		{"x " + long + " y", [4]bool{true, true, true, false}},
		{"x" + long, [4]bool{true, true, false, false}},
		{"xé" + long + long + "y " + long + ".", [4]bool{true, true, true, false}},
		{strings.ToUpper(long), [4]bool{false, false, false, false}},
		{long[1:] + long[:1], [4]bool{false, false, false, false}},
		{long[:len(long)-1] + "\xff", [4]bool{false, false, false, false}},
	}
	for i, o := range opts {
		o.Patterns = []string{long}
		if w := compileWork(t, o); w > 40*int64(len(long)) {
			t.Errorf("%+v: work %d for a literal of %d bytes", o, w, len(long))
		}
		m := mustCompile(t, o)
		for j, l := range lines {
			done := make(chan bool, 1)
			go func() { done <- m.Match([]byte(l.line)) }()
			select {
			case got := <-done:
				if got != l.want[i] {
					t.Errorf("options %d, line %d: Match = %v, want %v", i, j, got, l.want[i])
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("options %d, line %d: Match still running after 30 s", i, j)
			}
		}
	}
	m := mustCompile(t, Options{Patterns: []string{long}, Syntax: Fixed})
	got := m.FindAll([]byte("x "+long+long+" y"), nil)
	if want := [][2]int{{2, 2 + len(long)}, {2 + len(long), 2 + 2*len(long)}}; !slices.Equal(got, want) {
		t.Errorf("FindAll = %v, want %v", got, want)
	}
	m = mustCompile(t, Options{Patterns: []string{long}, Syntax: Fixed, Word: true})
	got = m.FindAll([]byte("x"+long+" "+long+" y"), nil)
	if want := [][2]int{{2 + len(long), 2 + 2*len(long)}}; !slices.Equal(got, want) {
		t.Errorf("FindAll -w = %v, want %v", got, want)
	}
	if _, err := Compile(Options{Patterns: []string{long}, Syntax: Fixed, IgnoreCase: true}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("-i: err = %v, want one wrapping ErrUnsupported", err)
	}
}

// stopAfterCtx is a context whose Err reports context.Canceled from its
// n-th call on.
type stopAfterCtx struct {
	context.Context
	cancel context.CancelFunc
	n      int
	calls  int
}

func (c *stopAfterCtx) Err() error {
	c.calls++
	if c.calls >= c.n {
		c.cancel()
	}
	return c.Context.Err()
}

// TestCompileCanceled: Compile polls its context throughout, and stops
// with an error that wraps the context's.
func TestCompileCanceled(t *testing.T) {
	words := randomWords(20_000, 3)
	for _, o := range []Options{{Syntax: Fixed}, {Syntax: Basic, IgnoreCase: true}, {Syntax: Extended}} {
		o.Patterns = words
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := CompileContext(ctx, o); !errors.Is(err, context.Canceled) {
			t.Errorf("%+v: canceled context: err = %v", o.Syntax, err)
		}
		ctx, cancel = context.WithTimeout(context.Background(), -time.Second)
		_, err := CompileContext(ctx, o)
		var ce *CanceledError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ce) || ce.Patterns != len(words) {
			t.Errorf("%+v: expired context: err = %v", o.Syntax, err)
		}
		cancel()
		// Canceled part-way: the context is polled at least every
		// pollWork units, so Compile stops soon after.
		base, cancel := context.WithCancel(context.Background())
		sc := &stopAfterCtx{Context: base, cancel: cancel, n: 20}
		c := &compiler{ctx: sc, patterns: len(words)}
		_, err = c.compile(o)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%+v: canceled after %d polls: err = %v", o.Syntax, sc.n, err)
		} else if max := int64(sc.n+1) * (pollWork + 64); c.work > max {
			t.Errorf("%+v: %d units of work before stopping; want at most %d", o.Syntax, c.work, max)
		}
	}
}

// TestCompileCanceledCombined: the combined engine of patterns without
// literals is compiled by Go's regexp, which cannot be interrupted;
// Compile returns as soon as the context ends all the same.
func TestCompileCanceledCombined(t *testing.T) {
	var pats []string
	for i := range 1000 {
		pats = append(pats, fmt.Sprintf("[[:alpha:]]\\{%d\\}[[:punct:]]*x\\{0,%d\\}", 1+i%4, i%100))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &compiler{ctx: ctx, patterns: len(pats), testEngine: cancel}
	m, err := c.compile(Options{Patterns: pats})
	if !errors.Is(err, context.Canceled) || m != nil {
		t.Errorf("Compile = %v, %v; want an error wrapping context.Canceled", m, err)
	}
	// Without cancellation the same patterns compile.
	if _, err := Compile(Options{Patterns: pats[:100]}); err != nil {
		t.Fatal(err)
	}
}

// TestMultiEqualsCombined compares lists matched through their literals
// with the same lists compiled together (the form the GNU differential
// tests check most): random regular expressions around words, anchors,
// word assertions, bytes that are not UTF-8 and a few patterns without
// literals, for Match and FindAll under -i, -w and -x.
func TestMultiEqualsCombined(t *testing.T) {
	testenv.Battery(t)
	atoms := []string{"ab", "ba", "abc", "é", "K", "ſ", "x", ".", "*", "\\+", "\\?", "[ab]", "[[:alpha:]]", "^", "$",
		"\\<", "\\>", "\\b", "\\w", "\\|", "\\(ab\\|c\\)", " ", "_", "\xff", "a\\{2\\}", "[^a]"}
	lines := []string{"", "ab", "ba ab", "abc abcabc", "xab_ba", "é É K k ſ s", "aab baa", "ab\xffab", "x.x*x", "_ab_", "AB BA Abc",
		"a b c", "kk ss", "abab", "(ab)", "ab|ba"}
	rng := rand.New(rand.NewPCG(6, 6))
	tested := 0
	for round := range 150 {
		var pats []string
		for range 20 + rng.IntN(30) {
			var b strings.Builder
			if rng.IntN(3) > 0 {
				b.WriteString(randomWords(1, uint64(rng.IntN(1000)))[0][:2+rng.IntN(4)])
			}
			for range 1 + rng.IntN(3) {
				b.WriteString(atoms[rng.IntN(len(atoms))])
			}
			pats = append(pats, b.String())
		}
		o := Options{Patterns: pats, Syntax: Basic, IgnoreCase: round%3 == 1, Word: round%4 == 2, Line: round%7 == 3}
		multi, err := Compile(o)
		if err != nil {
			t.Fatalf("%q: %v", pats, err)
		}
		c := &compiler{ctx: context.Background(), noMulti: true}
		whole, err := c.compile(o)
		if err != nil {
			t.Fatalf("%q: %v only when compiled together", pats, err)
		}
		if multi.multi == nil {
			continue
		}
		tested++
		for _, l := range lines {
			if got, want := multi.Match([]byte(l)), whole.Match([]byte(l)); got != want {
				t.Errorf("%+v: Match(%q) = %v, together %v", o, l, got, want)
			}
			if got, want := multi.FindAll([]byte(l), nil), whole.FindAll([]byte(l), nil); !slices.Equal(got, want) {
				t.Errorf("%+v: FindAll(%q) = %v, together %v", o, l, got, want)
			}
		}
	}
	t.Logf("%d lists compared", tested)
	if tested < 50 {
		t.Errorf("only %d lists were matched through their literals", tested)
	}
}

// TestManyPatternsLiterals: a long list is matched through its literals,
// and still gives the coarse filter its literals when they are few.
func TestManyPatternsLiterals(t *testing.T) {
	tests := []struct {
		pats []string
		want []string // nil: none
	}{
		{append([]string{"foo"}, prefixed("foo", randomWords(100, 4))...), []string{"foo"}},
		{append([]string{"foo", "bar"}, prefixed("bar", randomWords(100, 4))...), []string{"bar", "foo"}},
		{randomWords(100, 4), nil},
		{append(randomWords(100, 4), "x*"), nil},
	}
	for _, tt := range tests {
		m := mustCompile(t, Options{Patterns: tt.pats})
		if m.multi == nil {
			t.Errorf("%d patterns (%q...) are not matched through their literals", len(tt.pats), tt.pats[:2])
		}
		lits, _, ok := m.Literals()
		if !slices.Equal(lits, tt.want) || ok != (tt.want != nil) {
			t.Errorf("%q...: Literals() = %q, %v; want %q", tt.pats[:2], lits, ok, tt.want)
		}
	}
}

func prefixed(p string, words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w[:i%5] + p + w[i%5:]
	}
	return out
}
