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
// DFA's states, the Perl engine, the Aho-Corasick automaton of long
// pattern lists, the -w retry), each shared by all of them, and checks
// that every goroutine gets what one goroutine alone gets. It is the test
// of those matchers under -race: the GNU differential batteries, which
// match far more, run without it (testenv.Battery).
func TestMatchersConcurrent(t *testing.T) {
	var many []string
	for i := range 300 {
		many = append(many, fmt.Sprintf("word%dx", i))
	}
	opts := []Options{
		{Patterns: []string{"ro[a-z]*te"}, Syntax: Basic},
		{Patterns: []string{"(key|token)s?"}, Syntax: Extended, IgnoreCase: true},
		{Patterns: []string{"signing"}, Syntax: Fixed, Word: true},
		{Patterns: []string{`\bkey\w*`}, Syntax: Perl},
		{Patterns: []string{`(?i)ROTATE\s+\w+`}, Syntax: Perl},
		{Patterns: many, Syntax: Fixed},
		{Patterns: append(slices.Clone(many), "ro.ate"), Syntax: Basic, IgnoreCase: true},
	}
	var lines [][]byte
	for i := range 400 {
		lines = append(lines, []byte(fmt.Sprintf("line %d: rotate the signing key%s every word%dx hour ÜBER tokens", i, strings.Repeat("s", i%3), i%350)))
	}
	buf := bytes.Join(lines, []byte("\n"))
	for _, o := range opts {
		// What one goroutine alone finds, on a matcher of its own.
		alone, err := Compile(o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
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
