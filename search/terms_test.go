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
	for _, keep := range []bool{false, true} {
		a := newAnalyzer(keep)
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
}
