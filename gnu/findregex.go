package gnu

import (
	"regexp"
	"strings"

	"github.com/chromafs/chromafs/regex"
)

// findRegexTypes are -regextype's names, in GNU find's order, and the
// syntax each reads (emacs: find's default).
var findRegexTypes = []struct {
	name string
	syn  string // "emacs", "basic" or "extended"
}{
	{"findutils-default", "emacs"}, {"ed", "basic"}, {"emacs", "emacs"}, {"gnu-awk", "extended"},
	{"grep", "basic"}, {"posix-awk", "extended"}, {"awk", "extended"}, {"posix-basic", "basic"},
	{"posix-egrep", "extended"}, {"egrep", "extended"}, {"posix-extended", "extended"},
	{"posix-minimal-basic", "basic"}, {"sed", "basic"},
}

// regexType is -regextype TYPE, which applies to the -regex and -iregex
// after it.
func regexType(p *findParser, _, v string) (node, error) {
	for _, t := range findRegexTypes {
		if t.name == v {
			p.regexSyntax = t.syn
			return yes, nil
		}
	}
	names := make([]string, len(findRegexTypes))
	for i, t := range findRegexTypes {
		names[i] = localeQuote(t.name)
	}
	return nil, errf("Unknown regular expression type %s; valid types are %s.", localeQuote(v), strings.Join(names, ", "))
}

// regexTest is -regex and -iregex: the pattern matches the whole path.
func regexTest(p *findParser, pred, v string) (node, error) {
	syn := p.regexSyntax
	if syn == "" {
		syn = "emacs"
	}
	expr, s := v, regex.Extended
	switch syn {
	case "emacs":
		expr = emacsToERE(v)
	case "basic":
		s = regex.Basic
	}
	re, err := regex.Translate(expr, s)
	if err != nil {
		return nil, errf("%v", err)
	}
	if pred == "-iregex" {
		re = "(?i)" + re
	}
	rx, err := regexp.Compile(`\A(?:` + re + `)\z`)
	if err != nil {
		return nil, errf("%v", err)
	}
	return test(func(_ *finder, vi *visit) bool { return rx.MatchString(vi.path) }), nil
}

// emacsToERE rewrites an Emacs regular expression (find's default
// syntax: \( \) \| group and alternate, + and ? repeat, braces are
// literal) as a POSIX extended one. Bracket expressions keep POSIX's
// [:class:], which GNU find's Emacs syntax reads as members.
func emacsToERE(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '[':
			// A bracket expression is copied as it is, up to its "]".
			j := i + 1
			if j < len(s) && s[j] == '^' {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++
			}
			for j < len(s) && s[j] != ']' {
				if s[j] == '[' && j+1 < len(s) && strings.IndexByte(":.=", s[j+1]) >= 0 {
					if k := strings.Index(s[j+2:], string(s[j+1])+"]"); k >= 0 {
						j += k + 4
						continue
					}
				}
				j++
			}
			if j >= len(s) {
				b.WriteString(s[i:])
				return b.String()
			}
			b.WriteString(s[i : j+1])
			i = j
		case c == '\\' && i+1 < len(s):
			i++
			switch n := s[i]; n {
			case '(', ')', '|':
				b.WriteByte(n)
			case '{', '}':
				b.WriteByte('\\')
				b.WriteByte(n)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case strings.IndexByte("(){}|", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
