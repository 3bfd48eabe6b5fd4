package grepx_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/chromafs/chromafs/grepx"
)

// Search works on any fs.FS; on a chromafs.FS it asks Chroma which pages
// may match before reading any.
func ExampleSearch() {
	docs := fstest.MapFS{
		"guides/auth.md":  {Data: []byte("# Auth\nSend the access_token in a header.\nTokens expire.\n")},
		"guides/setup.md": {Data: []byte("# Setup\nInstall the client.\n")},
		"api/tokens.md":   {Data: []byte("POST /token returns an access_token.\n")},
	}
	q := grepx.Query{
		Patterns:  []string{"access_token"},
		Recursive: true,
		Paths:     []string{"."},
	}
	_, err := grepx.Search(context.Background(), docs, q, func(f *grepx.File) error {
		for _, l := range f.Lines {
			fmt.Printf("%s:%d:%s\n", f.Path, l.Number, l.Text)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// api/tokens.md:1:POST /token returns an access_token.
	// guides/auth.md:2:Send the access_token in a header.
}

// Count mode reports every file in scope, as grep -c does; MaxMatches
// bounds the output for an agent.
func ExampleSearch_count() {
	docs := fstest.MapFS{
		"a.md": {Data: []byte("error\nno\nerror again\n")},
		"b.md": {Data: []byte("fine\n")},
	}
	q := grepx.Query{Patterns: []string{"error"}, Recursive: true, Mode: grepx.Count}
	_, _ = grepx.Search(context.Background(), docs, q, func(f *grepx.File) error {
		fmt.Printf("%s:%d\n", f.Path, f.Count)
		return nil
	})
	// Output:
	// a.md:2
	// b.md:0
}
