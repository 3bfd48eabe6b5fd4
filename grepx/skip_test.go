package grepx_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/regex"
)

func TestSkip(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md":        {Data: []byte("hit\n")},
		".h.md":       {Data: []byte("hit\n")},
		"d/b.txt":     {Data: []byte("hit\n")},
		"d/.hid/c.md": {Data: []byte("hit\n")},
	}
	var asked []string
	q := grepx.Query{
		Patterns:  []string{"h.t"},
		Syntax:    regex.RE2,
		Paths:     []string{".", ".h.md"},
		Recursive: true,
		Mode:      grepx.FilesWithMatches,
		Skip: func(name string, isDir bool) bool {
			kind := "f"
			if isDir {
				kind = "d"
			}
			asked = append(asked, kind+":"+name)
			base := name[strings.LastIndexByte(name, '/')+1:]
			return strings.HasPrefix(base, ".")
		},
	}
	got, _ := collect(t, fsys, q)
	if want := "a.md\nd/b.txt\n.h.md\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if want := "f:.h.md f:a.md d:d d:d/.hid f:d/b.txt"; strings.Join(asked, " ") != want {
		t.Errorf("Skip asked about %q, want %q (never the operands, nothing below a skipped directory)", strings.Join(asked, " "), want)
	}
}
