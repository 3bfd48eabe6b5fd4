package search

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestQueryTerms: a query's terms in order, and its weak ones: the stop
// words of a query with other words.
func TestQueryTerms(t *testing.T) {
	tests := []struct {
		query      string
		want, weak []string
	}{
		{"How do I rotate my API keys?", []string{"how", "do", "i", "rotat", "my", "api", "key"}, []string{"how", "do", "i", "my"}},
		{"x-api-key", []string{"x-api-key", "x", "api", "key"}, nil},
		{"access_token expires", []string{"access_token", "access", "token", "expir"}, nil},
		{"getUser", []string{"getuser", "get", "user"}, nil},
		{"HTTPServer", []string{"httpserver", "http", "server"}, nil},
		{"--lexical flag-", []string{"lexic", "flag"}, nil},
		// "only" of read-only is weak, the identifier is not.
		{"read-only", []string{"read-only", "read", "onli"}, []string{"onli"}},
		{"the of", []string{"the", "of"}, nil}, // stop words only: none weak
		{"... !", nil, nil},
	}
	for _, tc := range tests {
		got, weak := queryTerms(tc.query)
		var gotWeak []string
		for i, w := range weak {
			if w {
				gotWeak = append(gotWeak, got[i])
			}
		}
		if !slices.Equal(got, tc.want) || !slices.Equal(gotWeak, tc.weak) || len(weak) != len(got) {
			t.Errorf("queryTerms(%q) = %q, weak %q; want %q, weak %q", tc.query, got, gotWeak, tc.want, tc.weak)
		}
	}
}

// TestLiteral: every word with a term holds one of the term's literals,
// which the coarse filter looks for: the words below, Porter2's
// exceptions among them, and every word of the Snowball English
// vocabulary that the stemmer's module tests itself with (its
// english_vocab, 29,414 words).
func TestLiteral(t *testing.T) {
	words := []string{"hoping", "hope", "flies", "relational", "relate", "generalizations", "tokens", "rotates", "possibility", "cry", "cries", "x-api-key", "getUser",
		"dying", "Lying", "tying", "skies", "skis", "idly", "gently", "ugly", "early", "singly"}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kljensen/snowball").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/kljensen/snowball: %v", err)
	}
	vocab, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "english_vocab", "vocab_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(words)
	for _, m := range regexp.MustCompile(`\{"([^"]*)", *"[^"]*"\}`).FindAllSubmatch(vocab, -1) {
		words = append(words, string(m[1]))
	}
	if len(words)-n < 29000 {
		t.Fatalf("%d words in the Snowball vocabulary, want its 29,414", len(words)-n)
	}
	a := newAnalyzer()
	for _, w := range words {
		tokens(w, func(tok string) {
			for _, term := range a.terms(tok) {
				lits := literals(term)
				if !slices.ContainsFunc(lits, func(l string) bool { return strings.Contains(strings.ToLower(tok), l) }) {
					t.Errorf("%q: term %q, none of its literals %q is in the word", w, term, lits)
				}
			}
		})
	}
}
