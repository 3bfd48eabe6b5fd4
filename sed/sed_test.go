package sed

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// files is the tree the tests run over, GNU sed and Run alike.
var files = map[string]string{
	"a.txt":      "alpha one\nbeta two\ngamma three\ndelta four\nepsilon five\n",
	"b.txt":      "Hello World\nhello world\nHELLO again\n",
	"nonl.txt":   "first\nlast without newline",
	"empty.txt":  "",
	"crlf.txt":   "one\r\ntwo\r\n",
	"uni.txt":    "héllo wörld\nçà et là\n\tindented\x01ctl\n",
	"d/c.md":     "# Title\n\nSome `code` here.\n## Sub\nText with [link](http://x).\n",
	"script.sed": "s/alpha/ALPHA/\n/gamma/d\n",
	"bad.sed":    "p\nk\n",
}

func testDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type result struct {
	stdout, stderr string
	status         int
}

// runGNU runs GNU sed in dir.
func runGNU(t *testing.T, sed, dir, stdin string, args []string) result {
	t.Helper()
	cmd := exec.Command(sed, args...)
	cmd.Args[0] = "sed"
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sed %q: %v", args, err)
	}
	return result{out.String(), errb.String(), status}
}

// dirConfig is a Config over the files of dir: operands are names
// relative to dir, a directory fails to open with syscall.EISDIR.
func dirConfig(dir, stdin string) *Config {
	return &Config{
		Stdin: strings.NewReader(stdin),
		Open: func(name string) (io.ReadCloser, error) {
			f, err := os.Open(filepath.Join(dir, name))
			if err != nil {
				return nil, &fs.PathError{Op: "open", Path: name, Err: errors.Unwrap(err)}
			}
			if fi, err := f.Stat(); err == nil && fi.IsDir() {
				f.Close()
				return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
			}
			return f, nil
		},
		ReadFile: func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) },
	}
}

// runArgs runs a sed command line with Compile and Run, as package gnu's
// Sed does, for the options that Options and Config hold (-n -s -E -r
// -z -l -e -f); the command line's own errors are tested there.
func runArgs(t *testing.T, dir, stdin string, args []string) result {
	t.Helper()
	var (
		srcs []Source
		o    Options
		cfg  = dirConfig(dir, stdin)
		ops  []string
	)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || ops != nil {
			ops = append(ops, a)
			continue
		}
		switch a {
		case "-n":
			cfg.Quiet = true
		case "-s":
			cfg.Separate = true
		case "-E", "-r":
			o.Extended = true
		case "-z":
			cfg.Null = true
		case "-l":
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil {
				t.Fatalf("%q: -l %s", args, args[i])
			}
			cfg.LineWrap = n
			if n == 0 {
				cfg.LineWrap = -1
			}
		case "-e":
			i++
			srcs = append(srcs, Source{Text: args[i]})
		case "-f":
			i++
			data, err := os.ReadFile(filepath.Join(dir, args[i]))
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, Source{Text: string(data), File: args[i]})
		default:
			t.Fatalf("%q: option %s is not the engine's", args, a)
		}
	}
	if len(srcs) == 0 {
		srcs, ops = []Source{{Text: ops[0]}}, ops[1:]
	}
	var out, errb bytes.Buffer
	prog, err := Compile(srcs, o)
	if err != nil {
		status := 4
		if _, ok := err.(*SyntaxError); ok {
			status = 1
		}
		return result{"", "sed: " + err.Error() + "\n", status}
	}
	cfg.Files = ops
	cfg.Stdout, cfg.Stderr = bufio.NewWriter(&out), &errb
	status := prog.Run(context.Background(), cfg)
	if err := cfg.Stdout.Flush(); err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), status}
}

type testCase struct {
	stdin string
	args  []string
}

func sc(args ...string) testCase { return testCase{args: args} }

// cases are sed command lines over files, as GNU sed runs them.
var cases = []testCase{
	sc("p", "a.txt"),
	sc("-n", "p", "a.txt"),
	sc("-n", "2p", "a.txt"),
	sc("-n", "$p", "a.txt", "b.txt"),
	sc("-s", "-n", "$p", "a.txt", "b.txt"),
	sc("-n", "2,4p", "a.txt"),
	sc("-n", "4,2p", "a.txt"),
	sc("-n", "/beta/,/delta/p", "a.txt"),
	sc("-n", "/beta/,+1p", "a.txt"),
	sc("-n", "2,~4p", "a.txt"),
	sc("-n", "1~2p", "a.txt"),
	sc("-n", "0~2p", "a.txt"),
	sc("-n", "0,/alpha/p", "a.txt"),
	sc("-n", "1,/alpha/p", "a.txt"),
	sc("-n", "/a/!p", "a.txt"),
	sc("-n", `\%two%p`, "a.txt"),
	sc("-n", `\,two,p`, "a.txt"),
	sc("2d", "a.txt"),
	sc("2,3d", "a.txt"),
	sc("$d", "a.txt", "nonl.txt"),
	sc("3q", "a.txt"),
	sc("3q5", "a.txt"),
	sc("3Q", "a.txt"),
	sc("/gamma/Q7", "a.txt"),
	sc("s/a/X/", "a.txt"),
	sc("s/a/X/g", "a.txt"),
	sc("s/a/X/2", "a.txt"),
	sc("s/a/X/2g", "a.txt"),
	sc("-n", "s/a/X/gp", "a.txt"),
	sc("s/hello/bye/I", "b.txt"),
	sc("s/hello/bye/ig", "b.txt"),
	sc(`s/\(l\+\)o/[\1]/g`, "b.txt"),
	sc("-E", `s/(l+)o/[\1]/g`, "b.txt"),
	sc("-r", `s/^([a-z]+) ([a-z]+)$/\2 \1/`, "a.txt"),
	sc(`s/[aeiou]/&&/g`, "a.txt"),
	sc(`s/.*/\U&/`, "a.txt"),
	sc(`s/\(.\)\(.*\)/\u\1\2/`, "a.txt"),
	sc(`s/\w\+/\L\u&/g`, "b.txt"),
	sc(`s/o/\n/g`, "a.txt"),
	sc(`s/ /\t/`, "a.txt"),
	sc(`s/x*/-/g`, "a.txt"),
	sc(`s/b*/x/g`, "a.txt"),
	sc(`s|/|_|g`, "d/c.md"),
	sc(`s/\//_/g`, "d/c.md"),
	sc(`s/^#\+ //`, "d/c.md"),
	sc(`s/\[\([^]]*\)\](\([^)]*\))/\1 <\2>/`, "d/c.md"),
	sc(`s/\.$//`, "d/c.md"),
	sc(`s/é/E/g`, "uni.txt"),
	sc(`s/./X/3`, "uni.txt"),
	sc(`s/\r$//`, "crlf.txt"),
	sc("-n", "l", "uni.txt"),
	sc("-n", "l", "crlf.txt"),
	sc("-n", "l 5", "a.txt"),
	sc("-n", "-l", "8", "l", "a.txt"),
	sc("-n", "-l", "0", "l", "a.txt"),
	sc("-n", "-l", "1", "l", "b.txt"),
	sc("y/abc/xyz/", "a.txt"),
	sc("y/éö/eo/", "uni.txt"),
	sc("=", "a.txt"),
	sc("-n", "$=", "a.txt", "b.txt"),
	sc("-n", "/e/{=;p}", "a.txt"),
	sc("-n", "2,4{/gamma/!p}", "a.txt"),
	sc("2{s/beta/B/;s/two/2/}", "a.txt"),
	sc("-e", "s/a/1/", "-e", "s/e/2/", "a.txt"),
	sc("-f", "script.sed", "a.txt"),
	sc("-n", "-f", "script.sed", "-e", "p", "a.txt"),
	sc("p", "nonl.txt"),
	sc("-n", "p", "nonl.txt"),
	sc("$a\\\nEND", "nonl.txt"),
	sc("1i\\\nSTART", "a.txt"),
	sc("2a added", "a.txt"),
	sc("2i\\  kept blanks", "a.txt"),
	sc("2,3c changed", "a.txt"),
	sc("2c\\\nchanged\\\ntwo lines", "a.txt"),
	sc("a x", "a.txt", "empty.txt", "nonl.txt"),
	sc("N;P;D", "a.txt"),
	sc("$!N;s/\\n/ + /", "a.txt"),
	sc("N;N;s/\\n/,/g", "a.txt"),
	sc("n;d", "a.txt"),
	sc("-n", "n;p", "a.txt"),
	sc("1h;1!H;$!d;x;s/\\n/|/g", "a.txt"),
	sc("G", "a.txt"),
	sc("-n", "h;s/a/A/;G;p", "a.txt"),
	sc("x;$!d", "a.txt"),
	sc(":a;N;$!ba;s/\\n/ /g", "a.txt"),
	sc("-n", "/beta/{n;p}", "a.txt"),
	sc("s/a/A/;ta;s/$/ (none)/;b;:a;s/$/ (some)/", "a.txt"),
	sc("s/a/A/;Tz;s/$/ !/;:z", "a.txt"),
	sc("-n", "F;=", "a.txt", "d/c.md"),
	sc("z;s/^$/empty/", "a.txt"),
	sc("2r d/c.md", "a.txt"),
	sc("r nosuch", "b.txt"),
	sc("R b.txt", "a.txt"),
	sc("-n", "w /dev/stdout", "b.txt"),
	sc("w /dev/stderr", "b.txt"),
	sc("s/l/L/w /dev/stdout", "b.txt"),
	sc("#n\np", "a.txt"),
	sc("p;# comment", "b.txt"),
	sc("-n", "/HELLO/Ip", "b.txt"),
	sc("-n", "/hello/,/again/Ip", "b.txt"),
	sc("/alpha/,/gamma/s/$/ <-/", "a.txt"),
	sc("-n", "/[[:upper:]]/p", "b.txt"),
	sc("-n", `/^.\{5\}$/p`, "a.txt", "b.txt"),
	sc("-E", "-n", `/^(alpha|delta)/p`, "a.txt"),
	sc("-n", `/alpha\|delta/p`, "a.txt"),
	sc("-n", "/a/p;//p", "a.txt"),
	sc("s/o//g;s//0/", "b.txt"),
	sc("-z", "s/\\n/,/g", "a.txt"),
	sc("p", "-"),
	sc("p", "nosuch", "a.txt"),
	sc("p", "d"),
	sc("s/a/b", "a.txt"),
	sc("s/a/b/q", "a.txt"),
	sc("s/a/b/gg", "a.txt"),
	sc("s/a/b/pp", "a.txt"),
	sc("s/a/b/0", "a.txt"),
	sc("k", "a.txt"),
	sc("{p", "a.txt"),
	sc("p}", "a.txt"),
	sc("}", "a.txt"),
	sc("p x", "a.txt"),
	sc("0p", "a.txt"),
	sc("/abc", "a.txt"),
	sc("//p", "a.txt"),
	sc(`s/\(a\)/\2/`, "a.txt"),
	sc("y/ab/c/", "a.txt"),
	sc("y/ab", "a.txt"),
	sc("b foo", "a.txt"),
	sc(":", "a.txt"),
	sc("3~", "a.txt"),
	sc("1,p", "a.txt"),
	sc("a", "a.txt"),
	sc("1#x", "a.txt"),
	sc("1,2q", "a.txt"),
	sc("+3p", "a.txt"),
	sc("1!!p", "a.txt"),
	sc("1,2:a", "a.txt"),
	sc("-e", "p", "-e", "k", "a.txt"),
	sc("-f", "bad.sed", "a.txt"),
	sc("r", "a.txt"),
	sc("-n", "/[/]/p", "d/c.md"),
	sc("s/[]/]/X/g", "d/c.md"),
	sc("s/[[:alpha:]/]/X/g", "d/c.md"),
	sc("-n", "/[/p", "a.txt"),
	sc("-n", `/a\{2,1\}/p`, "a.txt"),
	{stdin: "from\nstdin\n", args: []string{"s/^/> /"}},
	{stdin: "from\nstdin\n", args: []string{"-n", "$p", "-", "a.txt"}},
	{stdin: "x\n", args: []string{"-s", "F", "a.txt", "-"}},
}

// TestGNU runs each case with GNU sed 4.9 and with Compile and Run over
// the same files, and compares the outputs, diagnostics and exit
// statuses.
func TestGNU(t *testing.T) {
	gnu, err := exec.LookPath("/usr/bin/sed")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("GNU sed is the oracle of these tests: %v", err)
		}
		t.Skip("GNU sed not installed")
	}
	dir := testDir(t)
	for _, c := range cases {
		want := runGNU(t, gnu, dir, c.stdin, c.args)
		got := runArgs(t, dir, c.stdin, c.args)
		if got != want {
			t.Errorf("sed %q (stdin %q):\n got %q\n     %q %d\nwant %q\n     %q %d", c.args, c.stdin,
				got.stdout, got.stderr, got.status, want.stdout, want.stderr, want.status)
		}
	}
}

// TestCompileErrors: script errors are *SyntaxError with GNU's location;
// what GNU sed reports as fatal (a missing label, a w file, which sed
// never opens) is another error.
func TestCompileErrors(t *testing.T) {
	for _, tt := range []struct {
		srcs     []Source
		o        Options
		msg      string
		syntax   bool
		readOnly bool
	}{
		{[]Source{{Text: "w out.txt"}}, Options{}, "couldn't open file out.txt: Read-only file system", false, true},
		{[]Source{{Text: "1W out"}}, Options{}, "couldn't open file out: Read-only file system", false, true},
		{[]Source{{Text: "s/x/y/w out"}}, Options{}, "couldn't open file out: Read-only file system", false, true},
		{[]Source{{Text: "b nowhere"}}, Options{}, "can't find label for jump to `nowhere'", false, false},
		{[]Source{{Text: "e ls"}}, Options{}, "-e expression #1, char 1: `e' command not supported: no process is run", true, false},
		{[]Source{{Text: "s/a/ls/e"}}, Options{}, "-e expression #1, char 8: the e flag of `s' is not supported: no process is run", true, false},
		{[]Source{{Text: "p"}, {Text: "p\nk\n", File: "f.sed"}}, Options{}, "file f.sed line 2: unknown command: `k'", true, false},
		{[]Source{{Text: "p"}, {Text: "p\n", File: "f.sed"}, {Text: "k"}}, Options{}, "-e expression #2, char 1: unknown command: `k'", true, false},
		{[]Source{{Text: "s/(a)/b/"}}, Options{Extended: true}, "", false, false},
		{[]Source{{Text: "s/(a/b/"}}, Options{Extended: true}, "-e expression #1, char 7: Unmatched ( or \\(", true, false},
	} {
		prog, err := Compile(tt.srcs, tt.o)
		if tt.msg == "" {
			if err != nil || prog == nil {
				t.Errorf("Compile(%q, %+v) = %v; want a program", tt.srcs, tt.o, err)
			}
			continue
		}
		var se *SyntaxError
		if err == nil || err.Error() != tt.msg || errors.As(err, &se) != tt.syntax || errors.Is(err, syscall.EROFS) != tt.readOnly {
			t.Errorf("Compile(%q, %+v) = %v (syntax error %v, EROFS %v); want %q (syntax error %v, EROFS %v)",
				tt.srcs, tt.o, err, se != nil, errors.Is(err, syscall.EROFS), tt.msg, tt.syntax, tt.readOnly)
		}
	}
	// GNU sed reports the position after the command letter ("char 1");
	// this one after the file name.
	_, err := Compile([]Source{{Text: "r f"}}, Options{Sandbox: true})
	if se, ok := err.(*SyntaxError); !ok || se.Msg != "e/r/w commands disabled in sandbox mode" {
		t.Errorf("r with Options.Sandbox: %v; want a *SyntaxError", err)
	}
}

// run compiles script and runs it over stdin with cfg's settings.
func run(t *testing.T, script string, cfg Config, stdin string) result {
	t.Helper()
	prog, err := Compile([]Source{{Text: script}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cfg.Stdout, cfg.Stderr = bufio.NewWriter(&out), &errb
	if cfg.Stdin == nil {
		cfg.Stdin = strings.NewReader(stdin)
	}
	status := prog.Run(context.Background(), &cfg)
	cfg.Stdout.Flush()
	return result{out.String(), errb.String(), status}
}

// TestConfig checks Config's zero values and limits.
func TestConfig(t *testing.T) {
	long := strings.Repeat("x", 100) + "\n"
	wrapped := func(w int) string {
		var b strings.Builder
		s := strings.Repeat("x", 100)
		for len(s) > w-1 {
			b.WriteString(s[:w-1] + "\\\n")
			s = s[w-1:]
		}
		return b.String() + s + "$\n"
	}
	for _, tt := range []struct {
		name   string
		script string
		cfg    Config
		stdin  string
		want   result
	}{
		{"no Open", "p", Config{Files: []string{"a.txt"}}, "", result{"", "sed: can't read a.txt: No such file or directory\n", 2}},
		{"no files", "p", Config{}, "x\n", result{"x\nx\n", "", 0}},
		{"no ReadFile", "r a.txt", Config{}, "x\n", result{"x\n", "", 0}},
		{"Prog", "p", Config{Files: []string{"a"}, Prog: "chromafs sed"}, "", result{"", "chromafs sed: can't read a: No such file or directory\n", 2}},
		{"LineWrap 0", "l", Config{Quiet: true}, long, result{wrapped(DefaultLineWrap), "", 0}},
		{"LineWrap 10", "l", Config{Quiet: true, LineWrap: 10}, long, result{wrapped(10), "", 0}},
		{"LineWrap -1", "l", Config{Quiet: true, LineWrap: -1}, long, result{strings.Repeat("x", 100) + "$\n", "", 0}},
		{"MaxLine", "p", Config{MaxLine: 10}, "short\n" + long, result{"short\nshort\n", "sed: read error on -: input exceeds the 64 MiB a command holds in memory\n", 4}},
		{"Null", "s/^/>/", Config{Null: true}, "a\x00b\x00", result{">a\x00>b\x00", "", 0}},
		{"w /dev/stderr", "w /dev/stderr", Config{Quiet: true}, "a\n", result{"", "a\n", 0}},
	} {
		if got := run(t, tt.script, tt.cfg, tt.stdin); got != tt.want {
			t.Errorf("%s: %q %q %d; want %q %q %d", tt.name, got.stdout, got.stderr, got.status, tt.want.stdout, tt.want.stderr, tt.want.status)
		}
	}
}

// TestRunAgain: a Program keeps no state of a run: a range left open by
// one run does not carry into the next, and runs may overlap.
func TestRunAgain(t *testing.T) {
	prog, err := Compile([]Source{{Text: "/gamma/,/nomatch/p;0,/beta/s//B/"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := files["a.txt"]
	want := "alpha one\nB two\ngamma three\ngamma three\ndelta four\ndelta four\nepsilon five\nepsilon five\n"
	done := make(chan string)
	for range 3 {
		go func() {
			var out bytes.Buffer
			cfg := &Config{Stdin: strings.NewReader(in), Stdout: bufio.NewWriter(&out)}
			prog.Run(context.Background(), cfg)
			cfg.Stdout.Flush()
			done <- out.String()
		}()
	}
	for range 3 {
		if got := <-done; got != want {
			t.Errorf("a run: %q; want %q", got, want)
		}
	}
	var out bytes.Buffer
	cfg := &Config{Stdin: strings.NewReader(in), Stdout: bufio.NewWriter(&out)}
	prog.Run(context.Background(), cfg)
	cfg.Stdout.Flush()
	if out.String() != want {
		t.Errorf("a run after others: %q; want %q", out.String(), want)
	}
}

// endless is an input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "y\n"[i%2]
	}
	return len(p) &^ 1, nil
}

// TestRunStops: Run ends once its context does, and q ends it at once
// on an endless input (as "yes | sed 3q").
func TestRunStops(t *testing.T) {
	prog, err := Compile([]Source{{Text: "p"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := &Config{Stdin: endless{}, Stdout: bufio.NewWriter(io.Discard)}
	if status := prog.Run(ctx, cfg); status != 0 {
		t.Errorf("canceled: status %d", status)
	}
	if got := run(t, "3q", Config{Stdin: endless{}}, ""); got != (result{"y\ny\ny\n", "", 0}) {
		t.Errorf("3q: %q %q %d", got.stdout, got.stderr, got.status)
	}
}
