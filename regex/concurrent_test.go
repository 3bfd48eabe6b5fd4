package regex

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestMatchersConcurrent matches from many goroutines at once with
// matchers of every engine whose state is built lazily on first use (the
// DFA's states, the Perl engine's variants and the backtracking engine's
// screen, the engines that many-pattern lists compile per pattern and per
// candidate set, the -w retry), each shared by all of them, over lines
// valid and not valid UTF-8, and checks that every goroutine gets what one
// goroutine alone gets, and that each case gets the engine it is there
// for. It is the test of those matchers under -race: the GNU differential
// batteries, which match far more, run without it (testenv.Battery).
func TestMatchersConcurrent(t *testing.T) {
	var many []string
	for i := range 300 {
		many = append(many, fmt.Sprintf("word%dx", i))
	}
	// uses names the lazily built engine each case must get, so that
	// a change in how Compile picks engines cannot leave one of them
	// out of this test unnoticed.
	cases := []struct {
		o    Options
		uses string
		got  func(*Matcher) bool
	}{
		{Options{Patterns: []string{"ro[a-z]*te"}, Syntax: Basic}, "the line DFA", usesDFA},
		{Options{Patterns: []string{"(key|token)s?"}, Syntax: Extended, IgnoreCase: true}, "the line DFA", usesDFA},
		{Options{Patterns: []string{"signing"}, Syntax: Fixed, Word: true}, "a -w matcher", func(m *Matcher) bool { return m.word }},
		{Options{Patterns: []string{`\bkey\w*`}, Syntax: Perl}, "the Perl engine", func(m *Matcher) bool { return m.perl != nil }},
		{Options{Patterns: []string{`(?i)ROTATE\s+\w+`}, Syntax: Perl}, "the Perl engine", func(m *Matcher) bool { return m.perl != nil }},
		{Options{Patterns: []string{`(?<=every )word3\d*x(?= hour)`}, Syntax: Perl}, "the Perl backtracking engine behind its screen", func(m *Matcher) bool { return m.perl != nil && m.perl.screen != nil }},
		{Options{Patterns: many, Syntax: Fixed}, "the many-pattern matcher", usesMulti},
		{Options{Patterns: append(slices.Clone(many), "ro.ate"), Syntax: Basic, IgnoreCase: true}, "the many-pattern matcher", usesMulti},
		{Options{Patterns: append(slices.Clone(many), "sign[a-z]*", "hour"), Syntax: Extended, Word: true}, "the many-pattern matcher with -w", func(m *Matcher) bool { return m.multi != nil && m.multi.word }},
	}
	var lines [][]byte
	for i := range 400 {
		line := fmt.Sprintf("line %d: rotate the signing key%s every word%dx hour ÜBER tokens", i, strings.Repeat("s", i%3), i%350)
		if i%7 == 0 {
			line += " \xff not UTF-8 word3x" // the engines' other path
		}
		lines = append(lines, []byte(line))
	}
	buf := bytes.Join(lines, []byte("\n"))
	for _, c := range cases {
		o := c.o
		// What one goroutine alone finds, on a matcher of its own.
		alone, err := Compile(o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if !c.got(alone) {
			t.Errorf("%.80q (syntax %v): the matcher does not use %s, which this case is there to share", o.Patterns[:min(len(o.Patterns), 3)], o.Syntax, c.uses)
		}
		want := scanAll(alone, lines, buf)
		shared, err := Compile(o)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := scanAll(shared, lines, buf); got != want {
					errs <- fmt.Sprintf("%v: a goroutine found %.200q, alone %.200q", o.Patterns[:min(len(o.Patterns), 3)], got, want)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}

// usesDFA reports whether m selects lines with a lazily built line DFA.
func usesDFA(m *Matcher) bool { return m.sel != nil && m.sel.dfa != nil }

// usesMulti reports whether m matches through the Aho-Corasick automaton
// of many patterns, whose per-pattern and per-candidate-set engines are
// compiled on first use.
func usesMulti(m *Matcher) bool { return m.multi != nil }

// scanAll matches every line, finds every match in it, and scans the
// whole buffer with Next, and describes what it found.
func scanAll(m *Matcher, lines [][]byte, buf []byte) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%v%v;", m.Match(l), m.FindAll(l, nil))
	}
	for off := 0; off < len(buf); {
		s, e, ok := m.Next(buf[off:])
		if !ok {
			break
		}
		fmt.Fprintf(&b, "@%d-%d", off+s, off+e)
		off += max(e, s+1)
	}
	return b.String()
}
