package regex

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Matcher matches lines against compiled grep patterns. It is safe for
// concurrent use.
type Matcher struct {
	word bool // -w (and not -x)
	// all is set when every line matches (an empty pattern without -w/-x).
	all bool
	// sel selects lines (without -w); pos finds the matches of -o and
	// -w. They differ only for ERE repetition operators with nothing to
	// repeat, which GNU grep's dfa and regex read differently. Both are
	// nil when multi is set.
	sel, pos *engine
	// multi matches many patterns through their literals (see multi.go).
	multi *multi
	// literal is set when the only pattern is a literal that matches
	// itself only; it is then searched for directly (Go's regexp takes
	// time quadratic in the length of a long literal that nearly matches
	// often). line is -x.
	literal []byte
	line    bool
	// fexec is set when GNU grep 3.8 would match the patterns with its
	// fixed-string matcher (kwsearch), whose -w search differs from its
	// regex matcher's under -o: see findWord.
	fexec bool

	lits     []string
	fold     bool
	litsOK   bool
	noLits   string // why litsOK is false
	pre      *prefilter
	warnings []string
	// perl matches a -P pattern (sel, when set, is only its Go
	// selection engine, for Next's DFA scan).
	perl *perlMatcher
}

// engine is one compiled form of the patterns.
type engine struct {
	// fast is Go's regexp (leftmost-longest), used on lines that are
	// valid UTF-8; nil when the patterns need GNU word assertions.
	fast *regexp.Regexp
	// dfa, when not nil, selects the lines that fast would (see
	// lineDFA).
	dfa *lineDFA
	// slow runs on every other line, and for -w retries.
	slow *prog
}

// Compile is CompileContext without a context.
func Compile(o Options) (*Matcher, error) {
	return CompileContext(context.Background(), o)
}

// CompileContext compiles o. It returns a *Error for an invalid pattern,
// with GNU grep's message; patterns that GNU grep accepts but that cannot
// be matched here (back-references, repetition counts above 1000) give a
// *Error that wraps ErrUnsupported. The first failing pattern is
// reported. No pattern at all matches nothing.
//
// Its cost is linear in the total size of the patterns, up to a
// logarithmic factor, for any number of patterns: when they have more
// required literals than a coarse filter can use, they are matched
// through an Aho-Corasick automaton of their literals, and each pattern's
// regular expression is compiled only when a line contains one of its
// literals. CompileContext polls ctx as it goes; if ctx ends first it
// returns a *CanceledError that wraps ctx.Err() (context.Canceled or
// context.DeadlineExceeded). Go's regexp compiler cannot be interrupted:
// when ctx ends while it compiles the combined patterns, CompileContext
// returns at once and the compilation finishes in the background.
func CompileContext(ctx context.Context, o Options) (*Matcher, error) {
	c := &compiler{ctx: ctx, patterns: len(o.Patterns)}
	return c.compile(o)
}

// compiler is the state of one compilation: the work done so far, in
// units of about one pattern byte, and the context polled every
// pollWork units.
type compiler struct {
	ctx      context.Context
	patterns int
	work     int64
	nextPoll int64
	err      error
	// testEngine, when set, is called while the combined engine
	// compiles in the background; denseLimit, when not 0, replaces
	// the constant (tests of the sparse automaton).
	testEngine func()
	denseLimit int
	minTrie    int  // when not 0, replaces the constant
	noMulti    bool // tests: always compile the patterns together
}

const pollWork = 1 << 12

// tick adds n units of work and, every pollWork units, checks the
// context; it returns the *CanceledError once the context has ended.
func (c *compiler) tick(n int) error {
	c.work += int64(n)
	if c.err == nil && c.work >= c.nextPoll {
		c.nextPoll = c.work + pollWork
		c.err = c.check()
	}
	return c.err
}

func (c *compiler) check() error {
	if err := c.ctx.Err(); err != nil {
		return &CanceledError{Patterns: c.patterns, Err: err}
	}
	return nil
}

// patInfo is one parsed pattern.
type patInfo struct {
	src     string
	re      *syntax.Regexp // as GNU dfa reads it
	rre     *syntax.Regexp // as GNU regex reads it (re unless ambiguous)
	wordOps bool
	invalid bool
	lits    []string // required literals, when litsOK
}

func (c *compiler) compile(o Options) (*Matcher, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if o.Syntax == Perl {
		return c.compilePerl(o)
	}
	m := &Matcher{word: o.Word && !o.Line, line: o.Line, fold: o.IgnoreCase, fexec: gnuFixed(o)}
	pats := make([]patInfo, 0, len(o.Patterns))
	wordOps, invalid, differ := false, false, false
	nlits, nolits := 0, 0 // literals, and patterns without any
	for _, pat := range o.Patterns {
		if err := c.tick(len(pat) + 1); err != nil {
			return nil, err
		}
		re, p, err := parse(pat, o.Syntax, o.IgnoreCase, false)
		if err != nil {
			return nil, err
		}
		if err := checkRepeats(pat, re); err != nil {
			return nil, err
		}
		rre := re
		if p.ambiguous {
			differ = true
			if rre, _, err = parse(pat, o.Syntax, o.IgnoreCase, true); err != nil {
				return nil, err
			}
			if err := checkRepeats(pat, rre); err != nil {
				return nil, err
			}
		}
		m.warnings = append(m.warnings, p.warnings...)
		wordOps = wordOps || p.wordOps
		invalid = invalid || p.invalid
		if pat == "" && !o.Word && !o.Line {
			m.all = true
		}
		pi := patInfo{src: pat, re: re, rre: rre, wordOps: p.wordOps, invalid: p.invalid}
		if l, ok := requiredLiterals(re, o.IgnoreCase); ok {
			pi.lits = l
			nlits += len(l)
		} else {
			nolits++
		}
		pats = append(pats, pi)
	}
	litsOK := nolits == 0
	if !litsOK {
		m.noLits = fmt.Sprintf("%d of %d patterns have no required literal", nolits, len(pats))
	}
	if len(pats) == 0 {
		m.noLits = "no pattern"
		none := &syntax.Regexp{Op: syntax.OpNoMatch}
		pats = append(pats, patInfo{re: none, rre: none})
		litsOK = false
	}
	// A long list, or one with more literals than a coarse filter
	// takes, is matched through its literals (multi), unless too many of
	// its patterns have none. (A long list may still have a few
	// literals for the coarse filter: "a", "ab", "abc"... need only
	// "a".)
	useMulti := !c.noMulti && !differ && !m.all && nolits <= maxNoLiterals && len(pats) > 1 &&
		(len(pats) > maxLiterals || nolits == 0)
	if litsOK {
		all := make([]string, 0, nlits)
		for _, p := range pats {
			all = append(all, p.lits...)
		}
		lits, ok := minimalLiterals(all, maxLiterals, &c.work)
		if err := c.tick(0); err != nil {
			return nil, err
		}
		if ok && len(lits) > 0 {
			m.lits = lits
			useMulti = useMulti && len(pats) > maxLiterals
		} else {
			litsOK = false
			m.noLits = fmt.Sprintf("the %d patterns need more than %d required literals", len(pats), maxLiterals)
		}
	}
	if useMulti {
		mm, err := c.newMulti(pats, o)
		if err != nil {
			return nil, err
		}
		m.multi = mm
		m.litsOK = litsOK
		if !litsOK {
			m.lits = nil
		}
		return m, nil
	}
	var dfaSubs, regexSubs []*syntax.Regexp
	for _, p := range pats {
		dfaSubs = append(dfaSubs, p.re)
		regexSubs = append(regexSubs, p.rre)
	}
	var err error
	if m.pos, err = c.newEngine(regexSubs, o, wordOps, invalid); err != nil {
		return nil, err
	}
	m.sel = m.pos
	if differ && !wordOps {
		// GNU dfa cannot handle word assertions in UTF-8, so GNU grep
		// then selects lines with regex too.
		if m.sel, err = c.newEngine(dfaSubs, o, false, invalid); err != nil {
			return nil, err
		}
		litsOK = false
		m.noLits = "the patterns select lines with word assertions"
	}
	if len(pats) == 1 && plainLiteral(pats[0].re) && len(pats[0].re.Rune) > 0 {
		m.literal = []byte(string(pats[0].re.Rune))
	}
	if m.literal == nil && !m.word && m.sel.fast != nil {
		m.sel.dfa = newLineDFA(m.sel.fast.String())
	}
	if litsOK {
		m.litsOK = true
		m.pre = newPrefilter(m.lits, o.IgnoreCase)
	} else {
		m.lits = nil
	}
	return m, nil
}

// newEngine compiles subs as alternatives. Go's compilers cannot be
// interrupted: they run in a goroutine that newEngine abandons when the
// context ends first.
func (c *compiler) newEngine(subs []*syntax.Regexp, o Options, wordOps, invalid bool) (*engine, error) {
	size := 0
	for _, s := range subs {
		size += progSize(s)
	}
	if size > maxTotalProgSize {
		return nil, &Error{Pattern: joinPatterns(o.Patterns), Msg: "patterns too large to compile together after expanding repetitions and classes", Err: ErrUnsupported}
	}
	if err := c.tick(size); err != nil {
		return nil, err
	}
	if size < 1<<12 && c.testEngine == nil {
		return newEngine(subs, o, wordOps, invalid)
	}
	type result struct {
		e   *engine
		err error
	}
	done := make(chan result, 1)
	go func() {
		e, err := newEngine(subs, o, wordOps, invalid)
		done <- result{e, err}
	}()
	if c.testEngine != nil {
		c.testEngine()
	}
	select {
	case r := <-done:
		if err := c.check(); err != nil {
			return nil, err
		}
		return r.e, r.err
	case <-c.ctx.Done():
		return nil, c.check()
	}
}

func newEngine(subs []*syntax.Regexp, o Options, wordOps, invalid bool) (*engine, error) {
	e, fastErr := buildEngine(alternate(subs), o.Line, wordOps, invalid)
	if fastErr != nil {
		return nil, &Error{Pattern: joinPatterns(o.Patterns), Msg: fmt.Sprintf("pattern not supported: %v", fastErr), Err: ErrUnsupported}
	}
	return e, nil
}

// buildEngine compiles re (anchored at both ends with line). The slow
// engine always compiles (syntax.Compile has no failure); fastErr is Go
// regexp's error, and e.fast is then nil.
func buildEngine(re *syntax.Regexp, line, wordOps, invalid bool) (e *engine, fastErr error) {
	if line {
		re = concat([]*syntax.Regexp{{Op: syntax.OpBeginText}, re, {Op: syntax.OpEndText}})
	}
	e = &engine{slow: compileProg(re)}
	if !wordOps {
		fast, err := regexp.Compile(goSource(re, invalid))
		if err != nil {
			return e, err
		}
		fast.Longest()
		e.fast = fast
	}
	return e, nil
}

// match reports whether line contains a match.
func (e *engine) match(line []byte) bool {
	if e.fast != nil && utf8.Valid(line) {
		if e.dfa != nil {
			if matched, ok := e.dfa.match(line); ok {
				return matched
			}
		}
		return e.fast.Match(line)
	}
	s, _ := e.slow.find(line, 0, len(line), false, false)
	return s >= 0
}

func joinPatterns(ps []string) string {
	var b bytes.Buffer
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// Warnings returns the warnings GNU grep 3.8 prints for the patterns
// (without the "grep: warning: " prefix), such as "* at start of
// expression". They do not affect matching.
func (m *Matcher) Warnings() []string { return append([]string(nil), m.warnings...) }

// maxNoLiterals is the largest number of patterns without required
// literals that a long list matched through its literals may have: they
// are tried on every line.
const maxNoLiterals = 64

// maxProgSize bounds the estimated size of a compiled pattern, and
// maxTotalProgSize that of patterns compiled together (when they cannot
// be matched through their literals).
const (
	maxProgSize      = 1 << 17
	maxTotalProgSize = 1 << 23
)

// checkRepeats refuses repetition counts that Go's regexp cannot compile
// and patterns whose expanded repetitions would be too large.
func checkRepeats(pat string, re *syntax.Regexp) error {
	if progSize(re) > maxProgSize {
		return &Error{Pattern: pat, Msg: fmt.Sprintf("pattern too large: more than %d instructions after expanding repetitions and case classes", maxProgSize), Err: ErrUnsupported}
	}
	return checkCounts(pat, re)
}

func checkCounts(pat string, re *syntax.Regexp) error {
	if re.Op == syntax.OpRepeat && (re.Min > maxRepeat || re.Max > maxRepeat) {
		return &Error{Pattern: pat, Msg: fmt.Sprintf("repetition count above %d is not supported", maxRepeat), Err: ErrUnsupported}
	}
	for _, s := range re.Sub {
		if err := checkCounts(pat, s); err != nil {
			return err
		}
	}
	return nil
}

// progSize estimates the number of instructions re compiles to.
func progSize(re *syntax.Regexp) int {
	n := 1 + len(re.Rune)
	for _, s := range re.Sub {
		n += progSize(s)
	}
	if re.Op == syntax.OpRepeat {
		n *= max(re.Min, re.Max, 1)
	}
	return min(n, maxProgSize+1)
}

// goSource prints re as Go regexp syntax. Literals standing for invalid
// bytes cannot occur in valid UTF-8 and become a class that matches
// nothing.
func goSource(re *syntax.Regexp, invalid bool) string {
	if invalid {
		re = replaceInvalid(re)
	}
	return goString(re)
}

func replaceInvalid(re *syntax.Regexp) *syntax.Regexp {
	if re.Op == syntax.OpLiteral && isPlaceholder(re) {
		return &syntax.Regexp{Op: syntax.OpNoMatch}
	}
	if len(re.Sub) == 0 {
		return re
	}
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = replaceInvalid(s)
	}
	return &c
}

// Match reports whether line (without its '\n') contains a match, as
// grep selects lines (before -v).
func (m *Matcher) Match(line []byte) bool {
	if m.all {
		return true
	}
	if m.perl != nil {
		return m.perl.match(line)
	}
	if m.multi != nil {
		return m.multi.match(m, line)
	}
	if m.literal != nil {
		s, _ := m.findLiteral(line, 0)
		return s >= 0
	}
	if m.word {
		s, _ := m.findWord(m.pos, line, 0)
		return s >= 0
	}
	return m.sel.match(line)
}

// find returns the first match GNU grep reports in line starting at or
// after from, honouring -w; s is -1 when there is none.
func (m *Matcher) find(pos *engine, line []byte, from int) (s, e int) {
	if m.word {
		return m.findWord(pos, line, from)
	}
	return pos.slow.find(line, from, len(line), false, false)
}

// findWord is GNU grep's -w search (EGexecute): take the leftmost-longest
// match at or after from; if it is not delimited by non-word characters,
// try the longest shorter non-empty match at the same start, then search
// again one character further on. pos is the engine to use.
func (m *Matcher) findWord(pos *engine, line []byte, from int) (s, e int) {
	if from == 0 && pos.fast != nil && utf8.Valid(line) {
		loc := pos.fast.FindIndex(line)
		if loc == nil {
			return -1, -1
		}
		if wordDelimited(line, loc[0], loc[1]) {
			return loc[0], loc[1]
		}
	}
	for start := from; start <= len(line); {
		s, e := pos.slow.find(line, start, len(line), false, false)
		if s < 0 {
			return -1, -1
		}
		for {
			if m.delimited(line, s, e, from) {
				return s, e
			}
			if e == s {
				break
			}
			// GNU grep 3.8's regex matcher truncates the line at
			// (e-1)-from rather than e-1 when it retries a shorter match
			// (from is 0 except for grep -o after the first match);
			// mirror that. Its fixed-string matcher does not.
			_, w := decodeLastRune(line[s:e])
			limit := e - w - from
			if m.fexec {
				limit = e - w
			}
			if limit < s {
				break
			}
			_, e2 := pos.slow.find(line, s, limit, true, true)
			if e2 <= s {
				break
			}
			e = e2
		}
		if s == len(line) {
			break
		}
		_, w := decodeRune(line[s:])
		start = s + w
	}
	return -1, -1
}

// findLiteral is find for m.literal: its first occurrence at or after
// from, delimited as words with -w, or the whole line with -x. A
// literal has only one length, so GNU's -w retries of shorter matches
// come to moving one character on.
func (m *Matcher) findLiteral(line []byte, from int) (s, e int) {
	lit := m.literal
	if m.line {
		if from == 0 && bytes.Equal(line, lit) {
			return 0, len(line)
		}
		return -1, -1
	}
	for start := from; start+len(lit) <= len(line); {
		i := bytes.Index(line[start:], lit)
		if i < 0 {
			break
		}
		s := start + i
		if !m.word || m.delimited(line, s, s+len(lit), from) {
			return s, s + len(lit)
		}
		_, w := decodeRune(line[s:])
		start = s + w
	}
	return -1, -1
}

// delimited is wordDelimited for a -w match line[s:e] searched for from
// from. GNU grep's fixed-string matcher, searching on after an earlier
// grep -o match that ended at from, does not look at the character
// before from: a match that starts there counts as preceded by a
// non-word character.
func (m *Matcher) delimited(line []byte, s, e, from int) bool {
	if m.fexec && s == from && from > 0 {
		return wordDelimited(line[s:], 0, e-s)
	}
	return wordDelimited(line, s, e)
}

// gnuFixed reports whether GNU grep 3.8 in a UTF-8 locale matches o's
// patterns with its fixed-string matcher: -F patterns that are valid
// UTF-8, and two or more -G or -E patterns none of which has a special
// character (grep's try_fgrep_pattern). With -i that depends on the C
// library's case tables; this package then follows the regex matcher.
func gnuFixed(o Options) bool {
	if o.IgnoreCase {
		return false
	}
	switch o.Syntax {
	case Fixed:
		for _, p := range o.Patterns {
			if !utf8.ValidString(p) {
				return false
			}
		}
		return true
	case Basic, Extended:
		if len(o.Patterns) < 2 {
			return false
		}
		for _, p := range o.Patterns {
			if !fixedRegexp(p, o.Syntax == Extended) {
				return false
			}
		}
		return true
	}
	return false
}

// fixedRegexp reports whether GNU grep's try_fgrep_pattern takes the
// regular expression p for a fixed string.
func fixedRegexp(p string, ere bool) bool {
	for i := 0; i < len(p); {
		switch p[i] {
		case '$', '*', '.', '[', '^':
			return false
		case '(', '+', '?', '{', '|':
			if ere {
				return false
			}
		case '\\':
			if i+1 == len(p) {
				return false
			}
			switch p[i+1] {
			case 'B', 'S', 'W', '\'', '<', 'b', 's', 'w', '`', '>', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				return false
			case '(', '+', '?', '{', '|':
				if !ere {
					return false
				}
			}
			i++
		}
		r, w := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && w == 1 {
			return false
		}
		i += w
	}
	return true
}

// wordDelimited reports whether line[s:e] is preceded by the start of the
// line or a non-word character and followed by the end of the line or a
// non-word character (bytes that are not UTF-8 are non-word characters).
func wordDelimited(line []byte, s, e int) bool {
	if s > 0 {
		if r, _ := decodeLastRune(line[:s]); isWordRune(r) {
			return false
		}
	}
	if e < len(line) {
		if r, _ := decodeRune(line[e:]); isWordRune(r) {
			return false
		}
	}
	return true
}

// FindAll appends to dst the matches that grep -o prints for line (without
// its '\n'), in order: each is the leftmost-longest match (leftmost-first
// for Perl, starting where \K says) starting at or
// after the end of the previous one (with the whole line as context), -w
// and -x respected; empty matches are skipped (grep -o prints nothing for
// them) and the search goes on one character later. With -v grep -o prints
// nothing at all; that is the caller's business.
func (m *Matcher) FindAll(line []byte, dst [][2]int) [][2]int {
	if m.perl != nil {
		return m.perl.findAll(line, dst)
	}
	if m.literal != nil {
		for cur := 0; ; {
			s, e := m.findLiteral(line, cur)
			if s < 0 {
				return dst
			}
			dst = append(dst, [2]int{s, e})
			cur = e
		}
	}
	pos := m.pos
	if m.multi != nil {
		// The patterns none of whose literals occur in line have no
		// match in it: the others, together, find what all would.
		if pos = m.multi.engineFor(m, line); pos == nil {
			return dst
		}
	}
	if !m.word && pos.fast != nil && utf8.Valid(line) {
		for _, loc := range pos.fast.FindAllIndex(line, -1) {
			if loc[1] > loc[0] {
				dst = append(dst, [2]int{loc[0], loc[1]})
			}
		}
		return dst
	}
	for cur := 0; cur < len(line); {
		s, e := m.find(pos, line, cur)
		if s < 0 || s == len(line) {
			break
		}
		if e == s {
			_, w := decodeRune(line[s:])
			cur = s + w
			continue
		}
		dst = append(dst, [2]int{s, e})
		cur = e
	}
	return dst
}

// Next returns the bounds [start,end) of the first line of buf that
// contains a match (end excludes the '\n'); ok is false when no line
// matches. Lines are separated by '\n' and the last one may lack it; a
// buffer that ends with '\n' has no empty line after it. Next looks for
// the pattern's required literals in the whole buffer first, when there
// are any, and runs the regular expression only on the lines that
// contain one.
func (m *Matcher) Next(buf []byte) (start, end int, ok bool) {
	pos := 0
	if m.scansWithDFA() {
		// The DFA runs over the whole buffer and finds line ends only
		// for the line it returns; lines it cannot decide (not valid
		// UTF-8) are matched one by one.
		for pos < len(buf) {
			ls, le, res := m.sel.dfa.scan(buf[pos:])
			switch res {
			case scanNone:
				return 0, 0, false
			case scanMatch:
				return pos + ls, pos + le, true
			case scanUndecided:
				if m.Match(buf[pos+ls : pos+le]) {
					return pos + ls, pos + le, true
				}
				pos += le + 1
				continue
			}
			pos += ls // scanGaveUp: line by line from here
			break
		}
	}
	for pos < len(buf) {
		ls := pos
		switch {
		case m.all:
		case m.multi != nil && len(m.multi.always) == 0:
			c := m.multi.set.first(buf, pos)
			if c < 0 {
				return 0, 0, false
			}
			// The literal's last byte, at c-1, is not a '\n'.
			ls = bytes.LastIndexByte(buf[pos:c-1], '\n') + 1 + pos
		case m.pre != nil:
			c := m.pre.next(buf, pos)
			if c < 0 {
				return 0, 0, false
			}
			ls = bytes.LastIndexByte(buf[pos:c], '\n') + 1 + pos
		}
		le := bytes.IndexByte(buf[ls:], '\n')
		if le < 0 {
			le = len(buf)
		} else {
			le += ls
		}
		if m.Match(buf[ls:le]) {
			return ls, le, true
		}
		pos = le + 1
	}
	return 0, 0, false
}

// scansWithDFA reports whether Next selects lines by running the lazy
// DFA over the buffer: when Match would ask the selecting engine alone
// and there is no prefilter to skip lines with.
func (m *Matcher) scansWithDFA() bool {
	return !m.all && m.multi == nil && m.pre == nil && m.literal == nil && !m.word &&
		m.sel != nil && m.sel.fast != nil && m.sel.dfa != nil
}

// NoLiterals returns why Literals reports false, for a trace ("" when
// it reports true).
func (m *Matcher) NoLiterals() string {
	switch {
	case m.litsOK:
		return ""
	case m.all:
		return "a pattern matches every line"
	case m.noLits != "":
		return m.noLits
	}
	return "no set of required literals"
}

// Literals returns a set of strings such that every line that matches
// contains at least one of them, compared case-insensitively by Unicode
// simple folding (as bytes.EqualFold) when fold is true. ok is false when
// there is no such set (for example for a pattern that matches the empty
// string, ".", "[a-z]+", or more than a handful of alternatives), and
// callers must then scan. Literals are non-empty, contain no '\n' and
// are valid UTF-8.
func (m *Matcher) Literals() (lits []string, fold bool, ok bool) {
	if !m.litsOK {
		return nil, false, false
	}
	return append([]string(nil), m.lits...), m.fold, true
}
