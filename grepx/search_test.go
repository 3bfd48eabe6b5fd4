package grepx_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/regex"
)

// render prints files the way grep -n -H does (context lines with '-',
// "--" between non-adjacent groups), plus counts and flags, so that table
// tests can state results compactly.
func render(q grepx.Query, files []*grepx.File) string {
	var b strings.Builder
	last := ""
	lastNum := 0
	for _, f := range files {
		if f.Err != nil {
			fmt.Fprintf(&b, "ERR %s\n", f.Path)
			continue
		}
		switch q.Mode {
		case grepx.Count:
			fmt.Fprintf(&b, "%s:%d\n", f.Path, f.Count)
			continue
		case grepx.FilesWithMatches, grepx.FilesWithoutMatch:
			fmt.Fprintf(&b, "%s\n", f.Path)
			continue
		}
		if f.Binary {
			fmt.Fprintf(&b, "BINARY %s\n", f.Path)
		}
		for _, l := range f.Lines {
			if (q.Before > 0 || q.After > 0) && last != "" && (last != f.Path || l.Number != lastNum+1) {
				b.WriteString("--\n")
			}
			sep := ":"
			if l.Context {
				sep = "-"
			}
			if q.OnlyMatching && !l.Context {
				for _, m := range l.Matches {
					fmt.Fprintf(&b, "%s%s%d%s%s\n", f.Path, sep, l.Number, sep, l.Text[m[0]:m[1]])
				}
			} else {
				fmt.Fprintf(&b, "%s%s%d%s%s\n", f.Path, sep, l.Number, sep, l.Text)
			}
			last, lastNum = f.Path, l.Number
		}
	}
	return b.String()
}

func collect(t *testing.T, fsys fs.FS, q grepx.Query) (string, grepx.Stats) {
	t.Helper()
	var files []*grepx.File
	st, err := grepx.Search(context.Background(), fsys, q, func(f *grepx.File) error {
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return render(q, files), st
}

var small = fstest.MapFS{
	"a.md":          {Data: []byte("alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n")},
	"b.txt":         {Data: []byte("one beta\ntwo\nthree beta")},
	"dir/c.md":      {Data: []byte("Beta upper\nbeta lower\n")},
	"dir/sub/d.md":  {Data: []byte("nothing here\n")},
	"dir/skip/e.md": {Data: []byte("beta in a skipped dir\n")},
	"bin.dat":       {Data: []byte("beta\x00beta\n")},
	"bad.txt":       {Data: []byte("beta ok\nbeta \xff bad\nbeta after\n")},
	"empty.md":      {Data: nil},
}

func TestSearchTable(t *testing.T) {
	tests := []struct {
		name string
		q    grepx.Query
		want string
	}{
		{"plain", grepx.Query{Patterns: []string{"beta"}, Paths: []string{"a.md", "b.txt"}},
			"a.md:2:beta\nb.txt:1:one beta\nb.txt:3:three beta\n"},
		{"recursive include order", grepx.Query{Patterns: []string{"beta"}, Recursive: true,
			Globs: []grepx.FileGlob{{Glob: "*.md", Include: true}}, ExcludeDir: []string{"skip"}},
			"a.md:2:beta\ndir/c.md:2:beta lower\n"},
		{"exclude then include", grepx.Query{Patterns: []string{"beta"}, Recursive: true, Paths: []string{"dir"},
			Globs: []grepx.FileGlob{{Glob: "c.md"}, {Glob: "*.md", Include: true}}},
			"dir/c.md:2:beta lower\ndir/skip/e.md:1:beta in a skipped dir\n"},
		{"ignore case", grepx.Query{Patterns: []string{"beta"}, IgnoreCase: true, Paths: []string{"dir/c.md"}},
			"dir/c.md:1:Beta upper\ndir/c.md:2:beta lower\n"},
		{"context", grepx.Query{Patterns: []string{"gamma", "eta"}, Syntax: regex.Fixed, Word: true, Before: 1, After: 1, Paths: []string{"a.md"}},
			"a.md-2-beta\na.md:3:gamma\na.md-4-delta\n--\na.md-6-zeta\na.md:7:eta\na.md-8-theta\n"},
		{"overlapping context", grepx.Query{Patterns: []string{"^.eta"}, Before: 2, After: 2, Paths: []string{"a.md"}},
			"a.md-1-alpha\na.md:2:beta\na.md-3-gamma\na.md-4-delta\na.md-5-epsilon\na.md:6:zeta\na.md-7-eta\na.md-8-theta\n"},
		{"max count keeps trailing context", grepx.Query{Patterns: []string{"eta"}, MaxCount: 1, After: 2, Paths: []string{"a.md"}},
			"a.md:2:beta\na.md-3-gamma\na.md-4-delta\n"},
		{"max count context matches", grepx.Query{Patterns: []string{"a$"}, MaxCount: 1, After: 2, Paths: []string{"a.md"}},
			"a.md:1:alpha\na.md-2-beta\na.md-3-gamma\n"},
		{"invert", grepx.Query{Patterns: []string{"e"}, Invert: true, Paths: []string{"a.md"}},
			"a.md:1:alpha\na.md:3:gamma\n"},
		{"invert context", grepx.Query{Patterns: []string{"t"}, Invert: true, After: 1, Paths: []string{"a.md"}},
			"a.md:1:alpha\na.md-2-beta\na.md:3:gamma\na.md-4-delta\na.md:5:epsilon\na.md-6-zeta\n"},
		{"count", grepx.Query{Patterns: []string{"beta"}, Mode: grepx.Count, Paths: []string{"a.md", "b.txt", "empty.md"}},
			"a.md:1\nb.txt:2\nempty.md:0\n"},
		{"count invert empty line", grepx.Query{Patterns: []string{"x"}, Invert: true, Mode: grepx.Count, Paths: []string{"b.txt", "empty.md"}},
			"b.txt:3\nempty.md:0\n"},
		{"files with matches", grepx.Query{Patterns: []string{"beta"}, Mode: grepx.FilesWithMatches, Recursive: true, Paths: []string{"dir"}},
			"dir/c.md\ndir/skip/e.md\n"},
		{"files without match", grepx.Query{Patterns: []string{"beta"}, Mode: grepx.FilesWithoutMatch, Recursive: true, Paths: []string{"dir"}},
			"dir/sub/d.md\n"},
		{"only matching", grepx.Query{Patterns: []string{"be*t"}, OnlyMatching: true, Paths: []string{"b.txt"}},
			"b.txt:1:bet\nb.txt:3:bet\n"},
		{"binary", grepx.Query{Patterns: []string{"beta"}, Paths: []string{"bin.dat"}},
			"BINARY bin.dat\n"},
		{"encoding error line withheld", grepx.Query{Patterns: []string{"beta"}, Paths: []string{"bad.txt"}},
			"BINARY bad.txt\nbad.txt:1:beta ok\nbad.txt:3:beta after\n"},
		{"errors", grepx.Query{Patterns: []string{"beta"}, Paths: []string{"missing.md", "dir", "a.md"}},
			"ERR missing.md\nERR dir\na.md:2:beta\n"},
		{"max count zero", grepx.Query{Patterns: []string{"beta"}, MaxCount: -1, Paths: []string{"a.md"}}, ""},
		{"total limit", grepx.Query{Patterns: []string{"beta"}, MaxMatches: 2, Paths: []string{"a.md", "b.txt"}},
			"a.md:2:beta\nb.txt:1:one beta\n"},
		{"byte limit", grepx.Query{Patterns: []string{"beta"}, MaxBytes: 10, Paths: []string{"a.md", "b.txt"}},
			"a.md:2:beta\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := collect(t, small, tt.q)
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	_, err := grepx.Search(context.Background(), small, grepx.Query{Patterns: []string{`a\{1`}}, func(*grepx.File) error { return nil })
	var pe *regex.Error
	if !errors.As(err, &pe) {
		t.Fatalf("invalid pattern: got %v, want *regex.Error", err)
	}
	stop := errors.New("stop")
	n := 0
	_, err = grepx.Search(context.Background(), small, grepx.Query{Patterns: []string{"beta"}, Recursive: true}, func(*grepx.File) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("callback error: got %v after %d calls", err, n)
	}
	var got []*grepx.File
	_, err = grepx.Search(context.Background(), small, grepx.Query{Patterns: []string{"beta"}, Paths: []string{"../x", "dir"}},
		func(f *grepx.File) error { got = append(got, f); return nil })
	if err != nil || len(got) != 2 || !errors.Is(got[0].Err, fs.ErrInvalid) || !errors.Is(got[1].Err, grepx.ErrIsDir) {
		t.Fatalf("bad operands: %v %+v", err, got)
	}
}
