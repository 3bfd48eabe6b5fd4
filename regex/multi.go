package regex

import (
	"bytes"
	"fmt"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// multi matches a large set of patterns, each of which has required
// literals, as GNU grep matches long pattern lists (a multi-literal search
// that picks candidate lines, then a matcher): one Aho-Corasick automaton
// finds the literals of all patterns in a line, and only the patterns
// whose literals occur there are tried on it.
//
// That is exact because a pattern can only match inside a line that
// contains one of its required literals, so on a given line the
// alternation of all patterns and the alternation of its candidates have
// the same matches. Line selection without -w tries the candidates one
// by one (a line matches an alternation when it matches one of its
// parts); -w and -o run the alternation of the candidates, so that GNU's
// leftmost-longest and -w retry rules see the same matches as with the
// whole list.
type multi struct {
	set *litSet
	// The patterns that require literal id l are
	// pats[byLit[litStart[l]:litStart[l+1]]].
	litStart []int32
	byLit    []int32
	pats     []multiPat
	// always are the patterns without required literals, tried on
	// every line.
	always []int32
	line   bool // -x
	word   bool // -w (and not -x)

	mu      sync.Mutex
	subsets map[string]*engine // engines of candidate sets, keyed by their ids
	engines atomic.Int64       // per-pattern engines kept
}

// multiPat is one pattern of a multi.
type multiPat struct {
	re      *syntax.Regexp
	wordOps bool
	invalid bool
	// seq, when not nil, is the pattern as a sequence of character sets
	// (a fixed string, with -i a string of case classes): a line matches
	// when some run of its characters belongs to them in turn. It is set
	// only without -w and -x, and not with exact.
	seq [][]rune
	// exact is set for a literal that matches only itself (without -w
	// and -x).
	exact []byte
	eng   atomic.Pointer[engine] // compiled on first use
}

// Bounds on what a multi keeps: engines compiled for single patterns
// (beyond that they are compiled for each use) and for candidate sets
// (the cache is emptied when full).
const (
	maxPatternEngines = 1 << 13
	maxSubsetEngines  = 1 << 10
)

func (c *compiler) newMulti(pats []patInfo, o Options) (*multi, error) {
	mm := &multi{line: o.Line, word: o.Word && !o.Line, subsets: map[string]*engine{}}
	mm.pats = make([]multiPat, len(pats))
	var lits []string
	var owner []int32
	for i, p := range pats {
		mp := &mm.pats[i]
		mp.re, mp.wordOps, mp.invalid = p.re, p.wordOps, p.invalid
		if !o.Word && !o.Line {
			if plainLiteral(p.re) {
				mp.exact = []byte(string(p.re.Rune))
			} else {
				mp.seq = sequence(p.re)
			}
		}
		if mp.seq == nil && mp.exact == nil && !p.wordOps {
			// The error Compile would give for the whole list, for this
			// pattern alone, now rather than when a line needs it.
			src := goSource(p.re, p.invalid)
			if _, err := syntax.Parse(src, syntax.Perl); err != nil {
				return nil, &Error{Pattern: p.src, Msg: fmt.Sprintf("pattern not supported: %v", err), Err: ErrUnsupported}
			}
			if err := c.tick(len(src)); err != nil {
				return nil, err
			}
		}
		if p.lits == nil {
			mm.always = append(mm.always, int32(i))
		}
		for _, l := range p.lits {
			lits = append(lits, l)
			owner = append(owner, int32(i))
		}
		if err := c.tick(len(p.lits)); err != nil {
			return nil, err
		}
	}
	set, err := newLitSet(lits, o.IgnoreCase, c)
	if err != nil {
		return nil, err
	}
	mm.set = set
	// Group the owners by reported literal id.
	mm.litStart = make([]int32, len(lits)+1)
	for j := range lits {
		mm.litStart[set.ids[j]+1]++
	}
	for l := 1; l < len(mm.litStart); l++ {
		mm.litStart[l] += mm.litStart[l-1]
	}
	mm.byLit = make([]int32, len(lits))
	fill := slices.Clone(mm.litStart[:len(lits)])
	for j, id := range set.ids {
		mm.byLit[fill[id]] = owner[j]
		fill[id]++
	}
	if err := c.tick(len(lits)); err != nil {
		return nil, err
	}
	return mm, nil
}

// sequence returns re as a sequence of character sets when it is a
// concatenation of literals and classes (nothing that stands for an
// invalid byte or a word assertion), else nil.
func sequence(re *syntax.Regexp) [][]rune {
	var seq [][]rune
	add := func(n *syntax.Regexp) bool {
		switch n.Op {
		case syntax.OpLiteral:
			for _, r := range n.Rune {
				if r > utf8.MaxRune {
					return false
				}
				seq = append(seq, []rune{r, r})
			}
			return true
		case syntax.OpCharClass:
			seq = append(seq, n.Rune)
			return true
		}
		return false
	}
	if re.Op == syntax.OpConcat {
		for _, s := range re.Sub {
			if !add(s) {
				return nil
			}
		}
	} else if !add(re) {
		return nil
	}
	if len(seq) == 0 {
		return nil
	}
	return seq
}

// matchSeq reports whether some run of line's characters belongs to seq's
// sets in turn. Bytes that are not UTF-8 belong to no set.
func matchSeq(seq [][]rune, line []byte) bool {
	for start := 0; start < len(line); {
		i, ok := start, true
		for _, set := range seq {
			if i >= len(line) {
				ok = false
				break
			}
			r, w := decodeRune(line[i:])
			if r > utf8.MaxRune || !inRanges(set, r) {
				ok = false
				break
			}
			i += w
		}
		if ok {
			return true
		}
		_, w := decodeRune(line[start:])
		start += w
	}
	return false
}

// candidates appends to dst, sorted and without repeats, the patterns
// one of whose literals occurs in line, and those without literals.
func (mm *multi) candidates(line []byte, dst []int32) []int32 {
	dst = append(dst, mm.always...)
	last := -1
	mm.set.each(line, func(l int) {
		if l != last { // a literal repeated along the line
			dst = append(dst, mm.byLit[mm.litStart[l]:mm.litStart[l+1]]...)
			last = l
		}
	})
	slices.Sort(dst)
	return slices.Compact(dst)
}

// match is Matcher.Match.
func (mm *multi) match(m *Matcher, line []byte) bool {
	var buf [16]int32
	ids := mm.candidates(line, buf[:0])
	if len(ids) == 0 {
		return false
	}
	if mm.word {
		s, _ := m.findWord(mm.subset(ids), line, 0)
		return s >= 0
	}
	for _, id := range ids {
		p := &mm.pats[id]
		if p.exact != nil {
			if bytes.Contains(line, p.exact) {
				return true
			}
			continue
		}
		if p.seq != nil {
			if matchSeq(p.seq, line) {
				return true
			}
			continue
		}
		if mm.engine(id).match(line) {
			return true
		}
	}
	return false
}

// engineFor returns the engine of the candidates of line, or nil when
// there are none.
func (mm *multi) engineFor(m *Matcher, line []byte) *engine {
	var buf [16]int32
	ids := mm.candidates(line, buf[:0])
	if len(ids) == 0 {
		return nil
	}
	return mm.subset(ids)
}

// engine returns pattern id's engine.
func (mm *multi) engine(id int32) *engine {
	p := &mm.pats[id]
	if e := p.eng.Load(); e != nil {
		return e
	}
	e, _ := buildEngine(p.re, mm.line, p.wordOps, p.invalid)
	if mm.engines.Add(1) <= maxPatternEngines {
		p.eng.Store(e)
	}
	return e
}

// subset returns the engine of the alternation of patterns ids (sorted,
// without repeats).
func (mm *multi) subset(ids []int32) *engine {
	if len(ids) == 1 {
		return mm.engine(ids[0])
	}
	key := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		key = append(key, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
	}
	mm.mu.Lock()
	e := mm.subsets[string(key)]
	mm.mu.Unlock()
	if e != nil {
		return e
	}
	subs := make([]*syntax.Regexp, len(ids))
	wordOps, invalid := false, false
	for i, id := range ids {
		p := &mm.pats[id]
		subs[i] = p.re
		wordOps = wordOps || p.wordOps
		invalid = invalid || p.invalid
	}
	// Each pattern compiled alone (checked by newMulti): an error here
	// can only be a size limit of Go's regexp, and the slow engine then
	// matches alone.
	e, _ = buildEngine(alternate(subs), mm.line, wordOps, invalid)
	mm.mu.Lock()
	if len(mm.subsets) >= maxSubsetEngines {
		clear(mm.subsets)
	}
	mm.subsets[string(key)] = e
	mm.mu.Unlock()
	return e
}
