package regex

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naiveFirst is litSet.first by brute force: the end of the first
// character (of buf[from:]) at which the key stream read so far ends
// with a literal's key.
func naiveFirst(s *litSet, keys [][]byte, buf []byte, from int) int {
	var stream []byte
	for i := from; i < len(buf); {
		w := 1
		if s.fold && buf[i] >= 0x80 {
			_, w = foldRuneKey(buf[i:], make([]byte, 4))
		}
		if s.fold {
			stream = s.appendKey(stream, string(buf[i:i+w]))
		} else {
			stream = append(stream, buf[i])
		}
		i += w
		for _, k := range keys {
			if bytes.HasSuffix(stream, k) {
				return i
			}
		}
	}
	return -1
}

// TestLitSet compares the automaton, dense and sparse, exact and
// case-folded, with a brute-force search over random text of a small
// alphabet (so that literals overlap and contain each other) with
// characters whose folding is special and bytes that are not UTF-8.
func TestLitSet(t *testing.T) {
	alphabet := []string{"a", "b", "A", "B", "k", "K", "\u212a", "s", "ſ", "S", "é", "É", "\xff", "\xe2\x82", " ", "\n", "ß", "ẞ"}
	rng := rand.New(rand.NewPCG(4, 2))
	word := func(n int, valid bool) string {
		var b strings.Builder
		for range n {
			c := alphabet[rng.IntN(len(alphabet))]
			if valid && (c == "\xff" || c == "\xe2\x82" || c == "\n") {
				c = "b"
			}
			b.WriteString(c)
		}
		return b.String()
	}
	for round := range 200 {
		var lits []string
		for range 1 + rng.IntN(12) {
			lits = append(lits, word(1+rng.IntN(4), true))
		}
		fold := round%2 == 1
		for _, limit := range []int{0, 1} { // 0: dense (the default), 1: sparse
			// Literals of one or two characters whose keys are a trie
			// part and a tail, or all in the trie (the default).
			c := &compiler{ctx: context.Background(), denseLimit: limit, minTrie: 1 + 1000*(round/2%2)}
			s, err := newLitSet(lits, fold, c)
			if err != nil {
				t.Fatal(err)
			}
			if (s.delta != nil) != (limit == 0) {
				t.Fatalf("limit %d: dense form %v", limit, s.delta != nil)
			}
			keys := make([][]byte, len(lits))
			for i, l := range lits {
				keys[i] = s.appendKey(nil, l)
			}
			for range 20 {
				text := []byte(word(rng.IntN(30), false))
				for from := 0; from <= len(text); from += 1 + rng.IntN(4) {
					// first finds an occurrence in the same line as the
					// earliest-ending one: its end, or the earliest end.
					got, want := s.first(text, from), naiveFirst(s, keys, text, from)
					ok := got == want
					if got > want && want >= 0 && !bytes.Contains(text[want:got], []byte{'\n'}) {
						stream := s.appendKey(nil, string(text[from:got]))
						for _, k := range keys {
							ok = ok || bytes.HasSuffix(stream, k)
						}
					}
					if !ok {
						t.Fatalf("lits %q fold %v limit %d: first(%q, %d) = %d, want %d or an end in that line", lits, fold, limit, text, from, got, want)
					}
				}
				var got []int
				s.each(text, func(l int) { got = append(got, l) })
				slices.Sort(got)
				got = slices.Compact(got)
				var want []int
				stream := s.appendKey(nil, string(text))
				for i, k := range keys {
					if bytes.Contains(stream, k) && !slices.Contains(want, int(s.ids[i])) {
						want = append(want, int(s.ids[i]))
					}
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("lits %q fold %v limit %d: each(%q) = %v, want %v", lits, fold, limit, text, got, want)
				}
			}
		}
	}
}
