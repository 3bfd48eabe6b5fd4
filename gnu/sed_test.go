package gnu

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sedFiles is the tree the sed tests run over, with GNU sed on disk and
// Sed over os.DirFS.
var sedFiles = map[string]string{
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

func sedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, sedFiles)
	return dir
}

func runSedReal(t *testing.T, dir, stdin, name string, args []string) result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Args[0] = filepath.Base(name)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(stdin)
	return runResult(t, cmd)
}

func runSedOurs(dir, stdin string, f Func, args []string) result {
	var out, errb bytes.Buffer
	env := &Env{FS: os.DirFS(dir), Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}
	status := f(context.Background(), env, args)
	return result{out.String(), errb.String(), status}
}

type sedCase struct {
	stdin string
	args  []string
}

func sc(args ...string) sedCase { return sedCase{args: args} }

// sedCases are sed command lines for the command line around package
// sed, whose own tests hold the language's cases: each option's way to
// the engine, -f, r and R files and input operands of the filesystem,
// and the command line's errors.
var sedCases = []sedCase{
	sc("p", "a.txt"),
	sc("-n", "p", "a.txt"),
	sc("--quiet", "2p", "a.txt"),
	sc("-s", "-n", "$p", "a.txt", "b.txt"),
	sc("--separate", "-n", "$p", "a.txt", "b.txt"),
	sc("-E", `s/(l+)o/[\1]/g`, "b.txt"),
	sc("-r", `s/^([a-z]+) ([a-z]+)$/\2 \1/`, "a.txt"),
	sc("--regexp-extended", "-n", `/^(alpha|delta)/p`, "a.txt"),
	sc("-n", "-l", "8", "l", "a.txt"),
	sc("-n", "-l", "0", "l", "a.txt"),
	sc("-z", "s/\\n/,/g", "a.txt"),
	sc("-e", "s/a/1/", "-e", "s/e/2/", "a.txt"),
	sc("-f", "script.sed", "a.txt"),
	sc("-n", "-f", "script.sed", "-e", "p", "a.txt"),
	sc("#n\np", "a.txt"),
	sc("-e", "p", "-e", "k", "a.txt"),
	sc("-f", "bad.sed", "a.txt"),
	sc("-f", "nosuch.sed", "a.txt"),
	sc("k", "a.txt"),
	sc("b foo", "a.txt"),
	sc("-n", "F;=", "a.txt", "d/c.md"),
	sc("2r d/c.md", "a.txt"),
	sc("r nosuch", "b.txt"),
	sc("R b.txt", "a.txt"),
	sc("-n", "w /dev/stdout", "b.txt"),
	sc("p", "-"),
	sc("p", "nosuch", "a.txt"),
	sc("p", "d"),
	sc("-i", "s/a/b/", "nosuch"),
	sc("-n"),
	sc(),
	sc("-x", "p"),
	sc("--bogus", "p"),
	{stdin: "from\nstdin\n", args: []string{"s/^/> /"}},
	{stdin: "from\nstdin\n", args: []string{"-n", "$p", "-", "a.txt"}},
	{stdin: "x\n", args: []string{"-s", "F", "a.txt", "-"}},
}

func TestSedDifferential(t *testing.T) {
	if _, err := exec.LookPath("/usr/bin/sed"); err != nil {
		t.Skip("GNU sed not installed")
	}
	dir := sedDir(t)
	for _, c := range sedCases {
		want := runSedReal(t, dir, c.stdin, "/usr/bin/sed", c.args)
		got := runSedOurs(dir, c.stdin, Sed, c.args)
		if got != want {
			t.Errorf("sed %q (stdin %q):\n got %q\n     %q %d\nwant %q\n     %q %d", c.args, c.stdin,
				got.stdout, got.stderr, got.status, want.stdout, want.stderr, want.status)
		}
	}
}

// TestSedReadOnly checks that -i, w and e fail as GNU sed does on a read-only
// mount (GNU sed's temporary file name is random: only its form is
// compared).
func TestSedReadOnly(t *testing.T) {
	dir := sedDir(t)
	for _, c := range []struct {
		args   []string
		stderr string
		status int
	}{
		{[]string{"-i", "s/a/b/", "a.txt"}, `^sed: couldn't open temporary file \./sed[A-Za-z0-9]{6}: Read-only file system\n$`, 4},
		{[]string{"-i.bak", "s/a/b/", "d/c.md"}, `^sed: couldn't open temporary file d/sed[A-Za-z0-9]{6}: Read-only file system\n$`, 4},
		{[]string{"--in-place", "p", "nosuch", "a.txt"}, `^sed: can't read nosuch: No such file or directory\nsed: couldn't open temporary file \./sed[A-Za-z0-9]{6}: Read-only file system\n$`, 4},
		{[]string{"-i", "p", "d"}, `^sed: couldn't edit d: not a regular file\n$`, 4},
		{[]string{"w out.txt", "a.txt"}, `^sed: couldn't open file out.txt: Read-only file system\n$`, 4},
		{[]string{"-n", "s/x/y/w out", "a.txt"}, `^sed: couldn't open file out: Read-only file system\n$`, 4},
		{[]string{"e ls", "a.txt"}, `^sed: -e expression #1, char 1: .e. command not supported: no process is run\n$`, 1},
		{[]string{"s/a/ls/e", "a.txt"}, `^sed: -e expression #1, char 8: the e flag of .s' is not supported: no process is run\n$`, 1},
		{[]string{`s/\(a\)\1/x/`, "a.txt"}, `^sed: -e expression #1, char 12: .*not supported.*\n$`, 1},
	} {
		got := runSedOurs(dir, "", Sed, c.args)
		if got.stdout != "" || got.status != c.status || !regexp.MustCompile(c.stderr).MatchString(got.stderr) {
			t.Errorf("sed %q: %q %q %d, want stderr matching %s and status %d", c.args, got.stdout, got.stderr, got.status, c.stderr, c.status)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != sedFiles["a.txt"] {
			t.Fatalf("sed %q wrote a.txt", c.args)
		}
	}
}

func TestSedEnv(t *testing.T) {
	dir := sedDir(t)
	var out, errb bytes.Buffer
	env := &Env{FS: os.DirFS(dir), Dir: "/d", Stdout: &out, Stderr: &errb}
	if st := Sed(context.Background(), env, []string{"-n", "-f", "../script.sed", "-e", "1p", "c.md", "/a.txt"}); st != 0 || out.String() != "# Title\n" || errb.Len() != 0 {
		t.Errorf("relative operands: %d %q %q", st, out.String(), errb.String())
	}
	out.Reset()
	// Without standard input, "-" and no operand read nothing.
	env = &Env{FS: os.DirFS(dir), Stdout: &out, Stderr: &errb}
	if st := Sed(context.Background(), env, []string{"p"}); st != 0 || out.Len() != 0 || errb.Len() != 0 {
		t.Errorf("no stdin: %d %q %q", st, out.String(), errb.String())
	}
	opened := false
	env = &Env{Open: func(context.Context) (fs.FS, error) { opened = true; return os.DirFS(dir), nil }, Stdout: &out, Stderr: &errb}
	if st := Sed(context.Background(), env, []string{"s/a/b"}); st != 1 || opened {
		t.Errorf("a script error must not open the filesystem: %d %v", st, opened)
	}
	if st := Sed(context.Background(), env, []string{"-n", "1p", "a.txt"}); st != 0 || !opened || out.String() != "alpha one\n" {
		t.Errorf("Env.Open: %d %v %q", st, opened, out.String())
	}
}
