package regex

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxRepeat is the largest repetition count Go's regexp accepts; GNU grep
// accepts up to RE_DUP_MAX (32767).
const (
	maxRepeat = 1000
	reDupMax  = 0x7fff
)

// parser reads one BRE or ERE pattern as GNU grep 3.8 does and builds a
// syntax.Regexp. Line anchors become OpBeginText/OpEndText (grep matches
// one line at a time), \< and \> become the placeholder literals
// runeWordBegin/runeWordEnd, and bytes that are not UTF-8 become
// invalidBase+byte literals. With fold, literals and bracket expressions
// are expanded to GNU's case counterparts (no FoldCase flags are used).
type parser struct {
	src  string
	pos  int
	ere  bool
	fold bool

	groups   int    // groups opened so far
	closed   []bool // closed[i]: group i+1 is complete
	warnings []string
	backref  bool // a valid back-reference was seen
	wordOps  bool // \< \> \b \B seen
	// regex selects the GNU C library regex reading of ERE repetition
	// operators with nothing to repeat (see branch); the default is GNU
	// dfa's. GNU grep selects lines with dfa (unless the pattern has word
	// assertions) and finds -o and -w matches with regex.
	regex bool
	// ambiguous is set when dfa and regex readings may differ.
	ambiguous bool
	// dfaErr is an error only GNU dfa reports; the C library's regex
	// parses first, so its errors win.
	dfaErr  string
	invalid bool // invalid UTF-8 seen
	// capture makes groups capturing (Cap set to their number) and '.'
	// match a newline too, for TranslateGroups.
	capture bool
}

type parseError struct{ msg string }

// parse parses src. It returns a *Error for invalid patterns.
func parse(src string, syn Syntax, fold, regex bool) (re *syntax.Regexp, p *parser, err error) {
	return parseWith(&parser{src: src, ere: syn == Extended, fold: fold, regex: regex}, syn)
}

// parseWith is parse with the parser's settings made by the caller.
func parseWith(p *parser, syn Syntax) (re *syntax.Regexp, pp *parser, err error) {
	src := p.src
	fold := p.fold
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			re, pp, err = nil, p, &Error{Pattern: src, Msg: pe.msg}
		}
	}()
	if syn == RE2 {
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			return nil, p, &Error{Pattern: src, Msg: err.Error()}
		}
		return p.fromGo(re), p, nil
	}
	if syn == Fixed && !fold && utf8.ValidString(src) {
		// What the loop below would build, without a node per character.
		if src == "" {
			return &syntax.Regexp{Op: syntax.OpEmptyMatch}, p, nil
		}
		return &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune(src)}, p, nil
	}
	if syn == Fixed {
		var subs []*syntax.Regexp
		for p.pos < len(src) {
			subs = append(subs, p.literal(p.next()))
		}
		return concat(subs), p, nil
	}
	re = p.alternation(0)
	if p.pos < len(src) {
		// Only an unmatched \) can stop the top level.
		p.fail(msgUnmatchedRParen)
	}
	if p.dfaErr != "" {
		return nil, p, &Error{Pattern: src, Msg: p.dfaErr}
	}
	if p.backref {
		return nil, p, &Error{Pattern: src, Msg: msgBackref, Err: ErrUnsupported}
	}
	return re, p, nil
}

func (p *parser) fail(msg string) { panic(parseError{msg}) }

func (p *parser) dfaFail(msg string) {
	if p.dfaErr == "" {
		p.dfaErr = msg
	}
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

// next consumes and returns one character (invalid bytes as
// invalidBase+byte).
func (p *parser) next() rune {
	r, w := decodeRune([]byte(p.src[p.pos:min(len(p.src), p.pos+4)]))
	if r >= invalidBase {
		p.invalid = true
	}
	p.pos += w
	return r
}

func (p *parser) peek() rune {
	if p.eof() {
		return -1
	}
	r, _ := decodeRune([]byte(p.src[p.pos:min(len(p.src), p.pos+4)]))
	return r
}

func (p *parser) has(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

// isAlt, isClose report whether an alternation operator or a closing
// group follows.
func (p *parser) isAlt() bool {
	if p.ere {
		return p.has("|")
	}
	return p.has(`\|`)
}

func (p *parser) isClose() bool {
	if p.ere {
		return p.has(")")
	}
	return p.has(`\)`)
}

func (p *parser) skipOp() {
	if p.ere {
		p.pos++
	} else {
		p.pos += 2
	}
}

func (p *parser) alternation(depth int) *syntax.Regexp {
	var branches []*syntax.Regexp
	for {
		branches = append(branches, p.branch(depth))
		if p.isAlt() {
			p.skipOp()
			continue
		}
		return alternate(branches)
	}
}

// branch parses a concatenation up to |, ) (inside a group) or the end.
func (p *parser) branch(depth int) *syntax.Regexp {
	var items []*syntax.Regexp
	start := true     // no atom yet in this branch: ^ is an anchor (BRE)
	literal := true   // BRE: a * here is an ordinary character
	anchor := false   // the previous atom was an anchor
	laststart := true // GNU dfa's laststart: no ordinary atom yet
	for !p.eof() && !p.isAlt() {
		if p.isClose() && depth > 0 {
			break
		}
		if p.ere && (start || anchor) && !p.eof() && strings.ContainsRune("*+?{", p.peek()) {
			p.ambiguous = true
		}
		if !p.ere && anchor && !laststart && p.has(`\{`) {
			// GNU dfa reads an interval here (and rejects a bad one),
			// where the C library's regex reads an ordinary '{'.
			p.dfaInterval()
		}
		if p.ere && (start || anchor && p.regex) {
			// A repetition operator with nothing (or an anchor) to
			// repeat: GNU dfa applies it to the empty string, while
			// the C library's regex skips the operator character
			// (only the "{" of an interval) and reads a ")" that
			// follows as an ordinary character.
			skipped := false
			if p.regex {
				for !p.eof() && strings.ContainsRune("*+?{", p.peek()) {
					p.pos++
					skipped = true
				}
			} else {
				for p.leadingDup(&laststart) {
					skipped = true
				}
			}
			if skipped && p.has(")") {
				p.pos++
				items = append(items, p.postfix(lit(')'), nil))
				start, anchor = false, false
				continue
			}
			if p.eof() || p.isAlt() || p.isClose() && depth > 0 {
				break
			}
		}
		atom, ok := p.atom(depth, start, literal)
		start, literal, anchor = false, false, false
		if !ok {
			continue
		}
		if isAnchor(atom) {
			anchor = true
		} else {
			laststart = false
		}
		if anchor {
			if !p.ere {
				// BRE: anchors take no repetition; a * after one is
				// literal.
				items = append(items, atom)
				literal = true
				continue
			}
			if p.regex {
				items = append(items, atom)
				continue
			}
		}
		if anchor {
			items = append(items, p.postfix(atom, &laststart))
		} else {
			items = append(items, p.postfix(atom, nil))
		}
	}
	return concat(items)
}

// dfaInterval checks a BRE interval at p.pos ("\\{...") as GNU dfa does,
// without consuming it.
func (p *parser) dfaInterval() {
	rest := p.src[p.pos+2:]
	i, lo, hi := 0, -1, -1
	num := func(n int) int {
		for ; i < len(rest) && '0' <= rest[i] && rest[i] <= '9'; i++ {
			n = min(reDupMax+1, max(n, 0)*10+int(rest[i]-'0'))
		}
		return n
	}
	lo = num(lo)
	if i < len(rest) {
		if rest[i] != ',' {
			hi = lo
		} else {
			lo = max(lo, 0)
			i++
			hi = num(hi)
		}
	}
	if !strings.HasPrefix(rest[i:], `\}`) || lo < 0 || hi >= 0 && lo > hi {
		p.dfaFail("invalid content of \\{\\}")
	}
	if hi > reDupMax {
		p.dfaFail("regular expression too big")
	}
}

func isAnchor(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return re.Op == syntax.OpLiteral && len(re.Rune) == 1 && (re.Rune[0] == runeWordBegin || re.Rune[0] == runeWordEnd)
}

// leadingDup consumes one repetition operator at the start of an ERE
// branch, with GNU's warning, and reports whether it did.
func (p *parser) leadingDup(laststart *bool) bool {
	switch p.peek() {
	case '*', '+', '?':
		if *laststart {
			p.warn(fmt.Sprintf("%c at start of expression", p.peek()))
		}
		p.pos++
		return true
	case '{':
		save := p.pos
		p.pos++
		if _, _, ok := p.interval(); ok {
			if *laststart {
				p.warn("{...} at start of expression")
			}
			*laststart = false
			return true
		}
		p.pos = save
	}
	return false
}

func (p *parser) warn(w string) {
	if !p.regex {
		p.warnings = append(p.warnings, w)
	}
}

// atom parses one atom. ok is false when nothing was produced.
func (p *parser) atom(depth int, start, starLiteral bool) (re *syntax.Regexp, ok bool) {
	c := p.next()
	switch {
	case c == '.':
		if p.capture {
			return &syntax.Regexp{Op: syntax.OpAnyChar}, true
		}
		return &syntax.Regexp{Op: syntax.OpAnyCharNotNL}, true
	case c == '[':
		return p.bracket(), true
	case c == '^':
		if p.ere || start {
			return &syntax.Regexp{Op: syntax.OpBeginText}, true
		}
		return p.literal(c), true
	case c == '$':
		if p.ere || p.eof() || p.isAlt() || p.isClose() {
			return &syntax.Regexp{Op: syntax.OpEndText}, true
		}
		return p.literal(c), true
	case c == '*' && !p.ere && starLiteral:
		return p.literal(c), true
	case p.ere && c == '(':
		return p.group(depth), true
	case p.ere && c == ')':
		return p.literal(c), true // unmatched ) is ordinary in ERE
	case c == '\\':
		return p.escape(depth)
	}
	return p.literal(c), true
}

func (p *parser) group(depth int) *syntax.Regexp {
	p.groups++
	n := p.groups
	var re *syntax.Regexp
	if p.isClose() {
		re = &syntax.Regexp{Op: syntax.OpEmptyMatch}
	} else {
		re = p.alternation(depth + 1)
	}
	if !p.isClose() {
		p.fail(msgUnmatchedParen)
	}
	p.skipOp()
	for len(p.closed) < n {
		p.closed = append(p.closed, false)
	}
	p.closed[n-1] = true
	if p.capture {
		re = &syntax.Regexp{Op: syntax.OpCapture, Cap: n, Sub: []*syntax.Regexp{re}}
	}
	return re
}

func (p *parser) escape(depth int) (*syntax.Regexp, bool) {
	if p.eof() {
		p.fail(msgTrailingBS)
	}
	c := p.next()
	switch c {
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n := int(c - '0')
		if n > len(p.closed) || !p.closed[n-1] {
			p.fail(msgBadBackref)
		}
		p.backref = true
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}, true
	case 'w', 'W':
		s := runeSet(append([]rune{'_', '_'}, mustPosixClass("alnum")...)).normalize()
		return p.class(s, c == 'W'), true
	case 's', 'S':
		s := append(runeSet(nil), mustPosixClass("space")...)
		return p.class(s, c == 'S'), true
	case 'b':
		p.wordOps = true
		return &syntax.Regexp{Op: syntax.OpWordBoundary}, true
	case 'B':
		p.wordOps = true
		return &syntax.Regexp{Op: syntax.OpNoWordBoundary}, true
	case '<':
		p.wordOps = true
		return lit(runeWordBegin), true
	case '>':
		p.wordOps = true
		return lit(runeWordEnd), true
	case '`':
		return &syntax.Regexp{Op: syntax.OpBeginText}, true
	case '\'':
		return &syntax.Regexp{Op: syntax.OpEndText}, true
	}
	if !p.ere {
		switch c {
		case '(':
			return p.group(depth), true
		case ')':
			p.fail(msgUnmatchedRParen)
		case '{', '+', '?':
			// With nothing to repeat, \{ \+ \? are ordinary in BRE.
			return p.literal(c), true
		}
	}
	return p.literal(c), true
}

// postfix applies the repetition operators that follow an atom. GNU dfa
// warns about those that follow an anchor.
//
// laststart is nil or GNU dfa's laststart flag (no ordinary atom yet in
// the branch): operators are then warned about, and an interval clears
// it.
func (p *parser) postfix(re *syntax.Regexp, laststart *bool) *syntax.Regexp {
	for !p.eof() {
		if laststart != nil && p.ere && strings.ContainsRune("*+?{", p.peek()) {
			p.ambiguous = true
		}
		if laststart != nil && *laststart && p.ere {
			if c := p.peek(); c == '*' || c == '+' || c == '?' {
				p.warn(fmt.Sprintf("%c at start of expression", c))
			}
		}
		var op syntax.Op
		lo, hi := 0, -1
		switch {
		case p.has("*"):
			p.pos++
			op = syntax.OpStar
		case p.ere && p.has("+"), !p.ere && p.has(`\+`):
			p.skipOp()
			op = syntax.OpPlus
		case p.ere && p.has("?"), !p.ere && p.has(`\?`):
			p.skipOp()
			op = syntax.OpQuest
		case p.ere && p.has("{"), !p.ere && p.has(`\{`):
			save := p.pos
			p.skipOp()
			var ok bool
			lo, hi, ok = p.interval()
			if !ok {
				p.pos = save // ERE: '{' is an ordinary character
				return re
			}
			op = syntax.OpRepeat
			if laststart != nil && *laststart && p.ere {
				p.warn("{...} at start of expression")
				*laststart = false
			}
		default:
			return re
		}
		re = &syntax.Regexp{Op: op, Sub: []*syntax.Regexp{re}, Min: lo, Max: hi}
	}
	return re
}

// interval parses the rest of an interval after "{" (ERE) or "\{" (BRE)
// following the GNU C library's parse_dup_op and fetch_number. ok is false
// when an ERE interval is invalid and '{' must be read as an ordinary
// character (p.pos is then unspecified). hi is -1 for no upper bound.
func (p *parser) interval() (lo, hi int, ok bool) {
	const (
		missing = -1
		bad     = -2
		tEnd    = iota
		tClose
		tComma
		tOther
	)
	token := func() (int, rune) {
		if p.eof() {
			return tEnd, 0
		}
		if p.ere && p.has("}") || !p.ere && p.has(`\}`) {
			p.skipOp()
			return tClose, 0
		}
		c := p.next()
		if c == '\\' {
			if p.eof() {
				return tOther, c
			}
			c = p.next()
			if c == ',' {
				return tComma, c
			}
			return tOther, -1
		}
		if c == ',' {
			return tComma, c
		}
		return tOther, c
	}
	number := func() (int, int) {
		n := missing
		for {
			t, c := token()
			switch t {
			case tEnd:
				return bad, t
			case tClose, tComma:
				return n, t
			}
			switch {
			case c < '0' || c > '9' || n == bad:
				n = bad
			case n == missing:
				n = int(c - '0')
			default:
				n = min(reDupMax+1, n*10+int(c-'0'))
			}
		}
	}
	start, t := number()
	end := 0
	if start == missing {
		if t != tComma {
			p.fail(msgBadBrace) // "{}"
		}
		start = 0
	}
	if start != bad {
		switch t {
		case tClose:
			end = start
		case tComma:
			end, t = number()
		default:
			end = bad
		}
	}
	if start == bad || end == bad {
		if p.ere {
			return 0, 0, false
		}
		if t == tEnd {
			p.fail(msgUnmatchedBrace)
		}
		p.fail(msgBadBrace)
	}
	if end != missing && start > end || t != tClose {
		p.fail(msgBadBrace)
	}
	if max(start, end) > reDupMax {
		p.fail(msgTooBig)
	}
	return start, end, true
}

// bracket parses a bracket expression after '['.
func (p *parser) bracket() *syntax.Regexp {
	negate := false
	if p.has("^") {
		p.pos++
		negate = true
	}
	if p.eof() {
		p.fail(msgInvalid)
	}
	var set runeSet
	colon := 0
	if p.has(":") {
		colon = 1
	}
	first := true
	for {
		if p.eof() {
			p.fail(msgUnmatchedBracket)
		}
		if p.has("]") && !first {
			p.pos++
			break
		}
		startFirst := first
		first = false
		colon &^= 2
		if p.has("[:") {
			p.pos += 2
			name := p.bracketName(":]")
			cls, ok := posixClass(name)
			if !ok {
				p.fail(msgBadClass)
			}
			if p.fold && (name == "upper" || name == "lower") {
				cls = mustPosixClass("alpha")
			}
			set = append(set, cls...)
			colon |= 8
			if p.has("-") && !p.has("-]") {
				p.fail(msgBadRange)
			}
			continue
		}
		if p.has("[=") {
			p.pos += 2
			c := p.single(p.bracketName("=]"))
			set = append(set, c, c)
			colon |= 8
			if p.has("-") && !p.has("-]") {
				p.fail(msgBadRange)
			}
			continue
		}
		var lo rune
		if p.has("[.") {
			p.pos += 2
			lo = p.single(p.bracketName(".]"))
			colon |= 8
		} else {
			lo = p.next()
			if lo == '-' && !startFirst && !p.has("]") && !p.eof() {
				p.fail(msgBadRange)
			}
			if lo == ':' {
				colon |= 2
			} else {
				colon |= 4
			}
		}
		hi := lo
		if p.has("-") && !p.has("-]") && len(p.src) > p.pos+1 {
			p.pos++
			colon |= 8
			switch {
			case p.has("[."):
				p.pos += 2
				hi = p.single(p.bracketName(".]"))
			case p.has("[=") || p.has("[:"):
				p.fail(msgBadRange)
			default:
				hi = p.next()
			}
			if lo >= 0x80 || hi >= 0x80 {
				// The C library's C.UTF-8 collation has no ranges
				// beyond ASCII.
				p.fail(msgBadCollation)
			}
			if p.fold {
				// GNU grep -i reads range ends in upper case.
				lo, _ = caseOf(lo)
				hi, _ = caseOf(hi)
			}
			if hi < lo {
				p.fail(msgBadRange)
			}
		}
		if lo >= invalidBase || hi >= invalidBase {
			// A byte that is not UTF-8 never matches inside brackets.
			continue
		}
		set = append(set, lo, hi)
	}
	if colon == 7 {
		p.dfaFail(msgColonClass)
	}
	return p.class(set.normalize(), negate)
}

// bracketName reads up to the terminator ":]", "=]" or ".]".
func (p *parser) bracketName(term string) string {
	i := strings.Index(p.src[p.pos:], term)
	if i < 0 {
		p.fail(msgUnmatchedBracket)
	}
	name := p.src[p.pos : p.pos+i]
	p.pos += i + len(term)
	return name
}

// single returns the only character of a collating element or
// equivalence class.
func (p *parser) single(s string) rune {
	r, w := decodeRune([]byte(s))
	if s == "" || w != len(s) || r >= 0x80 {
		// Only ASCII collating elements exist in C.UTF-8.
		p.fail(msgBadCollation)
	}
	return r
}

// class returns the node for a set of characters, folded under -i and
// then negated if asked.
func (p *parser) class(s runeSet, negate bool) *syntax.Regexp {
	if p.fold {
		s = s.fold()
	}
	if negate {
		s = s.negate()
	}
	if len(s) == 2 && s[0] == s[1] {
		return lit(s[0])
	}
	return &syntax.Regexp{Op: syntax.OpCharClass, Rune: s}
}

// literal returns the node for an ordinary character, expanded to its
// case counterparts under -i.
func (p *parser) literal(c rune) *syntax.Regexp {
	if p.fold && c < utf8.RuneSelf {
		if s := asciiFolds()[c]; s != nil {
			// Nothing modifies a class's runes: nodes may share them.
			return &syntax.Regexp{Op: syntax.OpCharClass, Rune: s}
		}
		return lit(c)
	}
	if p.fold && c < invalidBase {
		s := runeSet{c, c}.fold()
		if len(s) > 2 || s[0] != s[1] {
			return &syntax.Regexp{Op: syntax.OpCharClass, Rune: s}
		}
	}
	return lit(c)
}

// asciiFolds returns, for each ASCII character, its case class under -i,
// or nil when it has no other case.
var asciiFolds = sync.OnceValue(func() (t [utf8.RuneSelf]runeSet) {
	for c := range rune(utf8.RuneSelf) {
		if s := (runeSet{c, c}).fold(); len(s) > 2 || s[0] != s[1] {
			t[c] = s
		}
	}
	return t
})

func lit(c rune) *syntax.Regexp {
	return &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{c}}
}

// concat builds a concatenation, merging adjacent literals. It runs in
// time linear in the number of runes: a merged literal is extended in
// place, never copied again.
func concat(subs []*syntax.Regexp) *syntax.Regexp {
	var out []*syntax.Regexp
	owned := false // out's last element is a literal made here, without placeholders
	for _, s := range subs {
		if s.Op == syntax.OpEmptyMatch {
			continue
		}
		if s.Op == syntax.OpConcat {
			out = append(out, s.Sub...)
			owned = false
			continue
		}
		if k := len(out); k > 0 && s.Op == syntax.OpLiteral && out[k-1].Op == syntax.OpLiteral && !isPlaceholder(s) && (owned || !isPlaceholder(out[k-1])) {
			if !owned {
				out[k-1] = &syntax.Regexp{Op: syntax.OpLiteral, Rune: append([]rune(nil), out[k-1].Rune...)}
				owned = true
			}
			out[k-1].Rune = append(out[k-1].Rune, s.Rune...)
			continue
		}
		out = append(out, s)
		owned = false
	}
	switch len(out) {
	case 0:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	case 1:
		return out[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: out}
}

func isPlaceholder(re *syntax.Regexp) bool {
	for _, r := range re.Rune {
		if r >= invalidBase {
			return true
		}
	}
	return false
}

func alternate(subs []*syntax.Regexp) *syntax.Regexp {
	if len(subs) == 1 {
		return subs[0]
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
}

// fromGo turns a tree that regexp/syntax parsed (RE2 syntax) into the
// form the parser builds: literals and classes expanded to their case
// counterparts under fold or (?i), no capturing groups, and word
// assertions noted.
func (p *parser) fromGo(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpLiteral:
		fold := p.fold
		p.fold = fold || re.Flags&syntax.FoldCase != 0
		subs := make([]*syntax.Regexp, 0, len(re.Rune))
		for _, r := range re.Rune {
			subs = append(subs, p.literal(r))
		}
		p.fold = fold
		return concat(subs)
	case syntax.OpCharClass:
		return p.class(runeSet(append([]rune(nil), re.Rune...)).normalize(), false)
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		p.wordOps = true
		return re
	case syntax.OpCapture:
		return p.fromGo(re.Sub[0])
	}
	subs := make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		subs[i] = p.fromGo(s)
	}
	out := *re
	out.Sub = subs
	out.Flags &^= syntax.FoldCase
	return &out
}
