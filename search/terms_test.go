package search

import (
	"slices"
	"strings"
	"testing"
)

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"How do I rotate my API keys?", []string{"rotat", "api", "key"}},
		{"x-api-key", []string{"x-api-key", "x", "api", "key"}},
		{"access_token expires", []string{"access_token", "access", "token", "expir"}},
		{"getUser", []string{"getuser", "get", "user"}},
		{"HTTPServer", []string{"httpserver", "http", "server"}},
		{"--lexical flag-", []string{"lexic", "flag"}},
		{"the of", []string{"the", "of"}}, // stop words only: kept
		{"... !", nil},
	}
	for _, tc := range tests {
		got, _ := queryTerms(tc.query)
		if !slices.Equal(got, tc.want) {
			t.Errorf("queryTerms(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestLiteral: every word with a term holds the term's literal, which
// the coarse filter looks for.
func TestLiteral(t *testing.T) {
	words := []string{"hoping", "hope", "flies", "relational", "relate", "generalizations", "tokens", "rotates", "possibility", "cry", "cries", "x-api-key", "getUser"}
	for _, w := range words {
		a := newAnalyzer(false)
		var toks []string
		tokens(w, func(tok string) { toks = append(toks, tok) })
		for _, tok := range toks {
			for _, term := range a.terms(tok) {
				if lit := literal(term); !strings.Contains(strings.ToLower(w), lit) {
					t.Errorf("%q: term %q, literal %q is not in the word", w, term, lit)
				}
			}
		}
	}
}
