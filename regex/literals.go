package regex

import (
	"bytes"
	"math/bits"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLiterals caps the size of a required-literal set.
const maxLiterals = 16

// RequiredLiterals returns a set of non-empty strings such that every
// string that re matches contains at least one of them, compared exactly
// (byte for byte). ok is false when there is no such set: when re can
// match the empty string or a string made only of characters from large
// classes, or when the set would exceed 16 strings. Concatenations keep
// the best required part (longest shortest literal, then fewest
// literals), small classes and alternations are expanded, and optional
// parts yield nothing. Parts that fold case (the FoldCase flag) only
// contribute characters that have no other case. Literals contain no
// '\n' (grep lines never do) and are valid UTF-8.
func RequiredLiterals(re *syntax.Regexp) (lits []string, ok bool) {
	return requiredLiterals(re, false)
}

// requiredLiterals is RequiredLiterals; with fold, the literals are to be
// compared by Unicode simple folding and may then stand for a case-folded
// class (each class member is represented by one member of its folding
// orbit).
func requiredLiterals(re *syntax.Regexp, fold bool) ([]string, bool) {
	in := analyze(re, fold)
	set := in.best()
	if len(set) == 0 || len(set) > maxLiterals {
		return nil, false
	}
	for _, s := range set {
		if s == "" || strings.IndexByte(s, '\n') >= 0 || !utf8.ValidString(s) {
			return nil, false
		}
	}
	return dedupLiterals(set), true
}

// litInfo describes the strings a node matches: exact is the set of all of
// them when it is small (nil otherwise; it may contain ""), req a set of
// which every match contains one (nil when unknown).
type litInfo struct {
	exact []string
	req   []string
}

func (in litInfo) best() []string {
	if in.exact != nil && !hasEmpty(in.exact) {
		return in.exact
	}
	if in.req != nil && !hasEmpty(in.req) {
		return in.req
	}
	return nil
}

func hasEmpty(ss []string) bool {
	for _, s := range ss {
		if s == "" {
			return true
		}
	}
	return false
}

var emptyInfo = litInfo{exact: []string{""}}

func analyze(re *syntax.Regexp, fold bool) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return emptyInfo
	case syntax.OpNoMatch:
		return litInfo{exact: []string{}}
	case syntax.OpLiteral:
		if plainLiteral(re) {
			return litInfo{exact: []string{string(re.Rune)}}
		}
		var parts []litInfo
		for _, r := range re.Rune {
			switch {
			case r == runeWordBegin || r == runeWordEnd:
				parts = append(parts, emptyInfo)
			case r > unicode.MaxRune:
				parts = append(parts, litInfo{})
			case re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(r) != r:
				orbit := runeSet{r, r}
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					orbit = append(orbit, f, f)
				}
				parts = append(parts, classInfo(orbit.normalize(), fold))
			default:
				parts = append(parts, litInfo{exact: []string{string(r)}})
			}
		}
		return concatInfo(parts)
	case syntax.OpCharClass:
		return classInfo(re.Rune, fold)
	case syntax.OpCapture:
		return analyze(re.Sub[0], fold)
	case syntax.OpQuest:
		sub := analyze(re.Sub[0], fold)
		if sub.exact != nil && len(sub.exact) < maxLiterals {
			return litInfo{exact: union(sub.exact, []string{""})}
		}
		return litInfo{}
	case syntax.OpStar:
		return litInfo{}
	case syntax.OpPlus:
		return litInfo{req: analyze(re.Sub[0], fold).best()}
	case syntax.OpRepeat:
		if re.Min == 0 {
			if re.Max == 1 {
				return analyze(&syntax.Regexp{Op: syntax.OpQuest, Sub: re.Sub}, fold)
			}
			return litInfo{}
		}
		sub := analyze(re.Sub[0], fold)
		if re.Min == re.Max && sub.exact != nil && re.Min <= 8 {
			parts := make([]litInfo, re.Min)
			for i := range parts {
				parts[i] = sub
			}
			return concatInfo(parts)
		}
		return litInfo{req: sub.best()}
	case syntax.OpConcat:
		parts := make([]litInfo, len(re.Sub))
		for i, s := range re.Sub {
			parts[i] = analyze(s, fold)
		}
		return concatInfo(parts)
	case syntax.OpAlternate:
		var exact, req []string
		allExact, reqOK := true, true
		for _, s := range re.Sub {
			in := analyze(s, fold)
			if allExact && in.exact != nil && len(exact) <= maxLiterals {
				exact = union(exact, in.exact)
			} else {
				allExact = false
			}
			if reqOK {
				if b := in.best(); b != nil && len(req) <= maxLiterals {
					req = union(req, b)
				} else {
					reqOK = false
				}
			}
			if !allExact && !reqOK {
				return litInfo{}
			}
		}
		out := litInfo{}
		if allExact && len(exact) <= maxLiterals {
			out.exact = nonNil(exact)
		}
		if reqOK && len(req) <= maxLiterals {
			out.req = nonNil(req)
		}
		return out
	}
	return litInfo{}
}

// plainLiteral reports whether re is a literal that matches only itself:
// no case folding, no placeholder runes.
func plainLiteral(re *syntax.Regexp) bool {
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return false
	}
	for _, r := range re.Rune {
		if r > unicode.MaxRune {
			return false
		}
	}
	return true
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// classInfo expands a small class into its members (with fold, one per
// simple-folding orbit). '\n' is left out: lines never contain it.
func classInfo(rs []rune, fold bool) litInfo {
	if runeSet(rs).count() > 4*maxLiterals {
		return litInfo{}
	}
	seen := map[rune]bool{}
	var out []string
	for i := 0; i < len(rs); i += 2 {
		for r := rs[i]; r <= rs[i+1]; r++ {
			if r == '\n' || r > unicode.MaxRune {
				continue
			}
			key, rep := r, r
			if fold {
				key = orbitMin(r)
				if rep = unicode.ToLower(key); !equalFold(rep, key) {
					rep = key
				}
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, string(rep))
			}
		}
	}
	if len(out) > maxLiterals {
		return litInfo{}
	}
	return litInfo{exact: nonNil(out)}
}

// orbitMin returns the smallest rune of r's simple-folding orbit.
func orbitMin(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// concatInfo combines the parts of a concatenation: runs of exact parts
// are multiplied out while small, and the best run or required set wins.
func concatInfo(parts []litInfo) litInfo {
	parts = joinSingles(parts)
	cur := []string{""}
	allExact := true
	var cands [][]string
	flush := func() {
		if !hasEmpty(cur) {
			cands = append(cands, cur)
		}
	}
	for _, p := range parts {
		if p.exact != nil && len(cur)*len(p.exact) <= maxLiterals {
			cur = cross(cur, p.exact)
			continue
		}
		allExact = false
		flush()
		if p.exact != nil {
			cur = p.exact
			continue
		}
		cur = []string{""}
		if p.req != nil && !hasEmpty(p.req) {
			cands = append(cands, p.req)
		}
	}
	out := litInfo{}
	if allExact {
		out.exact = cur
		return out
	}
	flush()
	out.req = bestSet(cands)
	return out
}

// joinSingles replaces each run of parts that match exactly one string by
// one part matching their concatenation, so that a long literal is built
// once (in linear time) rather than one character at a time.
func joinSingles(parts []litInfo) []litInfo {
	var out []litInfo
	var b strings.Builder
	run := 0 // length of the current run of single-string parts
	flush := func() {
		if run > 1 {
			out[len(out)-1] = litInfo{exact: []string{b.String()}}
		}
		run = 0
		b.Reset()
	}
	for _, p := range parts {
		if len(p.exact) != 1 {
			flush()
			out = append(out, p)
			continue
		}
		if run == 0 {
			out = append(out, p)
		}
		b.WriteString(p.exact[0])
		run++
	}
	flush()
	return out
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupStrings(out)
}

func union(a, b []string) []string {
	return dedupStrings(append(append([]string(nil), a...), b...))
}

func dedupStrings(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// bestSet picks the set whose shortest literal is longest, then the
// smallest set.
func bestSet(cands [][]string) []string {
	var best []string
	bestMin := -1
	for _, c := range cands {
		if len(c) == 0 || len(c) > maxLiterals {
			continue
		}
		m := len(c[0])
		for _, s := range c {
			m = min(m, len(s))
		}
		if m > bestMin || m == bestMin && len(c) < len(best) {
			best, bestMin = c, m
		}
	}
	return best
}

// dedupLiterals sorts lits, drops duplicates and literals that contain
// another literal of the set (they add nothing to a filter).
func dedupLiterals(lits []string) []string {
	out, _ := minimalLiterals(lits, len(lits), nil)
	return out
}

// minimalLiterals is dedupLiterals for a set that is useful only when at
// most limit literals remain: ok is false (and out nil) as soon as more
// would. It sorts once and compares each literal with at most limit kept
// ones, so its cost is O(n log n + n·limit) string operations, which it
// adds to *work when work is not nil.
func minimalLiterals(lits []string, limit int, work *int64) (out []string, ok bool) {
	lits = dedupStrings(append([]string(nil), lits...))
	sort.SliceStable(lits, func(i, j int) bool { return len(lits[i]) < len(lits[j]) })
	if work != nil {
		*work += int64(len(lits)) * int64(bits.Len(uint(len(lits)))+1)
	}
	for _, l := range lits {
		redundant := false
		for _, o := range out {
			if work != nil {
				*work++
			}
			if strings.Contains(l, o) {
				redundant = true
				break
			}
		}
		if !redundant {
			if len(out) == limit {
				return nil, false
			}
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out, true
}

// prefilter finds, in a buffer, positions where one of the required
// literals occurs.
type prefilter struct {
	finders []finder
}

type finder interface {
	// index returns a position p, from <= p < to, inside the first
	// occurrence of the literal whose anchor lies in [from,to), or -1.
	// It may read all of buf.
	index(buf []byte, from, to int) int
}

func newPrefilter(lits []string, fold bool) *prefilter {
	p := &prefilter{}
	for _, l := range lits {
		if fold {
			p.finders = append(p.finders, newFoldFinder(l))
		} else {
			p.finders = append(p.finders, newExactFinder(l))
		}
	}
	return p
}

// next returns a position at or after pos inside an occurrence of a
// literal such that no occurrence lies in an earlier line, or -1.
func (p *prefilter) next(buf []byte, pos int) int {
	if len(p.finders) == 1 {
		return p.finders[0].index(buf, pos, len(buf))
	}
	// Search windows that grow from 8 KiB, so that a literal found early
	// costs the other finders little.
	w := 8 << 10
	for start := pos; start < len(buf); {
		end := min(len(buf), start+w)
		limit, best := end, -1
		for _, f := range p.finders {
			if i := f.index(buf, start, limit); i >= 0 {
				best, limit = i, i
			}
		}
		if best >= 0 {
			return best
		}
		start = end
		w = min(w*2, 1<<20)
	}
	return -1
}

// exactFinder finds a literal by looking for its rarest-looking byte
// with bytes.IndexByte (vectorized) and comparing the rest around it;
// bytes.Index looks for the first byte, which in prose is often common
// ("the", "tree"). When the pivot turns out to be common in buf it falls
// back to bytes.Index.
type exactFinder struct {
	lit   []byte
	pivot int // offset of the pivot byte in lit
}

func newExactFinder(lit string) *exactFinder {
	f := &exactFinder{lit: []byte(lit)}
	best := -1
	for i := 0; i < len(lit); i++ {
		score := len(byteFreq) + 20
		if lit[i] >= utf8.RuneSelf {
			score = len(byteFreq) + 10
		} else if j := strings.IndexByte(byteFreq, lit[i]); j >= 0 {
			score = j
		}
		if score > best {
			best, f.pivot = score, i
		}
	}
	return f
}

func (f *exactFinder) index(buf []byte, from, to int) int {
	n := len(f.lit)
	last := min(to, len(buf)-n+1) // starts are in [from, last)
	fails := 0
	for s := from; s < last; {
		if fails > 8+(s-from)>>6 {
			if i := bytes.Index(buf[s:min(len(buf), last+n-1)], f.lit); i >= 0 {
				return s + i
			}
			return -1
		}
		i := bytes.IndexByte(buf[s+f.pivot:last+f.pivot], f.lit[f.pivot])
		if i < 0 {
			return -1
		}
		start := s + i
		if bytes.Equal(buf[start:start+n], f.lit) {
			return start
		}
		fails++
		s = start + 1
	}
	return -1
}

// foldFinder finds a literal under simple case folding: it looks for the
// encodings of the case variants of one pivot character of the literal
// (the rarest-looking one), then compares the rest around it.
type foldFinder struct {
	lit      string
	pivot    int // byte offset of the pivot character in lit
	pivotLen int
	variants [][]byte
}

// byteFreq orders ASCII bytes from most to least frequent in typical
// text and code (a rough guess; bytes not listed count as rare).
const byteFreq = " etaoinsrlhdcumpfgyw.b,v_k()\"=;:/-'0123456789xjqz{}[]<>*#+&|$@!?%\\^`~\t"

func rarity(r rune) int {
	if r >= utf8.RuneSelf {
		return len(byteFreq) + 10 // non-ASCII: rare, but several encodings
	}
	if i := strings.IndexByte(byteFreq, byte(unicode.ToLower(r))); i >= 0 {
		return i
	}
	return len(byteFreq) + 20
}

func newFoldFinder(lit string) *foldFinder {
	f := &foldFinder{lit: lit}
	bestScore := -1
	for i, r := range lit {
		s := rarity(r)
		if s > bestScore {
			bestScore = s
			f.pivot, f.pivotLen = i, utf8.RuneLen(r)
		}
	}
	r, _ := utf8.DecodeRuneInString(lit[f.pivot:])
	f.variants = append(f.variants, []byte(string(r)))
	for v := unicode.SimpleFold(r); v != r; v = unicode.SimpleFold(v) {
		f.variants = append(f.variants, []byte(string(v)))
	}
	return f
}

func (f *foldFinder) index(buf []byte, from, to int) int {
	var nexts [4]int
	next := nexts[:0]
	if len(f.variants) > len(nexts) {
		next = make([]int, 0, len(f.variants))
	}
	for range f.variants {
		next = append(next, -2)
	}
	cur := from
	for cur < to {
		q := -1
		for k, v := range f.variants {
			if next[k] != -1 && next[k] < cur {
				next[k] = -1
				end := min(len(buf), to+len(v)-1)
				var i int
				if len(v) == 1 {
					i = bytes.IndexByte(buf[cur:end], v[0])
				} else {
					i = bytes.Index(buf[cur:end], v)
				}
				if i >= 0 {
					next[k] = cur + i
				}
			}
			if next[k] >= 0 && (q < 0 || next[k] < q) {
				q = next[k]
			}
		}
		if q < 0 {
			return -1
		}
		if f.verify(buf, q) {
			return q
		}
		cur = q + 1
	}
	return -1
}

// verify reports whether the literal occurs in buf with its pivot
// character at q.
func (f *foldFinder) verify(buf []byte, q int) bool {
	// Forward: the pivot and what follows.
	i, j := f.pivot, q
	for i < len(f.lit) {
		if j >= len(buf) {
			return false
		}
		a, wa := utf8.DecodeRuneInString(f.lit[i:])
		b, wb := decodeRune(buf[j:])
		if !equalFold(a, b) {
			return false
		}
		i, j = i+wa, j+wb
	}
	// Backward: what precedes the pivot.
	i, j = f.pivot, q
	for i > 0 {
		if j <= 0 {
			return false
		}
		a, wa := utf8.DecodeLastRuneInString(f.lit[:i])
		b, wb := decodeLastRune(buf[:j])
		if !equalFold(a, b) {
			return false
		}
		i, j = i-wa, j-wb
	}
	return true
}

// equalFold reports whether a and b are equal under Unicode simple
// folding.
func equalFold(a, b rune) bool {
	if a == b {
		return true
	}
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return a == b
	}
	if b > unicode.MaxRune || a > unicode.MaxRune {
		return false
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}
