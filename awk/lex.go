package awk

import (
	"fmt"
	"strconv"
	"strings"
)

// tok is a token kind.
type tok int

const (
	tEOF tok = iota
	tNewline
	tLbrace
	tRbrace
	tLparen
	tRparen
	tLbracket
	tRbracket
	tSemi
	tComma
	tAdd
	tSub
	tMul
	tDiv
	tMod
	tPow
	tNot
	tGT
	tLT
	tGE
	tLE
	tEQ
	tNE
	tMatch
	tNoMatch
	tAnd
	tOr
	tQuestion
	tColon
	tAssign
	tAddAssign
	tSubAssign
	tMulAssign
	tDivAssign
	tModAssign
	tPowAssign
	tIncr
	tDecr
	tDollar
	tAppend // >>
	tPipe
	tNumber
	tString
	tRegex
	tName
	tFuncName // a name directly followed by '('
	tBuiltin  // a builtin function's name
	// keywords
	tBEGIN
	tEND
	tFunction
	tIf
	tElse
	tWhile
	tFor
	tDo
	tBreak
	tContinue
	tNext
	tNextfile
	tExit
	tReturn
	tDelete
	tIn
	tGetline
	tPrint
	tPrintf
)

var tokNames = map[tok]string{
	tEOF: "end of file", tNewline: "newline", tLbrace: "{", tRbrace: "}", tLparen: "(", tRparen: ")",
	tLbracket: "[", tRbracket: "]", tSemi: ";", tComma: ",", tAdd: "+", tSub: "-", tMul: "*", tDiv: "/",
	tMod: "%", tPow: "^", tNot: "!", tGT: ">", tLT: "<", tGE: ">=", tLE: "<=", tEQ: "==", tNE: "!=",
	tMatch: "~", tNoMatch: "!~", tAnd: "&&", tOr: "||", tQuestion: "?", tColon: ":", tAssign: "=",
	tAddAssign: "+=", tSubAssign: "-=", tMulAssign: "*=", tDivAssign: "/=", tModAssign: "%=", tPowAssign: "^=",
	tIncr: "++", tDecr: "--", tDollar: "$", tAppend: ">>", tPipe: "|", tNumber: "number", tString: "string",
	tRegex: "regular expression", tName: "name", tFuncName: "function name", tBuiltin: "builtin function",
	tBEGIN: "BEGIN", tEND: "END", tFunction: "function", tIf: "if", tElse: "else", tWhile: "while", tFor: "for",
	tDo: "do", tBreak: "break", tContinue: "continue", tNext: "next", tNextfile: "nextfile", tExit: "exit",
	tReturn: "return", tDelete: "delete", tIn: "in", tGetline: "getline", tPrint: "print", tPrintf: "printf",
}

func (t tok) String() string {
	if s, ok := tokNames[t]; ok {
		return s
	}
	return fmt.Sprintf("token %d", int(t))
}

var keywords = map[string]tok{
	"BEGIN": tBEGIN, "END": tEND, "function": tFunction, "func": tFunction, "if": tIf, "else": tElse,
	"while": tWhile, "for": tFor, "do": tDo, "break": tBreak, "continue": tContinue, "next": tNext,
	"nextfile": tNextfile, "exit": tExit, "return": tReturn, "delete": tDelete, "in": tIn,
	"getline": tGetline, "print": tPrint, "printf": tPrintf,
}

// builtin functions
const (
	fLength = iota
	fSubstr
	fIndex
	fSplit
	fSub
	fGsub
	fMatch
	fSprintf
	fTolower
	fToupper
	fInt
	fSqrt
	fExp
	fLog
	fSin
	fCos
	fAtan2
	fRand
	fSrand
	fSystem
	fClose
	fFflush
	fGensub
	fAsort
	fAsorti
)

var builtins = map[string]int{
	"length": fLength, "substr": fSubstr, "index": fIndex, "split": fSplit, "sub": fSub, "gsub": fGsub,
	"match": fMatch, "sprintf": fSprintf, "tolower": fTolower, "toupper": fToupper, "int": fInt,
	"sqrt": fSqrt, "exp": fExp, "log": fLog, "sin": fSin, "cos": fCos, "atan2": fAtan2, "rand": fRand,
	"srand": fSrand, "system": fSystem, "close": fClose, "fflush": fFflush,
	"gensub": fGensub, "asort": fAsort, "asorti": fAsorti,
}

// token is one lexed token: its kind, its text (the name, the decoded
// string, the regex source), its number, and where it starts.
type token struct {
	t    tok
	s    string
	n    float64
	pos  int // byte offset in the source
	line int // 1-based
	fn   int // builtin index for tBuiltin
}

// lexer turns the source into tokens up front. Whether '/' starts a
// regex or is a division depends on the token before it: after an
// operand (a name, a number, a string, ')' ']' '$', ++ or --, a builtin
// called without parentheses) it divides; elsewhere it starts a regex.
type lexer struct {
	src  string
	pos  int
	line int
	toks []token
}

func lex(src string) ([]token, *SyntaxError) {
	lx := &lexer{src: src, line: 1}
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		lx.toks = append(lx.toks, t)
		if t.t == tEOF {
			return lx.toks, nil
		}
	}
}

func (lx *lexer) errAt(pos int, msg string) *SyntaxError {
	return &SyntaxError{Src: lx.src, Pos: pos, Msg: msg}
}

// regexAllowed reports whether a '/' here starts a regex.
func (lx *lexer) regexAllowed() bool {
	if len(lx.toks) == 0 {
		return true
	}
	switch lx.toks[len(lx.toks)-1].t {
	case tName, tNumber, tString, tRegex, tRparen, tRbracket, tDollar, tIncr, tDecr, tBuiltin, tFuncName:
		return false
	}
	return true
}

func (lx *lexer) next() (token, *SyntaxError) {
	// skip blanks, comments and line continuations
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			lx.pos++
			continue
		case c == '\\' && lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == '\n':
			lx.pos += 2
			lx.line++
			continue
		case c == '\\' && lx.pos+2 < len(lx.src) && lx.src[lx.pos+1] == '\r' && lx.src[lx.pos+2] == '\n':
			lx.pos += 3
			lx.line++
			continue
		case c == '#':
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
			continue
		}
		break
	}
	start := lx.pos
	t := token{pos: start, line: lx.line}
	if lx.pos >= len(lx.src) {
		t.t = tEOF
		return t, nil
	}
	c := lx.src[lx.pos]
	lx.pos++
	peek := byte(0)
	if lx.pos < len(lx.src) {
		peek = lx.src[lx.pos]
	}
	two := func(next byte, yes, no tok) tok {
		if peek == next {
			lx.pos++
			return yes
		}
		return no
	}
	switch {
	case c == '\n':
		lx.line++
		t.t = tNewline
	case c == '{':
		t.t = tLbrace
	case c == '}':
		t.t = tRbrace
	case c == '(':
		t.t = tLparen
	case c == ')':
		t.t = tRparen
	case c == '[':
		t.t = tLbracket
	case c == ']':
		t.t = tRbracket
	case c == ';':
		t.t = tSemi
	case c == ',':
		t.t = tComma
	case c == '?':
		t.t = tQuestion
	case c == ':':
		t.t = tColon
	case c == '$':
		t.t = tDollar
	case c == '~':
		t.t = tMatch
	case c == '+':
		if peek == '+' {
			lx.pos++
			t.t = tIncr
		} else {
			t.t = two('=', tAddAssign, tAdd)
		}
	case c == '-':
		if peek == '-' {
			lx.pos++
			t.t = tDecr
		} else {
			t.t = two('=', tSubAssign, tSub)
		}
	case c == '*':
		if peek == '*' {
			lx.pos++
			if lx.pos < len(lx.src) && lx.src[lx.pos] == '=' {
				lx.pos++
				t.t = tPowAssign
			} else {
				t.t = tPow
			}
		} else {
			t.t = two('=', tMulAssign, tMul)
		}
	case c == '%':
		t.t = two('=', tModAssign, tMod)
	case c == '^':
		t.t = two('=', tPowAssign, tPow)
	case c == '=':
		t.t = two('=', tEQ, tAssign)
	case c == '!':
		if peek == '=' {
			lx.pos++
			t.t = tNE
		} else {
			t.t = two('~', tNoMatch, tNot)
		}
	case c == '<':
		t.t = two('=', tLE, tLT)
	case c == '>':
		if peek == '>' {
			lx.pos++
			t.t = tAppend
		} else {
			t.t = two('=', tGE, tGT)
		}
	case c == '&':
		if peek != '&' {
			return t, lx.errAt(start, "syntax error")
		}
		lx.pos++
		t.t = tAnd
	case c == '|':
		t.t = two('|', tOr, tPipe)
	case c == '/':
		if lx.regexAllowed() {
			return lx.regex(t)
		}
		t.t = two('=', tDivAssign, tDiv)
	case c == '"':
		return lx.str(t)
	case c >= '0' && c <= '9' || c == '.' && peek >= '0' && peek <= '9':
		lx.pos = start
		if n, end, ok := sourceInt(lx.src[start:]); ok {
			lx.pos = start + end
			t.t, t.n, t.s = tNumber, n, lx.src[start:lx.pos]
			return t, nil
		}
		end := numPrefix(lx.src[start:], false)
		if end == 0 {
			end = 1
		}
		text := lx.src[start : start+end]
		lx.pos = start + end
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			// out of range: ParseFloat returns ±Inf or 0 with the error
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				return t, lx.errAt(start, "malformed number "+text)
			}
		}
		t.t, t.n, t.s = tNumber, n, text
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		for lx.pos < len(lx.src) && isNameByte(lx.src[lx.pos]) {
			lx.pos++
		}
		name := lx.src[start:lx.pos]
		t.s = name
		if kw, ok := keywords[name]; ok {
			t.t = kw
		} else if fn, ok := builtins[name]; ok {
			t.t, t.fn = tBuiltin, fn
		} else if lx.pos < len(lx.src) && lx.src[lx.pos] == '(' {
			t.t = tFuncName
		} else {
			t.t = tName
		}
	default:
		return t, lx.errAt(start, "syntax error")
	}
	return t, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// str lexes a string literal after its opening quote.
func (lx *lexer) str(t token) (token, *SyntaxError) {
	var b strings.Builder
	for {
		if lx.pos >= len(lx.src) || lx.src[lx.pos] == '\n' {
			return t, lx.errAt(t.pos, "unterminated string")
		}
		c := lx.src[lx.pos]
		lx.pos++
		if c == '"' {
			break
		}
		if c == '\\' && lx.pos < len(lx.src) {
			if lx.src[lx.pos] == '\n' {
				lx.pos++
				lx.line++
				continue
			}
			n := unescape(&b, lx.src[lx.pos:], false)
			lx.pos += n
			continue
		}
		b.WriteByte(c)
	}
	t.t, t.s = tString, b.String()
	return t, nil
}

// unescape decodes the escape sequence at the start of s (just after a
// backslash) into b and returns how many bytes it used. In a regex
// (re true) escapes other than the control characters and octal codes
// are kept with their backslash for the regex parser; "\/" is "/".
func unescape(b *strings.Builder, s string, re bool) int {
	if s == "" {
		b.WriteByte('\\')
		return 0
	}
	c := s[0]
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'a':
		b.WriteByte('\a')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '"':
		b.WriteByte('"')
	case '/':
		b.WriteByte('/')
	case '\\':
		b.WriteString(`\`)
		if re {
			b.WriteByte('\\')
		}
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, v := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		if re && isRegexMeta(byte(v)) {
			b.WriteByte('\\')
		}
		b.WriteByte(byte(v))
		return n
	default:
		if re {
			b.WriteByte('\\')
			b.WriteByte(c)
			return 1
		}
		// gawk keeps an unknown escape's character, dropping the
		// backslash (with a warning).
		b.WriteByte(c)
	}
	return 1
}

func isRegexMeta(c byte) bool { return strings.IndexByte(`\^$.[]|()*+?{}`, c) >= 0 }

// regex lexes /.../ after the opening slash.
func (lx *lexer) regex(t token) (token, *SyntaxError) {
	var b strings.Builder
	inBracket := false
	for {
		if lx.pos >= len(lx.src) || lx.src[lx.pos] == '\n' {
			return t, lx.errAt(t.pos+1, "unterminated regexp")
		}
		c := lx.src[lx.pos]
		lx.pos++
		switch {
		case c == '\\' && lx.pos < len(lx.src):
			if lx.src[lx.pos] == '\n' {
				lx.pos++
				lx.line++
				continue
			}
			if inBracket {
				// inside brackets keep escapes for the regex parser
				// except "\/"
				if lx.src[lx.pos] == '/' {
					b.WriteByte('/')
				} else {
					b.WriteByte('\\')
					b.WriteByte(lx.src[lx.pos])
				}
				lx.pos++
				continue
			}
			lx.pos += unescape(&b, lx.src[lx.pos:], true)
			continue
		case c == '[' && !inBracket:
			inBracket = true
			b.WriteByte(c)
			// a ']' (after an optional '^') right after '[' is literal
			if lx.pos < len(lx.src) && lx.src[lx.pos] == '^' {
				b.WriteByte('^')
				lx.pos++
			}
			if lx.pos < len(lx.src) && lx.src[lx.pos] == ']' {
				b.WriteByte(']')
				lx.pos++
			}
			continue
		case c == '[' && inBracket && lx.pos < len(lx.src) && (lx.src[lx.pos] == ':' || lx.src[lx.pos] == '.' || lx.src[lx.pos] == '='):
			// [:class:] inside a bracket expression
			end := strings.Index(lx.src[lx.pos+1:], string(lx.src[lx.pos])+"]")
			if end >= 0 && !strings.Contains(lx.src[lx.pos:lx.pos+1+end], "\n") {
				b.WriteString(lx.src[lx.pos-1 : lx.pos+end+3])
				lx.pos += end + 3
				continue
			}
		case c == ']' && inBracket:
			inBracket = false
		case c == '/' && !inBracket:
			t.t, t.s = tRegex, b.String()
			return t, nil
		}
		b.WriteByte(c)
	}
}

// numPrefix returns the length of the longest prefix of s that is a
// decimal floating-point number (digits, an optional fraction and an
// optional exponent), without sign; hex is not read unless hex is set.
func numPrefix(s string, hex bool) int {
	i := 0
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	return i
}

// sourceInt reads gawk's hexadecimal (0x1A) and octal (017) constants
// of program text; ok is false for other numbers.
func sourceInt(s string) (float64, int, bool) {
	if len(s) < 2 || s[0] != '0' {
		return 0, 0, false
	}
	if (s[1] == 'x' || s[1] == 'X') && len(s) > 2 && isHex(s[2]) {
		i := 2
		n := 0.0
		for i < len(s) && isHex(s[i]) {
			d, _ := strconv.ParseUint(s[i:i+1], 16, 8)
			n = n*16 + float64(d)
			i++
		}
		return n, i, true
	}
	i := 1
	n := 0.0
	for i < len(s) && s[i] >= '0' && s[i] <= '7' {
		n = n*8 + float64(s[i]-'0')
		i++
	}
	if i == 1 || i < len(s) && (s[i] == '8' || s[i] == '9' || s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
		return 0, 0, false
	}
	return n, i, true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
