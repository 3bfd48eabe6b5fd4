package regex

import (
	"regexp/syntax"
	"sync"
	"unicode"
)

// Empty-width assertions beyond regexp/syntax's, for \< and \>.
const (
	emptyWordBegin syntax.EmptyOp = 1 << 6
	emptyWordEnd   syntax.EmptyOp = 1 << 7
)

// prog is a compiled pattern run by a backtracking matcher with a visited
// set (so its cost is bounded by len(inst) × len(text)). Unlike Go's
// regexp it implements GNU's Unicode word assertions, never lets '.' or a
// class match a byte that is not UTF-8, lets an invalid pattern byte match
// the same byte, and can search from any offset of a line with the line
// as context.
type prog struct {
	inst  []syntax.Inst
	start int
	pool  sync.Pool // *btState
}

type btState struct {
	visited []uint32
	stack   []job
}

type job struct{ pc, pos int }

// compileProg compiles re (which must not contain FoldCase flags).
func compileProg(re *syntax.Regexp) *prog {
	// syntax.Compile reports no error (its result is always nil).
	sp, _ := syntax.Compile(re.Simplify())
	p := &prog{inst: sp.Inst, start: sp.Start}
	for i := range p.inst {
		in := &p.inst[i]
		if in.Op == syntax.InstRune1 && (in.Rune[0] == runeWordBegin || in.Rune[0] == runeWordEnd) {
			op := emptyWordBegin
			if in.Rune[0] == runeWordEnd {
				op = emptyWordEnd
			}
			*in = syntax.Inst{Op: syntax.InstEmptyWidth, Out: in.Out, Arg: uint32(op)}
		}
	}
	return p
}

// find returns the leftmost-longest match [s,e) of p in text that starts
// at or after from (at exactly from when anchored) and ends at or before
// limit. Assertions see text[:from] as context before the match; at limit
// the text is taken to end (for word assertions), and $ does not match
// there when notEOL is set. s is -1 when there is no match.
func (p *prog) find(text []byte, from, limit int, notEOL, anchored bool) (s, e int) {
	st, _ := p.pool.Get().(*btState)
	if st == nil {
		st = new(btState)
	}
	defer p.pool.Put(st)
	width := limit - from + 1
	nbits := len(p.inst) * width
	if n := (nbits + 31) / 32; cap(st.visited) < n {
		st.visited = make([]uint32, n)
	} else {
		st.visited = st.visited[:n]
		clear(st.visited)
	}
	visited := st.visited
	for start := from; start <= limit; {
		best := -1
		stack := append(st.stack[:0], job{p.start, start})
		for len(stack) > 0 && best < limit {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			pc, pos := j.pc, j.pos
		run:
			key := pc*width + pos - from
			if visited[key/32]&(1<<(key%32)) != 0 {
				continue
			}
			visited[key/32] |= 1 << (key % 32)
			in := &p.inst[pc]
			switch in.Op {
			case syntax.InstAlt, syntax.InstAltMatch:
				stack = append(stack, job{int(in.Arg), pos})
				pc = int(in.Out)
				goto run
			case syntax.InstCapture, syntax.InstNop:
				pc = int(in.Out)
				goto run
			case syntax.InstEmptyWidth:
				if !emptyOK(syntax.EmptyOp(in.Arg), text, pos, limit, notEOL) {
					continue
				}
				pc = int(in.Out)
				goto run
			case syntax.InstMatch:
				if pos > best {
					best = pos
				}
				continue
			case syntax.InstFail:
				continue
			}
			if pos >= limit {
				continue
			}
			r, w := decodeRune(text[pos:limit])
			switch in.Op {
			case syntax.InstRune1:
				if r != in.Rune[0] {
					continue
				}
			case syntax.InstRune:
				if r > unicode.MaxRune || !in.MatchRune(r) {
					continue
				}
			case syntax.InstRuneAny:
				if r > unicode.MaxRune {
					continue
				}
			case syntax.InstRuneAnyNotNL:
				if r > unicode.MaxRune || r == '\n' {
					continue
				}
			default:
				continue
			}
			pc, pos = int(in.Out), pos+w
			goto run
		}
		st.stack = stack[:0]
		if best >= 0 {
			return start, best
		}
		if anchored || start == limit {
			break
		}
		_, w := decodeRune(text[start:limit])
		start += w
	}
	return -1, -1
}

// emptyOK evaluates an empty-width assertion at pos.
func emptyOK(op syntax.EmptyOp, text []byte, pos, limit int, notEOL bool) bool {
	if op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 && pos != 0 {
		return false
	}
	if op&(syntax.EmptyEndLine|syntax.EmptyEndText) != 0 && (pos != limit || notEOL) {
		return false
	}
	if op&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary|emptyWordBegin|emptyWordEnd) != 0 {
		before, after := false, false
		if pos > 0 {
			r, _ := decodeLastRune(text[:pos])
			before = isWordContext(r)
		}
		if pos < limit {
			r, _ := decodeRune(text[pos:limit])
			after = isWordContext(r)
		}
		if op&syntax.EmptyWordBoundary != 0 && before == after ||
			op&syntax.EmptyNoWordBoundary != 0 && before != after ||
			op&emptyWordBegin != 0 && (before || !after) ||
			op&emptyWordEnd != 0 && (!before || after) {
			return false
		}
	}
	return true
}
