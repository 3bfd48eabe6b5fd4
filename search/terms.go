package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// A term is what lexical search compares: a word lower-cased and reduced
// to its Snowball (Porter2) English stem; and an identifier, a word with
// inner hyphens or underscores or in camelCase (x-api-key, access_token,
// getUser), kept whole (lower-cased, not stemmed) and also cut into its
// parts, each a word. So `access_token` matches access_token, "access
// token" and accessToken's parts, and "tokens" matches "token". English
// stop words ("the", "who", "my") are terms too, but weak ones in a query
// that has other words (see queryTerms and stopWeight).

// analyzer turns text into terms, remembering what each token gave (one
// map look-up a token after the first).
type analyzer struct {
	memo map[string][]string
}

func newAnalyzer() *analyzer {
	return &analyzer{memo: map[string][]string{}}
}

// isWordRune reports whether r belongs to a word.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// tokens calls fn with each token of text: a run of letters and digits,
// with single hyphens and underscores between them (x-api-key).
func tokens(text string, fn func(tok string)) {
	start := -1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		case (r == '-' || r == '_') && start >= 0 && i+1 < len(text):
			nr, _ := utf8.DecodeRuneInString(text[i+1:])
			if !isWordRune(nr) {
				fn(text[start:i])
				start = -1
			}
		default:
			if start >= 0 {
				fn(text[start:i])
				start = -1
			}
		}
		i += size
	}
	if start >= 0 {
		fn(strings.TrimRight(text[start:], "-_"))
	}
}

// terms returns the terms of one token (see the comment on terms).
func (a *analyzer) terms(tok string) []string {
	if t, ok := a.memo[tok]; ok {
		return t
	}
	var out []string
	parts := splitIdent(tok)
	if len(parts) > 1 {
		out = append(out, strings.ToLower(tok))
	}
	for _, p := range parts {
		out = append(out, a.word(p))
	}
	a.memo[tok] = out
	return out
}

// word is the term of one word.
func (a *analyzer) word(w string) string {
	return english.Stem(strings.ToLower(w), true)
}

// splitIdent cuts an identifier into its parts: at hyphens and
// underscores, between a lower-case letter or digit and an upper-case
// one (getUser), and before the last capital of a run of capitals that
// a lower-case letter follows (HTTPServer: HTTP, Server).
func splitIdent(tok string) []string {
	var parts []string
	rs := []rune(tok)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
	}
	for i, r := range rs {
		switch {
		case r == '-' || r == '_':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])):
			flush(i)
			start = i
		case i > start && unicode.IsUpper(r) && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return parts
}

// queryTerms returns the distinct terms of a query, in the order they
// first appear, and which of them are weak: those that only stop words
// gave ("who", "our" in "who deleted our key"), in a query that has other
// terms. A query of stop words only, such as "how to", has no weak term.
func queryTerms(query string) (terms []string, weak []bool) {
	a := newAnalyzer()
	at := map[string]int{}
	add := func(t string, stop bool) {
		if i, ok := at[t]; ok {
			weak[i] = weak[i] && stop
			return
		}
		at[t] = len(terms)
		terms = append(terms, t)
		weak = append(weak, stop)
	}
	tokens(query, func(tok string) {
		parts := splitIdent(tok)
		if len(parts) > 1 {
			add(strings.ToLower(tok), false)
		}
		for _, p := range parts {
			add(a.word(p), english.IsStopWord(strings.ToLower(p)))
		}
	})
	if !slices.Contains(weak, false) {
		clear(weak)
	}
	return terms, weak
}

// literals are strings one of which every word with the term t holds
// (case-insensitively), for the coarse filter: an identifier itself, and
// a stem without its last runes, which Porter2's replacements may have
// changed (hoping: hope, flies: fli, relational: relate), and the words
// of Porter2's exceptions whose stem that leaves out (dying: die, which
// "di" is not in).
func literals(t string) []string {
	if strings.ContainsAny(t, "-_") {
		return []string{t}
	}
	return append([]string{stemPrefix(t)}, irregular[t]...)
}

// stemPrefix is a stem without the last runes that Porter2's regular
// rules may have changed: two of a stem of five runes or more, one of
// three or four.
func stemPrefix(t string) string {
	r := []rune(t)
	switch {
	case len(r) >= 5:
		return string(r[:len(r)-2])
	case len(r) >= 3:
		return string(r[:len(r)-1])
	}
	return t
}

// irregular maps a stem to the words of Porter2's exceptions (the
// special words it stems by a table, not by its rules) that do not hold
// stemPrefix of their stem: die to dying, lie to lying, tie to tying.
var irregular = func() map[string][]string {
	m := map[string][]string{}
	for _, w := range []string{"skis", "skies", "dying", "lying", "tying", "idly", "gently", "ugly", "early", "only", "singly"} {
		if t := english.Stem(w, true); !strings.Contains(w, stemPrefix(t)) {
			m[t] = append(m[t], w)
		}
	}
	return m
}()
