package regex

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// ErrMatchLimit is the error Matcher.Err returns after a Perl pattern
// matched with the backtracking engine took too long on a line (GNU grep
// -P's "exceeded PCRE's backtracking limit"). The line counts as not
// matching.
var ErrMatchLimit = errors.New("exceeded PCRE's backtracking limit")

// perlMatchTimeout bounds the backtracking engine's work on one line
// (PCRE2's match limit, ten million backtracks, takes about as long);
// a variable for tests.
var perlMatchTimeout = time.Second

// perlStackLimit bounds regexp2's backtracking stack (integer slots).
const perlStackLimit = 1 << 22

// perlMatcher matches one -P pattern. Lines that are valid UTF-8 are
// matched whole; a line that is not is matched piece by piece, each
// valid piece on its own (PCRE2_MATCH_INVALID_UTF: an invalid sequence
// matches nothing and no match or lookbehind crosses it), with ^ only in
// a piece at the start of the line and $ only in one at its end.
type perlMatcher struct {
	// sel selects lines (-w as an equivalent expression when the
	// pattern is Go-expressible); find finds the matches of -o.
	sel, find perlVariants
	// dfa, when not nil, selects the valid UTF-8 lines that sel's Go
	// regexp would.
	dfa *lineDFA
	// screen, when sel needs the backtracking engine, is a Go regexp
	// (with its DFA) that matches every valid UTF-8 line sel matches,
	// and more: lines it rejects are not given to the backtracking
	// engine.
	screen    *regexp.Regexp
	screenDFA *lineDFA
	err       atomic.Pointer[error]
}

// perlVariants compiles a tree for each combination of (the piece
// starts the line, the piece ends the line), lazily but the whole-line
// one.
type perlVariants struct {
	tree  *pnode
	useGo bool
	progs [4]struct {
		once sync.Once
		p    *perlProg
		err  error
	}
}

func (v *perlVariants) get(atStart, atEnd bool) (*perlProg, error) {
	i := 0
	if atStart {
		i |= 2
	}
	if atEnd {
		i |= 1
	}
	s := &v.progs[i]
	s.once.Do(func() { s.p, s.err = compilePerlProg(v.tree, atStart, atEnd, v.useGo) })
	return s.p, s.err
}

// perlProg is one compiled form: Go's regexp (leftmost-first) or
// regexp2.
type perlProg struct {
	re  *regexp.Regexp
	bt  *regexp2.Regexp
	src string
}

func compilePerlProg(t *pnode, atStart, atEnd, useGo bool) (*perlProg, error) {
	if useGo {
		re, ok := perlGoTree(t, atStart, atEnd)
		if ok {
			src := goString(re)
			g, err := regexp.Compile(src)
			if err == nil {
				return &perlProg{re: g, src: src}, nil
			}
		}
	}
	var b strings.Builder
	perlNet(&b, t, atStart, atEnd)
	src := b.String()
	bt, err := regexp2.Compile(src, regexp2.None, regexp2.OptionMaxBacktrackingStackSize(perlStackLimit))
	if err != nil {
		return nil, fmt.Errorf("backtracking engine: %v", err)
	}
	bt.MatchTimeout = perlMatchTimeout
	return &perlProg{bt: bt, src: src}, nil
}

func (p *perlProg) match(seg []byte) (bool, error) {
	if p.re != nil {
		return p.re.Match(seg), nil
	}
	ok, err := p.bt.MatchRunes([]rune(string(seg)))
	if err != nil {
		return false, ErrMatchLimit
	}
	return ok, nil
}

// findAll appends the non-empty matches grep -o prints in seg, offset by
// base: GNU grep searches again from the end of each match, and one
// character on after an empty one.
func (p *perlProg) findAll(seg []byte, base int, dst [][2]int) ([][2]int, error) {
	if p.re != nil {
		for _, loc := range p.re.FindAllIndex(seg, -1) {
			if loc[1] > loc[0] {
				dst = append(dst, [2]int{base + loc[0], base + loc[1]})
			}
		}
		return dst, nil
	}
	runes := []rune(string(seg))
	offs := make([]int, 0, len(runes)+1)
	for i := range string(seg) {
		offs = append(offs, i)
	}
	offs = append(offs, len(seg))
	for cur := 0; cur < len(runes); {
		m, err := p.bt.FindRunesMatchStartingAt(runes, cur)
		if err != nil {
			return dst, ErrMatchLimit
		}
		if m == nil {
			break
		}
		s, e := m.RuneIndex, m.RuneIndex+m.RuneLength
		if g := m.GroupByName("k0"); g != nil && len(g.Captures) > 0 {
			s = g.RuneIndex
		}
		if s >= e {
			if s >= len(runes) {
				break
			}
			cur = s + 1
			continue
		}
		dst = append(dst, [2]int{base + offs[s], base + offs[e]})
		cur = e
	}
	return dst, nil
}

// pieces calls fn with each valid UTF-8 piece of line, between invalid
// sequences (empty pieces included), until fn returns false.
func pieces(line []byte, fn func(seg []byte, off int, atStart, atEnd bool) bool) {
	start := 0
	for i := 0; i < len(line); {
		r, w := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && w == 1 {
			if !fn(line[start:i], start, start == 0, false) {
				return
			}
			start = i + 1
		}
		i += w
	}
	fn(line[start:], start, start == 0, true)
}

func (pm *perlMatcher) fail(err error) {
	pm.err.CompareAndSwap(nil, &err)
}

func (pm *perlMatcher) match(line []byte) bool {
	if utf8.Valid(line) {
		if pm.dfa != nil {
			if matched, ok := pm.dfa.match(line); ok {
				return matched
			}
		}
		if pm.screen != nil {
			matched, ok := false, false
			if pm.screenDFA != nil {
				matched, ok = pm.screenDFA.match(line)
			}
			if !ok {
				matched = pm.screen.Match(line)
			}
			if !matched {
				return false
			}
		}
		p, err := pm.sel.get(true, true)
		if err == nil {
			var ok bool
			if ok, err = p.match(line); err == nil {
				return ok
			}
		}
		pm.fail(err)
		return false
	}
	found := false
	pieces(line, func(seg []byte, _ int, atStart, atEnd bool) bool {
		p, err := pm.sel.get(atStart, atEnd)
		if err == nil {
			found, err = p.match(seg)
		}
		if err != nil {
			pm.fail(err)
			return false
		}
		return !found
	})
	return found
}

func (pm *perlMatcher) findAll(line []byte, dst [][2]int) [][2]int {
	var err error
	pieces(line, func(seg []byte, off int, atStart, atEnd bool) bool {
		var p *perlProg
		if p, err = pm.find.get(atStart, atEnd); err == nil {
			dst, err = p.findAll(seg, off, dst)
		}
		return err == nil
	})
	if err != nil {
		pm.fail(err)
	}
	return dst
}

// Err returns the error that made matching a line fail, if any: for
// -P patterns matched by the backtracking engine, ErrMatchLimit once
// a line took too long (that line counted as not matching). It is nil
// for every other pattern. Callers check it after a search, as GNU grep
// stops with "exceeded PCRE's backtracking limit".
func (m *Matcher) Err() error {
	if m.perl == nil {
		return nil
	}
	if e := m.perl.err.Load(); e != nil {
		return *e
	}
	return nil
}

// compilePerl compiles a -P pattern.
func (c *compiler) compilePerl(o Options) (*Matcher, error) {
	m := &Matcher{word: o.Word && !o.Line, line: o.Line, fold: o.IgnoreCase}
	if len(o.Patterns) > 1 {
		return nil, &Error{Pattern: joinPatterns(o.Patterns), Msg: "the -P option only supports a single pattern"}
	}
	src := ""
	var t *perlTree
	if len(o.Patterns) == 0 {
		t = &perlTree{root: &pnode{op: pClass}}
		m.noLits = "no pattern"
	} else {
		src = o.Patterns[0]
		// GNU grep 3.8 compiles -x with PCRE2_EXTRA_MATCH_LINE, but
		// wraps the text of a -w pattern, so that the pattern can reach
		// into the wrapper (a trailing backslash escapes its
		// parenthesis).
		text := src
		if o.Word && !o.Line {
			text = `(?<!\w)(?:` + src + `)(?!\w)`
		}
		var err error
		if t, err = parsePerl(text, o.IgnoreCase); err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				pe.Pattern = src
			}
			return nil, err
		}
		if src == "" && !o.Word && !o.Line {
			m.all = true
		}
	}
	root := t.root
	if o.Line {
		root = &pnode{op: pConcat, subs: []*pnode{{op: pBegin}, {op: pGroup, subs: []*pnode{root}}, {op: pEnd}}}
	}
	sel, find := root, root
	_, selGo := perlGoTree(root, true, true)
	findGo := selGo && !t.keep
	if inner := wordWrapped(root); o.Word && !o.Line && inner != nil {
		// Where a match is needs the lookarounds, but whether a line
		// has one does not: a non-word character or the end on each
		// side.
		if _, ok := perlGoTree(inner, true, true); ok {
			nonWord := &pnode{op: pClass, set: perlWord.negate()}
			sel = &pnode{op: pConcat, subs: []*pnode{
				{op: pAlt, subs: []*pnode{{op: pSegBegin}, nonWord}},
				{op: pGroup, subs: []*pnode{inner}},
				{op: pAlt, subs: []*pnode{nonWord, {op: pSegEnd}}},
			}}
			selGo = true
		}
	}
	pm := &perlMatcher{sel: perlVariants{tree: sel, useGo: selGo}, find: perlVariants{tree: find, useGo: findGo}}
	selProg, err := pm.sel.get(true, true)
	if err == nil {
		_, err = pm.find.get(true, true)
	}
	if err != nil {
		return nil, &Error{Pattern: src, Msg: fmt.Sprintf("pattern not supported: %v", err), Err: ErrUnsupported}
	}
	m.perl = pm
	if selProg.re != nil && !m.word {
		m.sel = &engine{fast: selProg.re, dfa: newLineDFA(selProg.src)}
		pm.dfa = m.sel.dfa
	} else {
		src := goString(perlScreenTop(sel))
		if re, err := regexp.Compile(src); err == nil {
			pm.screen = re
			pm.screenDFA = newLineDFA(src)
		}
	}
	if m.all || len(o.Patterns) == 0 {
		return m, nil
	}
	if lits, ok := requiredLiterals(perlLitTree(root), t.fold || o.IgnoreCase); ok {
		m.lits, m.litsOK = lits, true
		m.fold = t.fold || o.IgnoreCase
		m.pre = newPrefilter(lits, m.fold)
	} else {
		m.noLits = "the pattern has no required literal"
	}
	return m, nil
}

// wordWrapped returns P of a tree parsed from GNU grep -P's -w wrapper
// (?<!\w)(?:P)(?!\w), or nil when the pattern reached into the
// wrapper and the tree has another shape.
func wordWrapped(t *pnode) *pnode {
	isWord := func(n *pnode) bool {
		return len(n.subs) == 1 && n.subs[0].op == pClass && equalSets(n.subs[0].set, perlWord)
	}
	if t.op != pConcat || len(t.subs) != 3 {
		return nil
	}
	b, g, a := t.subs[0], t.subs[1], t.subs[2]
	if b.op != pLook || !b.behind || !b.neg || !isWord(b) || g.op != pGroup || g.cap != 0 ||
		a.op != pLook || a.behind || !a.neg || !isWord(a) {
		return nil
	}
	return g.subs[0]
}

// perlGoTree converts t for Go's regexp; ok is false when it needs the
// backtracking engine. \K is left out (it does not change which lines
// match).
func perlGoTree(t *pnode, atStart, atEnd bool) (re *syntax.Regexp, ok bool) {
	switch t.op {
	case pEmpty, pKeep:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}, true
	case pLit:
		re := &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{t.r}}
		if t.fold {
			re.Flags |= syntax.FoldCase
		}
		return re, true
	case pClass:
		if len(t.set) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}, true
		}
		return &syntax.Regexp{Op: syntax.OpCharClass, Rune: append([]rune(nil), t.set...)}, true
	case pBegin:
		if !atStart {
			return &syntax.Regexp{Op: syntax.OpNoMatch}, true
		}
		return &syntax.Regexp{Op: syntax.OpBeginText}, true
	case pEnd:
		if !atEnd {
			return &syntax.Regexp{Op: syntax.OpNoMatch}, true
		}
		return &syntax.Regexp{Op: syntax.OpEndText}, true
	case pSegBegin:
		return &syntax.Regexp{Op: syntax.OpBeginText}, true
	case pSegEnd:
		return &syntax.Regexp{Op: syntax.OpEndText}, true
	case pWordB:
		return &syntax.Regexp{Op: syntax.OpWordBoundary}, true
	case pNoWordB:
		return &syntax.Regexp{Op: syntax.OpNoWordBoundary}, true
	case pConcat, pAlt:
		subs := make([]*syntax.Regexp, len(t.subs))
		for i, s := range t.subs {
			if subs[i], ok = perlGoTree(s, atStart, atEnd); !ok {
				return nil, false
			}
		}
		op := syntax.OpConcat
		if t.op == pAlt {
			op = syntax.OpAlternate
		}
		return &syntax.Regexp{Op: op, Sub: subs}, true
	case pGroup:
		return perlGoTree(t.subs[0], atStart, atEnd)
	case pRepeat:
		if t.poss || t.min > maxRepeat || t.max > maxRepeat {
			return nil, false
		}
		sub, ok := perlGoTree(t.subs[0], atStart, atEnd)
		if !ok {
			return nil, false
		}
		re := &syntax.Regexp{Op: syntax.OpRepeat, Sub: []*syntax.Regexp{sub}, Min: t.min, Max: t.max}
		switch {
		case t.min == 0 && t.max == -1:
			re.Op = syntax.OpStar
		case t.min == 1 && t.max == -1:
			re.Op = syntax.OpPlus
		case t.min == 0 && t.max == 1:
			re.Op = syntax.OpQuest
		}
		if t.lazy {
			re.Flags |= syntax.NonGreedy
		}
		return re, true
	}
	return nil, false
}

// perlLitTree is t for required-literal analysis: what only the
// backtracking engine matches (lookarounds, back-references) is left
// out, which can only make the literals fewer, never wrong.
func perlLitTree(t *pnode) *syntax.Regexp {
	switch t.op {
	case pLook, pRef:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	case pAtomic, pGroup:
		return perlLitTree(t.subs[0])
	case pRepeat:
		sub := perlLitTree(t.subs[0])
		return &syntax.Regexp{Op: syntax.OpRepeat, Sub: []*syntax.Regexp{sub}, Min: t.min, Max: t.max}
	case pConcat, pAlt:
		return perlMapSubs(t, perlLitTree)
	}
	re, _ := perlGoTree(t, true, true)
	return re
}

// perlMapSubs turns a concatenation or an alternation into Go's, each of
// its parts by f.
func perlMapSubs(t *pnode, f func(*pnode) *syntax.Regexp) *syntax.Regexp {
	subs := make([]*syntax.Regexp, len(t.subs))
	for i, s := range t.subs {
		subs[i] = f(s)
	}
	op := syntax.OpConcat
	if t.op == pAlt {
		op = syntax.OpAlternate
	}
	return &syntax.Regexp{Op: op, Sub: subs}
}

// perlScreenTop is perlScreenTree, but a positive lookbehind that
// starts the pattern, or a positive lookahead that ends it, consumes
// what it looks at: a line has a match of (?<=X)Y(?=Z) only if it has one
// of XYZ.
func perlScreenTop(t *pnode) *syntax.Regexp {
	if t.op != pConcat || len(t.subs) < 2 {
		return perlScreenTree(t)
	}
	subs := make([]*syntax.Regexp, len(t.subs))
	for i, s := range t.subs {
		if s.op == pLook && !s.neg && (i == 0 && s.behind || i == len(t.subs)-1 && !s.behind) {
			subs[i] = perlScreenTree(s.subs[0])
		} else {
			subs[i] = perlScreenTree(s)
		}
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
}

// perlScreenTree is a Go regexp that matches wherever t does, and
// possibly elsewhere: lookarounds and \K match the empty string, a
// back-reference any text, atomic groups and possessive quantifiers
// backtrack, and counts above Go's limit become * or +.
func perlScreenTree(t *pnode) *syntax.Regexp {
	switch t.op {
	case pLook, pKeep:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	case pRef:
		return &syntax.Regexp{Op: syntax.OpStar, Sub: []*syntax.Regexp{{Op: syntax.OpAnyChar}}}
	case pAtomic, pGroup:
		return perlScreenTree(t.subs[0])
	case pRepeat:
		sub := perlScreenTree(t.subs[0])
		re := &syntax.Regexp{Op: syntax.OpRepeat, Sub: []*syntax.Regexp{sub}, Min: t.min, Max: t.max}
		switch {
		case t.min == 0 && (t.max == -1 || t.max > maxRepeat):
			re.Op = syntax.OpStar
		case t.max == -1 && t.min == 1 || t.min > maxRepeat || t.max > maxRepeat:
			re.Op = syntax.OpPlus
		}
		return re
	case pConcat, pAlt:
		return perlMapSubs(t, perlScreenTree)
	}
	re, _ := perlGoTree(t, true, true)
	return re
}

// The ASCII word class as regexp2 reads it, for \b and \B.
const netWord = `[0-9A-Za-z_]`

// perlNet writes t in the syntax of regexp2 (.NET's), with every class
// spelled out and capturing groups named g1, g2... by their PCRE number
// (.NET numbers named groups after unnamed ones), \K as the empty
// group k0.
func perlNet(b *strings.Builder, t *pnode, atStart, atEnd bool) {
	switch t.op {
	case pEmpty:
		b.WriteString("(?:)")
	case pKeep:
		b.WriteString("(?<k0>)")
	case pLit:
		if t.fold {
			// Spelled out: regexp2's folding of title case differs.
			netClass(b, foldRunes(runeSet{t.r, t.r}))
		} else {
			netChar(b, t.r, false)
		}
	case pClass:
		netClass(b, t.set)
	case pBegin:
		if atStart {
			b.WriteString(`\A`)
		} else {
			b.WriteString("(?!)")
		}
	case pEnd:
		if atEnd {
			b.WriteString(`\z`)
		} else {
			b.WriteString("(?!)")
		}
	case pSegBegin:
		b.WriteString(`\A`)
	case pSegEnd:
		b.WriteString(`\z`)
	case pWordB:
		b.WriteString(`(?:(?<=` + netWord + `)(?!` + netWord + `)|(?<!` + netWord + `)(?=` + netWord + `))`)
	case pNoWordB:
		b.WriteString(`(?:(?<=` + netWord + `)(?=` + netWord + `)|(?<!` + netWord + `)(?!` + netWord + `))`)
	case pConcat:
		for _, s := range t.subs {
			perlNet(b, s, atStart, atEnd)
		}
	case pAlt:
		b.WriteString("(?:")
		for i, s := range t.subs {
			if i > 0 {
				b.WriteByte('|')
			}
			perlNet(b, s, atStart, atEnd)
		}
		b.WriteString(")")
	case pGroup, pAtomic, pLook:
		switch {
		case t.op == pAtomic:
			b.WriteString("(?>")
		case t.op == pLook:
			b.WriteString("(?")
			if t.behind {
				b.WriteByte('<')
			}
			if t.neg {
				b.WriteByte('!')
			} else {
				b.WriteByte('=')
			}
		case t.cap > 0:
			fmt.Fprintf(b, "(?<g%d>", t.cap)
		default:
			b.WriteString("(?:")
		}
		perlNet(b, t.subs[0], atStart, atEnd)
		b.WriteString(")")
	case pRepeat:
		if t.poss {
			b.WriteString("(?>")
		}
		b.WriteString("(?:")
		perlNet(b, t.subs[0], atStart, atEnd)
		b.WriteString(")")
		switch {
		case t.min == 0 && t.max == -1:
			b.WriteString("*")
		case t.min == 1 && t.max == -1:
			b.WriteString("+")
		case t.min == 0 && t.max == 1:
			b.WriteString("?")
		case t.max == -1:
			fmt.Fprintf(b, "{%d,}", t.min)
		case t.min == t.max:
			fmt.Fprintf(b, "{%d}", t.min)
		default:
			fmt.Fprintf(b, "{%d,%d}", t.min, t.max)
		}
		if t.lazy {
			b.WriteString("?")
		}
		if t.poss {
			b.WriteString(")")
		}
	case pRef:
		if t.fold {
			fmt.Fprintf(b, `(?i:\k<g%d>)`, t.cap)
		} else {
			fmt.Fprintf(b, `\k<g%d>`, t.cap)
		}
	}
}

// netChar writes one character for regexp2, escaped as needed (inClass:
// inside brackets).
func netChar(b *strings.Builder, r rune, inClass bool) {
	switch {
	case r < 0x20 || r == 0x7f:
		fmt.Fprintf(b, `\x%02x`, r)
	case r == '_' || r == ' ' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		b.WriteRune(r)
	case r < utf8.RuneSelf:
		b.WriteByte('\\')
		b.WriteRune(r)
	case 0xd800 <= r && r <= 0xdfff:
		// Not in Go strings; callers clip ranges.
		b.WriteRune(0xfffd)
	default:
		b.WriteRune(r)
	}
}

func netClass(b *strings.Builder, s runeSet) {
	if len(s) == 0 {
		b.WriteString("(?!)")
		return
	}
	b.WriteByte('[')
	for i := 0; i < len(s); i += 2 {
		lo, hi := s[i], s[i+1]
		if lo >= 0xd800 && lo <= 0xdfff {
			lo = 0xe000
		}
		if hi >= 0xd800 && hi <= 0xdfff {
			hi = 0xd7ff
		}
		if lo > hi {
			continue
		}
		netChar(b, lo, true)
		if hi > lo {
			b.WriteByte('-')
			netChar(b, hi, true)
		}
	}
	b.WriteByte(']')
}
