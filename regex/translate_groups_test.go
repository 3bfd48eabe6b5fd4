package regex

import (
	"errors"
	"regexp"
	"testing"
)

func TestTranslateGroups(t *testing.T) {
	for _, tc := range []struct {
		expr string
		syn  Syntax
		fold bool
		text string
		want []string // whole match, then groups; nil: no match
	}{
		{`\(a*\)b\(c\)`, Basic, false, "xaabc", []string{"aabc", "aa", "c"}},
		{`(a|b)+(c)`, Extended, false, "abbc", []string{"abbc", "b", "c"}},
		{`\(x\)*y`, Basic, false, "y", []string{"y", ""}},
		{`a.b`, Basic, false, "a\nb", []string{"a\nb"}},
		{`a[^x]b`, Basic, false, "a\nb", []string{"a\nb"}},
		{`^ab$`, Basic, false, "ab", []string{"ab"}},
		{`^b`, Basic, false, "a\nb", nil},
		{`HeLLo`, Basic, true, "say hello", []string{"hello"}},
		{`[[:upper:]]\+`, Basic, true, "abc", []string{"abc"}},
		{`(`, Basic, false, "(", []string{"("}},
		{`a\{2\}`, Basic, false, "aaa", []string{"aa"}},
	} {
		src, err := TranslateGroups(tc.expr, tc.syn, tc.fold)
		if err != nil {
			t.Errorf("TranslateGroups(%q): %v", tc.expr, err)
			continue
		}
		re := regexp.MustCompile(src)
		re.Longest()
		m := re.FindStringSubmatch(tc.text)
		if len(m) != len(tc.want) || m == nil != (tc.want == nil) {
			t.Errorf("%q → %q on %q: got %q, want %q", tc.expr, src, tc.text, m, tc.want)
			continue
		}
		for i := range m {
			if m[i] != tc.want[i] {
				t.Errorf("%q → %q on %q: got %q, want %q", tc.expr, src, tc.text, m, tc.want)
				break
			}
		}
	}
	// Translate itself keeps non-capturing groups and '.' off newlines.
	src, err := Translate(`\(a\).`, Basic)
	if err != nil {
		t.Fatal(err)
	}
	if re := regexp.MustCompile(src); re.NumSubexp() != 0 || re.MatchString("a\n") {
		t.Errorf("Translate changed: %q", src)
	}
	for _, bad := range []string{`\(a\)\1`, `a\{1`} {
		if _, err := TranslateGroups(bad, Basic, false); err == nil {
			t.Errorf("TranslateGroups(%q): no error", bad)
		}
	}
	if _, err := TranslateGroups(`\(a\)\1`, Basic, false); !errors.Is(err, ErrUnsupported) {
		t.Errorf("back-reference: %v, want ErrUnsupported", err)
	}
}
