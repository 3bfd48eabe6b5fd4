package gen

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
)

// PatternList returns n distinct fixed strings for grep -f benchmarks
// (about 1 MB for n = 80,660): random 12-letter words that occur nowhere,
// and one in 200 a run of 2 to 4 words from a random line of one of
// pages (each in a few pages, as a list of identifiers or phrases to look
// for would be). It is deterministic for given n and pages.
func PatternList(n int, pages map[string]string) []string {
	rng := rand.New(rand.NewPCG(uint64(n), 17))
	slugs := slices.Sorted(maps.Keys(pages))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	w := make([]byte, 12)
	for len(out) < n {
		var p string
		if len(out)%200 == 0 {
			lines := strings.Split(pages[slugs[rng.IntN(len(slugs))]], "\n")
			words := strings.Fields(lines[rng.IntN(len(lines))])
			if len(words) < 4 {
				continue
			}
			k := rng.IntN(len(words) - 3)
			p = strings.Join(words[k:k+2+rng.IntN(3)], " ")
		} else {
			for i := range w {
				w[i] = byte('a' + rng.IntN(26))
			}
			p = string(w)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Words returns n distinct random words of 12 lowercase ASCII letters
// (for pattern lists that select next to nothing); the same n and stream
// give the same words in the same order.
func Words(n int, stream uint64) []string {
	rng := rand.New(rand.NewPCG(uint64(n), stream))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	w := make([]byte, 12)
	for len(out) < n {
		for i := range w {
			w[i] = byte('a' + rng.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			out = append(out, string(w))
		}
	}
	return out
}
