package regex

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads Perl-compatible patterns (grep -P) as GNU grep 3.8
// compiles them with PCRE2 10.42 in a UTF-8 locale: PCRE2_UTF without
// PCRE2_UCP, so \d \s \w \b and the POSIX classes are ASCII, while case
// folding, '.', \h \v \R and \p{...} are Unicode. The parser builds a
// small tree (pnode) with every class spelled out as a rune set, so that
// the two back ends (Go's regexp, see perlGo, and the backtracking
// regexp2, see perlDotNet) need agree with PCRE2 only on the operators
// themselves.

// pop is the operator of a pnode.
type pop uint8

const (
	pEmpty    pop = iota
	pLit          // r; fold: caseless
	pClass        // set (already folded, negated)
	pBegin        // ^ \A: the start of the line
	pEnd          // $ \z \Z: the end of the line
	pSegBegin     // the start of the text matched (the -w wrapper's)
	pSegEnd       // the end of the text matched
	pWordB        // \b (ASCII)
	pNoWordB      // \B
	pKeep         // \K
	pConcat
	pAlt
	pGroup  // cap > 0: capturing group number cap; else non-capturing
	pAtomic // (?>...)
	pLook   // behind, neg
	pRepeat // min, max (-1: none), lazy, poss
	pRef    // back-reference to group cap; fold
)

type pnode struct {
	op           pop
	r            rune
	fold         bool
	set          runeSet
	subs         []*pnode
	min, max     int
	lazy, poss   bool
	cap          int
	behind, neg  bool
	varLen       bool // \R: not fixed length in a lookbehind
	unrepeatable bool
}

// perlFlags are the option letters of (?imnsxxJU).
type perlFlags struct {
	i, n, s, x, xx, dupnames, ungreedy bool
}

// perlTree is a parsed Perl pattern.
type perlTree struct {
	root *pnode
	// caps is the number of capturing groups; keep is set when \K
	// occurs; bt when the pattern needs the backtracking engine
	// (lookaround, back-reference, atomic group, possessive quantifier,
	// \K, a repetition count above 1000); fold when a part folds case.
	caps     int
	keep, bt bool
	fold     bool
}

type perlParser struct {
	src   string
	pos   int
	flags perlFlags
	caps  int
	names map[string]int
	refs  []perlRef
	look  int // lookaround nesting
	tree  *perlTree
}

type perlRef struct {
	n    int
	name string
	node *pnode
}

// PCRE2 10.42's messages, as GNU grep 3.8 prints them.
const (
	pmsgMissingParen  = "missing closing parenthesis"
	pmsgUnmatchedPar  = "unmatched closing parenthesis"
	pmsgOrder         = "numbers out of order in {} quantifier"
	pmsgTooBig        = "number too big in {} quantifier"
	pmsgNothingRepeat = "quantifier does not follow a repeatable item"
	pmsgTrailingBS    = "\\ at end of pattern"
	pmsgMissingBrack  = "missing terminating ] for character class"
	pmsgUnrecognized  = "unrecognized character follows \\"
	pmsgGroupSyntax   = "unrecognized character after (? or (?-"
	pmsgProperty      = "unknown property after \\P or \\p"
	pmsgPosix         = "unknown POSIX class name"
	pmsgLookbehind    = "lookbehind assertion is not fixed length"
	pmsgNoGroup       = "reference to non-existent subpattern"
	pmsgRangeOrder    = "range out of order in character class"
	pmsgBadRange      = "invalid range in character class"
	pmsgKInLook       = "\\K is not allowed in lookarounds (but see PCRE2_EXTRA_ALLOW_LOOKAROUND_BSK)"
	pmsgCaseEscapes   = "PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u"
	pmsgComment       = "missing ) after (?# comment"
	pmsgDupName       = "two named subpatterns have the same name (PCRE2_DUPNAMES not set)"
	pmsgKName         = "\\k is not followed by a braced, angle-bracketed, or quoted name"
	pmsgGName         = "\\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number"
	pmsgNameSyntax    = "syntax error in subpattern name (missing terminator?)"
	pmsgNameExpected  = "subpattern name expected"
	pmsgInClass       = "escape sequence is invalid in character class"
	pmsgCEscape       = "\\c must be followed by a printable ASCII character"
	pmsgOBrace        = "missing opening brace after \\o"
	pmsgCodeTooBig    = "character code point value in \\x{} or \\o{} is too large"
	pmsgNonOctal      = "non-octal character in \\o{} (closing brace missing?)"
	pmsgNonHex        = "non-hex character in \\x{} (closing brace missing?)"
	pmsgDigitsMissing = "digits missing in \\x{} or \\o{} or \\N{U+}"
	pmsgCollating     = "POSIX collating elements are not supported"
	pmsgPosixOutside  = "POSIX named classes are supported only within a class"
	pmsgUTF           = "UTF-8 error: illegal byte (0xfe or 0xff)"
)

type perlParseError struct {
	msg         string
	unsupported bool
}

func (p *perlParser) fail(msg string) { panic(perlParseError{msg: msg}) }

// unsupported refuses a construct PCRE2 accepts but this package cannot
// match.
func (p *perlParser) unsupported(what string) {
	panic(perlParseError{msg: "-P does not support " + what, unsupported: true})
}

// parsePerl parses one -P pattern, with -i as fold.
func parsePerl(src string, fold bool) (t *perlTree, err error) {
	p := &perlParser{src: src, flags: perlFlags{i: fold}, names: map[string]int{}, tree: &perlTree{}}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(perlParseError)
			if !ok {
				panic(r)
			}
			e := &Error{Pattern: src, Msg: pe.msg}
			if pe.unsupported {
				e.Err = ErrUnsupported
			}
			t, err = nil, e
		}
	}()
	if !utf8.ValidString(src) {
		p.fail(pmsgUTF)
	}
	if strings.IndexByte(src, 0) >= 0 {
		// GNU grep reads the pattern as a C string in places.
		p.unsupported("a NUL byte in the pattern")
	}
	root := p.alternation()
	if p.pos < len(p.src) {
		p.fail(pmsgUnmatchedPar)
	}
	for _, r := range p.refs {
		n := r.n
		if r.name != "" {
			var ok bool
			if n, ok = p.names[r.name]; !ok {
				p.fail("reference to non-existent subpattern")
			}
		}
		if n > p.caps || n <= 0 {
			p.fail(pmsgNoGroup)
		}
		r.node.cap = n
	}
	p.tree.root = root
	p.tree.caps = p.caps
	return p.tree, nil
}

func (p *perlParser) eof() bool { return p.pos >= len(p.src) }

func (p *perlParser) next() rune {
	r, w := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += w
	return r
}

func (p *perlParser) has(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

func (p *perlParser) eat(s string) bool {
	if p.has(s) {
		p.pos += len(s)
		return true
	}
	return false
}

// skipSpace skips white space and #-comments in extended mode.
func (p *perlParser) skipSpace() {
	if !p.flags.x {
		return
	}
	for !p.eof() {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			p.pos++
		case c == '#':
			for !p.eof() && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *perlParser) alternation() *pnode {
	var alts []*pnode
	for {
		alts = append(alts, p.branch())
		if !p.eat("|") {
			break
		}
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &pnode{op: pAlt, subs: alts}
}

func (p *perlParser) branch() *pnode {
	var items []*pnode
	for {
		p.skipSpace()
		if p.eof() || p.has("|") || p.has(")") {
			break
		}
		atom := p.atom()
		p.skipSpace()
		if atom == nil {
			if p.quantifierAhead() {
				p.fail(pmsgNothingRepeat)
			}
			continue
		}
		if atom.op == pConcat && atom.unrepeatable {
			// \Q...\E: a quantifier applies to its last character.
			if p.quantifierAhead() && len(atom.subs) > 0 {
				last := len(atom.subs) - 1
				atom.subs[last] = p.quantify(atom.subs[last])
			}
			items = append(items, atom.subs...)
			continue
		}
		items = append(items, p.quantify(atom))
	}
	switch len(items) {
	case 0:
		return &pnode{op: pEmpty}
	case 1:
		return items[0]
	}
	return &pnode{op: pConcat, subs: items}
}

// braceQuantifier reports whether a {n}, {n,} or {n,m} quantifier
// starts at i, and where it ends.
func (p *perlParser) braceQuantifier(i int) (lo, hi, end int, ok bool) {
	s := p.src
	if i >= len(s) || s[i] != '{' {
		return 0, 0, 0, false
	}
	j := i + 1
	num := func() (int, bool) {
		k := j
		n := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			n = min(n*10+int(s[j]-'0'), 1<<20)
			j++
		}
		return n, j > k
	}
	lo, okLo := num()
	if !okLo {
		return 0, 0, 0, false
	}
	hi = lo
	if j < len(s) && s[j] == ',' {
		j++
		var okHi bool
		hi, okHi = num()
		if !okHi {
			hi = -1
		}
	}
	if j >= len(s) || s[j] != '}' {
		return 0, 0, 0, false
	}
	return lo, hi, j + 1, true
}

func (p *perlParser) quantifierAhead() bool {
	if p.eof() {
		return false
	}
	switch p.src[p.pos] {
	case '*', '+', '?':
		return true
	}
	_, _, _, ok := p.braceQuantifier(p.pos)
	return ok
}

// quantify applies the quantifier that follows atom, if any.
func (p *perlParser) quantify(atom *pnode) *pnode {
	if !p.quantifierAhead() {
		return atom
	}
	if atom.unrepeatable {
		p.fail(pmsgNothingRepeat)
	}
	lo, hi := 0, -1
	switch p.src[p.pos] {
	case '*':
		p.pos++
	case '+':
		p.pos++
		lo = 1
	case '?':
		p.pos++
		hi = 1
	default:
		var end int
		lo, hi, end, _ = p.braceQuantifier(p.pos)
		p.pos = end
		if lo > 65535 || hi > 65535 {
			p.fail(pmsgTooBig)
		}
		if hi >= 0 && lo > hi {
			p.fail(pmsgOrder)
		}
	}
	lazy, poss := p.flags.ungreedy, false
	switch {
	case p.eat("+"):
		poss, lazy = true, false
		p.tree.bt = true
	case p.eat("?"):
		lazy = !lazy
	}
	p.skipSpace()
	if p.quantifierAhead() {
		p.fail(pmsgNothingRepeat)
	}
	if atom.op == pLook {
		// A quantified assertion is tested at most once.
		if lo == 0 {
			return &pnode{op: pEmpty}
		}
		return atom
	}
	if lo > maxRepeat || hi > maxRepeat {
		p.tree.bt = true
	}
	return &pnode{op: pRepeat, subs: []*pnode{atom}, min: lo, max: hi, lazy: lazy, poss: poss}
}

func (p *perlParser) lit(r rune) *pnode {
	n := &pnode{op: pLit, r: r}
	if p.flags.i && unicode.SimpleFold(r) != r {
		n.fold = true
		p.tree.fold = true
	}
	return n
}

// atom parses one item; nil when it produced nothing (a comment, an
// option setting, \E).
func (p *perlParser) atom() *pnode {
	c := p.next()
	switch c {
	case '(':
		return p.group()
	case '[':
		return p.class()
	case '.':
		if p.flags.s {
			return &pnode{op: pClass, set: runeSet{0, unicode.MaxRune}}
		}
		return &pnode{op: pClass, set: runeSet{0, '\n' - 1, '\n' + 1, unicode.MaxRune}}
	case '^':
		return &pnode{op: pBegin, unrepeatable: true}
	case '$':
		return &pnode{op: pEnd, unrepeatable: true}
	case '*', '+', '?':
		p.fail(pmsgNothingRepeat)
	case '{':
		if _, _, _, ok := p.braceQuantifier(p.pos - 1); ok {
			p.fail(pmsgNothingRepeat)
		}
	case '\\':
		return p.escape()
	}
	return p.lit(c)
}

// groupName reads a group name up to term.
func (p *perlParser) groupName(term byte) string {
	start := p.pos
	for !p.eof() && (isWordByte(p.src[p.pos])) {
		p.pos++
	}
	name := p.src[start:p.pos]
	if name == "" {
		p.fail(pmsgNameExpected)
	}
	if name[0] >= '0' && name[0] <= '9' {
		p.fail("subpattern name must start with a non-digit")
	}
	if p.eof() || p.src[p.pos] != term {
		p.fail(pmsgNameSyntax)
	}
	p.pos++
	return name
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// group parses what follows '('.
func (p *perlParser) group() *pnode {
	saved := p.flags
	defer func() { p.flags = saved }()
	body := func(n *pnode) *pnode {
		sub := p.alternation()
		if !p.eat(")") {
			p.fail(pmsgMissingParen)
		}
		n.subs = []*pnode{sub}
		return n
	}
	capture := func(name string) *pnode {
		p.caps++
		if name != "" {
			if _, dup := p.names[name]; dup && !p.flags.dupnames {
				p.fail(pmsgDupName)
			}
			p.names[name] = p.caps
		}
		return body(&pnode{op: pGroup, cap: p.caps})
	}
	if p.has("*") {
		p.unsupported("a backtracking control verb or alpha assertion (*...)")
	}
	if !p.eat("?") {
		if p.flags.n {
			return body(&pnode{op: pGroup})
		}
		return capture("")
	}
	switch {
	case p.eat("#"):
		i := strings.IndexByte(p.src[p.pos:], ')')
		if i < 0 {
			p.fail(pmsgComment)
		}
		p.pos += i + 1
		return nil
	case p.eat(":"):
		return body(&pnode{op: pGroup})
	case p.eat("|"):
		return p.branchReset()
	case p.eat(">"):
		p.tree.bt = true
		return body(&pnode{op: pAtomic})
	case p.eat("="), p.eat("!"):
		return p.lookaround(false, p.src[p.pos-1] == '!')
	case p.eat("<="), p.eat("<!"):
		return p.lookaround(true, p.src[p.pos-1] == '!')
	case p.eat("P<"), p.eat("<"):
		return capture(p.groupName('>'))
	case p.eat("'"):
		return capture(p.groupName('\''))
	case p.eat("P="):
		name := p.groupName(')')
		return p.ref(0, name)
	case p.has("P>"), p.has("&"), p.has("R"), p.has("+"), p.has("0"),
		!p.eof() && p.src[p.pos] >= '1' && p.src[p.pos] <= '9':
		p.unsupported("recursion and subroutine calls ((?R), (?1), (?&name))")
	case p.has("-") && p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9':
		p.unsupported("recursion and subroutine calls ((?R), (?1), (?&name))")
	case p.has("("):
		p.unsupported("conditional groups (?(...)...)")
	case p.has("C"):
		p.unsupported("callouts (?C...)")
	case p.has("*"):
		p.unsupported("non-atomic lookahead (?*...)")
	}
	// Option settings: (?imnsxxJU-imnsxJU) or (?^...), alone or with ':'.
	f := p.flags
	on := true
	if p.eat("^") {
		f = perlFlags{}
	}
	for {
		if p.eof() {
			p.fail(pmsgMissingParen)
		}
		c := p.src[p.pos]
		p.pos++
		switch c {
		case 'i':
			f.i = on
		case 'm':
		case 'n':
			f.n = on
		case 's':
			f.s = on
		case 'x':
			if on && p.has("x") {
				p.pos++
				f.xx = true
			}
			f.x = on
			if !on {
				f.xx = false
			}
		case 'J':
			f.dupnames = on
		case 'U':
			f.ungreedy = on
		case '-':
			if !on {
				p.fail(pmsgGroupSyntax)
			}
			on = false
		case ')':
			// The settings apply to the rest of the enclosing group.
			saved = f
			return nil
		case ':':
			p.flags = f
			return body(&pnode{op: pGroup})
		default:
			p.fail(pmsgGroupSyntax)
		}
	}
}

// branchReset parses (?|...): each alternative numbers its groups from
// the same number.
func (p *perlParser) branchReset() *pnode {
	base := p.caps
	top := base
	var alts []*pnode
	for {
		p.caps = base
		alts = append(alts, p.branch())
		top = max(top, p.caps)
		if !p.eat("|") {
			break
		}
	}
	p.caps = top
	if !p.eat(")") {
		p.fail(pmsgMissingParen)
	}
	var sub *pnode
	if len(alts) == 1 {
		sub = alts[0]
	} else {
		sub = &pnode{op: pAlt, subs: alts}
	}
	return &pnode{op: pGroup, subs: []*pnode{sub}}
}

func (p *perlParser) lookaround(behind, neg bool) *pnode {
	p.tree.bt = true
	p.look++
	sub := p.alternation()
	p.look--
	if !p.eat(")") {
		p.fail(pmsgMissingParen)
	}
	if behind {
		branches := []*pnode{sub}
		if sub.op == pAlt {
			branches = sub.subs
		}
		for _, b := range branches {
			if _, ok := fixedLength(b); !ok {
				p.fail(pmsgLookbehind)
			}
		}
	}
	return &pnode{op: pLook, behind: behind, neg: neg, subs: []*pnode{sub}}
}

// fixedLength returns the number of characters n always matches, as
// PCRE2 requires of each branch of a lookbehind.
func fixedLength(n *pnode) (int, bool) {
	switch n.op {
	case pLit:
		return 1, true
	case pClass:
		return 1, !n.varLen
	case pEmpty, pBegin, pEnd, pSegBegin, pSegEnd, pWordB, pNoWordB, pKeep, pLook:
		return 0, true
	case pConcat:
		t := 0
		for _, s := range n.subs {
			l, ok := fixedLength(s)
			if !ok {
				return 0, false
			}
			t += l
		}
		return t, true
	case pAlt:
		first := -1
		for _, s := range n.subs {
			l, ok := fixedLength(s)
			if !ok || first >= 0 && l != first {
				return 0, false
			}
			first = l
		}
		return first, true
	case pGroup, pAtomic:
		return fixedLength(n.subs[0])
	case pRepeat:
		if n.min != n.max {
			return 0, false
		}
		l, ok := fixedLength(n.subs[0])
		return l * n.min, ok
	}
	return 0, false
}

// ref records a back-reference, resolved when the pattern is parsed.
func (p *perlParser) ref(n int, name string) *pnode {
	p.tree.bt = true
	node := &pnode{op: pRef, fold: p.flags.i}
	if node.fold {
		p.tree.fold = true
	}
	p.refs = append(p.refs, perlRef{n: n, name: name, node: node})
	return node
}

// number reads decimal digits.
func (p *perlParser) number() (int, bool) {
	start := p.pos
	n := 0
	for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		n = min(n*10+int(p.src[p.pos]-'0'), 1<<20)
		p.pos++
	}
	return n, p.pos > start
}

// escape parses what follows a backslash outside a class.
func (p *perlParser) escape() *pnode {
	if p.eof() {
		p.fail(pmsgTrailingBS)
	}
	c := p.src[p.pos]
	switch {
	case c >= '1' && c <= '9':
		save := p.pos
		n, _ := p.number()
		if n < 10 || c == '8' || c == '9' || n <= p.caps {
			return p.ref(n, "")
		}
		p.pos = save
		return p.lit(p.octal(3))
	case c == '0':
		p.pos++
		return p.lit(p.octal(2))
	}
	p.pos++
	switch c {
	case 'b':
		return &pnode{op: pWordB, unrepeatable: true}
	case 'B':
		return &pnode{op: pNoWordB, unrepeatable: true}
	case 'A':
		return &pnode{op: pBegin, unrepeatable: true}
	case 'z', 'Z':
		return &pnode{op: pEnd, unrepeatable: true}
	case 'G':
		p.unsupported("\\G")
	case 'K':
		if p.look > 0 {
			p.fail(pmsgKInLook)
		}
		p.tree.keep = true
		return &pnode{op: pKeep, unrepeatable: true}
	case 'Q':
		var subs []*pnode
		for !p.eof() && !p.has("\\E") {
			subs = append(subs, p.lit(p.next()))
		}
		p.eat("\\E")
		if len(subs) == 0 {
			return nil
		}
		return &pnode{op: pConcat, subs: subs, unrepeatable: true}
	case 'E':
		return nil
	case 'R':
		return &pnode{op: pClass, set: runeSet{'\n', '\r', 0x85, 0x85, 0x2028, 0x2029}, varLen: true}
	case 'X':
		p.unsupported("\\X (extended grapheme cluster)")
	case 'C':
		p.unsupported("\\C (one code unit)")
	case 'N':
		if p.has("{") {
			if p.eat("{U+") {
				v := p.hexBraced()
				return p.lit(v)
			}
			p.fail(pmsgCaseEscapes)
		}
		return &pnode{op: pClass, set: runeSet{0, '\n' - 1, '\n' + 1, unicode.MaxRune}}
	case 'k':
		var term byte
		switch {
		case p.eat("<"):
			term = '>'
		case p.eat("'"):
			term = '\''
		case p.eat("{"):
			term = '}'
		default:
			p.fail(pmsgKName)
		}
		return p.ref(0, p.groupName(term))
	case 'g':
		return p.gref()
	case 'L', 'l', 'U', 'u', 'F':
		p.fail(pmsgCaseEscapes)
	}
	p.pos -= 2
	if set, ok := p.classEscape(false); ok {
		if c == 'D' || c == 'S' || c == 'W' {
			// GNU grep 3.8 with PCRE2 10.42 (its JIT, with
			// PCRE2_MATCH_INVALID_UTF) never matches a non-ASCII
			// character with these outside a class.
			set = intersectASCII(set)
		}
		return &pnode{op: pClass, set: set}
	}
	p.pos++
	r := p.charEscape(false)
	return p.lit(r)
}

// gref parses \g references after the 'g'.
func (p *perlParser) gref() *pnode {
	if p.has("<") || p.has("'") {
		p.unsupported("subroutine calls \\g<...>")
	}
	braced := p.eat("{")
	neg := false
	if p.eat("-") {
		neg = true
	} else {
		p.eat("+")
	}
	if n, ok := p.number(); ok {
		if braced && !p.eat("}") {
			p.fail(pmsgGName)
		}
		if neg {
			n = p.caps - n + 1
			if n <= 0 {
				p.fail(pmsgNoGroup)
			}
		}
		return p.ref(n, "")
	}
	if braced && !neg {
		return p.ref(0, p.groupName('}'))
	}
	p.fail(pmsgGName)
	return nil
}

func (p *perlParser) octal(maxDigits int) rune {
	v := rune(0)
	for i := 0; i < maxDigits && !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '7'; i++ {
		v = v*8 + rune(p.src[p.pos]-'0')
		p.pos++
	}
	return v
}

func hexVal(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// hexBraced reads hex digits and the closing brace.
func (p *perlParser) hexBraced() rune {
	v := rune(0)
	digits := 0
	for !p.eof() {
		d, ok := hexVal(p.src[p.pos])
		if !ok {
			break
		}
		v = min(v*16+d, 0x7fffffff)
		digits++
		p.pos++
	}
	if digits == 0 && p.has("}") {
		p.fail(pmsgDigitsMissing)
	}
	if !p.eat("}") || digits == 0 {
		p.fail(pmsgNonHex)
	}
	return p.codePoint(v)
}

func (p *perlParser) codePoint(v rune) rune {
	if v > unicode.MaxRune {
		p.fail(pmsgCodeTooBig)
	}
	if 0xd800 <= v && v <= 0xdfff {
		p.fail("disallowed Unicode code point (>= 0xd800 && <= 0xdfff)")
	}
	return v
}

// charEscape parses an escape that stands for one character, after the
// backslash. In a class, \b is a backspace and digits are octal.
func (p *perlParser) charEscape(inClass bool) rune {
	c := p.next()
	switch c {
	case 'a':
		return 7
	case 'e':
		return 0x1b
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		if inClass {
			return '\b'
		}
	case '0', '1', '2', '3', '4', '5', '6', '7':
		p.pos--
		return p.octal(3)
	case '8', '9':
		if inClass {
			return c
		}
	case 'o':
		if !p.eat("{") {
			p.fail(pmsgOBrace)
		}
		v := rune(0)
		digits := 0
		for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '7' {
			v = min(v*8+rune(p.src[p.pos]-'0'), 0x7fffffff)
			digits++
			p.pos++
		}
		if digits == 0 && p.has("}") {
			p.fail(pmsgDigitsMissing)
		}
		if !p.eat("}") || digits == 0 {
			p.fail(pmsgNonOctal)
		}
		return p.codePoint(v)
	case 'x':
		if p.eat("{") {
			return p.hexBraced()
		}
		v := rune(0)
		for i := 0; i < 2 && !p.eof(); i++ {
			d, ok := hexVal(p.src[p.pos])
			if !ok {
				break
			}
			v = v*16 + d
			p.pos++
		}
		return v
	case 'c':
		if p.eof() {
			p.fail("\\c at end of pattern")
		}
		if p.src[p.pos] < 0x20 || p.src[p.pos] > 0x7e {
			p.fail(pmsgCEscape)
		}
		x := rune(p.src[p.pos])
		p.pos++
		return unicode.ToUpper(x) ^ 0x40
	case 'L', 'l', 'U', 'u', 'F':
		p.fail(pmsgCaseEscapes)
	}
	if c < utf8.RuneSelf && (isWordByte(byte(c))) {
		if inClass {
			p.fail(pmsgInClass)
		}
		p.fail(pmsgUnrecognized)
	}
	return c
}

// Character sets without PCRE2_UCP.
var (
	perlDigit  = runeSet{'0', '9'}
	perlSpace  = runeSet{'\t', '\r', ' ', ' '}
	perlWord   = runeSet{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}
	perlHSpace = runeSet{'\t', '\t', ' ', ' ', 0xa0, 0xa0, 0x1680, 0x1680, 0x180e, 0x180e,
		0x2000, 0x200a, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000}
	perlVSpace = runeSet{'\n', '\r', 0x85, 0x85, 0x2028, 0x2029}
)

// classEscape parses \d \D \s \S \w \W \h \H \v \V \p \P at the
// backslash; ok is false (and nothing is consumed) for other escapes.
func (p *perlParser) classEscape(inClass bool) (runeSet, bool) {
	if p.pos+1 >= len(p.src) {
		return nil, false
	}
	c := p.src[p.pos+1]
	var s runeSet
	switch c {
	case 'd', 'D':
		s = perlDigit
	case 's', 'S':
		s = perlSpace
	case 'w', 'W':
		s = perlWord
	case 'h', 'H':
		s = perlHSpace
	case 'v', 'V':
		s = perlVSpace
	case 'p', 'P':
		p.pos += 2
		return p.property(c == 'P'), true
	default:
		return nil, false
	}
	p.pos += 2
	s = append(runeSet(nil), s...)
	if c >= 'A' && c <= 'Z' {
		return s.negate(), true
	}
	return s, true
}

// property parses the name of \p or \P.
func (p *perlParser) property(neg bool) runeSet {
	var name string
	if p.eat("{") {
		i := strings.IndexByte(p.src[p.pos:], '}')
		if i < 0 {
			p.fail("malformed \\P or \\p sequence")
		}
		name = p.src[p.pos : p.pos+i]
		p.pos += i + 1
		if strings.HasPrefix(name, "^") {
			neg = !neg
			name = name[1:]
		}
	} else {
		if p.eof() {
			p.fail("malformed \\P or \\p sequence")
		}
		name = string(p.next())
	}
	s, ok := unicodeProperty(name)
	if !ok {
		p.fail(pmsgProperty)
	}
	if neg {
		return s.negate()
	}
	return s
}

// unicodeProperty returns the characters of a PCRE2 property name
// (general categories, scripts and PCRE2's special names), matched
// loosely as PCRE2 10.40 and later do.
func unicodeProperty(name string) (runeSet, bool) {
	key := looseName(name)
	fromTables := func(ts ...*unicode.RangeTable) runeSet {
		var s runeSet
		for _, t := range ts {
			for _, r := range t.R16 {
				s = appendStride(s, rune(r.Lo), rune(r.Hi), rune(r.Stride))
			}
			for _, r := range t.R32 {
				s = appendStride(s, rune(r.Lo), rune(r.Hi), rune(r.Stride))
			}
		}
		return s.normalize()
	}
	switch key {
	case "any":
		return runeSet{0, unicode.MaxRune}, true
	case "l&", "lc":
		return fromTables(unicode.Lu, unicode.Ll, unicode.Lt), true
	case "xan":
		return fromTables(unicode.L, unicode.N), true
	case "xwd":
		return append(fromTables(unicode.L, unicode.N), '_', '_').normalize(), true
	case "xsp", "xps":
		return append(fromTables(unicode.Z), '\t', '\r').normalize(), true
	}
	for n, t := range unicode.Categories {
		if looseName(n) == key {
			return fromTables(t), true
		}
	}
	for n, t := range unicode.Scripts {
		if looseName(n) == key {
			return fromTables(t), true
		}
	}
	return nil, false
}

func appendStride(s runeSet, lo, hi, stride rune) runeSet {
	if stride == 1 {
		return append(s, lo, hi)
	}
	for r := lo; r <= hi; r += stride {
		s = append(s, r, r)
	}
	return s
}

func looseName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == ' ' || r == '-' || r == '_' {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Perl's POSIX classes without PCRE2_UCP.
var perlPosix = map[string]runeSet{
	"alnum":  {'0', '9', 'A', 'Z', 'a', 'z'},
	"alpha":  {'A', 'Z', 'a', 'z'},
	"ascii":  {0, 0x7f},
	"blank":  {'\t', '\t', ' ', ' '},
	"cntrl":  {0, 0x1f, 0x7f, 0x7f},
	"digit":  {'0', '9'},
	"graph":  {0x21, 0x7e},
	"lower":  {'a', 'z'},
	"print":  {0x20, 0x7e},
	"punct":  {0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e},
	"space":  {'\t', '\r', ' ', ' '},
	"upper":  {'A', 'Z'},
	"word":   {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'},
	"xdigit": {'0', '9', 'A', 'F', 'a', 'f'},
}

// posixAt reports whether a POSIX class ([:name:], [.x.], [=x=]) starts
// at p.pos, as PCRE2's check_posix_syntax decides.
func (p *perlParser) posixAt() (term byte, end int, ok bool) {
	s := p.src
	i := p.pos
	if i+1 >= len(s) || s[i] != '[' || (s[i+1] != ':' && s[i+1] != '.' && s[i+1] != '=') {
		return 0, 0, false
	}
	term = s[i+1]
	for j := i + 2; j+1 < len(s); j++ {
		if s[j] == '\\' && j+1 < len(s) && (s[j+1] == ']' || s[j+1] == '\\') {
			j++
			continue
		}
		if s[j] == '[' && j+1 < len(s) && (s[j+1] == ':' || s[j+1] == '.' || s[j+1] == '=') {
			return 0, 0, false
		}
		if s[j] == term && s[j+1] == ']' {
			return term, j + 2, true
		}
		if s[j] == ']' {
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// class parses a character class after '['.
func (p *perlParser) class() *pnode {
	if _, _, ok := p.posixAt0(); ok {
		p.fail(pmsgPosixOutside)
	}
	neg := p.eat("^")
	var lits, types runeSet // lits fold under (?i); types do not
	first := true
	fold := p.flags.i
	for {
		if p.eof() {
			p.fail(pmsgMissingBrack)
		}
		if p.flags.xx && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
			p.pos++
			continue
		}
		if p.eat("\\E") {
			continue
		}
		if p.has("\\Q") {
			p.pos += 2
			for !p.eof() && !p.has("\\E") {
				r := p.next()
				lits = append(lits, r, r)
			}
			p.eat("\\E")
			first = false
			continue
		}
		if p.has("]") && !first {
			p.pos++
			break
		}
		first = false
		// One item: a set (not usable in a range) or a character.
		var set runeSet
		isSet := false
		var lo rune
		if term, end, ok := p.posixAt(); ok {
			if term != ':' {
				p.fail(pmsgCollating)
			}
			name := p.src[p.pos+2 : end-2]
			negp := strings.HasPrefix(name, "^")
			name = strings.TrimPrefix(name, "^")
			s, known := perlPosix[name]
			if !known {
				p.fail(pmsgPosix)
			}
			if fold && (name == "upper" || name == "lower") {
				s = perlPosix["alpha"]
			}
			s = append(runeSet(nil), s...)
			if negp {
				s = s.negate()
			}
			p.pos = end
			set, isSet = s, true
		} else if p.has("\\") {
			if s, ok := p.classEscape(true); ok {
				set, isSet = s, true
			} else {
				if p.pos+1 >= len(p.src) {
					p.fail(pmsgMissingBrack)
				}
				switch p.src[p.pos+1] {
				case 'N', 'R', 'X', 'B', 'A', 'z', 'Z', 'G', 'K', 'k', 'g':
					p.fail(pmsgInClass)
				}
				p.pos++
				lo = p.charEscape(true)
			}
		} else {
			lo = p.next()
		}
		if isSet {
			if p.has("-") && !p.has("-]") && p.pos+1 < len(p.src) {
				p.fail(pmsgBadRange)
			}
			types = append(types, set...)
			continue
		}
		if p.has("-") && !p.has("-]") && p.pos+1 < len(p.src) {
			save := p.pos
			p.pos++
			var hi rune
			switch {
			case p.has("\\Q") || p.has("\\E"):
				// A range ending in a quoted character: keep it simple.
				p.pos = save
				lits = append(lits, lo, lo)
				continue
			case p.has("\\"):
				if _, ok := p.classEscape(true); ok {
					p.fail(pmsgBadRange)
				}
				p.pos++
				hi = p.charEscape(true)
			default:
				if _, _, ok := p.posixAt(); ok {
					p.fail(pmsgBadRange)
				}
				hi = p.next()
			}
			if hi < lo {
				p.fail(pmsgRangeOrder)
			}
			lits = append(lits, lo, hi)
			continue
		}
		lits = append(lits, lo, lo)
	}
	lits = lits.normalize()
	if fold && len(lits) > 0 {
		f := foldRunes(lits)
		if !equalSets(f, lits) {
			p.tree.fold = true
		}
		lits = f
	}
	set := append(lits, types...).normalize()
	if neg {
		set = set.negate()
	}
	return &pnode{op: pClass, set: set}
}

// posixAt0 reports a POSIX class written without the enclosing
// brackets ("[:alpha:]") at the '[' just read.
func (p *perlParser) posixAt0() (byte, int, bool) {
	p.pos--
	t, e, ok := p.posixAt()
	p.pos++
	return t, e, ok
}

// intersectASCII returns the ASCII part of the normalized set s.
func intersectASCII(s runeSet) runeSet {
	var out runeSet
	for i := 0; i < len(s) && s[i] < utf8.RuneSelf; i += 2 {
		out = append(out, s[i], min(s[i+1], utf8.RuneSelf-1))
	}
	return out
}

func equalSets(a, b runeSet) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// foldRunes closes the normalized set s under Unicode simple case
// folding (what (?i) means to Go's regexp, regexp2 and PCRE2 in UTF
// mode), as regexp/syntax does for a (?i) class.
func foldRunes(s runeSet) runeSet {
	var b strings.Builder
	b.WriteString("(?i:[")
	for i := 0; i < len(s); i += 2 {
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, s[i], s[i+1])
	}
	b.WriteString("])")
	re, err := syntax.Parse(b.String(), syntax.Perl)
	switch {
	case err != nil:
		return s
	case re.Op == syntax.OpLiteral:
		// A single character: Parse gives a case-folded literal.
		var out runeSet
		for _, r := range re.Rune {
			out = append(out, r, r)
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				out = append(out, f, f)
			}
		}
		return out.normalize()
	case re.Op != syntax.OpCharClass:
		return s
	}
	return runeSet(append([]rune(nil), re.Rune...)).normalize()
}
