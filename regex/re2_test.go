package regex

import "testing"

func TestRE2(t *testing.T) {
	for _, tc := range []struct {
		pat   string
		fold  bool
		word  bool
		line  string
		match bool
	}{
		{`foo\d+`, false, false, "a foo12", true},
		{`foo\d+`, false, false, "a foo", false},
		{`(?i)héllo`, false, false, "HÉLLO", true},
		{`héllo`, true, false, "HÉLLO", true},
		{`héllo`, false, false, "HÉLLO", false},
		{`[a-c]+x`, true, false, "ABX", true},
		{`\bfoo\b`, false, false, "a foo b", true},
		{`\bfoo\b`, false, false, "éfoo", false},
		{`foo`, false, true, "éfoo", false},
		{`foo`, false, true, "(foo)", true},
		{`^a.c$`, false, false, "abc", true},
		{`^b`, false, false, "abc", false},
		{`x{2,3}`, false, false, "axxb", true},
		{`[[:alpha:]]+\s\pL`, false, false, "ab é", true},
		{`(a|b)c`, false, false, "bc", true},
		{`a\.b`, false, false, "axb", false},
	} {
		m, err := Compile(Options{Patterns: []string{tc.pat}, Syntax: RE2, IgnoreCase: tc.fold, Word: tc.word})
		if err != nil {
			t.Errorf("%q: %v", tc.pat, err)
			continue
		}
		if got := m.Match([]byte(tc.line)); got != tc.match {
			t.Errorf("%q (fold %v, word %v) on %q: %v, want %v", tc.pat, tc.fold, tc.word, tc.line, got, tc.match)
		}
	}
	m, err := Compile(Options{Patterns: []string{`webhook\w*`}, Syntax: RE2})
	if err != nil {
		t.Fatal(err)
	}
	if lits, _, ok := m.Literals(); !ok || len(lits) != 1 || lits[0] != "webhook" {
		t.Errorf("literals %q %v, want [webhook]", lits, ok)
	}
	for _, bad := range []string{`(`, `a{2000}`, `x**`} {
		if _, err := Compile(Options{Patterns: []string{bad}, Syntax: RE2}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
