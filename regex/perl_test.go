package regex

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPerl checks -P matching: which lines match and what grep -o
// prints. The expectations were checked against GNU grep 3.8 -P
// (PCRE2 10.42); gnu's TestGrepDifferential runs more against it.
func TestPerl(t *testing.T) {
	tests := []struct {
		pat        string
		fold, w, x bool
		line       string
		match      bool
		only       []string // grep -o
		goEngine   bool     // lines are selected by Go's regexp
	}{
		{pat: `\d+\.\d+`, line: "v1.2.3 and 10.20", match: true, only: []string{"1.2", "10.20"}, goEngine: true},
		{pat: `\bfoo\s+bar`, line: "xfoo bar foo\vbar", match: true, only: []string{"foo\vbar"}, goEngine: true},
		{pat: `version: \K\S+`, line: "version: 1.2.3 x", match: true, only: []string{"1.2.3"}, goEngine: true},
		{pat: `(?<=href=")[^"]+`, line: `<a href="/a">`, match: true, only: []string{"/a"}},
		{pat: `foo(?!bar)`, line: "foobar foobaz", match: true, only: []string{"foo"}},
		{pat: `foo(?!bar)`, line: "foobar", match: false},
		{pat: `\t`, line: "a\tb", match: true, only: []string{"\t"}, goEngine: true},
		{pat: `a|ab`, line: "ab", match: true, only: []string{"a"}, goEngine: true},
		{pat: `(\w)\1`, line: "abccd", match: true, only: []string{"cc"}},
		{pat: `(?<n>x)\k<n>`, line: "xx", match: true, only: []string{"xx"}},
		{pat: `a++b`, line: "aab", match: true, only: []string{"aab"}},
		{pat: `a*+a`, line: "aaa", match: false},
		{pat: `(?>a+)b`, line: "aab", match: true, only: []string{"aab"}},
		{pat: `\w+`, line: "café x", match: true, only: []string{"caf", "x"}, goEngine: true},
		{pat: `\S+`, line: "café x", match: true, only: []string{"caf", "x"}, goEngine: true},
		{pat: `[\S]+`, line: "café x", match: true, only: []string{"café", "x"}, goEngine: true},
		{pat: `é`, fold: true, line: "ÉCOLE", match: true, only: []string{"É"}, goEngine: true},
		{pat: `k`, fold: true, line: "\u212a", match: true, goEngine: true, only: []string{"\u212a"}},
		{pat: `ss`, fold: true, line: "ß", match: false, goEngine: true},
		{pat: `(?i)a(?-i)b`, line: "Ab AB", match: true, only: []string{"Ab"}, goEngine: true},
		{pat: `x{,3}`, line: "x{,3}", match: true, only: []string{"x{,3}"}, goEngine: true},
		{pat: `foo`, w: true, line: "foobar foo_x foo-", match: true, only: []string{"foo"}, goEngine: true},
		{pat: `fo+\w*`, w: true, line: "xfoo foobar", match: true, only: []string{"foobar"}, goEngine: true},
		{pat: `a|abc`, x: true, line: "abc", match: true, only: []string{"abc"}, goEngine: true},
		{pat: `@`, w: true, line: "a@b", match: false, goEngine: true},
		{pat: `\r$`, line: "crlf\r", match: true, goEngine: true, only: []string{"\r"}},
		{pat: ``, line: "", match: true, goEngine: true},
		{pat: `a\K|b`, line: "ab", match: true, only: nil, goEngine: true},
		// Invalid UTF-8: no match crosses or starts after an invalid byte
		// with ^, and \b sees a non-word character there.
		{pat: `^b`, line: "a\xffb", match: false, goEngine: true},
		{pat: `a.b`, line: "a\xffb", match: false, goEngine: true},
		{pat: `\bb`, line: "a\xffb", match: true, only: []string{"b"}, goEngine: true},
		{pat: `(?<=a)b`, line: "a\xffb", match: false},
		{pat: `foo`, w: true, line: "x\xfffoo", match: true, only: []string{"foo"}, goEngine: true},
	}
	for _, tt := range tests {
		m, err := Compile(Options{Patterns: []string{tt.pat}, Syntax: Perl, IgnoreCase: tt.fold, Word: tt.w, Line: tt.x})
		if err != nil {
			t.Errorf("%q: %v", tt.pat, err)
			continue
		}
		line := []byte(tt.line)
		if got := m.Match(line); got != tt.match {
			t.Errorf("%q (i=%v w=%v x=%v) on %q: match %v, want %v", tt.pat, tt.fold, tt.w, tt.x, tt.line, got, tt.match)
		}
		var only []string
		for _, loc := range m.FindAll(line, nil) {
			only = append(only, tt.line[loc[0]:loc[1]])
		}
		if !slices.Equal(only, tt.only) {
			t.Errorf("%q (i=%v w=%v x=%v) on %q: -o %q, want %q", tt.pat, tt.fold, tt.w, tt.x, tt.line, only, tt.only)
		}
		if goSel := m.perl.sel.progs[3].p.re != nil; goSel != tt.goEngine {
			t.Errorf("%q: selected with Go's regexp %v, want %v", tt.pat, goSel, tt.goEngine)
		}
		if s, e, ok := m.Next([]byte(" \n" + tt.line + "\n ")); tt.pat != "" && (ok != tt.match || ok && (s != 2 || e != 2+len(tt.line))) {
			t.Errorf("%q: Next = %d, %d, %v", tt.pat, s, e, ok)
		}
		if m.Err() != nil {
			t.Errorf("%q: Err() = %v", tt.pat, m.Err())
		}
	}
}

// TestPerlErrors checks PCRE2's diagnostics (as GNU grep 3.8 prints
// them) and the constructs refused as unsupported.
func TestPerlErrors(t *testing.T) {
	tests := []struct {
		pats        []string
		msg         string
		unsupported bool
	}{
		{[]string{`(`}, "missing closing parenthesis", false},
		{[]string{`a)`}, "unmatched closing parenthesis", false},
		{[]string{`*a`}, "quantifier does not follow a repeatable item", false},
		{[]string{`a**`}, "quantifier does not follow a repeatable item", false},
		{[]string{`^*`}, "quantifier does not follow a repeatable item", false},
		{[]string{`a{2,1}`}, "numbers out of order in {} quantifier", false},
		{[]string{`\`}, `\ at end of pattern`, false},
		{[]string{`[a`}, "missing terminating ] for character class", false},
		{[]string{`\i`}, `unrecognized character follows \`, false},
		{[]string{`(?z)`}, "unrecognized character after (? or (?-", false},
		{[]string{`\p{Foo}`}, `unknown property after \P or \p`, false},
		{[]string{`[[:foo:]]`}, "unknown POSIX class name", false},
		{[]string{`(?<=a+)b`}, "lookbehind assertion is not fixed length", false},
		{[]string{`(a)\2`}, "reference to non-existent subpattern", false},
		{[]string{`\8`}, "reference to non-existent subpattern", false},
		{[]string{`[z-a]`}, "range out of order in character class", false},
		{[]string{`[\d-z]`}, "invalid range in character class", false},
		{[]string{`(?<=a\Kb)c`}, `\K is not allowed in lookarounds (but see PCRE2_EXTRA_ALLOW_LOOKAROUND_BSK)`, false},
		{[]string{`\u0041`}, `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u`, false},
		{[]string{`a(?#x`}, "missing ) after (?# comment", false},
		{[]string{`(?<n>a)(?<n>b)`}, "two named subpatterns have the same name (PCRE2_DUPNAMES not set)", false},
		{[]string{`\k`}, `\k is not followed by a braced, angle-bracketed, or quoted name`, false},
		{[]string{"a", "b"}, "the -P option only supports a single pattern", false},
		{[]string{`(?R)`}, "-P does not support recursion and subroutine calls ((?R), (?1), (?&name))", true},
		{[]string{`(a)(?1)`}, "-P does not support recursion and subroutine calls ((?R), (?1), (?&name))", true},
		{[]string{`(?(1)a|b)`}, "-P does not support conditional groups (?(...)...)", true},
		{[]string{`\Ga`}, `-P does not support \G`, true},
		{[]string{`(*FAIL)`}, "-P does not support a backtracking control verb or alpha assertion (*...)", true},
	}
	for _, tt := range tests {
		_, err := Compile(Options{Patterns: tt.pats, Syntax: Perl})
		var pe *Error
		if !errors.As(err, &pe) || pe.Msg != tt.msg || errors.Is(err, ErrUnsupported) != tt.unsupported {
			t.Errorf("%q: error %v (unsupported %v), want %q (unsupported %v)", tt.pats, err, errors.Is(err, ErrUnsupported), tt.msg, tt.unsupported)
		}
	}
}

// TestPerlLiterals checks that the required literals of -P patterns
// leave out lookarounds and back-references.
func TestPerlLiterals(t *testing.T) {
	tests := []struct {
		pat  string
		fold bool
		want []string // nil: none
	}{
		{`version: \K\S+`, false, []string{"version: "}},
		{`(?<=href=")[^"]+`, false, nil},
		{`foo(?!bar)`, false, []string{"foo"}},
		{`(?=.*needle)hay`, false, []string{"hay"}},
		{`(\w+) \1`, false, []string{" "}},
		{`\d+\.\d+`, false, []string{"."}},
		{`(?i)error`, false, []string{"error"}},
		{`warn|error`, true, []string{"error", "warn"}},
		{`a*`, false, nil},
	}
	for _, tt := range tests {
		m, err := Compile(Options{Patterns: []string{tt.pat}, Syntax: Perl, IgnoreCase: tt.fold})
		if err != nil {
			t.Fatalf("%q: %v", tt.pat, err)
		}
		lits, _, ok := m.Literals()
		slices.Sort(lits)
		if !ok {
			lits = nil
		}
		if !slices.Equal(lits, tt.want) {
			t.Errorf("%q: literals %q, want %q", tt.pat, lits, tt.want)
		}
	}
}

// TestPerlBacktrackLimit checks that catastrophic backtracking ends with
// ErrMatchLimit instead of running on.
func TestPerlBacktrackLimit(t *testing.T) {
	defer func(d time.Duration) { perlMatchTimeout = d }(perlMatchTimeout)
	perlMatchTimeout = 50 * time.Millisecond
	m, err := Compile(Options{Patterns: []string{`(a+)+\1x`}, Syntax: Perl})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("a", 5000) + "b x")
	if m.Match(line) {
		t.Error("matched")
	}
	if !errors.Is(m.Err(), ErrMatchLimit) {
		t.Fatalf("Err() = %v, want ErrMatchLimit", m.Err())
	}
	if m.Err().Error() != "exceeded PCRE's backtracking limit" {
		t.Errorf("message %q", m.Err())
	}
}

// FuzzPerlParse checks that the Perl parser never panics and that what
// it accepts compiles.
func FuzzPerlParse(f *testing.F) {
	for _, s := range []string{`\d+\.\d+`, `(?<=a)b`, `(?|(a)|(b))\1`, `[[:^alpha:]\Q]\E-]`, `(?x) a # c`, `\x{41}\o{101}\cA`, `a{2,}+`, `(?i:k)\K`, `\p{^Greek}`, `[\W\d]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64 {
			return
		}
		m, err := Compile(Options{Patterns: []string{s}, Syntax: Perl})
		var pe *Error
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("%q: error %T %v", s, err, err)
		}
		if err != nil {
			return
		}
		m.Match([]byte("abc a1 _x\xff\tKé"))
		// Where Go's regexp selects lines, the backtracking engine must
		// agree on the same tree.
		p, _ := m.perl.sel.get(true, true)
		if p == nil || p.re == nil {
			return
		}
		bt, err := compilePerlProg(m.perl.sel.tree, true, true, false)
		if err != nil {
			t.Fatalf("%q: regexp2 refuses %q: %v", s, p.src, err)
		}
		for _, line := range []string{"", "abc a1 _x\tKé", "aaa bbb", "x-y_z 123.45", "ÉCOLE école", "((a)) [b] {c}"} {
			got, err1 := p.match([]byte(line))
			want, err2 := bt.match([]byte(line))
			if err1 == nil && err2 == nil && got != want {
				t.Fatalf("%q on %q: Go %v, regexp2 %v (%s)", s, line, got, want, bt.src)
			}
		}
	})
}
