package coarse

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chromafs/chromafs/collection"
)

// Limits of the regexes that Candidates sends.
const (
	// MaxRegexBytes bounds each regex Candidates generates. A literal set
	// whose regexes would be longer makes Candidates give up on the
	// coarse filter (for the case-insensitive filter) or on the
	// boundary queries (for pages that are not line-aligned) and return
	// the pages concerned as candidates.
	MaxRegexBytes = 4096
	// straddleWindow is the most runes of a literal that one piece of a
	// boundary regex holds (see Candidates): a chunk that ends with a
	// prefix of a literal also ends with the prefix's last
	// straddleWindow runes, so shortening the pieces keeps every page
	// that must be found and bounds the regex by the literals' length
	// times the window rather than by its square.
	straddleWindow = 16
	// maxRepeat is the largest bounded repetition Go's regexp accepts.
	maxRepeat = 1000
)

// UniqueLiterals returns literals without repeats and, when matching
// exactly, without the literals that contain another (a document that
// contains the longer one contains the shorter one).
func UniqueLiterals(literals []string, fold bool) []string {
	var out []string
	for _, l := range literals {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if fold {
		return out
	}
	kept := out[:0:0]
	for i, l := range out {
		redundant := false
		for j, o := range out {
			if i != j && len(o) < len(l) && strings.Contains(l, o) {
				redundant = true
				break
			}
		}
		if !redundant {
			kept = append(kept, l)
		}
	}
	return kept
}

// Plan holds the conditions Candidates sends for a literal set.
type Plan struct {
	Filter   collection.TextFilter // chunks holding a literal
	Straddle bool                  // the boundary regexes below are usable
	Ends     string                // chunks that end with a proper prefix of a literal
	Starts   string                // chunks that start with a proper suffix of a literal
	Short    string                // chunks of at most MaxRunes-2 runes
	MaxRunes int                   // runes of the longest literal
}

// maxExcluded is the longest list of pages a search leaves out (see

// NewPlan builds the conditions for non-empty literals (as UniqueLiterals
// returns them), each regex at most limit bytes long. It reports
// false when the literals cannot be searched for within the regex size
// limit (only possible with fold).
func NewPlan(lits []string, fold bool, limit int) (Plan, bool) {
	var p Plan
	if fold {
		regexes, ok := packAlternation(lits, true, limit)
		if !ok {
			return p, false
		}
		p.Filter.Regexes = regexes
	} else if regexes, ok := packAlternation(lits, false, limit); ok {
		// A $regex of escaped literals, not $contains: on Chroma 1.0 the
		// regex pass over the collection is the cheaper of the two for the
		// same literal (BENCHMARKS.md, "grep").
		p.Filter.Regexes = regexes
	} else {
		p.Filter.Contains = lits
	}
	var heads, tails [][]rune
	for _, l := range lits {
		r := []rune(l)
		p.MaxRunes = max(p.MaxRunes, len(r))
		for i := 1; i < len(r); i++ {
			heads = append(heads, r[max(0, i-straddleWindow):i])
			tails = append(tails, r[i:min(len(r), i+straddleWindow)])
		}
	}
	if p.MaxRunes < 2 {
		// No literal can straddle a boundary.
		p.Straddle = true
		return p, true
	}
	heads = minimalPieces(heads, fold, func(long, short []rune) bool {
		return hasSuffixFold(long, short, fold)
	})
	tails = minimalPieces(tails, fold, func(long, short []rune) bool {
		return hasSuffixFold(long[:len(short)], short, fold)
	})
	p.Ends = alternation(heads, fold) + "$"
	p.Starts = "^" + alternation(tails, fold)
	p.Short = "(?s)^.{0," + strconv.Itoa(p.MaxRunes-2) + "}$"
	p.Straddle = len(p.Ends) <= limit && len(p.Starts) <= limit && len(p.Short) <= limit && p.MaxRunes-2 <= maxRepeat
	return p, true
}

// minimalPieces drops repeated pieces and the pieces that covers reports
// as implied by a shorter one.
func minimalPieces(pieces [][]rune, fold bool, covers func(long, short []rune) bool) [][]rune {
	slices.SortStableFunc(pieces, func(a, b []rune) int { return len(a) - len(b) })
	var out [][]rune
	for _, p := range pieces {
		if !slices.ContainsFunc(out, func(q []rune) bool { return covers(p, q) }) {
			out = append(out, p)
		}
	}
	return out
}

// hasSuffixFold reports whether s ends with suffix, rune by rune, under
// simple case folding when fold is set.
func hasSuffixFold(s, suffix []rune, fold bool) bool {
	if len(suffix) > len(s) {
		return false
	}
	s = s[len(s)-len(suffix):]
	for i, r := range suffix {
		if r != s[i] && (!fold || foldKey(r) != foldKey(s[i])) {
			return false
		}
	}
	return true
}

// foldKey returns the smallest rune of r's case-folding orbit.
func foldKey(r rune) rune {
	k := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		k = min(k, f)
	}
	return k
}

// packAlternation returns regexes that together match the documents
// containing one of lits, each at most limit bytes long. It reports
// false if one literal alone is longer.
func packAlternation(lits []string, fold bool, limit int) ([]string, bool) {
	var out []string
	var cur [][]rune
	size := 0
	for _, l := range lits {
		r := []rune(l)
		n := len(alternation([][]rune{r}, fold))
		if n > limit {
			return nil, false
		}
		if len(cur) > 0 && size+n+1 > limit {
			out = append(out, alternation(cur, fold))
			cur, size = nil, 0
		}
		cur = append(cur, r)
		size += n + 1
	}
	if len(cur) > 0 {
		out = append(out, alternation(cur, fold))
	}
	return out, true
}

// alternation returns a group matching any of pieces: exactly, or with
// fold under simple case folding. It uses only syntax that Go's regexp
// and Rust's regex crate read alike: ASCII pieces folded with (?i:...)
// (both fold ASCII letters to their full simple-folding orbit, including
// U+017F ſ and U+212A K), other pieces with one class per rune listing
// its orbit.
func alternation(pieces [][]rune, fold bool) string {
	var b strings.Builder
	ascii := !slices.ContainsFunc(pieces, func(p []rune) bool {
		return slices.ContainsFunc(p, func(r rune) bool { return r >= utf8.RuneSelf })
	})
	if fold && ascii {
		b.WriteString("(?i:")
	} else {
		b.WriteString("(?:")
	}
	for i, p := range pieces {
		if i > 0 {
			b.WriteByte('|')
		}
		if !fold || ascii {
			b.WriteString(regexp.QuoteMeta(string(p)))
			continue
		}
		for _, r := range p {
			writeFoldRune(&b, r)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// writeFoldRune writes a regex matching r's case-folding orbit.
func writeFoldRune(b *strings.Builder, r rune) {
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	if len(orbit) == 1 {
		b.WriteString(regexp.QuoteMeta(string(r)))
		return
	}
	slices.Sort(orbit)
	b.WriteByte('[')
	for _, f := range orbit {
		if f < utf8.RuneSelf && !unicode.IsLetter(f) && !unicode.IsDigit(f) {
			b.WriteByte('\\')
		}
		b.WriteRune(f)
	}
	b.WriteByte(']')
}

// ContainsAny reports whether data contains one of lits, byte for byte.
func ContainsAny(data []byte, lits []string) bool {
	for _, l := range lits {
		if bytes.Contains(data, []byte(l)) {
			return true
		}
	}
	return false
}
