package fscap_test

import (
	"context"
	"fmt"
	"io/fs"
	"testing/fstest"

	"github.com/chromafs/chromafs/fscap"
)

// sharedFS is a filesystem that hands out its files' bytes without a copy.
type sharedFS struct{ fstest.MapFS }

func (s sharedFS) ReadFileShared(name string) ([]byte, error) {
	f, ok := s.MapFS[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.Data, nil // shared: the caller must not modify it
}

// A front end calls the helpers on whatever fs.FS it is given: they use a
// capability when the filesystem has it and fall back to io/fs otherwise.
func Example() {
	plain := fstest.MapFS{"a.md": {Data: []byte("hello")}}
	shared := sharedFS{plain}
	for _, fsys := range []fs.FS{plain, shared} {
		_, isShared := fsys.(fscap.ReadFileSharedFS)
		data, err := fscap.ReadFileShared(fsys, "a.md")
		// Neither filesystem has a coarse filter: every name is a
		// candidate, and nothing is queried.
		cands, _ := fscap.Candidates(context.Background(), fsys, []string{"a.md"}, []string{"hello"}, false)
		fmt.Println(isShared, string(data), err, cands)
	}
	// Output:
	// false hello <nil> [a.md]
	// true hello <nil> [a.md]
}

// Attributes come from the Sys value of a FileInfo (chromafs: the page's
// *tree.Entry); a filesystem that records none has none.
func ExampleAttributesOf() {
	fi, _ := fs.Stat(fstest.MapFS{"a.md": {Data: []byte("x")}}, "a.md")
	_, ok := fscap.AttributesOf(fi)
	fmt.Println(ok)
	// Output: false
}
