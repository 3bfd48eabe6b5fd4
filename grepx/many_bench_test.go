package grepx_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/regex"
)

// manyWords returns n distinct random 12-letter words; with hits > 0,
// that many of them are replaced by words of the generated pages.
func manyWords(n, hits int) []string {
	out := gen.Words(n, 3)
	copy(out, []string{"access_token", "webhook", "cursor", "refresh_token", "payload", "deploy", "integer", "optional", "retry", "scope"}[:hits])
	return out
}

// pagesTwice returns pages as an in-memory filesystem and as files in a
// temporary directory, for chromafs and GNU grep to search the same.
func pagesTwice(b *testing.B, pages map[string]string) (fstest.MapFS, string) {
	b.Helper()
	mfs := fstest.MapFS{}
	dir := b.TempDir()
	for slug, content := range pages {
		mfs[slug] = &fstest.MapFile{Data: []byte(content)}
		p := filepath.Join(dir, filepath.FromSlash(slug))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return mfs, dir
}

// listFile writes patterns, one a line, to a temporary file (grep -f
// FILE) and returns its path.
func listFile(b *testing.B, patterns []string) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "patterns")
	if err := os.WriteFile(p, []byte(strings.Join(patterns, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkManyPatterns searches 2,000 generated pages (8 MB) for 500
// patterns (grep -r -c -f), with chromafs (grepx over an in-memory
// filesystem) and with GNU grep over the same files on disk: words that
// occur nowhere, and the same with ten common words among them, as fixed
// strings, basic regular expressions and ignoring case.
func BenchmarkManyPatterns(b *testing.B) {
	pages := gen.Pages(2000, 1)
	mfs, dir := pagesTwice(b, pages)
	gnu, gnuErr := exec.LookPath("grep")
	for _, hits := range []int{0, 10} {
		words := manyWords(500, hits)
		patFile := listFile(b, words)
		for _, mode := range []struct {
			name string
			syn  regex.Syntax
			fold bool
			flag string
		}{{"F", regex.Fixed, false, "-F"}, {"G", regex.Basic, false, "-G"}, {"i", regex.Basic, true, "-i"}} {
			name := fmt.Sprintf("hits=%d/%s", hits, mode.name)
			b.Run(name+"/chromafs", func(b *testing.B) {
				q := grepx.Query{Patterns: words, Syntax: mode.syn, IgnoreCase: mode.fold, Recursive: true, Mode: grepx.Count}
				b.ReportAllocs()
				for b.Loop() {
					n := 0
					if _, err := grepx.Search(context.Background(), mfs, q, func(f *grepx.File) error { n += f.Count; return nil }); err != nil {
						b.Fatal(err)
					}
					if hits == 0 && n != 0 || hits > 0 && n == 0 {
						b.Fatalf("%d lines selected", n)
					}
				}
			})
			b.Run(name+"/gnu", func(b *testing.B) {
				if gnuErr != nil {
					b.Skip(gnuErr)
				}
				for b.Loop() {
					cmd := exec.Command(gnu, mode.flag, "-r", "-c", "-f", patFile, ".")
					cmd.Dir = dir
					cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
					if out, err := cmd.Output(); err != nil && len(out) == 0 {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkHugeList searches 1,100 generated pages (4.5 MB) for a list of
// 80,660 fixed strings (1 MB), as grep -rl -F -f LIST, with chromafs
// (compiling and grepx over an in-memory filesystem) and with GNU grep
// over the same files on disk, in one run; -F alone, with -i and with -w.
func BenchmarkHugeList(b *testing.B) {
	pages := gen.Pages(1100, 1)
	mfs, dir := pagesTwice(b, pages)
	list := gen.PatternList(80_660, pages)
	patFile := listFile(b, list)
	gnu, gnuErr := exec.LookPath("grep")
	for _, mode := range []struct {
		name       string
		fold, word bool
		flags      []string
	}{{"F", false, false, []string{"-F"}}, {"Fi", true, false, []string{"-F", "-i"}}, {"Fw", false, true, []string{"-F", "-w"}}} {
		var files int
		b.Run(mode.name+"/chromafs", func(b *testing.B) {
			q := grepx.Query{Patterns: list, Syntax: regex.Fixed, IgnoreCase: mode.fold, Word: mode.word, Recursive: true, Mode: grepx.FilesWithMatches}
			for b.Loop() {
				files = 0
				if _, err := grepx.Search(context.Background(), mfs, q, func(f *grepx.File) error { files++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(files), "files")
		})
		b.Run(mode.name+"/gnu", func(b *testing.B) {
			if gnuErr != nil {
				b.Skip(gnuErr)
			}
			var n int
			for b.Loop() {
				cmd := exec.Command(gnu, append(mode.flags, "-rl", "-f", patFile, ".")...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
				out, err := cmd.Output()
				if err != nil && len(out) == 0 {
					b.Fatal(err)
				}
				n = strings.Count(string(out), "\n")
			}
			if n != files {
				b.Errorf("GNU grep lists %d files, chromafs %d", n, files)
			}
			b.ReportMetric(float64(n), "files")
		})
	}
}
