package regex

//go:generate sh -c "cc -O2 -o gentables.tmp testdata/gentables.c && LC_ALL=C.UTF-8 ./gentables.tmp > tables.go && rm gentables.tmp && gofmt -w tables.go"

import (
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Runes that stand for bytes that are not valid UTF-8. A pattern byte b
// that is not part of a valid UTF-8 sequence becomes the rune invalidBase+b,
// and so does such a byte in a line when the backtracking engine decodes
// it, so that an invalid byte in a pattern matches the same byte in a line
// (as in GNU grep) and nothing else. These runes are above unicode.MaxRune:
// no character class, '.' or negated bracket expression contains them.
const (
	invalidBase rune = 0x110000
	// runeWordBegin and runeWordEnd are placeholders for GNU's \< and \>
	// in the syntax tree; compileProg turns them into empty-width
	// assertions.
	runeWordBegin rune = 0x110200
	runeWordEnd   rune = 0x110201
)

// decodeRune decodes the first character of b like utf8.DecodeRune, except
// that a byte that does not start a valid sequence decodes as
// invalidBase+byte, width 1.
func decodeRune(b []byte) (rune, int) {
	if len(b) > 0 && b[0] < utf8.RuneSelf {
		return rune(b[0]), 1
	}
	r, w := utf8.DecodeRune(b)
	if r == utf8.RuneError && w == 1 {
		return invalidBase + rune(b[0]), 1
	}
	return r, w
}

// decodeLastRune is the backwards counterpart of decodeRune.
func decodeLastRune(b []byte) (rune, int) {
	if n := len(b); n > 0 && b[n-1] < utf8.RuneSelf {
		return rune(b[n-1]), 1
	}
	r, w := utf8.DecodeLastRune(b)
	if r == utf8.RuneError && w == 1 {
		return invalidBase + rune(b[len(b)-1]), 1
	}
	return r, w
}

var (
	asciiWord   [128]bool
	alnumRanges = mustPosixClass("alnum")
)

// posixClass returns the rune ranges of the POSIX class name ("alpha",
// "digit", ...) and whether there is such a class.
func posixClass(name string) ([]rune, bool) {
	for _, c := range &posixClassTable {
		if c.name == name {
			return c.ranges, true
		}
	}
	return nil, false
}

func init() {
	for c := 0; c < 128; c++ {
		asciiWord[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
}

// isWordRune reports whether r is a word constituent for GNU grep in the
// C.UTF-8 locale: '_' or a character of the locale's alnum class. Runes
// that stand for invalid bytes are not.
func isWordRune(r rune) bool {
	if r < 128 {
		return r >= 0 && asciiWord[r]
	}
	return inRanges(alnumRanges, r)
}

// isWordContext is isWordRune as the GNU C library's regex matcher sees
// the neighbours of \<, \>, \b and \B: it reads an invalid byte b as the
// character U+00bb, so that for example \xff counts as a letter.
func isWordContext(r rune) bool {
	if r >= invalidBase && r < invalidBase+256 {
		r -= invalidBase
	}
	return isWordRune(r)
}

// inRanges reports whether r is in the sorted lo,hi pairs of rs.
func inRanges(rs []rune, r rune) bool {
	n := len(rs) / 2
	i := sort.Search(n, func(i int) bool { return rs[2*i+1] >= r })
	return i < n && rs[2*i] <= r
}

// caseOf returns towupper and towlower of r in the C.UTF-8 locale.
func caseOf(r rune) (upper, lower rune) {
	i := sort.Search(len(caseMap), func(i int) bool { return caseMap[i][0] >= r })
	if i < len(caseMap) && caseMap[i][0] == r {
		return caseMap[i][1], caseMap[i][2]
	}
	return r, r
}

// lonesomeLower is GNU dfa.c's list of characters c with
// c != towupper(c) and c != towlower(towupper(c)).
var lonesomeLower = []rune{
	0x00B5, 0x0131, 0x017F, 0x01C5, 0x01C8, 0x01CB, 0x01F2, 0x0345,
	0x03C2, 0x03D0, 0x03D1, 0x03D5, 0x03D6, 0x03F0, 0x03F1, 0x03F2,
	0x03F5, 0x1E9B, 0x1FBE,
}

// foldSet appends to dst the characters that c matches under grep -i, c
// included: GNU dfa.c's case_folded_counterparts.
func foldSet(dst []rune, c rune) []rune {
	dst = append(dst, c)
	if c > unicode.MaxRune {
		return dst
	}
	uc, _ := caseOf(c)
	_, lc := caseOf(uc)
	if uc != c {
		dst = append(dst, uc)
	}
	if lc != uc && lc != c {
		if u, _ := caseOf(lc); u == uc {
			dst = append(dst, lc)
		}
	}
	for _, li := range lonesomeLower {
		if li != lc && li != uc && li != c {
			if u, _ := caseOf(li); u == uc {
				dst = append(dst, li)
			}
		}
	}
	return dst
}

// runeSet is a set of runes as sorted, non-overlapping, non-adjacent
// inclusive lo,hi pairs (the representation of syntax.Regexp.Rune for
// OpCharClass).
type runeSet []rune

// normalize sorts and merges the pairs of s.
func (s runeSet) normalize() runeSet {
	n := len(s) / 2
	if n <= 1 {
		return s
	}
	type pair struct{ lo, hi rune }
	ps := make([]pair, n)
	for i := range ps {
		ps[i] = pair{s[2*i], s[2*i+1]}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].lo < ps[j].lo })
	out := s[:0]
	for _, p := range ps {
		if k := len(out); k > 0 && p.lo <= out[k-1]+1 {
			if p.hi > out[k-1] {
				out[k-1] = p.hi
			}
			continue
		}
		out = append(out, p.lo, p.hi)
	}
	return out
}

// negate returns the complement of the normalized set s within
// [0, unicode.MaxRune].
func (s runeSet) negate() runeSet {
	var out runeSet
	next := rune(0)
	for i := 0; i < len(s); i += 2 {
		if s[i] > next {
			out = append(out, next, s[i]-1)
		}
		next = s[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

// counterparts[i] holds foldSet(caseMap[i][0]) without the rune itself.
var counterparts = sync.OnceValue(func() [][]rune {
	t := make([][]rune, len(caseMap))
	for i, e := range caseMap {
		t[i] = foldSet(nil, e[0])[1:]
	}
	return t
})

// fold returns the normalized set s extended by the case counterparts
// (foldSet) of its members.
func (s runeSet) fold() runeSet {
	out := append(runeSet(nil), s...)
	cp := counterparts()
	for i := 0; i < len(s); i += 2 {
		lo, hi := s[i], s[i+1]
		j := sort.Search(len(caseMap), func(j int) bool { return caseMap[j][0] >= lo })
		for ; j < len(caseMap) && caseMap[j][0] <= hi; j++ {
			for _, r := range cp[j] {
				out = append(out, r, r)
			}
		}
	}
	return out.normalize()
}

// count returns the number of runes in s.
func (s runeSet) count() int {
	n := 0
	for i := 0; i < len(s); i += 2 {
		n += int(s[i+1]-s[i]) + 1
	}
	return n
}

// mustPosixClass is posixClass for the names this package spells itself.
func mustPosixClass(name string) []rune {
	r, _ := posixClass(name)
	return r
}
