package regex

import (
	"bytes"
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustCompile(t testing.TB, o Options) *Matcher {
	t.Helper()
	m, err := Compile(o)
	if err != nil {
		t.Fatalf("Compile(%+v): %v", o, err)
	}
	return m
}

func TestErrors(t *testing.T) {
	tests := []struct {
		pat         string
		syn         Syntax
		msg         string
		unsupported bool
	}{
		{`\(`, Basic, "Unmatched ( or \\(", false},
		{`(`, Extended, "Unmatched ( or \\(", false},
		{`\)`, Basic, "Unmatched ) or \\)", false},
		{`[a`, Basic, "Unmatched [, [^, [:, [., or [=", false},
		{`[`, Basic, "Invalid regular expression", false},
		{`a\`, Extended, "Trailing backslash", false},
		{`a{2,1}`, Extended, "Invalid content of \\{\\}", false},
		{`a\{1`, Basic, "Unmatched \\{", false},
		{`a{32768}`, Extended, "Regular expression too big", false},
		{`[[:foo:]]`, Basic, "Invalid character class name", false},
		{`[z-a]`, Basic, "Invalid range end", false},
		{`[[.ab.]]`, Basic, "Invalid collation character", false},
		{`[:space:]`, Basic, "character class syntax is [[:space:]], not [:space:]", false},
		{`\1`, Basic, "Invalid back reference", false},
		{`\(a\)\1`, Basic, "back-references are not supported", true},
		{`(a)\1`, Extended, "back-references are not supported", true},
		{`a{1001}`, Extended, "repetition count above 1000 is not supported", true},
	}
	for _, tt := range tests {
		_, err := Compile(Options{Patterns: []string{"ok", tt.pat}, Syntax: tt.syn})
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want *Error", tt.pat, err)
			continue
		}
		if pe.Msg != tt.msg || err.Error() != tt.msg || pe.Pattern != tt.pat {
			t.Errorf("%q: got %+v, want message %q", tt.pat, pe, tt.msg)
		}
		if errors.Is(err, ErrUnsupported) != tt.unsupported {
			t.Errorf("%q: errors.Is(ErrUnsupported) = %v", tt.pat, !tt.unsupported)
		}
	}
}

func TestFindAll(t *testing.T) {
	tests := []struct {
		o    Options
		line string
		want []string
	}{
		{Options{Patterns: []string{"(abc|abcabc)"}, Syntax: Extended}, "xabcabcx", []string{"abcabc"}},
		{Options{Patterns: []string{"a*"}}, "baaac", []string{"aaa"}},
		{Options{Patterns: []string{"foo"}, Word: true}, "foobar foo_x foo", []string{"foo"}},
		{Options{Patterns: []string{"foo.*"}, Syntax: Extended, Word: true}, "foo bar-baz_", []string{"foo bar-baz_"}},
		{Options{Patterns: []string{"foo.*a"}, Syntax: Extended, Word: true}, "foo bar ba baz", []string{"foo bar ba"}},
		{Options{Patterns: []string{"straße"}, IgnoreCase: true}, "STRAßE straße", []string{"STRAßE", "straße"}},
		{Options{Patterns: []string{"k"}, IgnoreCase: true}, "k K \u212a", []string{"k", "K"}},
		{Options{Patterns: []string{"x.y"}}, "x\xffy xzy", []string{"xzy"}},
		{Options{Patterns: []string{"\xff"}, Syntax: Fixed}, "a\xffb", []string{"\xff"}},
		{Options{Patterns: []string{`\<b`}}, "ab b éb", []string{"b"}},
		{Options{Patterns: []string{"ab", "b"}, Syntax: Fixed, Line: true}, "ab", []string{"ab"}},
	}
	for _, tt := range tests {
		m := mustCompile(t, tt.o)
		var got []string
		for _, loc := range m.FindAll([]byte(tt.line), nil) {
			got = append(got, tt.line[loc[0]:loc[1]])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v on %q: got %q, want %q", tt.o, tt.line, got, tt.want)
		}
	}
}

func TestNext(t *testing.T) {
	buf := []byte("alpha\nbeta\n\nGamma delta\nepsilon")
	tests := []struct {
		o     Options
		lines []string
	}{
		{Options{Patterns: []string{"a"}}, []string{"alpha", "beta", "Gamma delta"}},
		{Options{Patterns: []string{"gamma"}, IgnoreCase: true}, []string{"Gamma delta"}},
		{Options{Patterns: []string{""}}, []string{"alpha", "beta", "", "Gamma delta", "epsilon"}},
		{Options{Patterns: []string{"^$"}}, []string{""}},
		{Options{Patterns: []string{"on$"}}, []string{"epsilon"}},
		{Options{Patterns: []string{"elta", "eta"}, Syntax: Fixed}, []string{"beta", "Gamma delta"}},
		{Options{Patterns: []string{"ALPHA", "EPS"}, Syntax: Fixed, IgnoreCase: true}, []string{"alpha", "epsilon"}},
		{Options{Patterns: []string{"z"}}, nil},
	}
	for _, tt := range tests {
		m := mustCompile(t, tt.o)
		var got []string
		for pos := 0; pos < len(buf); {
			s, e, ok := m.Next(buf[pos:])
			if !ok {
				break
			}
			got = append(got, string(buf[pos+s:pos+e]))
			pos += e + 1
		}
		if !slices.Equal(got, tt.lines) {
			t.Errorf("%+v: got %q, want %q", tt.o, got, tt.lines)
		}
	}
}

// TestNextLongBuffer checks Next against Match on buffers much longer
// than the prefilter's first search windows, with literal sets of one and
// of several literals (matches far apart, then close together).
func TestNextLongBuffer(t *testing.T) {
	var b strings.Builder
	for i := range 6000 {
		switch {
		case i%997 == 0:
			fmt.Fprintf(&b, "line %d has code 123 and KEY\n", i)
		case i > 5000 && i%7 == 0:
			fmt.Fprintf(&b, "dense %d with 456 and key\n", i)
		default:
			b.WriteString("filler text without the things we look for\n")
		}
	}
	buf := []byte(b.String())
	for _, o := range []Options{
		{Patterns: []string{"[0-9]{3,}"}, Syntax: Extended},
		{Patterns: []string{"KEY", "456"}, Syntax: Fixed},
		{Patterns: []string{"key"}, IgnoreCase: true},
		{Patterns: []string{"code|dense"}, Syntax: Extended},
	} {
		m := mustCompile(t, o)
		var want, got []string
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if m.Match([]byte(line)) {
				want = append(want, line)
			}
		}
		for pos := 0; pos < len(buf); {
			s, e, ok := m.Next(buf[pos:])
			if !ok {
				break
			}
			got = append(got, string(buf[pos+s:pos+e]))
			pos += e + 1
		}
		if len(want) < 10 || !slices.Equal(got, want) {
			t.Errorf("%+v: Next found %d lines, Match %d", o, len(got), len(want))
		}
	}
}

func TestLiterals(t *testing.T) {
	tests := []struct {
		o    Options
		want []string // nil: ok == false
	}{
		{Options{Patterns: []string{"hello"}}, []string{"hello"}},
		{Options{Patterns: []string{"foo.*bar"}}, []string{"bar", "foo"}[1:]},
		{Options{Patterns: []string{"colou\\?r"}}, []string{"color", "colour"}},
		{Options{Patterns: []string{"foo|barbaz"}, Syntax: Extended}, []string{"barbaz", "foo"}},
		{Options{Patterns: []string{"[a-z]+ing"}, Syntax: Extended}, []string{"ing"}},
		{Options{Patterns: []string{"a", "bc"}, Syntax: Fixed}, []string{"a", "bc"}},
		{Options{Patterns: []string{"x*"}}, nil},
		{Options{Patterns: []string{""}}, nil},
		{Options{Patterns: []string{"."}}, nil},
		{Options{Patterns: []string{"[a-z]+"}, Syntax: Extended}, nil},
		{Options{Patterns: []string{"abc", ".*"}}, nil},
		{Options{Patterns: []string{"Find"}, IgnoreCase: true}, []string{"find", "fınd"}},
		{Options{Patterns: []string{"word"}, Word: true}, []string{"word"}},
	}
	for _, tt := range tests {
		m := mustCompile(t, tt.o)
		lits, fold, ok := m.Literals()
		if ok != (tt.want != nil) || ok && !slices.Equal(lits, tt.want) || fold != tt.o.IgnoreCase && ok {
			t.Errorf("%+v: Literals() = %q, %v, %v; want %q", tt.o, lits, fold, ok, tt.want)
		}
	}
}

func TestRequiredLiteralsGoSyntax(t *testing.T) {
	tests := []struct {
		re   string
		want []string
	}{
		{`hello`, []string{"hello"}},
		{`(?i)1234x`, []string{"1234X", "1234x"}},
		{`a(b|c)d`, []string{"abd", "acd"}},
		{`\d+`, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}},
		{`[a-z]+`, nil},
		{`foo\nbar`, nil}, // no line contains '\n'; no literal set either
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		lits, ok := RequiredLiterals(re)
		if ok != (tt.want != nil) || ok && !slices.Equal(lits, tt.want) {
			t.Errorf("%s: got %q, %v; want %q", tt.re, lits, ok, tt.want)
		}
	}
}

func TestTranslate(t *testing.T) {
	tests := []struct {
		expr string
		syn  Syntax
		want string
	}{
		{`a\{2\}`, Basic, `a{2}`},
		{`a\|b*`, Basic, `a|b*`},
		{`a|b+`, Basic, `a\|b\+`},
		{`^*x$`, Basic, `\A\*x\z`},
		{`a.c`, Fixed, `a\.c`},
		{`a{,2}`, Extended, `a{0,2}`},
		{`a{`, Extended, `a\{`},
	}
	for _, tt := range tests {
		got, err := Translate(tt.expr, tt.syn)
		if err != nil || got != tt.want {
			t.Errorf("Translate(%q, %v) = %q, %v; want %q", tt.expr, tt.syn, got, err, tt.want)
		}
	}
	if _, err := Translate(`\<a`, Basic); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Translate(\\<a): %v, want ErrUnsupported", err)
	}
}

func TestWarnings(t *testing.T) {
	m := mustCompile(t, Options{Patterns: []string{"*a"}, Syntax: Extended})
	if w := m.Warnings(); !slices.Equal(w, []string{"* at start of expression"}) {
		t.Errorf("Warnings() = %q", w)
	}
}

func TestLongLineAndInvalid(t *testing.T) {
	line := bytes.Repeat([]byte("ab\xff"), 10000)
	m := mustCompile(t, Options{Patterns: []string{`\<b`}})
	if m.Match(line) {
		t.Error("\\<b matched inside words")
	}
	m = mustCompile(t, Options{Patterns: []string{`b.a`}})
	if m.Match(line) {
		t.Error(". matched an invalid byte")
	}
	m = mustCompile(t, Options{Patterns: []string{"b\xffa"}})
	if !m.Match(line) {
		t.Error("an invalid pattern byte did not match itself")
	}
}

// checkLiterals verifies the Literals property for one line.
func checkLiterals(t *testing.T, m *Matcher, line []byte) {
	lits, fold, ok := m.Literals()
	if !ok || !m.Match(line) {
		return
	}
	for _, l := range lits {
		if l == "" || strings.Contains(l, "\n") || !utf8.ValidString(l) {
			t.Fatalf("bad literal %q", l)
		}
		if fold && containsFold(line, l) || !fold && bytes.Contains(line, []byte(l)) {
			return
		}
	}
	t.Fatalf("line %q matches but contains none of %q (fold %v)", line, lits, fold)
}

// containsFold reports whether s contains lit under simple folding.
func containsFold(s []byte, lit string) bool {
	for i := 0; i < len(s); i++ {
		j, k := i, 0
		for k < len(lit) && j < len(s) {
			a, wa := utf8.DecodeRuneInString(lit[k:])
			b, wb := decodeRune(s[j:])
			if !equalFold(a, b) {
				break
			}
			j, k = j+wb, k+wa
		}
		if k == len(lit) {
			return true
		}
	}
	return false
}

func TestLiteralsProperty(t *testing.T) {
	for _, syn := range []Syntax{Basic, Extended} {
		for _, pat := range corpusPatterns {
			for _, ic := range []bool{false, true} {
				m, err := Compile(Options{Patterns: []string{pat}, Syntax: syn, IgnoreCase: ic})
				if err != nil {
					continue
				}
				for _, l := range corpusLines {
					checkLiterals(t, m, []byte(l))
				}
			}
		}
	}
}

func FuzzTranslate(f *testing.F) {
	for _, p := range corpusPatterns {
		f.Add(p, uint8(0))
		f.Add(p, uint8(1))
	}
	f.Fuzz(func(t *testing.T, expr string, syn uint8) {
		s := Syntax(syn % 3)
		src, err := Translate(expr, s)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if _, err := syntax.Parse(src, syntax.Perl); err != nil {
			t.Fatalf("Translate(%q) = %q does not parse: %v", expr, src, err)
		}
		if _, err := Compile(Options{Patterns: []string{expr}, Syntax: s}); err != nil {
			t.Fatalf("Translate(%q) succeeded but Compile failed: %v", expr, err)
		}
	})
}

func FuzzLiterals(f *testing.F) {
	for i, p := range corpusPatterns {
		f.Add(p, corpusLines[i%len(corpusLines)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, pat, line string, flags uint8) {
		if strings.Contains(pat, "\n") || strings.Contains(line, "\n") || len(pat) > 64 || len(line) > 256 {
			return
		}
		o := Options{Patterns: []string{pat}, Syntax: Syntax(flags % 3), IgnoreCase: flags&4 != 0, Word: flags&8 != 0, Line: flags&16 != 0}
		m, err := Compile(o)
		if err != nil {
			return
		}
		checkLiterals(t, m, []byte(line))
		// Next over a buffer agrees with Match line by line.
		buf := []byte("zz\n" + line + "\nzz")
		s, e, ok := m.Next(buf)
		want := -1
		for i, l := range strings.Split(string(buf), "\n") {
			if m.Match([]byte(l)) {
				want = i
				break
			}
		}
		if ok != (want >= 0) || ok && bytes.Count(buf[:s], []byte("\n")) != want {
			t.Fatalf("Next(%q) = %d,%d,%v; first matching line %d", buf, s, e, ok, want)
		}
		_ = m.FindAll([]byte(line), nil)
	})
}
