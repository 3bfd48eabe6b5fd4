package regex

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
)

// goString prints re, as built by the parser (or for Perl patterns), in
// Go regexp syntax.
// (syntax.Regexp.String works too but is slow for the large classes of
// the C.UTF-8 locale.)
func goString(re *syntax.Regexp) string {
	var b strings.Builder
	writeGo(&b, re)
	return b.String()
}

func writeGo(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteString(`(?i:`)
			defer b.WriteByte(')')
		}
		for _, r := range re.Rune {
			writeRune(b, r, false)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			b.WriteString(`[^\x00-\x{10FFFF}]`)
			return
		}
		b.WriteByte('[')
		for i := 0; i < len(re.Rune); i += 2 {
			writeRune(b, re.Rune[i], true)
			if re.Rune[i+1] != re.Rune[i] {
				b.WriteByte('-')
				writeRune(b, re.Rune[i+1], true)
			}
		}
		b.WriteByte(']')
	case syntax.OpAnyCharNotNL:
		b.WriteString(`(?-s:.)`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine, syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndLine, syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		if re.Cap > 0 {
			b.WriteByte('(')
			writeGo(b, re.Sub[0])
			b.WriteByte(')')
			return
		}
		b.WriteString(`(?:`)
		writeGo(b, re.Sub[0])
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		sub := re.Sub[0]
		if sub.Op > syntax.OpCapture || sub.Op == syntax.OpLiteral && len(sub.Rune) > 1 || sub.Op == syntax.OpEmptyMatch ||
			sub.Op >= syntax.OpBeginLine && sub.Op <= syntax.OpNoWordBoundary {
			b.WriteString(`(?:`)
			writeGo(b, sub)
			b.WriteByte(')')
		} else {
			writeGo(b, sub)
		}
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			if re.Max == re.Min {
				fmt.Fprintf(b, "{%d}", re.Min)
			} else if re.Max < 0 {
				fmt.Fprintf(b, "{%d,}", re.Min)
			} else {
				fmt.Fprintf(b, "{%d,%d}", re.Min, re.Max)
			}
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('?')
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if s.Op == syntax.OpAlternate {
				b.WriteString(`(?:`)
				writeGo(b, s)
				b.WriteByte(')')
			} else {
				writeGo(b, s)
			}
		}
	case syntax.OpAlternate:
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			writeGo(b, s)
		}
	default:
		b.WriteString(re.String())
	}
}

// writeRune writes r as a literal (inside a class when class is set).
func writeRune(b *strings.Builder, r rune, class bool) {
	switch {
	case r < 0x20 || r == 0x7f || r > 0xffff || r >= 0x80 && !strconv.IsPrint(r):
		fmt.Fprintf(b, `\x{%x}`, r)
	case r < 0x80 && strings.ContainsRune(`\.+*?()|[]{}^$-`, r):
		b.WriteByte('\\')
		b.WriteRune(r)
	default:
		b.WriteRune(r)
	}
}
