package gnu

import (
	"unicode"
	"unicode/utf8"
)

// fnmatch reports whether name matches the shell pattern pat as glibc's
// fnmatch(3) does without flags (find's -name and -path): '*' and '?'
// match any character including '/' and a leading '.', '[...]' is a
// bracket expression ('!' or '^' negates; ranges; [:alpha:]-style
// classes), '\' quotes the next character, and a '[' without its ']' is
// an ordinary character. With fold, letters match either case
// (FNM_CASEFOLD, for -iname and -ipath); character classes test the
// name's own character, unfolded, as glibc's do.
//
// Like GNU find in a UTF-8 locale, a name also matches when the pattern
// matches it byte by byte ("??" matches "é", two bytes), where bytes over
// 0x7f belong to no class and fold to nothing.
func fnmatch(pat, name string, fold bool) bool {
	return match(pat, name, fold, false) || match(pat, name, fold, true)
}

// decode returns the character at the start of s: a rune, or with bytes
// one byte.
func decode(s string, bytes bool) (rune, int) {
	if bytes {
		return rune(s[0]), 1
	}
	return utf8.DecodeRuneInString(s)
}

func match(pat, name string, fold, bytes bool) bool {
	// Iterative matching with one backtrack point for the last '*', which
	// is enough for patterns without FNM_PATHNAME.
	p, n := 0, 0
	starP, starN := -1, -1
	for n < len(name) {
		if p < len(pat) {
			switch pat[p] {
			case '*':
				starP, starN = p, n
				p++
				continue
			case '?':
				_, w := decode(name[n:], bytes)
				p++
				n += w
				continue
			case '[':
				r, w := decode(name[n:], bytes)
				if ok, end, valid := matchBracket(pat, p, r, fold, bytes); valid {
					if ok {
						p = end
						n += w
						continue
					}
				} else if r == '[' {
					p++
					n += w
					continue
				}
			default:
				pc, pw := decode(pat[p:], bytes)
				if pc == '\\' && p+1 < len(pat) {
					pc, pw = decode(pat[p+1:], bytes)
					pw++
				}
				r, w := decode(name[n:], bytes)
				if pc == r || (fold && equalFold(pc, r, bytes)) {
					p += pw
					n += w
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '*' take one more character.
		_, w := decode(name[starN:], bytes)
		starN += w
		p, n = starP+1, starN
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

func equalFold(a, b rune, bytes bool) bool {
	if bytes && (a >= utf8.RuneSelf || b >= utf8.RuneSelf) {
		return a == b
	}
	return unicode.ToLower(a) == unicode.ToLower(b) || unicode.ToUpper(a) == unicode.ToUpper(b)
}

// folds returns r and, with fold, its other cases (none for a byte over
// 0x7f).
func folds(r rune, fold, bytes bool) []rune {
	if !fold || (bytes && r >= utf8.RuneSelf) {
		return []rune{r}
	}
	return []rune{r, unicode.ToLower(r), unicode.ToUpper(r)}
}

// matchBracket matches r against the bracket expression at pat[p] ('[').
// valid is false when the expression has no closing ']', in which case
// '[' is an ordinary character; end is the index after the ']'.
func matchBracket(pat string, p int, r rune, fold, bytes bool) (ok bool, end int, valid bool) {
	i := p + 1
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	matched := false
	first := true
	for {
		if i >= len(pat) {
			return false, 0, false
		}
		c := pat[i]
		if c == ']' && !first {
			i++
			break
		}
		first = false
		if c == '[' && i+1 < len(pat) && pat[i+1] == ':' {
			if class, n := classAt(pat[i:]); n > 0 {
				if class(r) && !(bytes && r >= utf8.RuneSelf) {
					matched = true
				}
				i += n
				continue
			}
		}
		lo, w := decode(pat[i:], bytes)
		if lo == '\\' && i+1 < len(pat) {
			lo, w = decode(pat[i+1:], bytes)
			w++
		}
		i += w
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			var w2 int
			hi, w2 = decode(pat[i+1:], bytes)
			if hi == '\\' && i+2 < len(pat) {
				hi, w2 = decode(pat[i+2:], bytes)
				w2++
			}
			i += 1 + w2
		}
		for _, c := range folds(r, fold, bytes) {
			if inRange(c, lo, hi) {
				matched = true
			}
		}
	}
	return matched != negate, i, true
}

func inRange(r, lo, hi rune) bool { return lo <= r && r <= hi }

// classAt parses "[:name:]" at the start of s and returns its test and
// length; n is 0 when s does not start with a known class.
func classAt(s string) (func(rune) bool, int) {
	classes := map[string]func(rune) bool{
		"alnum":  func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) },
		"alpha":  unicode.IsLetter,
		"blank":  func(r rune) bool { return r == ' ' || r == '\t' },
		"cntrl":  unicode.IsControl,
		"digit":  func(r rune) bool { return '0' <= r && r <= '9' },
		"graph":  func(r rune) bool { return unicode.IsGraphic(r) && !unicode.IsSpace(r) },
		"lower":  unicode.IsLower,
		"print":  unicode.IsPrint,
		"punct":  func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) },
		"space":  unicode.IsSpace,
		"upper":  unicode.IsUpper,
		"xdigit": func(r rune) bool { return r < 128 && isHex(byte(r)) },
	}
	for name, f := range classes {
		tok := "[:" + name + ":]"
		if len(s) >= len(tok) && s[:len(tok)] == tok {
			return f, len(tok)
		}
	}
	return nil, 0
}
