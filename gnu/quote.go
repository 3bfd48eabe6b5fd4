package gnu

import (
	"fmt"
	"strings"
)

// quote quotes a name as coreutils' diagnostics do (quoteaf, the
// shell-escape-always style): 'name', "it's", or 'a'$'\n”b' for control
// characters.
func quote(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		if !strings.Contains(s, "'") {
			return "'" + s + "'"
		}
		if !strings.ContainsAny(s, "\"$`\\!") {
			return `"` + s + `"`
		}
	}
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < ' ' || c == 0x7f:
			if inQuote {
				b.WriteByte('\'')
				inQuote = false
			}
			fmt.Fprintf(&b, "$'\\%s'", ctlEscape(c))
		case c == '\'':
			if inQuote {
				b.WriteByte('\'')
				inQuote = false
			}
			b.WriteString(`\'`)
		default:
			if !inQuote {
				b.WriteByte('\'')
				inQuote = true
			}
			b.WriteByte(c)
		}
	}
	if inQuote {
		b.WriteByte('\'')
	}
	return b.String()
}

func ctlEscape(c byte) string {
	switch c {
	case '\a':
		return "a"
	case '\b':
		return "b"
	case '\t':
		return "t"
	case '\n':
		return "n"
	case '\v':
		return "v"
	case '\f':
		return "f"
	case '\r':
		return "r"
	}
	return fmt.Sprintf("%03o", c)
}

// localeQuote quotes a name as findutils' diagnostics do in a UTF-8
// locale: ‘name’.
func localeQuote(s string) string { return "‘" + s + "’" }

// quotef quotes a name as coreutils' quotef does (the shell-escape style,
// quoting only when needed): nope, 'no pe', 'a:b'.
func quotef(s string) string {
	if s == "" {
		return "''"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < ' ' || c == 0x7f:
			return quote(s)
		case strings.IndexByte(" !\"$&'()*;<=>?[\\]^`|:", c) >= 0:
			return quote(s)
		case (c == '#' || c == '~') && i == 0:
			return quote(s)
		case (c == '{' || c == '}') && len(s) == 1:
			return quote(s)
		}
	}
	return s
}
