package awk

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/regex"
)

// kind is a value's type. Input strings (fields, getline, -v, ARGV,
// ENVIRON, split's elements) are strnums: they compare as numbers when
// they look like numbers.
type kind uint8

const (
	kUninit kind = iota
	kNum
	kStr
	kStrnum
)

type value struct {
	k kind
	s string
	n float64
}

func num(n float64) value   { return value{k: kNum, n: n} }
func str(s string) value    { return value{k: kStr, s: s} }
func strnum(s string) value { return value{k: kStrnum, s: s} }
func boolean(b bool) value  { return num(b2f(b)) }
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// strToNum converts a string to a number as awk does: leading blanks,
// an optional sign, the longest decimal prefix; "+inf", "-nan" and the
// like (with their sign) as gawk reads them; else 0.
func strToNum(s string) float64 {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	neg := false
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		neg = s[j] == '-'
		j++
		if len(s)-j >= 3 {
			switch strings.ToLower(s[j : j+3]) {
			case "inf":
				if neg {
					return math.Inf(-1)
				}
				return math.Inf(1)
			case "nan":
				if neg {
					return negNaN
				}
				return math.NaN()
			}
		}
	}
	n := numPrefix(s[j:], false)
	if n == 0 {
		return 0
	}
	f, err := strconv.ParseFloat(s[j:j+n], 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return 0
		}
	}
	if neg {
		f = -f
	}
	return f
}

var negNaN = math.Copysign(math.NaN(), -1)

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// looksNumeric reports whether the whole of s (blanks around allowed)
// is a number.
func looksNumeric(s string) bool {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	end := len(s)
	for end > i && isBlank(s[end-1]) {
		end--
	}
	if i == end {
		return false
	}
	t := s[i:end]
	if t[0] == '+' || t[0] == '-' {
		t = t[1:]
		if len(t) == 3 {
			l := strings.ToLower(t)
			if l == "inf" || l == "nan" {
				return true
			}
		}
	}
	n := numPrefix(t, false)
	return n > 0 && n == len(t)
}

// isNum reports whether v compares as a number.
func (v value) isNum() bool {
	switch v.k {
	case kNum, kUninit:
		return true
	case kStrnum:
		return looksNumeric(v.s)
	}
	return false
}

// formatNum renders n with format (CONVFMT or OFMT): integers as
// integers, the others with the format.
func formatNum(n float64, format string) string {
	if n == math.Trunc(n) {
		if n >= -1e15 && n <= 1e15 {
			return strconv.FormatInt(int64(n), 10)
		}
		if math.IsInf(n, 0) {
			return infText(n)
		}
		return bigInt(n)
	}
	if math.IsNaN(n) {
		return nanText(n)
	}
	if format == "%.6g" {
		return cFormatG(n, 6, false, false)
	}
	s, err := sprintf(format, []value{num(n)}, nil)
	if err != nil {
		return cFormatG(n, 6, false, false)
	}
	return s
}

func bigInt(n float64) string {
	return new(big.Float).SetFloat64(n).Text('f', 0)
}

func infText(n float64) string {
	if n < 0 {
		return "-inf"
	}
	return "+inf"
}

func nanText(n float64) string {
	if math.Signbit(n) {
		return "-nan"
	}
	return "+nan"
}

// cFormatG formats as C's %g with a precision.
func cFormatG(n float64, prec int, upper, alt bool) string {
	if prec == 0 {
		prec = 1
	}
	f := "%." + strconv.Itoa(prec)
	if alt {
		f = "%#." + strconv.Itoa(prec)
	}
	if upper {
		f += "G"
	} else {
		f += "g"
	}
	return fmt.Sprintf(f, n)
}

// translateERE turns an awk ERE into Go syntax with package regex's GNU
// translation.
func translateERE(src string, fold bool) (string, error) {
	marked, hasMarks := markGawkOps(src)
	s, err := regex.TranslateGroups(marked, regex.Extended, fold)
	if err == nil && hasMarks {
		s = strings.NewReplacer(`\x{e000}`, `\b`, `\x{e001}`, `\B`, `\x{e002}`, `\A`, `\x{e003}`, `\z`).Replace(s)
	}
	if err != nil {
		var pe *regex.Error
		if errors.As(err, &pe) {
			return "", fmt.Errorf("%w: %s: /%s/", errRegexSyntax, pe.Msg, src)
		}
		return "", fmt.Errorf("%w: /%s/: %v", errRegexSyntax, src, err)
	}
	return s, nil
}

// markGawkOps replaces gawk's regex operators that package regex does
// not translate, outside bracket expressions, by private-use characters
// that translateERE turns into Go's: \y \< \> become \b (Go's ASCII
// word boundary, where gawk's words include every letter), \B \B, \`
// \A and \' \z.
func markGawkOps(src string) (string, bool) {
	if !strings.ContainsRune(src, '\\') {
		return src, false
	}
	var b strings.Builder
	marked := false
	inBracket := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inBracket:
			if c == '[' && i+1 < len(src) && (src[i+1] == ':' || src[i+1] == '.' || src[i+1] == '=') {
				if end := strings.Index(src[i+2:], string(src[i+1])+"]"); end >= 0 {
					b.WriteString(src[i : i+2+end+2])
					i += 1 + end + 2
					continue
				}
			}
			if c == ']' {
				inBracket = false
			}
			b.WriteByte(c)
		case c == '[':
			inBracket = true
			b.WriteByte(c)
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '\\' && i+1 < len(src):
			var r rune
			switch src[i+1] {
			case 'y', '<', '>':
				r = '\ue000'
			case 'B':
				r = '\ue001'
			case '`':
				r = '\ue002'
			case '\'':
				r = '\ue003'
			}
			if r != 0 {
				b.WriteRune(r)
				marked = true
			} else {
				b.WriteByte(c)
				b.WriteByte(src[i+1])
			}
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), marked
}
