package pattern

import (
	"bytes"
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
	// repeat, which GNU grep's dfa and regex read differently.
	sel, pos *engine

	lits     []string
	fold     bool
	litsOK   bool
	pre      *prefilter
	warnings []string
}

// engine is one compiled form of the patterns.
type engine struct {
	// fast is Go's regexp (leftmost-longest), used on lines that are
	// valid UTF-8; nil when the patterns need GNU word assertions.
	fast *regexp.Regexp
	// slow runs on every other line, and for -w retries.
	slow *prog
}

// Compile compiles o. It returns a *Error for an invalid pattern, with
// GNU grep's message; patterns that GNU grep accepts but that cannot be
// matched here (back-references, repetition counts above 1000) give a
// *Error that wraps ErrUnsupported. The first failing pattern is
// reported. No pattern at all matches nothing.
func Compile(o Options) (*Matcher, error) {
	m := &Matcher{word: o.Word && !o.Line, fold: o.IgnoreCase}
	var dfaSubs, regexSubs []*syntax.Regexp
	wordOps, invalid, differ := false, false, false
	litsOK := true
	var lits []string
	for _, pat := range o.Patterns {
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
		dfaSubs = append(dfaSubs, re)
		regexSubs = append(regexSubs, rre)
		if litsOK {
			l, ok := requiredLiterals(re, o.IgnoreCase)
			if ok {
				lits = append(lits, l...)
			} else {
				litsOK = false
			}
		}
	}
	if len(dfaSubs) == 0 {
		dfaSubs = append(dfaSubs, &syntax.Regexp{Op: syntax.OpNoMatch})
		regexSubs = dfaSubs
		litsOK = false
	}
	var err error
	if m.pos, err = newEngine(regexSubs, o, wordOps, invalid); err != nil {
		return nil, err
	}
	m.sel = m.pos
	if differ && !wordOps {
		// GNU dfa cannot handle word assertions in UTF-8, so GNU grep
		// then selects lines with regex too.
		if m.sel, err = newEngine(dfaSubs, o, false, invalid); err != nil {
			return nil, err
		}
		litsOK = false
	}
	if litsOK {
		lits = dedupLiterals(lits)
		if len(lits) > 0 && len(lits) <= maxLiterals {
			m.lits, m.litsOK = lits, true
			m.pre = newPrefilter(lits, o.IgnoreCase)
		}
	}
	return m, nil
}

func newEngine(subs []*syntax.Regexp, o Options, wordOps, invalid bool) (*engine, error) {
	re := alternate(subs)
	if o.Line {
		re = concat([]*syntax.Regexp{{Op: syntax.OpBeginText}, re, {Op: syntax.OpEndText}})
	}
	e := &engine{}
	var err error
	if e.slow, err = compileProg(re); err != nil {
		return nil, &Error{Pattern: joinPatterns(o.Patterns), Msg: msgTooBig}
	}
	if !wordOps {
		src := goSource(re, invalid)
		fast, err := regexp.Compile(src)
		if err != nil {
			return nil, &Error{Pattern: joinPatterns(o.Patterns), Msg: fmt.Sprintf("pattern not supported: %v", err), Err: ErrUnsupported}
		}
		fast.Longest()
		e.fast = fast
	}
	return e, nil
}

// match reports whether line contains a match.
func (e *engine) match(line []byte) bool {
	if e.fast != nil && utf8.Valid(line) {
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

// maxProgSize bounds the estimated size of a compiled pattern.
const maxProgSize = 1 << 17

// checkRepeats refuses repetition counts that Go's regexp cannot compile
// and patterns whose expanded repetitions would be too large.
func checkRepeats(pat string, re *syntax.Regexp) error {
	if progSize(re) > maxProgSize {
		return &Error{Pattern: pat, Msg: "pattern too large after expanding repetitions", Err: ErrUnsupported}
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
	if m.word {
		s, _ := m.findWord(line, 0)
		return s >= 0
	}
	return m.sel.match(line)
}

// find returns the first match GNU grep reports in line starting at or
// after from, honouring -w; s is -1 when there is none.
func (m *Matcher) find(line []byte, from int) (s, e int) {
	if m.word {
		return m.findWord(line, from)
	}
	return m.pos.slow.find(line, from, len(line), false, false)
}

// findWord is GNU grep's -w search (EGexecute): take the leftmost-longest
// match at or after from; if it is not delimited by non-word characters,
// try the longest shorter non-empty match at the same start, then search
// again one character further on.
func (m *Matcher) findWord(line []byte, from int) (s, e int) {
	if from == 0 && m.pos.fast != nil && utf8.Valid(line) {
		loc := m.pos.fast.FindIndex(line)
		if loc == nil {
			return -1, -1
		}
		if wordDelimited(line, loc[0], loc[1]) {
			return loc[0], loc[1]
		}
	}
	for start := from; start <= len(line); {
		s, e := m.pos.slow.find(line, start, len(line), false, false)
		if s < 0 {
			return -1, -1
		}
		for {
			if wordDelimited(line, s, e) {
				return s, e
			}
			if e == s {
				break
			}
			// GNU grep 3.8 truncates the line at (e-1)-from rather than
			// e-1 when it retries a shorter match (from is 0 except for
			// grep -o after the first match); mirror that.
			_, w := decodeLastRune(line[s:e])
			limit := e - w - from
			if limit < s {
				break
			}
			_, e2 := m.pos.slow.find(line, s, limit, true, true)
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
// its '\n'), in order: each is the leftmost-longest match starting at or
// after the end of the previous one (with the whole line as context), -w
// and -x respected; empty matches are skipped (grep -o prints nothing for
// them) and the search goes on one character later. With -v grep -o prints
// nothing at all; that is the caller's business.
func (m *Matcher) FindAll(line []byte, dst [][2]int) [][2]int {
	if !m.word && m.pos.fast != nil && utf8.Valid(line) {
		for _, loc := range m.pos.fast.FindAllIndex(line, -1) {
			if loc[1] > loc[0] {
				dst = append(dst, [2]int{loc[0], loc[1]})
			}
		}
		return dst
	}
	for cur := 0; cur < len(line); {
		s, e := m.find(line, cur)
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
	for pos < len(buf) {
		ls := pos
		if m.pre != nil && !m.all {
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
