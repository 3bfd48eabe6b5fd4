package tree_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/tree"
)

func TestEntryAttributes(t *testing.T) {
	tests := []struct {
		name string
		e    *tree.Entry
		want string
		ok   bool
	}{
		{"nil (a directory's Sys)", nil, "{   false [] }", false},
		{"public page", &tree.Entry{Slug: "a.md", IsPublic: true, Hash: "sha256:ab", ContentType: "text/markdown"}, "{text/markdown sha256:ab  true [] }", true},
		{"pointer for groups", &tree.Entry{Slug: "b.yaml", Groups: []string{"eng", "ops"}, URL: "https://x/b.yaml"}, "{  https://x/b.yaml false [eng ops] }", true},
		{"adopted page", &tree.Entry{Slug: "c.md", IsPublic: true, Parts: `{"x":"inexact","w":"a gap","p":[["a",0]]}`}, "{   true [] inexact: a gap}", true},
		{"exact adopted page", &tree.Entry{Slug: "d.md", IsPublic: true, Parts: `{"x":"exact","p":[["a",0]]}`}, "{   true [] exact}", true},
		{"parts that do not decode", &tree.Entry{Slug: "e.md", IsPublic: true, Parts: `{"p":`}, "{   true [] unknown: the tree's parts of the page do not decode}", true},
	}
	for _, tt := range tests {
		a, ok := tt.e.Attributes()
		if got := fmt.Sprint(a); got != tt.want || ok != tt.ok {
			t.Errorf("%s: Attributes() = %s, %v; want %s, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestErrMalformedIsContent(t *testing.T) {
	_, err := tree.Parse([]byte("{"))
	if !errors.Is(err, tree.ErrMalformed) || !errors.Is(err, fscap.ErrContent) {
		t.Errorf("Parse of a truncated document = %v; want an error matching ErrMalformed and fscap.ErrContent", err)
	}
}
