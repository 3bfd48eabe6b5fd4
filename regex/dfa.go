package regex

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// lineDFA decides whether a line (valid UTF-8, without '\n') contains a
// match of a regular expression, with a DFA built lazily from Go's
// compiled program: each state is the set of program instructions alive
// after the characters read so far (with a new match attempt started at
// every character), so a line costs one table lookup per ASCII byte
// instead of Go's per-line backtracking or NFA simulation. It only
// selects lines; where a match is (-o, --color) is still found with Go's
// regexp. Programs with word-boundary assertions are not handled. Each
// goroutine gets a cache of its own from a pool; once a cache grows past
// maxDFAStates (a pattern whose DFA is exponential), the DFA is turned
// off and every line is left to the caller.
type lineDFA struct {
	prog *syntax.Prog
	pool sync.Pool
	off  atomic.Bool
}

// maxDFASource bounds the size of the expressions given a DFA (building
// one parses and compiles the expression a second time).
const maxDFASource = 64 << 10

// maxDFAStates bounds the states a cache keeps.
const maxDFAStates = 4096

type dfaCache struct {
	states []*dfaState
	index  map[string]int32
	start  int32 // the state before the first character
	// trans is the transition table by byte, 256 entries a state:
	// trans[s<<8|b] is next<<1, plus 1 when next is a match state; 0
	// when not built yet, and always for '\n' and bytes above 0x7f, which
	// take the slow path. One load and one test a byte in the loops.
	trans []int32
}

type dfaState struct {
	insts []uint32 // the instructions that read a character, sorted
	ends  []uint32 // empty-width instructions waiting for the end of the line
	match bool
	// endMatch caches whether the state matches at the end of a line
	// (index 1: of an empty line): 0 not known, 1 no, 2 yes.
	endMatch [2]uint8
	other    map[rune]int32
}

// newLineDFA returns the DFA of the Go regular expression src, or nil
// when it cannot be built or has word-boundary assertions.
func newLineDFA(src string) *lineDFA {
	if len(src) > maxDFASource {
		return nil
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			return nil
		}
	}
	d := &lineDFA{prog: prog}
	d.pool.New = func() any { return d.newCache() }
	return d
}

func (d *lineDFA) newCache() *dfaCache {
	c := &dfaCache{index: map[string]int32{}}
	c.states = append(c.states, nil) // 0 stands for "not built"
	c.trans = make([]int32, 256)
	c.start = d.state(c, d.closure(nil, nil, []uint32{uint32(d.prog.Start)}, true, false))
	return c
}

// closure adds to insts and ends the instructions reachable from pcs
// without reading a character, at the start of the line or not, at its
// end or not; it reports whether a match is reachable.
func (d *lineDFA) closure(insts, ends []uint32, pcs []uint32, atStart, atEnd bool) closureSet {
	cs := closureSet{insts: insts, ends: ends}
	seen := map[uint32]bool{}
	stack := slices.Clone(pcs)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			if op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 && !atStart {
				continue
			}
			if op&(syntax.EmptyEndLine|syntax.EmptyEndText) != 0 && !atEnd {
				cs.ends = append(cs.ends, pc)
				continue
			}
			stack = append(stack, in.Out)
		case syntax.InstMatch:
			cs.match = true
		case syntax.InstFail:
		default: // instructions that read a character
			cs.insts = append(cs.insts, pc)
		}
	}
	return cs
}

type closureSet struct {
	insts, ends []uint32
	match       bool
}

// state returns the id of the state of cs, adding it to c; -1 when c is
// full.
func (d *lineDFA) state(c *dfaCache, cs closureSet) int32 {
	slices.Sort(cs.insts)
	cs.insts = slices.Compact(cs.insts)
	slices.Sort(cs.ends)
	cs.ends = slices.Compact(cs.ends)
	key := make([]byte, 0, 4*(len(cs.insts)+len(cs.ends))+2)
	if cs.match {
		key = append(key, 1)
	}
	for _, pc := range cs.insts {
		key = append(key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	key = append(key, 0xff, 0xff, 0xff, 0xff)
	for _, pc := range cs.ends {
		key = append(key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if id, ok := c.index[string(key)]; ok {
		return id
	}
	if len(c.states) > maxDFAStates {
		return -1
	}
	id := int32(len(c.states))
	c.states = append(c.states, &dfaState{insts: cs.insts, ends: cs.ends, match: cs.match})
	c.trans = append(c.trans, make([]int32, 256)...)
	c.index[string(key)] = id
	return id
}

// next returns the state after s reads r (not at the start of the
// line), or -1 when the cache is full.
func (d *lineDFA) next(c *dfaCache, s int32, r rune) int32 {
	st := c.states[s]
	if r < utf8.RuneSelf {
		if v := c.trans[int(s)<<8|int(r)]; v != 0 {
			return v >> 1
		}
	} else if n, ok := st.other[r]; ok {
		return n
	}
	var outs []uint32
	for _, pc := range st.insts {
		in := &d.prog.Inst[pc]
		ok := false
		switch in.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		default:
			ok = in.MatchRune(r)
		}
		if ok {
			outs = append(outs, in.Out)
		}
	}
	// A match may also start after r.
	outs = append(outs, uint32(d.prog.Start))
	n := d.state(c, d.closure(nil, nil, outs, false, false))
	if n < 0 {
		return -1
	}
	if r < utf8.RuneSelf {
		if r != '\n' {
			v := n << 1
			if c.states[n].match {
				v |= 1
			}
			c.trans[int(s)<<8|int(r)] = v
		}
	} else {
		if st.other == nil {
			st.other = map[rune]int32{}
		}
		st.other[r] = n
	}
	return n
}

// endMatch reports whether state s matches at the end of a line (an
// empty one when empty).
func (d *lineDFA) endMatch(c *dfaCache, s int32, empty bool) bool {
	st := c.states[s]
	if st.match {
		return true
	}
	if len(st.ends) == 0 {
		return false
	}
	k := 0
	if empty {
		k = 1
	}
	if st.endMatch[k] == 0 {
		st.endMatch[k] = 1
		if d.closure(nil, nil, st.ends, empty, true).match {
			st.endMatch[k] = 2
		}
	}
	return st.endMatch[k] == 2
}

// getCache takes a cache from the pool; nil when the DFA is off.
func (d *lineDFA) getCache() *dfaCache {
	if d.off.Load() {
		return nil
	}
	return d.pool.Get().(*dfaCache)
}

// putCache gives c back, or turns the DFA off when c is full.
func (d *lineDFA) putCache(c *dfaCache) {
	if len(c.states) > maxDFAStates {
		d.off.Store(true)
		return
	}
	d.pool.Put(c)
}

// match reports whether line (valid UTF-8, no '\n') contains a match;
// ok is false when the DFA gave up (the caller then matches otherwise).
func (d *lineDFA) match(line []byte) (matched, ok bool) {
	c := d.getCache()
	if c == nil {
		return false, false
	}
	defer d.putCache(c)
	s := c.start
	if c.states[s].match {
		return true, true
	}
	trans := c.trans
	for i := 0; i < len(line); {
		b := line[i]
		if v := trans[int(s)<<8|int(b)]; v != 0 {
			s = v >> 1
			i++
			if v&1 != 0 {
				return true, true
			}
			continue
		}
		r, w := rune(b), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(line[i:])
		}
		i += w
		if s = d.next(c, s, r); s < 0 {
			return false, false
		}
		trans = c.trans
		if c.states[s].match {
			return true, true
		}
	}
	return d.endMatch(c, s, len(line) == 0), true
}

// scanResult is what scan found.
type scanResult int

const (
	scanNone      scanResult = iota // no line of buf matches
	scanMatch                       // the line [ls, le) matches
	scanUndecided                   // the line [ls, le) is not valid UTF-8: the caller decides it
	scanGaveUp                      // the DFA gave up at the line starting at ls
)

// scan runs the DFA over buf, line after line ('\n' ends a line; the
// last needs none), without looking for line ends first: it returns the
// first line that matches, or the first line it cannot decide (one that
// is not valid UTF-8), with its bounds; lines before it do not match.
// Line ends are found only for the line returned.
func (d *lineDFA) scan(buf []byte) (ls, le int, res scanResult) {
	if len(buf) == 0 {
		return 0, 0, scanNone
	}
	c := d.getCache()
	if c == nil {
		return 0, 0, scanGaveUp
	}
	defer d.putCache(c)
	lineEnd := func(i int) int {
		if e := bytes.IndexByte(buf[i:], '\n'); e >= 0 {
			return i + e
		}
		return len(buf)
	}
	start := c.start
	if c.states[start].match {
		return 0, lineEnd(0), scanMatch
	}
	s := start
	trans := c.trans
	for i := 0; i < len(buf); {
		b := buf[i]
		if v := trans[int(s)<<8|int(b)]; v != 0 {
			s = v >> 1
			i++
			if v&1 != 0 {
				return ls, lineEnd(i - 1), scanMatch
			}
			continue
		}
		if b == '\n' {
			if d.endMatch(c, s, i == ls) {
				return ls, i, scanMatch
			}
			i++
			ls, s = i, start
			continue
		}
		r, w := rune(b), 1
		if r >= utf8.RuneSelf {
			if r, w = utf8.DecodeRune(buf[i:]); r == utf8.RuneError && w == 1 {
				return ls, lineEnd(i), scanUndecided
			}
		}
		if s = d.next(c, s, r); s < 0 {
			return ls, 0, scanGaveUp
		}
		i += w
		trans = c.trans
		if c.states[s].match {
			return ls, lineEnd(i - w), scanMatch
		}
	}
	if ls < len(buf) && d.endMatch(c, s, false) {
		return ls, len(buf), scanMatch
	}
	return 0, 0, scanNone
}
