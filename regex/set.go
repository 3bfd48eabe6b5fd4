package regex

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// litSet finds occurrences of many literals at once with an Aho-Corasick
// automaton over bytes. With fold, literals and text are compared by
// Unicode simple folding: both are read as the UTF-8 encoding of each
// character's fold key (the smallest rune of its folding orbit).
//
// The automaton is a table of transitions over byte classes (the bytes
// that occur in literals, and one class for all others) when it fits in
// denseLimit entries, and otherwise a trie whose states keep their own
// edges, with failure links followed at run time.
type litSet struct {
	fold    bool
	classes [256]uint8 // byte -> class; 0 for bytes in no literal
	ncls    int

	// Dense form: delta[s*ncls+c].
	delta []int32
	// Sparse form: the edges of state s are edgeByte/edgeNext[edgeStart[s]:edgeStart[s+1]],
	// sorted by byte; root is the root's edges by byte (-1 for none).
	edgeStart []int32
	edgeByte  []byte
	edgeNext  []int32
	fail      []int32
	root      [256]int32

	// term[s] is the literal whose trie part ends at state s, or -1: the
	// literal has occurred when its tail follows in the text.
	term []int32
	// tail[i] is the rest of literal i's key after its trie part ("" for
	// most literals of short lists; see newLitSet).
	tail []string
	// ids[i] is the number reported for literal i: i, or the first
	// literal that reads the same (with fold, "K" for "k").
	ids  []int32
	dict []int32 // the nearest state on s's failure chain with term >= 0, or -1
}

// denseLimit bounds the transition table of the dense form (entries of 4
// bytes).
const denseLimit = 1 << 22

// minTrie is the fewest bytes of a literal's key kept in the trie; past
// the shortest prefix that no other literal starts with, the rest of a
// key is its tail, compared with the text when the automaton reaches the
// prefix. A list of 80,000 random 12-letter words then needs 1.3 instead
// of 8 trie states per word.
const minTrie = 4

// newLitSet builds the automaton for lits (which must be non-empty
// strings). Literal i is reported as ids[i]. It adds its work (trie nodes and
// edges) to c and returns c's error if c is stopped.
func newLitSet(lits []string, fold bool, c *compiler) (*litSet, error) {
	s := &litSet{fold: fold}
	// The trie is built from the sorted keys: a key shares with the
	// previous one the path of their common prefix, and the children of
	// every state are created in increasing byte order.
	keys := make([]string, len(lits))
	order := make([]int32, len(lits))
	for i, l := range lits {
		keys[i] = string(s.appendKey(nil, l))
		order[i] = int32(i)
	}
	if err := c.tick(len(lits)); err != nil {
		return nil, err
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
	if err := c.tick(len(lits) * (bits.Len(uint(len(lits))) + 1)); err != nil {
		return nil, err
	}
	total := 1 // an upper bound on the number of states
	for _, k := range keys {
		total += len(k)
	}
	parent := append(make([]int32, 0, total), -1)
	via := append(make([]byte, 0, total), 0)
	s.term = append(make([]int32, 0, total), -1)
	s.ids = make([]int32, len(lits))
	s.tail = make([]string, len(lits))
	minTail := minTrie
	if c.minTrie != 0 {
		minTail = c.minTrie
	}
	// lcp[j] is the length of the common prefix of the j-th and
	// (j+1)-th keys in order.
	lcp := make([]int32, len(order))
	for j := 0; j+1 < len(order); j++ {
		a, b := keys[order[j]], keys[order[j+1]]
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		lcp[j] = int32(n)
	}
	var path []int32 // path[d]: the state after d+1 bytes of the previous key's trie part
	for j, i := range order {
		key := keys[i]
		// The trie holds the shortest prefix of the key that no other
		// key starts with (at least minTail bytes, ending at a character
		// boundary); the rest, if any, is the key's tail, compared when
		// the automaton reaches that prefix. Such a prefix's state is a
		// leaf, and the literal is the only one that reaches it.
		cut := 0
		if j > 0 {
			cut = int(lcp[j-1])
		}
		cut = max(cut, int(lcp[j])) + 1
		if cut < len(key) {
			cut = max(cut, minTail)
			for cut < len(key) && !utf8.RuneStart(key[cut]) {
				cut++
			}
		}
		cut = min(cut, len(key))
		common := 0
		if j > 0 {
			common = min(int(lcp[j-1]), len(path))
		}
		path = path[:common]
		st := int32(0)
		if common > 0 {
			st = path[common-1]
		}
		s.tail[i] = key[cut:]
		for _, b := range []byte(key[common:cut]) {
			next := int32(len(parent))
			parent = append(parent, st)
			via = append(via, b)
			s.term = append(s.term, -1)
			path = append(path, next)
			st = next
		}
		if s.term[st] < 0 {
			s.term[st] = i
		}
		s.ids[i] = s.term[st]
		if err := c.tick(len(key) + 1); err != nil {
			return nil, err
		}
	}
	n := len(parent)
	// Edges by state, in creation order (so sorted by byte).
	s.edgeStart = make([]int32, n+1)
	for st := 1; st < n; st++ {
		s.edgeStart[parent[st]+1]++
	}
	for st := 1; st <= n; st++ {
		s.edgeStart[st] += s.edgeStart[st-1]
	}
	s.edgeByte = make([]byte, n-1)
	s.edgeNext = make([]int32, n-1)
	fill := slices.Clone(s.edgeStart[:n])
	for st := 1; st < n; st++ {
		k := fill[parent[st]]
		s.edgeByte[k], s.edgeNext[k] = via[st], int32(st)
		fill[parent[st]]++
	}
	parent, via, fill = nil, nil, nil
	// Byte classes.
	var used [256]bool
	for _, b := range s.edgeByte {
		used[b] = true
	}
	s.ncls = 1
	for b := range 256 {
		if used[b] {
			s.classes[b] = uint8(s.ncls)
			s.ncls++
		}
	}
	for b := range s.root {
		s.root[b] = -1
	}
	for i := s.edgeStart[0]; i < s.edgeStart[1]; i++ {
		s.root[s.edgeByte[i]] = s.edgeNext[i]
	}
	// Failure and dictionary links, breadth first.
	s.fail = make([]int32, n)
	s.dict = make([]int32, n)
	s.dict[0] = -1
	queue := make([]int32, 0, n)
	queue = append(queue, 0)
	for qi := 0; qi < len(queue); qi++ {
		st := queue[qi]
		for i := s.edgeStart[st]; i < s.edgeStart[st+1]; i++ {
			b, next := s.edgeByte[i], s.edgeNext[i]
			f := int32(0)
			if st != 0 {
				f = s.step(s.fail[st], b)
			}
			s.fail[next] = f
			if s.term[f] >= 0 {
				s.dict[next] = f
			} else {
				s.dict[next] = s.dict[f]
			}
			queue = append(queue, next)
		}
		if qi&1023 == 0 {
			if err := c.tick(1024); err != nil {
				return nil, err
			}
		}
	}
	limit := denseLimit
	if c.denseLimit != 0 {
		limit = c.denseLimit
	}
	if n*s.ncls <= limit {
		s.delta = make([]int32, n*s.ncls)
		// States in breadth-first order: a state's failure target comes
		// earlier, so its row is complete when it is copied.
		for _, st := range queue {
			row := s.delta[int(st)*s.ncls : int(st+1)*s.ncls]
			if st != 0 {
				copy(row, s.delta[int(s.fail[st])*s.ncls:int(s.fail[st]+1)*s.ncls])
			}
			for i := s.edgeStart[st]; i < s.edgeStart[st+1]; i++ {
				row[s.classes[s.edgeByte[i]]] = s.edgeNext[i]
			}
		}
		if err := c.tick(n * s.ncls / 64); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// appendKey appends what the automaton reads for text: text itself, or
// with fold the fold keys of its characters (bytes that are not UTF-8 as
// 0xff, which no key contains).
func (s *litSet) appendKey(dst []byte, text string) []byte {
	if !s.fold {
		return append(dst, text...)
	}
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && w == 1 {
			dst = append(dst, 0xff)
		} else {
			dst = utf8.AppendRune(dst, foldKey(r))
		}
		i += w
	}
	return dst
}

// step is the sparse transition from st on b.
func (s *litSet) step(st int32, b byte) int32 {
	for {
		if st == 0 {
			if next := s.root[b]; next >= 0 {
				return next
			}
			return 0
		}
		lo, hi := s.edgeStart[st], s.edgeStart[st+1]
		for i := lo; i < hi; i++ {
			if s.edgeByte[i] == b {
				return s.edgeNext[i]
			}
		}
		st = s.fail[st]
	}
}

func (s *litSet) next(st int32, b byte) int32 {
	if s.delta != nil {
		return s.delta[int(st)*s.ncls+int(s.classes[b])]
	}
	return s.step(st, b)
}

// hit reports whether the trie part of some literal ends at state st.
func (s *litSet) hit(st int32) bool { return s.term[st] >= 0 || s.dict[st] >= 0 }

// found returns the end of the earliest-ending occurrence of a literal
// whose trie part ends at state st, reached at buf[i] (the end of a
// character), or -1.
func (s *litSet) found(buf []byte, i int, st int32) int {
	end := -1
	if t := s.term[st]; t >= 0 {
		end = s.tailEnd(buf, i, s.tail[t])
	}
	for d := s.dict[st]; d >= 0; d = s.dict[d] {
		if e := s.tailEnd(buf, i, s.tail[s.term[d]]); e >= 0 && (end < 0 || e < end) {
			end = e
		}
	}
	return end
}

// tailEnd returns the end of tail in buf at i (compared as keys with
// fold), or -1 if buf[i:] does not start with it.
func (s *litSet) tailEnd(buf []byte, i int, tail string) int {
	if tail == "" {
		return i
	}
	if !s.fold {
		if len(buf)-i >= len(tail) && string(buf[i:i+len(tail)]) == tail {
			return i + len(tail)
		}
		return -1
	}
	var enc [utf8.UTFMax]byte
	for j := 0; j < len(tail); {
		if i >= len(buf) {
			return -1
		}
		if b := buf[i]; b < utf8.RuneSelf {
			if asciiKey[b] != tail[j] {
				return -1
			}
			i++
			j++
			continue
		}
		k, w := foldRuneKey(buf[i:], enc[:])
		if len(tail)-j < len(k) || string(k) != tail[j:j+len(k)] {
			return -1
		}
		i += w
		j += len(k)
	}
	return i
}

// first returns the end of an occurrence of a literal in buf[from:], or
// -1: of the occurrences whose literals' trie parts end first, the one
// that ends first (with fold: the end of the character in which it
// ends). An occurrence in an earlier line, or one that ends earlier
// without a tail, would have been found first: literals contain no
// '\n', so the returned occurrence is in the first line of buf[from:]
// that holds one.
func (s *litSet) first(buf []byte, from int) int {
	st := int32(0)
	if !s.fold {
		if s.delta != nil {
			delta, ncls, cls := s.delta, s.ncls, &s.classes
			for i := from; i < len(buf); i++ {
				st = delta[int(st)*ncls+int(cls[buf[i]])]
				if s.term[st] >= 0 || s.dict[st] >= 0 {
					if e := s.found(buf, i+1, st); e >= 0 {
						return e
					}
				}
			}
			return -1
		}
		for i := from; i < len(buf); i++ {
			st = s.step(st, buf[i])
			if s.hit(st) {
				if e := s.found(buf, i+1, st); e >= 0 {
					return e
				}
			}
		}
		return -1
	}
	var enc [utf8.UTFMax]byte
	for i := from; i < len(buf); {
		b := buf[i]
		if b < utf8.RuneSelf {
			st = s.next(st, asciiKey[b])
			i++
		} else {
			k, w := foldRuneKey(buf[i:], enc[:])
			for _, kb := range k {
				st = s.next(st, kb)
			}
			i += w
		}
		if s.hit(st) {
			if e := s.found(buf, i, st); e >= 0 {
				return e
			}
		}
	}
	return -1
}

// each calls fn with every literal that occurs in text (a literal may be
// reported more than once).
func (s *litSet) each(text []byte, fn func(lit int)) {
	st := int32(0)
	var enc [utf8.UTFMax]byte
	for i := 0; i < len(text); {
		b := text[i]
		switch {
		case !s.fold:
			st = s.next(st, b)
			i++
		case b < utf8.RuneSelf:
			st = s.next(st, asciiKey[b])
			i++
		default:
			k, w := foldRuneKey(text[i:], enc[:])
			for _, kb := range k {
				st = s.next(st, kb)
			}
			i += w
		}
		if t := s.term[st]; t >= 0 && (s.tail[t] == "" || s.tailEnd(text, i, s.tail[t]) >= 0) {
			fn(int(t))
		}
		for d := s.dict[st]; d >= 0; d = s.dict[d] {
			if t := s.term[d]; s.tail[t] == "" || s.tailEnd(text, i, s.tail[t]) >= 0 {
				fn(int(t))
			}
		}
	}
}

// foldKey returns the smallest rune of r's simple-folding orbit.
func foldKey(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(asciiKey[r])
	}
	return orbitMin(r)
}

// foldRuneKey returns the encoding of the fold key of the character at
// the start of b (which starts with a non-ASCII byte), and its width in
// b; a byte that is not UTF-8 reads as 0xff.
func foldRuneKey(b []byte, enc []byte) ([]byte, int) {
	r, w := utf8.DecodeRune(b)
	if r == utf8.RuneError && w == 1 {
		enc[0] = 0xff
		return enc[:1], 1
	}
	if r <= unicode.MaxRune {
		r = orbitMin(r)
	}
	return utf8.AppendRune(enc[:0], r), w
}

// asciiKey is foldKey for ASCII bytes (orbitMin: 'k' -> 'K').
var asciiKey = func() (t [128]byte) {
	for c := range t {
		t[c] = byte(orbitMin(rune(c)))
	}
	return t
}()
