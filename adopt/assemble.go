package adopt

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chromafs/chromafs/collection"
)

// Piece is one chunk of a page as its writer's metadata place it.
type Piece struct {
	// ID is the chunk's record id.
	ID string
	// Text is the chunk's document.
	Text string
	// Start and End are the chunk's character offsets in the page's
	// text, in the unit of Rules.Unit: Start of its first character, End
	// just past its last. Either is -1 when the writer did not record it.
	Start, End int
	// Line is the 0-based line of the page on which the chunk's first
	// character lies, or -1.
	Line int
	// Order is the writer's index of the chunk within its page, or -1.
	Order int
	// Seq is the chunk's position in the collection (Chroma returns
	// records in insertion order, and writers insert a page's chunks in
	// page order): the last tie-break when ordering chunks.
	Seq int
}

// Rules say how a writer cut a page into chunks.
type Rules struct {
	// Unit is the unit of Piece.Start and End.
	Unit Unit
	// Trimmed: the writer removed whitespace at both ends of every chunk
	// (LangChain's and LlamaIndex's splitters do), so whitespace at a
	// junction that no chunk holds is lost.
	Trimmed bool
	// Overlap: consecutive chunks may repeat text (LangChain's
	// chunkOverlap, LlamaIndex's chunk_overlap).
	Overlap bool
	// Sep is what the writer's own reader puts between chunks that
	// neither overlap nor were trimmed ("" for chromafs's layout).
	Sep string
}

// Exactness says how much of a reassembled page its chunks determine.
type Exactness uint8

const (
	// Exact: every byte of the page is in a chunk, or between chunks
	// whose offsets or layout leave no choice.
	Exact Exactness = iota
	// EdgesAssumed: every byte between the first chunk's first character
	// and the last chunk's last is determined, but the whitespace a
	// trimming writer removed before the first chunk and after the last
	// is assumed: none before the first line's text (or the blank lines
	// the first chunk's line number or offset says), and one line break
	// at the end of the page (a "\r\n" on a page whose line breaks are
	// all "\r\n"). A file that starts with spaces or does not end with a
	// line break differs from the page in those bytes.
	EdgesAssumed
	// Inexact: some bytes inside the page are in no chunk (whitespace a
	// trimming writer removed at a junction where chunks do not overlap)
	// or the chunks disagree with their offsets or line numbers; the
	// page was rebuilt with a guess. Why says where.
	Inexact
)

func (e Exactness) String() string {
	switch e {
	case Exact:
		return "exact"
	case EdgesAssumed:
		return "edges-assumed"
	case Inexact:
		return "inexact"
	}
	return fmt.Sprintf("Exactness(%d)", uint8(e))
}

// Page is a page reassembled from its chunks.
type Page struct {
	// Parts, in page order. A chunk that adds nothing to the page (one
	// the chunks before it hold entirely) is left out.
	Parts []collection.Part
	// Tail follows the last part: the line break assumed at the end of
	// a trimmed page, or "".
	Tail string
	// Exactness says which of the page's bytes are guessed.
	Exactness Exactness
	// Why says, for a page that is not Exact, the first place a byte was
	// guessed.
	Why string
	// Content is the page: each part's Gap and text, then Tail.
	Content []byte
}

// Recipe returns what a reader needs to build the page from its chunks
// again (collection.AssembleRecipe), for tree.Entry.Parts.
func (p *Page) Recipe() *collection.Recipe {
	return &collection.Recipe{Parts: p.Parts, Tail: p.Tail, Exactness: p.Exactness.String(), Why: p.Why}
}

// ErrNoChunks is returned by Assemble for a page without chunks.
var ErrNoChunks = errors.New("adopt: page has no chunks")

// Assemble rebuilds a page from its chunks, in any order:
//
//   - with offsets (Rules.Unit and every piece's Start set, and End
//     where known agreeing with the text's length), chunks are placed
//     at their offsets: text that overlaps what precedes it must equal
//     it, and characters between chunks are guessed;
//   - else in line order (every piece's Line set), then the writer's
//     order, then Seq; consecutive chunks overlap by the longest prefix
//     of the chunk that ends what precedes it and holds as many line
//     breaks as the line numbers say; where none does, the line breaks
//     the line numbers say are put between them;
//   - else in the writer's order, then Seq, with the same overlap rule
//     without the line check.
//
// A page is Exact only when no byte was guessed; when two overlaps fit,
// the longer is taken and the page is Inexact. Assemble fails only for
// an empty page; any other disagreement makes the page Inexact, with the
// reason in Why.
func Assemble(pieces []Piece, r Rules) (*Page, error) {
	if len(pieces) == 0 {
		return nil, ErrNoChunks
	}
	a := &assembler{r: r, pg: &Page{}}
	ps := slices.Clone(pieces)
	a.unit = a.offsetUnit(ps)
	a.lines = true
	orders := true
	for _, p := range ps {
		a.lines = a.lines && p.Line >= 0
		orders = orders && p.Order >= 0
	}
	if a.unit != NoOffsets {
		if id := misplaced(ps); id != "" {
			// LlamaIndex.TS records a chunk's offset with indexOf from the
			// start of the document: a chunk whose text occurred earlier
			// gets the earlier copy's offset. The offsets no longer order
			// the chunks; the collection's order and the overlaps do.
			a.note(Inexact, fmt.Sprintf("chunk %s's offset disagrees with its place in the collection (an earlier copy of its text?): chunks are ordered without offsets", id))
			a.unit = NoOffsets
		}
	}
	switch {
	case a.unit != NoOffsets:
		slices.SortStableFunc(ps, func(x, y Piece) int {
			return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.Seq, y.Seq))
		})
	case orders:
		slices.SortStableFunc(ps, func(x, y Piece) int {
			return cmp.Or(cmp.Compare(x.Order, y.Order), cmp.Compare(x.Seq, y.Seq))
		})
	default:
		slices.SortStableFunc(ps, func(x, y Piece) int { return cmp.Compare(x.Seq, y.Seq) })
		if a.lines && !slices.IsSortedFunc(ps, func(x, y Piece) int { return cmp.Compare(x.Line, y.Line) }) {
			// The writer's order and its line numbers disagree: LangChain.js
			// finds a chunk's line with indexOf, which lands on an earlier
			// copy of text that repeats. Lines decide the order; the
			// overlaps no longer have to agree with them.
			slices.SortStableFunc(ps, func(x, y Piece) int { return cmp.Compare(x.Line, y.Line) })
			a.note(Inexact, "the chunks' line numbers disagree with their order in the collection")
			a.badLines = true
		}
	}
	a.crlf = crlfPage(ps)
	a.nl = "\n"
	if a.crlf {
		a.nl = "\r\n"
	}
	a.head(ps[0])
	for i := 1; i < len(ps); i++ {
		if samePiece(ps[i-1], ps[i]) {
			if ps[i-1].ID == ps[i].ID {
				continue // one record read twice
			}
			// The writer stored a chunk twice, or placed a repeat of its
			// text by an earlier copy (LangChain.js finds a chunk's line
			// with indexOf): which, the chunks do not say.
			a.note(Inexact, fmt.Sprintf("chunks %s and %s hold the same text at the same place: a repeat, or the same chunk stored twice", ps[i-1].ID, ps[i].ID))
		}
		a.join(ps[i-1], ps[i])
	}
	if len(a.out) == 0 && a.r.Trimmed {
		a.note(EdgesAssumed, "the writer stored no text: the file is empty or holds only whitespace, assumed empty")
	}
	a.tail()
	a.pg.Content = a.out
	return a.pg, nil
}

type assembler struct {
	r     Rules
	pg    *Page
	out   []byte
	unit  Unit // of the offsets in use, or NoOffsets
	lines bool // every piece has a line
	// badLines: the line numbers are not to be trusted for overlaps.
	badLines bool
	crlf     bool
	nl       string
	units    int // length of out in unit
	nls      int // line breaks in out
}

// offsetUnit returns the unit in which every piece's offsets agree with
// its text, or NoOffsets.
func (a *assembler) offsetUnit(ps []Piece) Unit {
	if a.r.Unit == NoOffsets {
		return NoOffsets
	}
	for _, p := range ps {
		if p.Start < 0 {
			if len(ps) > 1 {
				a.note(Inexact, fmt.Sprintf("chunk %s has no offset: chunks are ordered without offsets", p.ID))
			}
			return NoOffsets
		}
	}
	try := []Unit{a.r.Unit}
	if a.r.Unit == AutoUnit {
		try = []Unit{UTF16, CodePoints}
	}
	for _, u := range try {
		ok := true
		for _, p := range ps {
			if p.End >= 0 && p.End-p.Start != unitLen(p.Text, u) {
				ok = false
				break
			}
		}
		if ok {
			return u
		}
	}
	a.note(Inexact, "chunk offsets disagree with the chunks' lengths: chunks are ordered without offsets")
	return NoOffsets
}

// note records that the page is at most e exact, and why.
func (a *assembler) note(e Exactness, why string) {
	if e > a.pg.Exactness {
		a.pg.Exactness = e
		a.pg.Why = why
	}
}

func (a *assembler) add(p Piece, gap string, skip int) {
	a.pg.Parts = append(a.pg.Parts, collection.Part{ID: p.ID, Gap: gap, Skip: skip, Len: len(p.Text)})
	a.write(gap)
	a.write(p.Text[skip:])
}

func (a *assembler) write(s string) {
	a.out = append(a.out, s...)
	if a.unit != NoOffsets {
		a.units += unitLen(s, a.unit)
	}
	a.nls += strings.Count(s, "\n")
}

func (a *assembler) head(p Piece) {
	gap := ""
	switch {
	case a.unit != NoOffsets && p.Start > 0:
		gap = a.guess(p.Start)
		a.edge(fmt.Sprintf("the %d characters before the first chunk are in no chunk", p.Start))
	case a.unit != NoOffsets:
		// Offset 0: nothing precedes the first chunk.
	case a.lines && p.Line > 0:
		gap = strings.Repeat(a.nl, p.Line)
		a.edge(fmt.Sprintf("the first chunk starts on line %d: the lines before it are assumed empty", p.Line+1))
	case a.r.Trimmed:
		a.note(EdgesAssumed, "whitespace before the first chunk is assumed absent")
	}
	a.add(p, gap, 0)
}

// edge notes a guess before the first chunk: whitespace a trimming
// writer removed (EdgesAssumed), or text a writer that does not trim
// left out (Inexact).
func (a *assembler) edge(why string) {
	if a.r.Trimmed {
		a.note(EdgesAssumed, why)
	} else {
		a.note(Inexact, why)
	}
}

func (a *assembler) tail() {
	if !a.r.Trimmed || len(a.out) == 0 || bytes.HasSuffix(a.out, []byte("\n")) {
		return
	}
	a.pg.Tail = a.nl
	a.note(EdgesAssumed, "the page is assumed to end with a line break")
	a.write(a.nl)
}

// join adds c after prev.
func (a *assembler) join(prev, c Piece) {
	if a.unit != NoOffsets {
		if a.placeAt(prev, c) {
			return
		}
	}
	ks := a.overlaps(c)
	if len(ks) > 0 {
		if len(ks) > 1 {
			a.note(Inexact, fmt.Sprintf("chunks %s and %s overlap in %d ways", prev.ID, c.ID, len(ks)))
		}
		a.add(c, "", ks[0])
		return
	}
	a.add(c, a.junctionGap(prev, c), 0)
}

// placeAt adds c at its offset, and reports false (adding nothing) when
// its text disagrees with what precedes it there.
func (a *assembler) placeAt(prev, c Piece) bool {
	s := c.Start
	switch {
	case s == a.units:
		a.add(c, "", 0)
		return true
	case s > a.units:
		n := s - a.units
		a.note(Inexact, fmt.Sprintf("%d characters between chunks %s and %s are in no chunk", n, prev.ID, c.ID))
		gap := a.guess(n)
		if n == 1 && !a.crlf {
			gap = a.oneChar(c.Text)
		}
		a.add(c, gap, 0)
		return true
	}
	k := a.units - s
	if k >= unitLen(c.Text, a.unit) {
		// Entirely inside what precedes: it must repeat it.
		tail, ok := unitSuffix(a.out, k, a.unit)
		if ok && bytes.HasPrefix(tail, []byte(c.Text)) {
			return true
		}
	} else if b, ok := unitPrefix(c.Text, k, a.unit); ok && bytes.HasSuffix(a.out, []byte(c.Text[:b])) {
		a.add(c, "", b)
		return true
	}
	a.note(Inexact, fmt.Sprintf("chunk %s's text does not match its offset %d", c.ID, s))
	return false
}

// junctionGap guesses what lies between prev and c when they do not
// overlap.
func (a *assembler) junctionGap(prev, c Piece) string {
	if !a.lines {
		if a.r.Trimmed {
			a.note(Inexact, fmt.Sprintf("whitespace between chunks %s and %s is in no chunk: a line break is assumed", prev.ID, c.ID))
			return a.nl
		}
		return a.r.Sep
	}
	n := c.Line - a.nls
	switch {
	case n < 0 || a.badLines:
		if n < 0 {
			a.note(Inexact, fmt.Sprintf("chunk %s starts on line %d, inside the chunk before it, but repeats none of it", c.ID, c.Line+1))
		}
		return a.nl + a.nl // most junctions without overlap are paragraph breaks
	case !a.r.Trimmed && n == strings.Count(a.r.Sep, "\n"):
		return a.r.Sep
	case n == 0 && a.r.Trimmed:
		if r1, _ := utf8.DecodeLastRune(a.out); unspaced(r1) && !spaceNear(a.out, c.Text) {
			a.note(Inexact, fmt.Sprintf("chunks %s and %s on line %d do not overlap: text without spaces, nothing is assumed between them", prev.ID, c.ID, c.Line+1))
			return ""
		}
		a.note(Inexact, fmt.Sprintf("whitespace between chunks %s and %s on line %d is in no chunk: a space is assumed", prev.ID, c.ID, c.Line+1))
		return " "
	}
	a.note(Inexact, fmt.Sprintf("whitespace between chunks %s and %s is in no chunk: %d line breaks are assumed", prev.ID, c.ID, n))
	return strings.Repeat(a.nl, n)
}

// guess returns n units of whitespace for text no chunk holds: a space,
// or line breaks.
func (a *assembler) guess(n int) string {
	switch {
	case n == 1:
		return " "
	case a.crlf && n%2 == 0:
		return strings.Repeat("\r\n", n/2)
	}
	return strings.Repeat("\n", n)
}

// oneChar guesses the one character of whitespace between what is
// written and next: a space or a line break, whichever the page puts
// more often after the character before the gap and before the one
// after it (sentences one per line, or run together).
func (a *assembler) oneChar(next string) string {
	const near = 4096
	text := string(a.out[max(0, len(a.out)-near):]) + "\x00" + next[:min(len(next), near)]
	r1, _ := utf8.DecodeLastRune(a.out)
	r2, _ := utf8.DecodeRuneInString(next)
	spaces := strings.Count(text, string(r1)+" ") + strings.Count(text, " "+string(r2))
	breaks := strings.Count(text, string(r1)+"\n") + strings.Count(text, "\n"+string(r2))
	if breaks > spaces {
		return "\n"
	}
	return " "
}

// overlaps returns, longest first, the lengths k (0 < k < len(c.Text))
// such that c.Text[:k] ends what is written so far and, with line
// numbers, holds the line breaks between c's line and the end of what
// is written.
func (a *assembler) overlaps(c Piece) []int {
	if !a.r.Overlap {
		return nil
	}
	var ks []int
	for _, k := range borders(a.out, c.Text) {
		if a.lines && !a.badLines && strings.Count(c.Text[:k], "\n") != a.nls-c.Line {
			continue
		}
		// A splitter that trims cuts between words: the text two chunks
		// share starts and ends at word boundaries. "the" ending one
		// chunk and "then" starting the next is no overlap.
		if a.r.Trimmed && (!boundary(c.Text[:k], c.Text[k:]) || !boundary(string(a.out[:len(a.out)-k]), c.Text)) {
			continue
		}
		ks = append(ks, k)
	}
	return ks
}

// borders returns, longest first, every k with 0 < k < len(s) such that
// s[:k] is a suffix of text (Knuth–Morris–Pratt over the end of text).
func borders(text []byte, s string) []int {
	m := min(len(s)-1, len(text))
	if m <= 0 {
		return nil
	}
	pat := s[:m]
	fail := make([]int, m)
	for i, q := 1, 0; i < m; i++ {
		for q > 0 && pat[i] != pat[q] {
			q = fail[q-1]
		}
		if pat[i] == pat[q] {
			q++
		}
		fail[i] = q
	}
	q := 0
	for _, b := range text[len(text)-m:] {
		if q == m {
			q = fail[q-1]
		}
		for q > 0 && b != pat[q] {
			q = fail[q-1]
		}
		if b == pat[q] {
			q++
		}
	}
	var ks []int
	for q > 0 {
		ks = append(ks, q)
		q = fail[q-1]
	}
	return ks
}

// unitSuffix returns the last n units of b, in unit u.
func unitSuffix(b []byte, n int, u Unit) ([]byte, bool) {
	if u == Bytes {
		if n > len(b) {
			return nil, false
		}
		return b[len(b)-n:], true
	}
	i, got := len(b), 0
	for got < n && i > 0 {
		r, w := utf8.DecodeLastRune(b[:i])
		i -= w
		if u == UTF16 && r >= 0x10000 {
			got += 2
		} else {
			got++
		}
	}
	return b[i:], got == n
}

// misplaced returns the id of a chunk whose offset disagrees with the
// order in which the writer stored the chunks (Seq): it starts where a
// chunk stored before it starts, or before that. It returns "" when the
// offsets and the collection's order agree.
func misplaced(ps []Piece) string {
	bySeq := slices.Clone(ps)
	slices.SortStableFunc(bySeq, func(x, y Piece) int { return cmp.Compare(x.Seq, y.Seq) })
	for i := 1; i < len(bySeq); i++ {
		if p, q := bySeq[i-1], bySeq[i]; q.Start <= p.Start && q.ID != p.ID {
			return q.ID
		}
	}
	return ""
}

// crlfPage reports whether every line break in the chunks is "\r\n"
// (and there is one).
func crlfPage(ps []Piece) bool {
	crlf := 0
	for _, p := range ps {
		n := strings.Count(p.Text, "\n")
		c := strings.Count(p.Text, "\r\n")
		if n != c {
			return false
		}
		crlf += c
	}
	return crlf > 0
}

// samePiece reports whether q repeats p: same text at the same place.
func samePiece(p, q Piece) bool {
	return p.Text == q.Text && p.Start == q.Start && p.Line == q.Line && p.Order == q.Order
}

// boundary reports whether the end of x and the start of y, written
// together, are not inside one word: either is empty or a space, or
// either side's character is neither a letter nor a digit.
func boundary(x, y string) bool {
	if x == "" || y == "" {
		return true
	}
	r1, _ := utf8.DecodeLastRuneInString(x)
	r2, _ := utf8.DecodeRuneInString(y)
	word := func(r rune) bool { return (unicode.IsLetter(r) && !unspaced(r)) || unicode.IsDigit(r) || r == '_' }
	return !word(r1) || !word(r2)
}

// spaceNear reports whether a space is near the end of out or the start
// of next, on the lines they meet at: text that uses spaces between
// words, even in a script that need not.
func spaceNear(out []byte, next string) bool {
	const near = 120
	before := out[max(0, len(out)-near):]
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	after := next[:min(len(next), near)]
	if i := strings.IndexByte(after, '\n'); i >= 0 {
		after = after[:i]
	}
	return bytes.ContainsRune(before, ' ') || strings.ContainsRune(after, ' ')
}

// unspaced reports whether r is a letter of a script written without
// spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer,
// Myanmar): a splitter cuts such text between any two characters, and
// drops nothing there.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
