package gnu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/regex"
)

// parseGrep parses args as grep does with the program name "grep" and
// no standard input.
func parseGrep(args []string, readFile func(string) ([]byte, error)) (*grepOptions, error) {
	return (&grepParser{prog: "grep", readFile: readFile, noDir: true, hostFile: true}).parse(args)
}

// grepMain runs Grep over fsys with -f files read from the working
// directory, as a command line does, and no standard input.
func grepMain(ctx context.Context, fsys fs.FS, args []string, stdout, stderr io.Writer) int {
	return Grep(ctx, &Env{FS: fsys, Stdout: stdout, Stderr: stderr, ReadFile: os.ReadFile}, args)
}

// testReadFile serves -f and --exclude-from files for parser tests.
func testReadFile(name string) ([]byte, error) {
	switch name {
	case "pats":
		return []byte("foo\nbar"), nil
	case "empty":
		return nil, nil
	case "blank":
		return []byte("\n"), nil
	case "globs":
		return []byte("*.txt  \n\n*.dat\n"), nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func TestParseGrep(t *testing.T) {
	base := func(f func(o *grepOptions)) *grepOptions {
		o := &grepOptions{maxCount: -1, before: -1, after: -1, groupSep: ptr("--"), patterns: []string{"p"}, operands: []string{"f"}}
		if f != nil {
			f(o)
		}
		return o
	}
	tests := []struct {
		args []string
		want *grepOptions
	}{
		{[]string{"p", "f"}, base(nil)},
		{[]string{"-rnw", "p", "f"}, base(func(o *grepOptions) { o.directories, o.lineNumber, o.word = dirRecurse, true, true })},
		{[]string{"-A2", "p", "f"}, base(func(o *grepOptions) { o.after = 2 })},
		{[]string{"-A", "2", "p", "f"}, base(func(o *grepOptions) { o.after = 2 })},
		{[]string{"--after-context=2", "p", "f"}, base(func(o *grepOptions) { o.after = 2 })},
		{[]string{"--after", "2", "p", "f"}, base(func(o *grepOptions) { o.after = 2 })},
		{[]string{"-A", " +2", "p", "f"}, base(func(o *grepOptions) { o.after = 2 })},
		{[]string{"-C1", "-A0", "p", "f"}, base(func(o *grepOptions) { o.before, o.after = 1, 0 })},
		{[]string{"-2", "p", "f"}, base(func(o *grepOptions) { o.before, o.after = 2, 2 })},
		{[]string{"-12", "p", "f"}, base(func(o *grepOptions) { o.before, o.after = 12, 12 })},
		{[]string{"-1", "-2", "p", "f"}, base(func(o *grepOptions) { o.before, o.after = 2, 2 })},
		{[]string{"-1n2", "p", "f"}, base(func(o *grepOptions) { o.before, o.after, o.lineNumber = 2, 2, true })},
		{[]string{"-000000000000000000000000003", "p", "f"}, base(func(o *grepOptions) { o.before, o.after = 3, 3 })},
		{[]string{"-99999999999999999999", "p", "f"}, base(func(o *grepOptions) { o.before, o.after = 1<<31-1, 1<<31-1 })},
		{[]string{"-m1", "p", "f"}, base(func(o *grepOptions) { o.maxCount = 1 })},
		{[]string{"-m", "-5", "p", "f"}, base(nil)},
		{[]string{"--max-c=7", "p", "f"}, base(func(o *grepOptions) { o.maxCount = 7 })},
		{[]string{"-e---", "f"}, base(func(o *grepOptions) { o.patterns = []string{"---"} })},
		{[]string{"-epat", "-e", "-x", "f"}, base(func(o *grepOptions) { o.patterns = []string{"pat", "-x"} })},
		{[]string{"-e", "a\nb", "f"}, base(func(o *grepOptions) { o.patterns = []string{"a", "b"} })},
		{[]string{"-e", "", "f"}, base(func(o *grepOptions) { o.patterns = []string{""} })},
		{[]string{"-f", "pats", "-e", "baz", "f"}, base(func(o *grepOptions) { o.patterns = []string{"foo", "bar", "baz"} })},
		{[]string{"-f", "blank", "f"}, base(func(o *grepOptions) { o.patterns = []string{""} })},
		{[]string{"-v", "-f", "empty", "f"}, base(func(o *grepOptions) { o.patterns = []string{""} })},
		{[]string{"-L", "-w", "-f", "empty", "f"}, base(func(o *grepOptions) { o.patterns, o.invert, o.listNonMatch = []string{""}, true, true })},
		{[]string{"p", "f", "-n", "--", "-x"}, base(func(o *grepOptions) { o.lineNumber, o.operands = true, []string{"f", "-x"} })},
		{[]string{"--", "-n", "f"}, base(func(o *grepOptions) { o.patterns = []string{"-n"} })},
		{[]string{"-iy", "--no-ignore-case", "p", "f"}, base(nil)},
		{[]string{"--ignore", "p", "f"}, base(func(o *grepOptions) { o.ignoreCase = true })},
		{[]string{"-E", "-E", "p", "f"}, base(func(o *grepOptions) { o.syntax = regex.Extended })},
		{[]string{"--fixed", "p", "f"}, base(func(o *grepOptions) { o.syntax = regex.Fixed })},
		{[]string{"-X", "egrep", "p", "f"}, base(func(o *grepOptions) { o.syntax = regex.Extended })},
		{[]string{"-qlc", "p", "f"}, base(func(o *grepOptions) { o.quiet = true })},
		{[]string{"-lL", "p", "f"}, base(func(o *grepOptions) { o.listNonMatch = true })},
		{[]string{"-Lc", "p", "f"}, base(func(o *grepOptions) { o.listNonMatch = true })},
		{[]string{"-hH", "p", "f"}, base(func(o *grepOptions) { o.filenames = 1 })},
		{[]string{"-Hh", "-sZob", "p", "f"}, base(func(o *grepOptions) {
			o.filenames, o.noMessages, o.null, o.onlyMatching, o.byteOffset = -1, true, true, true, true
		})},
		{[]string{"-r", "-d", "skip", "p", "f"}, base(func(o *grepOptions) { o.directories = dirSkip })},
		{[]string{"-d", "rec", "p"}, base(func(o *grepOptions) { o.directories, o.operands = dirRecurse, nil })},
		{[]string{"-R", "p"}, base(func(o *grepOptions) { o.directories, o.operands = dirRecurse, nil })},
		{[]string{"--include=*.md", "--exclude", "x*", "--exclude-dir=d//", "--exclude-from=globs", "p", "f"}, base(func(o *grepOptions) {
			o.globs = []grepx.FileGlob{{Glob: "*.md", Include: true}, {Glob: "x*"}, {Glob: "*.txt"}, {Glob: "*.dat"}}
			o.excludeDir = []string{"d"}
		})},
		{[]string{"--color", "--colour=never", "--color=auto", "p", "f"}, base(nil)},
		{[]string{"--group-separator=XX", "p", "f"}, base(func(o *grepOptions) { o.groupSep = ptr("XX") })},
		{[]string{"--group-separator=XX", "--no-group", "p", "f"}, base(func(o *grepOptions) { o.groupSep = nil })},
		{[]string{"-U", "--line-buffered", "--label=x", "-D", "skip", "--binary-files=binary", "p", "f"}, base(func(o *grepOptions) { o.label = "x" })},
		{[]string{"-u", "p", "f"}, base(func(o *grepOptions) { o.warnings = []string{"warning: --unix-byte-offsets (-u) is obsolete"} })},
		{[]string{"--max-total=5", "--max-bytes", "100", "p", "f"}, base(func(o *grepOptions) { o.maxTotal, o.maxBytes = 5, 100 })},
		{[]string{"--no-pointers", "p", "f"}, base(func(o *grepOptions) { o.noPointers = true })},
	}
	for _, tt := range tests {
		got, err := parseGrep(tt.args, testReadFile)
		if err != nil {
			t.Errorf("parseGrep(%q): %v", tt.args, err)
			continue
		}
		if got.groupSep != nil && tt.want.groupSep != nil && *got.groupSep == *tt.want.groupSep {
			got.groupSep = tt.want.groupSep
		}
		// Where each pattern comes from is checked below.
		srcs := got.patternSrcs
		got.patternSrcs = nil
		if strings.Join(tt.args, " ") == "-f pats -e baz f" && !reflect.DeepEqual(srcs, []string{"pats:1", "pats:2", ""}) {
			t.Errorf("parseGrep(%q): pattern sources %q", tt.args, srcs)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseGrep(%q) =\n%+v\nwant\n%+v", tt.args, *got, *tt.want)
		}
	}
}

// TestParseGrepExits covers arguments that end grep before it searches.
// Those GNU grep also has are checked against it in TestGrepParseVsGNU.
func TestParseGrepExits(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string // a substring; "" for none
	}{
		{[]string{"-k", "p"}, 2, "grep: invalid option -- 'k'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"},
		{[]string{"--foo=1"}, 2, "unrecognized option '--foo=1'"},
		{[]string{"---"}, 2, "unrecognized option '---'"},
		{[]string{"--no", "p"}, 2, "option '--no' is ambiguous; possibilities: '--no-ignore-case' '--no-filename' '--no-group-separator' '--no-messages'"},
		{[]string{"--max", "1", "p", "f"}, 0, ""}, // max-total/max-bytes need their full name
		{[]string{"-A"}, 2, "option requires an argument -- 'A'"},
		{[]string{"--context"}, 2, "option '--context' requires an argument"},
		{[]string{"--he=x"}, 2, "option '--help' doesn't allow an argument"},
		{[]string{"-A", "x", "p"}, 2, "grep: x: invalid context length argument\n"},
		{[]string{"-C", "-1", "p"}, 2, "-1: invalid context length argument"},
		{[]string{"-9999999999999999999999", "p"}, 2, "999999999999999999999...: invalid context length argument"},
		{[]string{"-m", "1x", "p"}, 2, "grep: invalid max count\n"},
		{[]string{"-E", "-F", "p"}, 2, "conflicting matchers specified"},
		{[]string{"-X", "foo", "p"}, 2, "invalid matcher foo"},
		{[]string{"-P", "-E", "p", "f"}, 2, "conflicting matchers specified"},
		{[]string{"--color=always", "p", "f"}, 2, "--color=always is not supported"},
		{[]string{"-a", "p", "f"}, 2, "-a (--text) is not supported"},
		{[]string{"-f", "missing", "p"}, 2, "grep: missing: No such file or directory\n"},
		{[]string{"-d", "re", "p"}, 1, "ambiguous argument ‘re’ for ‘--directories’"},
		{[]string{"--binary-files=x", "p"}, 2, "unknown binary-files type"},
		{[]string{"-D", "x", "p"}, 2, "unknown devices method"},
		{[]string{}, 2, grepTryHelp("grep")},
		{[]string{"-r"}, 2, grepTryHelp("grep")},
		{[]string{"p"}, 2, "standard input is not searched"},
		{[]string{"p", "-"}, 2, "reading standard input is not supported"},
		{[]string{"-m0", "p", "missing"}, 1, ""},
		{[]string{"-f", "empty", "f"}, 1, ""},
		{[]string{"-v", "", "f"}, 1, ""},
		{[]string{"--help", "-k"}, 2, "invalid option"},
		{[]string{"--colour=bad", "p"}, 0, ""},
		{[]string{"-V", "--help"}, 0, ""},
	}
	for _, tt := range tests {
		_, err := parseGrep(tt.args, testReadFile)
		var e *grepExit
		if tt.code == 0 && tt.stderr == "" && err == nil {
			continue
		}
		if !errors.As(err, &e) {
			t.Errorf("parseGrep(%q) = %v; want exit %d", tt.args, err, tt.code)
			continue
		}
		if e.code != tt.code || !strings.Contains(e.stderr, tt.stderr) || (tt.stderr == "" && e.stderr != "") {
			t.Errorf("parseGrep(%q): exit %d, stderr %q; want %d, %q", tt.args, e.code, e.stderr, tt.code, tt.stderr)
		}
	}
}

// gnuGrep returns the path of GNU grep, skipping the test without it
// (failing under CI, where it must be installed).
func gnuGrep(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("grep")
	if err == nil {
		out, _ := exec.Command(p, "--version").Output()
		if strings.HasPrefix(string(out), "grep (GNU grep) 3.8") {
			return p
		}
		err = errors.New("not GNU grep 3.8: " + strings.SplitN(string(out), "\n", 2)[0])
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("GNU grep 3.8 is required: %v", err)
	}
	t.Skipf("GNU grep 3.8 is not available: %v", err)
	return ""
}

// runGNU runs GNU grep in dir with no input.
func runGNU(t *testing.T, bin, dir string, args []string) (stdout, stderr string, code int) {
	t.Helper()
	return runGNUIn(t, bin, dir, nil, args)
}

// runGNUIn runs GNU grep (or bin, a wrapper such as egrep) in dir with
// stdin as its standard input (nil: none).
func runGNUIn(t *testing.T, bin, dir string, stdin io.Reader, args []string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = stdin
	cmd.Args[0] = "grep" // its name in diagnostics
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "GREP_COLORS=", "GREP_COLOR=", "POSIXLY_CORRECT=")
	cmd.Env = slices.DeleteFunc(cmd.Env, func(s string) bool {
		return strings.HasPrefix(s, "POSIXLY_CORRECT=") || strings.HasPrefix(s, "GREP_OPTIONS=")
	})
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("grep %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestGrepParseVsGNU: arguments that GNU grep rejects, or decides on,
// before reading any file give the same diagnostics and status.
func TestGrepParseVsGNU(t *testing.T) {
	bin := gnuGrep(t)
	dir := t.TempDir()
	t.Chdir(dir) // for -f
	if err := os.WriteFile(filepath.Join(dir, "pats"), []byte("foo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-k", "p"}, {"-nk", "p"}, {"-\xff", "p"}, {"--foo"}, {"--foo=3", "p"}, {"---"}, {"-e---", "---"},
		{"--no", "p"}, {"--in=x", "p"}, {"--fi", "p"}, {"--e", "p"}, {"--co", "p"}, {"--col", "p", "--x"},
		{"--nu", "p"}, {"--bin", "p"}, {"--d", "p"}, {"--l", "p"}, {"--ex", "p"}, {"--exclude-d"},
		{"-A"}, {"-e"}, {"-f"}, {"-m"}, {"p", "-C"}, {"--context"}, {"--regexp"}, {"--exclude"},
		{"--help=x"}, {"--he=x"}, {"--count=3", "p"}, {"--ver=1"},
		{"-A", "x", "p"}, {"-B", "", "p"}, {"-C", "-1", "p"}, {"-A", "0x1", "p"}, {"-A", "1 ", "p"},
		{"--context=1k", "p"}, {"-9999999999999999999999", "p"}, {"-99999999999999999999999999", "p"},
		{"-m", "x", "p"}, {"-m", "", "p"}, {"--max-count=1.5", "p"},
		{"-E", "-F", "p"}, {"-G", "-E", "p"}, {"-F", "--perl", "p"}, {"-X", "foo", "p"}, {"-X"},
		{"-f", "missing", "p"}, {"-e", "x", "-f", "missing"}, {"--exclude-from=missing", "p"},
		{"-d", "x", "p"}, {"-d", "re", "p"}, {"--directories=", "p"},
		{"--binary-files=x", "p"}, {"-D", "x", "p"},
		{}, {"-r"}, {"-n", "-c"}, {"--"},
		{"-m0", "p", "missing"}, {"-m", "0", "-r", "p"}, {"-f", "empty", "missing"}, {"-v", "", "missing"},
		{"-k", "-A", "x"}, {"-A", "x", "-k"}, {"-E", "-F", "-k"},
		{"--colour=bad", "-k"},
	} {
		wantOut, wantErr, wantCode := runGNU(t, bin, dir, args)
		var out, errb bytes.Buffer
		code := grepMain(context.Background(), fstest.MapFS{}, args, &out, &errb)
		if code != wantCode || out.String() != wantOut || errb.String() != wantErr {
			t.Errorf("grep %q: status %d\nstdout %q\nstderr %q\nwant (GNU grep) status %d\nstdout %q\nstderr %q",
				args, code, out.String(), errb.String(), wantCode, wantOut, wantErr)
		}
	}
}

// TestGrepFormat checks the output of hand-built results.
func TestGrepFormat(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md":     {Data: []byte("x")},
		"d/b.md":   {Data: []byte("x")},
		"d/c/e.md": {Data: []byte("x")},
	}
	lines := func(specs ...string) []grepx.Line {
		var ls []grepx.Line
		for _, s := range specs {
			// "5:text" selected, "5-text" context.
			i := strings.IndexAny(s, ":-")
			n := 0
			for _, c := range s[:i] {
				n = n*10 + int(c-'0')
			}
			ls = append(ls, grepx.Line{Number: n, Offset: int64(10 * n), Text: []byte(s[i+1:]), Context: s[i] == '-'})
		}
		return ls
	}
	dirErr := &fs.PathError{Op: "read", Path: "d", Err: errors.New("is a directory")}
	tests := []struct {
		name          string
		args          []string
		files         []*grepx.File
		stdout        string
		stderr        string
		code          int
		stopAfterFile int // -q: the file whose callback stops the search (1-based)
	}{
		{"one operand", []string{"p", "a.md"},
			[]*grepx.File{{Path: "a.md", Lines: lines("1:foo", "3:bar"), Count: 2}},
			"foo\nbar\n", "", 0, 0},
		{"-r names and separators across files", []string{"-rn", "-A1", "p", "/"},
			[]*grepx.File{
				{Path: "a.md", Lines: lines("1:foo", "2-ctx", "4:foo"), Count: 2},
				{Path: "d/b.md", Lines: lines("1:foo"), Count: 1},
			},
			"/a.md:1:foo\n/a.md-2-ctx\n--\n/a.md:4:foo\n--\n/d/b.md:1:foo\n", "", 0, 0},
		{"-r without operand, -b, -A0", []string{"-rb", "-A0", "p"},
			[]*grepx.File{{Path: "d/c/e.md", Lines: lines("1:foo", "2:bar", "5:baz"), Count: 3}},
			"d/c/e.md:10:foo\nd/c/e.md:20:bar\n--\nd/c/e.md:50:baz\n", "", 0, 0},
		{"trailing slashes, -Z, --group-separator", []string{"-rZn", "-C1", "--group-separator=##", "p", "d//"},
			[]*grepx.File{{Path: "d/b.md", Lines: lines("1:foo", "3:bar"), Count: 2}},
			"d/b.md\x001:foo\n##\nd/b.md\x003:bar\n", "", 0, 0},
		{"-o", []string{"-on", "p", "a.md", "d/b.md"},
			[]*grepx.File{{Path: "a.md", Count: 1, Lines: []grepx.Line{{Number: 2, Text: []byte("a foo b foo"), Matches: [][2]int{{2, 5}, {8, 11}}}}}},
			"a.md:2:foo\na.md:2:foo\n", "", 0, 0},
		{"-c with error and directory", []string{"-c", "p", "a.md", "nope", "d"},
			[]*grepx.File{
				{Path: "a.md", Count: 0},
				{Operand: 1, Path: "nope", Err: &fs.PathError{Op: "open", Path: "nope", Err: fs.ErrNotExist}},
				{Operand: 2, Path: "d", Err: dirErr},
			},
			"a.md:0\nd:0\n", "grep: nope: No such file or directory\ngrep: d: Is a directory\n", 2, 0},
		{"-L", []string{"-L", "p", "a.md", "d/b.md", "d"},
			[]*grepx.File{{Path: "a.md", Count: 1}, {Operand: 1, Path: "d/b.md"}, {Operand: 2, Path: "d", Err: dirErr}},
			"d/b.md\nd\n", "grep: d: Is a directory\n", 2, 0},
		{"-lZ -s", []string{"-lZs", "p", "a.md", "d/b.md"},
			[]*grepx.File{{Path: "a.md", Err: fs.ErrPermission}, {Operand: 1, Path: "d/b.md", Count: 1}},
			"d/b.md\x00", "", 2, 0},
		{"binary", []string{"-H", "p", "a.md"},
			[]*grepx.File{{Path: "a.md", Lines: lines("1:ok"), Count: 2, Binary: true}},
			"a.md:ok\n", "grep: a.md: binary file matches\n", 0, 0},
		{"-q exits 0 on a match after an error", []string{"-q", "p", "nope", "a.md", "d/b.md"},
			[]*grepx.File{{Path: "nope", Err: fs.ErrNotExist}, {Operand: 1, Path: "a.md", Count: 1}, {Operand: 2, Path: "d/b.md", Count: 1}},
			"", "grep: nope: No such file or directory\n", 0, 2},
		{"-v -o prints the context lines' matches", []string{"-ovn", "-A1", "p", "a.md"},
			[]*grepx.File{{Path: "a.md", Count: 1, Lines: []grepx.Line{
				{Number: 1, Text: []byte("x")},
				{Number: 2, Text: []byte("a p"), Context: true, Matches: [][2]int{{2, 3}}},
			}}},
			"2-p\n", "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseGrep(tt.args, testReadFile)
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			r, q := newGrepRun(fsys, "", "grep", o, &out, &errb)
			code := -1
			for i, f := range tt.files {
				if f.Operand >= len(q.Paths) {
					t.Fatalf("operand %d of %q", f.Operand, q.Paths)
				}
				if err := r.file(f); err != nil {
					if !errors.Is(err, errQuiet) || i+1 != tt.stopAfterFile {
						t.Fatalf("file %d: %v", i+1, err)
					}
					code = 0
					break
				}
			}
			r.w.Flush()
			if code < 0 {
				code = r.status()
			}
			if out.String() != tt.stdout || errb.String() != tt.stderr || code != tt.code {
				t.Errorf("status %d\nstdout %q\nstderr %q\nwant status %d\nstdout %q\nstderr %q", code, out.String(), errb.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// grepCorpus is the tree the differential test searches.
var grepCorpus = map[string]string{
	"README.md":              "# Project\n\nfoo is here\nFoo bar baz\nnothing\nfoobar\nthe end foo\n",
	"empty.md":               "",
	"notrail.md":             "first foo\nlast line foo",
	"guides/intro.md":        "alpha\nbeta foo\ngamma\ndelta\nepsilon\nzeta foo\neta\ntheta\niota\nkappa foo\nlambda\n",
	"guides/setup.md":        "Install with make\nrun `make install`\n\n    code block foo()\nend\n",
	"guides/deep/nested.md":  "deep foo line\nabcabc xabcabcx\naaa bbb\nword-foo foo_bar foos\n",
	"reference/api.md":       "GET /users\nPOST /users\nDELETE /users/{id}\nerror: {code} foo\n",
	"reference/cli.txt":      "usage: tool [-h]\n  --foo  the foo flag\n  -x     do x\n",
	"reference/skip/old.md":  "old foo\n",
	"unicode.md":             "Straße\nSTRASSE\nǅemal\nǆ lower\nǄ upper\nΣίσυφος\nΣΊΣΥΦΟΣ\nKelvin \u212a\nk small\nſ long s\nS big\nÉcole école\n",
	"bin.dat":                "header foo\n\x00binary foo\ntail\n",
	"latin1.md":              "caf\xe9 foo\nplain foo\nmore \xff\n",
	"context.md":             "1 foo\n2\n3\n4 foo\n5\n6\n7\n8\n9 foo\n10\n11 foo\n12\n",
	".hidden/secret.md":      "foo hidden\n",
	"reference/api/users.md": "list users foo\nno match\n",
	"perl.txt": "version: 1.2.3\nVersion: 10.20\nrelease v2.0.1-rc1 and v3.14\n" +
		"<a href=\"https://example.com/a\">A</a> <a href=\"/b\">B</a>\nfoo bar\nfoo  bar\nfoobar foobaz\n" +
		"tab\tseparated\tline\nprice: $42.50, qty 7\nStraße ÉCOLE école naïve Kelvin \u212a\ncrlf line\r\n" +
		"KEY=value\nkey = other\naaa aab abb\nemail: john.doe@example.org\nword-foo foo_bar foos\n",
}

func writeCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range grepCorpus {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// grepBattery are the argument lists the differential test runs, as GNU
// grep would be called in the corpus directory.
var grepBattery = [][]string{
	// One file, each flag.
	{"foo", "README.md"}, {"-n", "foo", "README.md"}, {"-i", "foo", "README.md"}, {"-y", "FOO", "README.md"},
	{"-v", "foo", "README.md"}, {"-w", "foo", "README.md"}, {"-x", "foobar", "README.md"}, {"-c", "foo", "README.md"},
	{"-l", "foo", "README.md"}, {"-L", "foo", "README.md"}, {"-L", "zzz", "README.md"}, {"-o", "fo*", "README.md"},
	{"-q", "foo", "README.md"}, {"-q", "zzz", "README.md"}, {"-H", "foo", "README.md"}, {"-h", "foo", "README.md", "notrail.md"},
	{"-b", "foo", "README.md"}, {"-ob", "foo", "README.md"}, {"-nbo", "o", "context.md"},
	{"-m1", "foo", "README.md"}, {"-m", "2", "-c", "foo", "README.md"}, {"-m1", "-A1", "foo", "context.md"},
	{"-m2", "-A3", "foo", "context.md"}, {"-m1", "-v", "-c", "foo", "context.md"}, {"-m", "-1", "foo", "README.md"},
	{"-A1", "foo", "context.md"}, {"-B1", "foo", "context.md"}, {"-C1", "foo", "context.md"}, {"-2", "foo", "context.md"},
	{"-A0", "foo", "context.md"}, {"-C1", "-A0", "foo", "context.md"}, {"-nA2", "foo", "context.md"}, {"-12", "foo", "context.md"},
	{"-vn", "-A1", "foo", "context.md"}, {"-ovn", "-A1", "foo", "context.md"}, {"-ov", "-B2", "o", "README.md"},
	{"-ow", "-A1", "foo", "context.md", "latin1.md"}, {"-c", "-A1", "foo", "README.md", "context.md"}, {"-o", "-C1", "foo", "context.md"}, {"-c", "-C2", "foo", "context.md"},
	{"--group-separator=::", "-A1", "foo", "context.md"}, {"--no-group-separator", "-B1", "foo", "context.md"},
	{"-e", "alpha", "-e", "eta", "guides/intro.md"}, {"-e", "alpha\neta", "guides/intro.md"}, {"-e", "", "-c", "guides/intro.md"},
	{"-F", "{id}", "reference/api.md"}, {"-F", "-x", "POST /users", "reference/api.md"}, {"-E", "GET|POST", "reference/api.md"},
	{"-G", "GET\\|POST", "reference/api.md"}, {"-E", "a{1", "reference/api.md"}, {"-E", "{code}", "reference/api.md"},
	{"a\\{3\\}", "guides/deep/nested.md"}, {"-o", "\\(abc\\)*", "guides/deep/nested.md"}, {"-oE", "(abc|abcabc)", "guides/deep/nested.md"},
	{"\\<foo\\>", "guides/deep/nested.md"}, {"-w", "foo", "guides/deep/nested.md"}, {"-ow", "foo[a-z_]*", "guides/deep/nested.md"},
	{"*", "reference/cli.txt"}, {"-e", "--foo", "reference/cli.txt"}, {"-e-x", "reference/cli.txt"}, {"--", "-x", "reference/cli.txt"},
	{"[[:upper:]]", "reference/cli.txt", "README.md"}, {"^$", "-n", "README.md", "guides/setup.md"}, {"-c", "", "empty.md", "notrail.md"},
	{"foo", "notrail.md"}, {"-o", "foo$", "notrail.md"}, {"-v", "x", "empty.md"}, {"-L", "x", "empty.md"},
	// Unicode case folding (C.UTF-8).
	{"-i", "straße", "unicode.md"}, {"-i", "ǆ", "unicode.md"}, {"-i", "σίσυφος", "unicode.md"}, {"-i", "k", "unicode.md"},
	{"-i", "s", "-c", "unicode.md"}, {"-io", "école", "unicode.md"}, {"-w", "école", "unicode.md"}, {"-o", "[[:alpha:]]*", "unicode.md"},
	// Binary and invalid UTF-8.
	{"foo", "bin.dat"}, {"-c", "foo", "bin.dat"}, {"-l", "foo", "bin.dat"}, {"-v", "foo", "bin.dat"}, {"zzz", "bin.dat"},
	{"foo", "latin1.md"}, {"-n", "plain", "latin1.md"}, {"-o", "foo", "latin1.md"}, {"-A1", "plain", "latin1.md"}, {"-c", "foo", "latin1.md"},
	{"-H", "-o", "caf", "latin1.md"}, {"more", "latin1.md", "README.md"},
	// Several operands, errors.
	{"foo", "README.md", "missing.md", "notrail.md"}, {"-s", "foo", "missing.md", "README.md"}, {"-q", "foo", "missing.md", "README.md"},
	{"-q", "zzz", "missing.md", "README.md"}, {"-c", "foo", "README.md", "guides"}, {"-L", "foo", "guides", "README.md"},
	{"foo", "guides"}, {"-s", "foo", "guides"}, {"-l", "foo", "guides", "README.md"}, {"foo", "README.md/"}, {"-d", "skip", "foo", "guides", "README.md"},
	{"-A1", "foo", "bin.dat", "README.md"}, {"-C1", "foo", "README.md", "context.md"}, {"-Z", "-n", "foo", "README.md", "notrail.md"},
	{"-Zc", "foo", "README.md", "notrail.md"}, {"-Zl", "foo", "README.md", "notrail.md"},
	// Recursive.
	{"-r", "foo"}, {"-rn", "foo", "."}, {"-r", "foo", "guides"}, {"-r", "foo", "guides/"}, {"-r", "foo", "./guides"}, {"-R", "foo", "guides//"},
	{"-rl", "foo"}, {"-rL", "foo"}, {"-rc", "foo", "reference"}, {"-rv", "foo", "guides"}, {"-rw", "foo"}, {"-rx", "foobar"},
	{"-ri", "STRASSE"}, {"-ro", "fo*", "guides"}, {"-rnA2", "foo", "guides"}, {"-rB1", "foo", "reference"}, {"-rh", "foo", "guides"},
	{"-rH", "foo", "README.md"}, {"-r", "foo", "README.md"}, {"-r", "foo", "guides", "reference"}, {"-rq", "foo"}, {"-rcv", "zzz"},
	{"-r", "--include=*.md", "foo"}, {"-r", "--exclude=*.md", "foo"}, {"-r", "--exclude-dir=skip", "foo", "reference"},
	{"-r", "--exclude-dir=guides", "foo"}, {"-r", "--include=*.txt", "--include=*.dat", "-l", "foo"},
	{"-r", "--exclude=c*", "--include=*.md", "-l", "foo"}, {"-r", "--include=*.md", "--exclude=c*", "-l", "foo"},
	{"-r", "--exclude-dir=.hidden", "-c", "foo"}, {"-rl", "--exclude=README.md", "foo", "README.md", "guides"},
	{"-rl", "--exclude-dir=guides", "foo", "guides"}, {"-r", "foo", "missing"}, {"-rs", "foo", "missing", "guides"},
	// -f and -e combinations.
	{"-f", "pats.txt", "README.md"}, {"-f", "empty.md", "README.md"}, {"-v", "-f", "empty.md", "-c", "README.md"},
	{"-f", "pats.txt", "-e", "nothing", "-n", "README.md"}, {"-L", "-f", "empty.md", "README.md"},
	// Combinations.
	{"-rniw", "FOO", "guides"}, {"-rlv", "foo", "reference"}, {"-rLi", "FOO"}, {"-rc", "-m1", "foo", "guides"},
	{"-rnoi", "-e", "foo", "-e", "bar", "guides", "README.md"}, {"-rx", "-F", "eta", "guides"}, {"-rhc", "foo", "guides"},
	{"-rZl", "foo", "guides"}, {"-rnZ", "-C1", "foo", "guides"}, {"-rqs", "foo", "missing"}, {"-rb", "-o", "us", "reference"},
	{"-nvxc", "5", "context.md"}, {"-E", "-w", "-o", "[a-z]+o", "README.md"}, {"-in", "-B2", "-A1", "BAR", "README.md", "context.md"},
	{"-m1", "-c", "-v", "foo", "README.md", "empty.md"}, {"-l", "-m1", "foo", "README.md", "empty.md"},
	// Invalid patterns and unsupported features.
	{"a\\{1", "README.md"}, {"[", "README.md"}, {"\\(", "README.md"}, {"-E", "(", "README.md"}, {"-E", "a)", "README.md"},
	{"\\)", "README.md"}, {"[[:foo:]]", "README.md"},
	// Perl regular expressions (-P): agent idioms, then PCRE2 specifics.
	{"-oP", `\d+\.\d+`, "perl.txt"}, {"-P", `\bfoo\s+bar`, "perl.txt"}, {"-oP", `version: \K\S+`, "perl.txt"},
	{"-oP", `(?<=href=")[^"]+`, "perl.txt"}, {"-P", `foo(?!bar)`, "perl.txt"}, {"-cP", `\t`, "perl.txt"},
	{"-oP", `foo(?=ba[rz])`, "perl.txt"}, {"-noP", `(?<!f)oo\w*`, "perl.txt"}, {"-oP", `a|ab`, "perl.txt"},
	{"-oP", `v\d+(?:\.\d+)+`, "perl.txt"}, {"-iP", `VERSION:`, "perl.txt"}, {"-oiP", `école`, "perl.txt"},
	{"-oP", `\w+`, "perl.txt"}, {"-oP", `[[:alpha:]]+`, "perl.txt"}, {"-P", `\r$`, "perl.txt"}, {"-cP", `\s$`, "perl.txt"},
	{"-oP", `(\w)\1`, "perl.txt"}, {"-oP", `(?<k>a)\k<k>`, "perl.txt"}, {"-xP", `foo bar`, "perl.txt"},
	{"-wP", `foo`, "perl.txt"}, {"-owP", `fo+\w*`, "perl.txt"}, {"-vcP", `\d`, "perl.txt"}, {"-P", `zzz`, "perl.txt"},
	{"-oP", `\Qa.b\E|\$\d+\.\d+`, "perl.txt"}, {"-oP", `a++b`, "perl.txt"}, {"-cP", `a*+a`, "perl.txt"},
	{"-oP", `(?>a+)b`, "perl.txt"}, {"-oP", `\x{e9}cole`, "perl.txt"}, {"-oP", `\p{Lu}\p{Ll}+`, "perl.txt"},
	{"-oP", `[^\x00-\x7f]+`, "perl.txt"}, {"-oP", `key\h*=\h*\K\w+`, "perl.txt"}, {"-oiP", `(?-i)Key|VALUE`, "perl.txt"},
	{"-oP", `(?i)key(?-i)=value`, "perl.txt"}, {"-oP", `[\w.]+@[\w.]+`, "perl.txt"}, {"-cP", ``, "perl.txt"},
	{"-P", `x{,3}`, "perl.txt"}, {"-oP", `ab{1,}?`, "perl.txt"}, {"-oP", `(?x) \d + \. \d+ # comment`, "perl.txt"},
	{"-lP", `foo`, "perl.txt", "README.md"}, {"-cP", `caf.`, "latin1.md"}, {"-P", `^plain`, "latin1.md"},
	{"-P", `more.`, "latin1.md"}, {"-cP", `\xff|e\b`, "latin1.md"}, {"-rlP", `\bfoo\b`}, {"-nP", `^\S+$`, "guides/intro.md"},
	{"-oP", `\bfoo`, "guides/deep/nested.md"}, {"-oP", `(?|(a)|(b))\1`, "perl.txt"}, {"-oP", `\bw\B.`, "perl.txt"},
	{"-oiP", `k\w+`, "perl.txt"}, {"-ocP", `(?s).`, "perl.txt"}, {"-xcP", `.*`, "perl.txt", "latin1.md"},
	{"-wcP", `foo|bar`, "perl.txt"}, {"-owP", `\w+o`, "perl.txt"}, {"-oP", `\d+(?=\.\d)`, "perl.txt"},
	{"-oP", `(?<=\$)\d+`, "perl.txt"}, {"-oP", `\d{2}(?!\d)`, "perl.txt"}, {"-oP", `^\w+(?=:)`, "perl.txt"},
	{"-oP", `(?<year>\d+)\.(?P=year)`, "perl.txt"}, {"-oP", `\s\K\w`, "perl.txt"}, {"-oP", `a\K|b`, "perl.txt"},
	{"-oP", `\N+$`, "perl.txt"}, {"-oP", `\R`, "perl.txt"}, {"-oP", `[[:space:][:^alpha:]]+`, "perl.txt"}, {"-oP", `\S+`, "perl.txt"}, {"-oP", `[\S]+`, "perl.txt"},
	{"-P", `(`, "perl.txt"}, {"-P", `)`, "perl.txt"}, {"-P", `*a`, "perl.txt"}, {"-P", `\i`, "perl.txt"},
	{"-P", `a{2,1}`, "perl.txt"}, {"-P", `[z-a]`, "perl.txt"}, {"-P", `(?<=a+)b`, "perl.txt"}, {"-P", `[a`, "perl.txt"},
	{"-P", `a\`, "perl.txt"}, {"-P", `(?z)`, "perl.txt"}, {"-P", `\p{Foo}`, "perl.txt"}, {"-P", `[[:foo:]]`, "perl.txt"},
	{"-P", `(a)\2`, "perl.txt"}, {"-P", `\k`, "perl.txt"}, {"-P", `\U`, "perl.txt"}, {"-P", `[\d-z]`, "perl.txt"},
	{"-P", "-e", "a", "-e", "b", "perl.txt"}, {"-P", "a\nb", "perl.txt"}, {"-PE", "x", "perl.txt"}, {"-FP", "x", "perl.txt"},
	{"-P", "-f", "pats.txt", "perl.txt"}, {"-P", "-f", "pat1.txt", "perl.txt"}, {"-P", "-f", "empty.md", "perl.txt"},
	{"-Pv", "-f", "empty.md", "-c", "perl.txt"}, {"-Pc", "foo|^$", "perl.txt", "empty.md", "notrail.md"}, {"-PL", "zebra", "perl.txt"},
	{"-Pn", "-A1", "(?<=foo )bar", "perl.txt"}, {"-Pob", `\d+`, "perl.txt"}, {"-Pm1", "-c", "foo", "perl.txt"},
	{"-Pi", "-w", "KEY", "perl.txt"}, {"-Pix", "key = OTHER", "perl.txt"}, {"-Po", "-e", "(?i)straSSe", "perl.txt"},
	{"-Pw", "a\\", "perl.txt"}, {"-P", "-f", "badpat.txt", "perl.txt"}, {"-P", "--", "-7", "perl.txt"}, {"-rcP", "(?<=\\s)foo\\b", "."},
	{"[:space:]", "README.md"}, {"a\\", "README.md"}, {"-w", "x\\{2,1\\}", "README.md"},
}

// grepExpectedDiffs are the cases where chromafs deliberately differs:
// what it prints instead (stderr substring) and its status.
var grepExpectedDiffs = map[string]struct {
	stderr string
	code   int
}{
	"-P (?R) README.md":     {"-P does not support recursion and subroutine calls ((?R), (?1), (?&name))", 2},
	"\\(a\\)\\1 README.md":  {"", 2},
	"-E (foo)\\1 README.md": {"", 2},
}

// TestGrepDifferential runs GNU grep and Grep over the same tree with
// the same arguments and compares output and status.
func TestGrepDifferential(t *testing.T) {
	bin := gnuGrep(t)
	dir := writeCorpus(t)
	t.Chdir(dir) // -f files are local, relative to the working directory
	if err := os.WriteFile("pats.txt", []byte("nothing\nbar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("pat1.txt", []byte("fo+(?=b)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("badpat.txt", []byte("(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	battery := grepBattery
	for k := range grepExpectedDiffs {
		battery = append(battery, strings.Split(k, " "))
	}
	for _, args := range battery {
		var out, errb bytes.Buffer
		code := grepMain(context.Background(), fsys, args, &out, &errb)
		if d, ok := grepExpectedDiffs[strings.Join(args, " ")]; ok {
			if code != d.code || !strings.Contains(errb.String(), d.stderr) || out.Len() != 0 {
				t.Errorf("grep %q: status %d, stdout %q, stderr %q; want status %d and %q", args, code, out.String(), errb.String(), d.code, d.stderr)
			}
			continue
		}
		wantOut, wantErr, wantCode := runGNU(t, bin, dir, args)
		gotOut, gotErr := out.String(), errb.String()
		if isRecursive(args) {
			// GNU grep walks directories in readdir order, grepx in
			// lexical order.
			wantOut, gotOut = sortLines(wantOut), sortLines(gotOut)
			wantErr, gotErr = sortLines(wantErr), sortLines(gotErr)
		}
		if code != wantCode || gotOut != wantOut || gotErr != wantErr {
			t.Errorf("grep %q: status %d\nstdout %q\nstderr %q\nwant (GNU grep) status %d\nstdout %q\nstderr %q",
				args, code, gotOut, gotErr, wantCode, wantOut, wantErr)
		}
	}
}

func isRecursive(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR") && !strings.HasPrefix(a, "-e") {
			return true
		}
	}
	return false
}

func sortLines(s string) string {
	if s == "" {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	if !strings.Contains(s, "\n") {
		lines = strings.SplitAfter(s, "\x00") // -lZ
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// TestGrepManyPatternsVsGNU runs grep -f with lists of 500 and 5,000
// patterns (words of the pages, with case changes, words that occur
// nowhere, and for -G a few regular expressions around words) over
// generated pages, with chromafs and with GNU grep 3.8, and compares
// output and status. The lists of 500 run with every output option; the
// front end treats a list of 5,000 as one of 500 (both are matched
// through their literals, neither gives the coarse filter literals), so
// those run with -rn, -rio and -rix only: package regex's TestGNUManyPatterns
// compares the matcher with GNU grep for lists of 5,000 under -i, -w, -x
// and -o, line by line. (GNU grep takes about a CPU second to compile
// 5,000 regular expressions, every run.)
func TestGrepManyPatternsVsGNU(t *testing.T) {
	testenv.Battery(t)
	bin := gnuGrep(t)
	dir := t.TempDir()
	writeFiles(t, dir, gen.Pages(80, 2))
	vocab := []string{"access_token", "webhook", "cursor", "refresh_token", "payload", "deploy", "integer", "optional",
		"retry", "scope", "request", "response", "header", "status", "token", "client", "server", "the", "api_key"}
	rng := rand.New(rand.NewPCG(9, 9))
	patDir := t.TempDir()
	fsys := os.DirFS(dir)
	for _, n := range []int{500, 5000} {
		words := gen.Words(n, 5)
		var fixed, regex []string
		for i, w := range words {
			v := vocab[rng.IntN(len(vocab))]
			switch i % 50 {
			case 0:
				fixed, regex = append(fixed, v), append(regex, v)
			case 1:
				fixed, regex = append(fixed, strings.ToUpper(v)), append(regex, v+"[a-z]")
			case 2:
				fixed, regex = append(fixed, v+" "), append(regex, "^#.*"+v)
			default:
				fixed, regex = append(fixed, w), append(regex, w)
			}
		}
		for name, list := range map[string][]string{"F": fixed, "G": regex} {
			pf := filepath.Join(patDir, fmt.Sprintf("%s%d", name, n))
			if err := os.WriteFile(pf, []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			flagSets := [][]string{{"-rn"}, {"-rc"}, {"-rl"}, {"-rio"}, {"-rw", "-m2"}, {"-rvc"}, {"-rix"}}
			if n > 1000 {
				flagSets = [][]string{{"-rn"}, {"-rio"}, {"-rix"}}
			}
			for _, flags := range flagSets {
				args := append(append([]string{"-" + name}, flags...), "-f", pf, ".")
				var out, errb bytes.Buffer
				code := grepMain(context.Background(), fsys, args, &out, &errb)
				wantOut, wantErr, wantCode := runGNU(t, bin, dir, args)
				if code != wantCode || sortLines(out.String()) != sortLines(wantOut) || errb.String() != wantErr {
					t.Errorf("grep %q (%d patterns): status %d, %d bytes out, stderr %q; GNU grep: status %d, %d bytes, stderr %q",
						args[:len(args)-3], n, code, out.Len(), errb.String(), wantCode, len(wantOut), wantErr)
				}
				if wantCode == 0 && len(wantOut) == 0 {
					t.Errorf("grep %q: GNU grep printed nothing; the case tests nothing", args)
				}
			}
		}
	}
}

// hugeListCorpus returns a list of n distinct patterns of about 13 bytes
// each (80,660 make 1 MB, the size of a real list of identifiers to look
// for): mostly random 12-letter words that occur nowhere, and one in 100
// taken from the pages: a word, the same upper-cased or capitalised, a
// run of two words, a word's first half, or a word around a character
// that is special in a basic regular expression (words with '[' or '\'
// are left out, so that every pattern is a valid one).
func hugeListCorpus(n int, pages map[string]string) []string {
	rng := rand.New(rand.NewPCG(uint64(n), 21))
	var words []string
	for _, slug := range slices.Sorted(maps.Keys(pages)) {
		words = append(words, strings.Fields(pages[slug])...)
	}
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	w := make([]byte, 12)
	for len(out) < n {
		var p string
		if len(out)%100 == 0 {
			i := rng.IntN(len(words) - 1)
			v := words[i]
			if strings.ContainsAny(v+words[i+1], `[\`) {
				continue // not a valid basic regular expression
			}
			switch rng.IntN(6) {
			case 0:
				p = v
			case 1:
				p = strings.ToUpper(v)
			case 2:
				p = strings.ToUpper(v[:1]) + v[1:]
			case 3:
				p = v + " " + words[i+1]
			case 4:
				p = v[:len(v)/2+1]
			default:
				k := rng.IntN(len(v))
				p = v[:k] + []string{".", "*", "^", "$"}[rng.IntN(4)] + v[k:]
			}
		} else {
			for i := range w {
				w[i] = byte('a' + rng.IntN(26))
			}
			p = string(w)
		}
		if !seen[p] && !strings.HasPrefix(p, "*") {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// TestGrepHugeListVsGNU runs grep -f with a generated list of 80,660
// patterns (1 MB) over 40 generated pages, with chromafs and with GNU
// grep 3.8, and compares output and status: as fixed strings (-F) and as
// basic regular expressions, with -w and -o, and with -i for its first
// 5,000 patterns (GNU grep takes minutes to compile 80,660 with -i).
// Lists of 500 and 5,000 run with every option in
// TestGrepManyPatternsVsGNU and package regex's TestGNUManyPatterns.
func TestGrepHugeListVsGNU(t *testing.T) {
	testenv.Battery(t)
	if testing.Short() {
		t.Skip("GNU grep compiles 80,660 patterns for each case")
	}
	bin := gnuGrep(t)
	dir := t.TempDir()
	pages := gen.Pages(40, 5)
	writeFiles(t, dir, pages)
	list := hugeListCorpus(80_660, pages)
	// GNU grep matches a list of basic regular expressions without
	// special characters with its fixed-string matcher; with them, its
	// regex matcher takes minutes and gigabytes for such a list. The
	// regular-expression runs leave them out, and -i (for which GNU grep
	// uses its regex matcher) runs with the first 5,000 patterns.
	plain := slices.DeleteFunc(slices.Clone(list), func(p string) bool { return strings.ContainsAny(p, ".*^$") })
	files := map[string][]string{"list": list, "plain": plain, "short": plain[:5000]}
	patDir := t.TempDir()
	for name, l := range files {
		if err := os.WriteFile(filepath.Join(patDir, name), []byte(strings.Join(l, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := os.DirFS(dir)
	for _, c := range []struct {
		list  string
		flags []string
	}{
		{"list", []string{"-F", "-rn"}}, {"list", []string{"-F", "-rwo"}}, {"plain", []string{"-rno"}},
		{"plain", []string{"-rw", "-c"}}, {"short", []string{"-ri", "-o"}},
	} {
		flags := c.flags
		args := append(slices.Clone(flags), "-f", filepath.Join(patDir, c.list), ".")
		var out, errb bytes.Buffer
		code := grepMain(context.Background(), fsys, args, &out, &errb)
		wantOut, wantErr, wantCode := runGNU(t, bin, dir, args)
		if code != wantCode || sortLines(out.String()) != sortLines(wantOut) || errb.String() != wantErr {
			t.Errorf("grep %q (%d patterns): status %d, %d bytes out, stderr %q; GNU grep: status %d, %d bytes, stderr %q\n%s",
				flags, len(files[c.list]), code, out.Len(), errb.String(), wantCode, len(wantOut), wantErr,
				firstDiffLine(sortLines(out.String()), sortLines(wantOut)))
		}
		if wantCode != 0 || len(wantOut) == 0 {
			t.Errorf("grep %q: GNU grep printed nothing (status %d); the case tests nothing", flags, wantCode)
		}
	}
}

// firstDiffLine describes the first line where a and b differ.
func firstDiffLine(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: got %q, GNU grep %q", i+1, x, y)
		}
	}
	return ""
}

// TestGrepPerlBacktrackLimit checks that catastrophic backtracking under
// -P ends the search as GNU grep 3.8 does: what was found before the
// line, then "exceeded PCRE's backtracking limit", status 2, and the
// following files are not searched.
func TestGrepPerlBacktrackLimit(t *testing.T) {
	fsys := fstest.MapFS{
		"big.txt":   {Data: []byte("ok line\n" + strings.Repeat("a", 40) + "b x\n")},
		"other.txt": {Data: []byte("ok too\n")},
	}
	var out, errb bytes.Buffer
	code := grepMain(context.Background(), fsys, []string{"-P", `(a+)+\1x|ok`, "big.txt", "other.txt"}, &out, &errb)
	if code != 2 || out.String() != "big.txt:ok line\n" || errb.String() != "grep: big.txt: exceeded PCRE's backtracking limit\n" {
		t.Errorf("status %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
