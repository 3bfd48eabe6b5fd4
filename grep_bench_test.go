package chromafs_test

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/regex"
)

// grepCase is one search of BenchmarkGrep, as a grepx query and as the
// same command line for GNU grep and ripgrep.
type grepCase struct {
	name string
	q    grepx.Query
	args []string // GNU grep's flags and pattern
	rg   []string // ripgrep's
	re   string   // Go regexp for the naive baseline
}

// grepCases: a literal in a handful of pages, the same ignoring case, a
// word on most pages, and a regexp with no literal that every match must
// contain (no coarse filter possible).
var grepCases = []grepCase{
	{"RareLiteral", grepx.Query{Patterns: []string{"tree grep filesystem"}}, []string{"-e", "tree grep filesystem"}, []string{"-e", "tree grep filesystem"}, `tree grep filesystem`},
	{"RareIgnoreCase", grepx.Query{Patterns: []string{"TREE Grep FileSystem"}, IgnoreCase: true}, []string{"-i", "-e", "TREE Grep FileSystem"}, []string{"-i", "-e", "TREE Grep FileSystem"}, `(?i)TREE Grep FileSystem`},
	{"CommonWord", grepx.Query{Patterns: []string{"request"}, Word: true}, []string{"-w", "-e", "request"}, []string{"-w", "-e", "request"}, `\brequest\b`},
	{"NoLiteral", grepx.Query{Patterns: []string{"[[:upper:]][[:lower:]]{9,}"}, Syntax: regex.Extended}, []string{"-E", "-e", "[[:upper:]][[:lower:]]{9,}"}, []string{"-e", "[[:upper:]][[:lower:]]{9,}"}, `[A-Z][a-z]{9,}`},
}

// grepSize is the collection BenchmarkGrep searches: 10k pages, or 1k
// with -short.
func grepSize() int {
	if testing.Short() {
		return 1_000
	}
	return 10_000
}

var grepFiles = struct {
	sync.Mutex
	dirs map[int]string
}{dirs: map[int]string{}}

// grepDir writes the public pages of the n-page site to a directory, once
// per test binary, for GNU grep and ripgrep to search.
func grepDir(b *testing.B, n int) string {
	b.Helper()
	grepFiles.Lock()
	defer grepFiles.Unlock()
	if d, ok := grepFiles.dirs[n]; ok {
		return d
	}
	dir, err := testenv.TempDir("chromafs-grep-bench-")
	if err != nil {
		b.Fatal(err)
	}
	for slug, content := range gen.Pages(n, benchSeed) {
		if pub, _ := gen.Access(slug); !pub {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(slug))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	grepFiles.dirs[n] = dir
	return dir
}

// searchOut runs q over fsys and writes what grep -rn would print.
func searchOut(b *testing.B, fsys fs.FS, q grepx.Query, out *bytes.Buffer) {
	q.Recursive = true
	w := bufio.NewWriter(out)
	_, err := grepx.Search(context.Background(), fsys, q, func(f *grepx.File) error {
		for _, l := range f.Lines {
			w.WriteString(f.Path)
			w.WriteByte(':')
			w.WriteString(strconv.Itoa(l.Number))
			w.WriteByte(':')
			w.Write(l.Text)
			w.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	w.Flush()
}

func runTool(b *testing.B, dir, name string, args ...string) int {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			b.Fatalf("%s %v: %v", name, args, err)
		}
	}
	return bytes.Count(out, []byte{'\n'})
}

func needTool(b *testing.B, name string) {
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatalf("%s is not installed (make deps installs it)", name)
		}
		b.Skipf("%s is not installed", name)
	}
}

// BenchmarkGrep compares, in one run on the same generated collection
// (public view), chromafs's grep with its page cache cold and warm, GNU
// grep and ripgrep on the same files on local disk (whole processes), a
// naive reader that fetches every page by slug and then runs a regexp
// line by line, and FetchAll: loading every page by id into an empty
// cache, the least a grep without a coarse filter must do. See
// BENCHMARKS.md.
func BenchmarkGrep(b *testing.B) {
	n := grepSize()
	c := chromaColl(b, n)
	dir := grepDir(b, n)
	ctx := context.Background()
	var visible []string
	{
		fsys := newBenchFS(b, c.store)
		if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				visible = append(visible, p)
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
	for _, gc := range grepCases {
		var lines int
		b.Run(gc.name+"/ChromafsCold", func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				fsys := newBenchFS(b, c.store, chromafs.WithCache(cachepkg.NewMemory(0)))
				searchOut(b, fsys, gc.q, &out)
			}
			lines = bytes.Count(out.Bytes(), []byte{'\n'})
			b.ReportMetric(float64(lines), "lines")
		})
		b.Run(gc.name+"/ChromafsWarm", func(b *testing.B) {
			var out bytes.Buffer
			fsys := newBenchFS(b, c.store, chromafs.WithCache(cachepkg.NewMemory(1<<30)))
			if err := fsys.Prefetch(ctx, visible); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				out.Reset()
				searchOut(b, fsys, gc.q, &out)
			}
			b.ReportMetric(float64(bytes.Count(out.Bytes(), []byte{'\n'})), "lines")
		})
		b.Run(gc.name+"/GNUGrep", func(b *testing.B) {
			needTool(b, "grep")
			var got int
			for b.Loop() {
				got = runTool(b, dir, "grep", append([]string{"-rn"}, append(gc.args, ".")...)...)
			}
			b.ReportMetric(float64(got), "lines")
		})
		b.Run(gc.name+"/Ripgrep", func(b *testing.B) {
			needTool(b, "rg")
			var got int
			for b.Loop() {
				got = runTool(b, dir, "rg", append([]string{"-n", "-uu", "--no-config"}, append(gc.rg, ".")...)...)
			}
			b.ReportMetric(float64(got), "lines")
		})
		b.Run(gc.name+"/NaiveFetchAll", func(b *testing.B) {
			re := regexp.MustCompile(gc.re)
			var got int
			for b.Loop() {
				got = 0
				for i := 0; i < len(visible); i += 200 {
					batch := visible[i:min(i+200, len(visible))]
					chunks, err := c.store.Chunks(ctx, collection.DefaultLayout(), batch)
					if err != nil {
						b.Fatal(err)
					}
					slices.SortFunc(chunks, func(x, y collection.Chunk) int {
						if x.Slug != y.Slug {
							return strings.Compare(x.Slug, y.Slug)
						}
						return x.Index - y.Index
					})
					var page bytes.Buffer
					for j, ch := range chunks {
						page.WriteString(ch.Text)
						if j+1 == len(chunks) || chunks[j+1].Slug != ch.Slug {
							for _, line := range bytes.Split(page.Bytes(), []byte{'\n'}) {
								if re.Match(line) {
									got++
								}
							}
							page.Reset()
						}
					}
				}
			}
			b.ReportMetric(float64(got), "lines")
		})
	}
	b.Run("FetchAll", func(b *testing.B) {
		for b.Loop() {
			fsys := newBenchFS(b, c.store, chromafs.WithCache(cachepkg.NewMemory(1<<30)))
			if err := fsys.Prefetch(ctx, visible); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(visible)), "pages")
	})
}
