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
// (FNM_CASEFOLD, for -iname and -ipath).
func fnmatch(pat, name string, fold bool) bool {
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
				_, w := utf8.DecodeRuneInString(name[n:])
				p++
				n += w
				continue
			case '[':
				r, w := utf8.DecodeRuneInString(name[n:])
				if ok, end, valid := matchBracket(pat, p, r, fold); valid {
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
				pc, pw := utf8.DecodeRuneInString(pat[p:])
				if pc == '\\' && p+1 < len(pat) {
					pc, pw = utf8.DecodeRuneInString(pat[p+1:])
					pw++
				}
				r, w := utf8.DecodeRuneInString(name[n:])
				if pc == r || (fold && unicode.SimpleFold(pc) != pc && equalFold(pc, r)) {
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
		_, w := utf8.DecodeRuneInString(name[starN:])
		starN += w
		p, n = starP+1, starN
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

func equalFold(a, b rune) bool {
	return unicode.ToLower(a) == unicode.ToLower(b) || unicode.ToUpper(a) == unicode.ToUpper(b)
}

// matchBracket matches r against the bracket expression at pat[p] ('[').
// valid is false when the expression has no closing ']', in which case
// '[' is an ordinary character; end is the index after the ']'.
func matchBracket(pat string, p int, r rune, fold bool) (ok bool, end int, valid bool) {
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
				if class(r) || (fold && (class(unicode.ToLower(r)) || class(unicode.ToUpper(r)))) {
					matched = true
				}
				i += n
				continue
			}
		}
		lo, w := utf8.DecodeRuneInString(pat[i:])
		if lo == '\\' && i+1 < len(pat) {
			lo, w = utf8.DecodeRuneInString(pat[i+1:])
			w++
		}
		i += w
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			var w2 int
			hi, w2 = utf8.DecodeRuneInString(pat[i+1:])
			if hi == '\\' && i+2 < len(pat) {
				hi, w2 = utf8.DecodeRuneInString(pat[i+2:])
				w2++
			}
			i += 1 + w2
		}
		if inRange(r, lo, hi) || (fold && (inRange(unicode.ToLower(r), lo, hi) || inRange(unicode.ToUpper(r), lo, hi))) {
			matched = true
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
		"punct":  unicode.IsPunct,
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
