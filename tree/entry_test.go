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
		{"nil (a directory's Sys)", nil, "{   false []}", false},
		{"public page", &tree.Entry{Slug: "a.md", IsPublic: true, Hash: "sha256:ab", ContentType: "text/markdown"}, "{text/markdown sha256:ab  true []}", true},
		{"pointer for groups", &tree.Entry{Slug: "b.yaml", Groups: []string{"eng", "ops"}, URL: "https://x/b.yaml"}, "{  https://x/b.yaml false [eng ops]}", true},
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
