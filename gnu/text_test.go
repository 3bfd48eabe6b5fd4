package gnu

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// textFixture writes files for the text commands: lines with and
// without a final newline, CRLF, UTF-8 and bytes that are not, numbers,
// fields, repeated lines, and a directory.
func textFixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	var many strings.Builder
	for i := 1; i <= 25; i++ {
		many.WriteString(strings.Repeat("w ", i%4) + "line " + strings.Repeat("x", i) + "\n")
	}
	files := map[string]string{
		"a.txt":       "alpha\nbeta\ngamma\ndelta\nepsilon\n",
		"many.txt":    many.String(),
		"nonl.txt":    "one\ntwo\nthree",
		"empty.txt":   "",
		"crlf.txt":    "first\r\nsecond\r\n\r\nthird\r\n",
		"utf8.txt":    "héllo wörld\nÉcole  naïve\tcafé\n日本語 テキスト\nno\u00a0break\u2003em\n\xff\xfebad bytes\n",
		"nums.txt":    "10\n9\n-3\n2.5\n100\n007\nabc\n\n 42\n1e3\n-0\n0\n",
		"fields.csv":  "name,age,city\nann,31,paris\nbob,,rome\ncid,27\nno commas here\n,lead\ntrail,\n",
		"tabs.tsv":    "a\tb\tc\n1\t2\t3\nx\t\ty\n",
		"dups.txt":    "a\na\nb\nB\nb\nc\nc\nc\nA\na\n",
		"words.txt":   "the quick  brown fox\n\n  jumps over\tthe lazy dog  \n",
		"z.bin":       "one\x00two\x00three\x00",
		"sp ace.txt":  "space name\n",
		"dir/in.txt":  "inside\n",
		"dir/two.txt": "1\n2\n",
		"keys.txt":    "b 2 x\na 10 y\nc 1 z\na 2 w\nB 3 v\n",
	}
	writeFiles(t, dir, files)
	return dir
}

// writeFiles writes files (slash-separated names and their contents)
// under dir, making the directories they need.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runRealIn runs a real tool in dir with stdin from a pipe.
func runRealIn(t *testing.T, dir, name string, args []string, stdin string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "TZ=UTC")
	cmd.Env = slices.DeleteFunc(cmd.Env, func(s string) bool { return strings.HasPrefix(s, "POSIXLY_CORRECT") })
	cmd.Stdin = strings.NewReader(stdin)
	return runResult(t, cmd)
}

func runOursIn(dir, name string, args []string, stdin string) result {
	var out, errb bytes.Buffer
	env := &Env{FS: os.DirFS(dir), Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin), Location: time.UTC}
	status := commands[name](context.Background(), env, args)
	return result{out.String(), errb.String(), status}
}

// textCase is a command line and its standard input.
type textCase struct {
	stdin string
	args  []string
}

const stdinText = "from\nstdin\nfrom\n"

// textDifferential lists command lines of the text commands that must
// give the same output, errors and status as GNU coreutils 9.1.
var textDifferential = []textCase{
	{"", []string{"head", "many.txt"}},
	{"", []string{"head", "-n", "3", "a.txt"}},
	{"", []string{"head", "-n3", "a.txt", "nonl.txt"}},
	{"", []string{"head", "-n", "-2", "a.txt", "nonl.txt", "empty.txt"}},
	{"", []string{"head", "-n", "-0", "nonl.txt"}},
	{"", []string{"head", "-n", "-100", "nonl.txt"}},
	{"", []string{"head", "-c", "5", "a.txt"}},
	{"", []string{"head", "-c", "-5", "a.txt"}},
	{"", []string{"head", "-c", "1k", "a.txt"}},
	{"", []string{"head", "-c", "2kB", "many.txt"}},
	{"", []string{"head", "-c", "1KiB", "many.txt"}},
	{"", []string{"head", "--bytes=3", "nonl.txt"}},
	{"", []string{"head", "--lines=2", "-v", "a.txt"}},
	{"", []string{"head", "-q", "-n1", "a.txt", "nonl.txt"}},
	{"", []string{"head", "-3", "a.txt"}},
	{"", []string{"head", "-3c", "a.txt"}},
	{"", []string{"head", "-2v", "a.txt"}},
	{"", []string{"head", "-2x", "a.txt"}},
	{"", []string{"head", "a.txt", "-2"}},
	{"", []string{"head", "-n", "x", "a.txt"}},
	{"", []string{"head", "-n", "1x", "a.txt"}},
	{"", []string{"head", "-n", "99999999999999999999999", "a.txt"}},
	{"", []string{"head", "-c", "-x", "a.txt"}},
	{"", []string{"head", "-n"}},
	{"", []string{"head", "nope", "a.txt"}},
	{"", []string{"head", "dir", "a.txt"}},
	{"", []string{"head", "-z", "-n", "2", "z.bin"}},
	{stdinText, []string{"head", "-n", "2"}},
	{stdinText, []string{"head", "-v", "-"}},
	{stdinText, []string{"head", "-n1", "a.txt", "-"}},
	{"", []string{"head", "--bogus"}},
	{"", []string{"head", "-Z"}},
	{"", []string{"head", "-n", "2", "crlf.txt", "sp ace.txt"}},
	{"", []string{"tail", "many.txt"}},
	{"", []string{"tail", "-n", "3", "a.txt"}},
	{"", []string{"tail", "-n", "2", "nonl.txt"}},
	{"", []string{"tail", "-n", "+2", "a.txt", "nonl.txt"}},
	{"", []string{"tail", "-n", "+0", "a.txt"}},
	{"", []string{"tail", "-n", "0", "a.txt"}},
	{"", []string{"tail", "-n", "-2", "a.txt"}},
	{"", []string{"tail", "-c", "4", "a.txt"}},
	{"", []string{"tail", "-c", "+4", "a.txt"}},
	{"", []string{"tail", "-c", "1KiB", "a.txt"}},
	{"", []string{"tail", "-c", "100", "many.txt"}},
	{"", []string{"tail", "-5", "many.txt"}},
	{"", []string{"tail", "+24", "many.txt"}},
	{"", []string{"tail", "-3c", "a.txt"}},
	{"", []string{"tail", "+3c", "a.txt"}},
	{"", []string{"tail", "-l", "many.txt"}},
	{"", []string{"tail", "+", "a.txt"}},
	{"", []string{"tail", "-2", "--", "a.txt"}},
	{"", []string{"tail", "-2", "a.txt", "nonl.txt"}},
	{"", []string{"tail", "-n1", "-q", "a.txt", "nonl.txt"}},
	{"", []string{"tail", "-v", "-n1", "a.txt"}},
	{"", []string{"tail", "-n", "1y", "a.txt"}},
	{"", []string{"tail", "-n", "99999999999999999999999", "a.txt"}},
	{"", []string{"tail", "nope"}},
	{"", []string{"tail", "dir"}},
	{"", []string{"tail", "-z", "-n", "1", "z.bin"}},
	{"", []string{"tail", "-n", "1", "empty.txt", "crlf.txt"}},
	{stdinText, []string{"tail", "-n", "2"}},
	{stdinText, []string{"tail", "-n", "+2", "-", "a.txt"}},
	{stdinText, []string{"tail", "-c", "3"}},
	{"", []string{"tail", "--bogus"}},
	{"", []string{"wc", "a.txt"}},
	{"", []string{"wc", "a.txt", "nonl.txt", "empty.txt"}},
	{"", []string{"wc", "-l", "a.txt"}},
	{"", []string{"wc", "-l", "a.txt", "many.txt"}},
	{"", []string{"wc", "-w", "words.txt", "utf8.txt"}},
	{"", []string{"wc", "-m", "utf8.txt"}},
	{"", []string{"wc", "-mc", "utf8.txt"}},
	{"", []string{"wc", "-lwmc", "utf8.txt", "crlf.txt", "words.txt"}},
	{"", []string{"wc", "-c", "many.txt"}},
	{"", []string{"wc", "nope", "a.txt"}},
	{"", []string{"wc", "a.txt", "nope"}},
	{"", []string{"wc", "dir"}},
	{"", []string{"wc", "dir", "a.txt"}},
	{"", []string{"wc", "z.bin", "sp ace.txt"}},
	{stdinText, []string{"wc"}},
	{stdinText, []string{"wc", "-l"}},
	{stdinText, []string{"wc", "-", "a.txt"}},
	{stdinText, []string{"wc", "-c", "-"}},
	{"a\x01b \xffc \u00a0 d\te\u3000f\n", []string{"wc"}},
	{"", []string{"wc", "--lines", "--words", "nums.txt"}},
	{"", []string{"wc", "--bogus"}},
	{"", []string{"sort", "a.txt", "nonl.txt"}},
	{"", []string{"sort", "-r", "a.txt"}},
	{"", []string{"sort", "-n", "nums.txt"}},
	{"", []string{"sort", "-rn", "nums.txt"}},
	{"", []string{"sort", "-nu", "nums.txt"}},
	{"", []string{"sort", "-u", "dups.txt"}},
	{"", []string{"sort", "-f", "dups.txt"}},
	{"", []string{"sort", "-fu", "dups.txt"}},
	{"", []string{"sort", "-k2", "keys.txt"}},
	{"", []string{"sort", "-k2n", "keys.txt"}},
	{"", []string{"sort", "-k2,2n", "-k1,1r", "keys.txt"}},
	{"", []string{"sort", "-k1,1", "-u", "keys.txt"}},
	{"", []string{"sort", "-s", "-k1,1f", "keys.txt"}},
	{"", []string{"sort", "-k3", "-r", "keys.txt"}},
	{"", []string{"sort", "-k", "1.2,1.3", "many.txt"}},
	{"", []string{"sort", "-b", "-k2", "words.txt"}},
	{"", []string{"sort", "-t,", "-k2n", "fields.csv"}},
	{"", []string{"sort", "-t", ",", "-k3", "-k1r", "fields.csv"}},
	{"", []string{"sort", "-t,", "-k2,2", "-s", "fields.csv"}},
	{"", []string{"sort", "utf8.txt", "crlf.txt", "empty.txt"}},
	{"", []string{"sort", "-d", "utf8.txt", "fields.csv"}},
	{"", []string{"sort", "-i", "-f", "utf8.txt", "dups.txt"}},
	{"", []string{"sort", "-z", "z.bin"}},
	{"", []string{"sort", "-n", "-k2", "-t", "\t", "tabs.tsv"}},
	{"", []string{"sort", "-k", "0"}},
	{"", []string{"sort", "-k", "x"}},
	{"", []string{"sort", "-k", "1.0"}},
	{"", []string{"sort", "-k", "1,2.x"}},
	{"", []string{"sort", "-k", "1q"}},
	{"", []string{"sort", "-t", "ab"}},
	{"", []string{"sort", "-t", ""}},
	{"", []string{"sort", "nope", "a.txt"}},
	{"", []string{"sort", "a.txt", "dir"}},
	{"", []string{"sort", "--bogus"}},
	{stdinText, []string{"sort"}},
	{stdinText, []string{"sort", "-u", "-", "a.txt"}},
	{"", []string{"uniq", "dups.txt"}},
	{"", []string{"uniq", "-c", "dups.txt"}},
	{"", []string{"uniq", "-d", "dups.txt"}},
	{"", []string{"uniq", "-u", "dups.txt"}},
	{"", []string{"uniq", "-i", "dups.txt"}},
	{"", []string{"uniq", "-ci", "dups.txt"}},
	{"", []string{"uniq", "-du", "dups.txt"}},
	{"", []string{"uniq", "-f", "1", "keys.txt"}},
	{"", []string{"uniq", "-s", "2", "-c", "many.txt"}},
	{"", []string{"uniq", "-w", "1", "-c", "keys.txt"}},
	{"", []string{"uniq", "-f", "x"}},
	{"", []string{"uniq", "nonl.txt"}},
	{"", []string{"uniq", "nope"}},
	{"", []string{"uniq", "dir"}},
	{"", []string{"uniq", "a", "b", "c"}},
	{"", []string{"uniq", "-z", "z.bin"}},
	{"a\na\nb", []string{"uniq", "-c"}},
	{stdinText, []string{"uniq", "-", "-"}},
	{"", []string{"cut", "-f", "2", "tabs.tsv"}},
	{"", []string{"cut", "-f", "1,3", "tabs.tsv"}},
	{"", []string{"cut", "-d,", "-f2", "fields.csv"}},
	{"", []string{"cut", "-d,", "-f2-", "fields.csv"}},
	{"", []string{"cut", "-d", ",", "-f", "-2", "-s", "fields.csv"}},
	{"", []string{"cut", "-d,", "-f3,1", "--output-delimiter=|", "fields.csv"}},
	{"", []string{"cut", "-d,", "--complement", "-f2", "fields.csv"}},
	{"", []string{"cut", "-c", "1-3", "utf8.txt"}},
	{"", []string{"cut", "-c", "2,4-5,9-", "a.txt", "nonl.txt"}},
	{"", []string{"cut", "-b", "1-2,3-4", "--output-delimiter=:", "a.txt"}},
	{"", []string{"cut", "-b", "-2,5-", "--complement", "many.txt"}},
	{"", []string{"cut", "-d", " ", "-f", "2", "words.txt", "keys.txt"}},
	{"", []string{"cut", "-z", "-c", "1", "z.bin"}},
	{"", []string{"cut", "-f", "0", "a.txt"}},
	{"", []string{"cut", "-f", "x", "a.txt"}},
	{"", []string{"cut", "-f", "3-1", "a.txt"}},
	{"", []string{"cut", "-f", "-", "a.txt"}},
	{"", []string{"cut", "-f", "1", "-c", "1", "a.txt"}},
	{"", []string{"cut", "-d", "ab", "-f1", "a.txt"}},
	{"", []string{"cut", "-c1", "-d,", "a.txt"}},
	{"", []string{"cut", "-c1", "-s", "a.txt"}},
	{"", []string{"cut", "-b", "99999999999999999999", "a.txt"}},
	{"", []string{"cut", "-f", "1-2,x", "a.txt"}},
	{"", []string{"cut", "-f", "", "a.txt"}},
	{"", []string{"cut", "a.txt"}},
	{"", []string{"cut", "-f1", "nope", "a.txt", "dir"}},
	{stdinText, []string{"cut", "-c", "2-3"}},
	{"", []string{"tac", "a.txt"}},
	{"", []string{"tac", "nonl.txt", "a.txt", "empty.txt"}},
	{"", []string{"tac", "crlf.txt"}},
	{"", []string{"tac", "-s", ",", "fields.csv"}},
	{"", []string{"tac", "-b", "a.txt"}},
	{"", []string{"tac", "-b", "-s", "e", "a.txt"}},
	{"", []string{"tac", "-s", "ta", "a.txt"}},
	{"", []string{"tac", "-s", ""}},
	{"", []string{"tac", "nope", "a.txt"}},
	{"", []string{"tac", "dir"}},
	{"", []string{"tac", "-x"}},
	{stdinText, []string{"tac"}},
	{"", []string{"nl", "a.txt"}},
	{"", []string{"nl", "words.txt", "nonl.txt"}},
	{"", []string{"nl", "-b", "a", "words.txt"}},
	{"", []string{"nl", "-b", "n", "words.txt"}},
	{"", []string{"nl", "-ba", "-n", "ln", "words.txt"}},
	{"", []string{"nl", "-n", "rz", "-w", "3", "-s", ": ", "many.txt"}},
	{"", []string{"nl", "-v", "5", "-i", "2", "a.txt"}},
	{"", []string{"nl", "-v", "-2", "a.txt"}},
	{"", []string{"nl", "-b", "a", "-l", "2", "crlf.txt", "words.txt"}},
	{"", []string{"nl", "-b", "pa", "a.txt"}},
	{"", []string{"nl", "-w", "1", "many.txt"}},
	{"x\n\\:\\:\\:\nh\n\\:\\:\ny\n\n\\:\nf\n", []string{"nl"}},
	{"x\n\\:\\:\\:\nh\n\\:\\:\ny\n\\:\nf\n", []string{"nl", "-h", "a", "-f", "t", "-p"}},
	{"x\n@@\ny\n", []string{"nl", "-d", "@"}},
	{"", []string{"nl", "-b", "x", "a.txt"}},
	{"", []string{"nl", "-w", "0", "a.txt"}},
	{"", []string{"nl", "-w", "x", "a.txt"}},
	{"", []string{"nl", "-n", "xx", "a.txt"}},
	{"", []string{"nl", "nope", "a.txt"}},
	{"", []string{"nl", "dir"}},
	{stdinText, []string{"nl"}},
	{"", []string{"seq", "3"}},
	{"", []string{"seq", "2", "5"}},
	{"", []string{"seq", "1", "2", "10"}},
	{"", []string{"seq", "-w", "8", "10"}},
	{"", []string{"seq", "-s", ",", "3"}},
	{"", []string{"seq", "-s", ", ", "-w", "1", "3", "12"}},
	{"", []string{"seq", "1.5", "3"}},
	{"", []string{"seq", "0.1", "0.1", "0.5"}},
	{"", []string{"seq", "0", "0.000001", "0.000003"}},
	{"", []string{"seq", "-f", "%03g", "3"}},
	{"", []string{"seq", "-f", "n=%.2f%%", "1", "0.5", "2"}},
	{"", []string{"seq", "-f", "%e", "1", "3"}},
	{"", []string{"seq", "-f", "%-5g|", "9", "11"}},
	{"", []string{"seq", "10", "-3", "1"}},
	{"", []string{"seq", "-1", "1"}},
	{"", []string{"seq", "-w", "-1", "1"}},
	{"", []string{"seq", "-w", "1.5", "10"}},
	{"", []string{"seq", "-w", "-5", "2", "5"}},
	{"", []string{"seq", "1e2", "1e2", "3e2"}},
	{"", []string{"seq", ".5", "2"}},
	{"", []string{"seq", "5", "1"}},
	{"", []string{"seq", "-1"}},
	{"", []string{"seq", "1", "0", "3"}},
	{"", []string{"seq"}},
	{"", []string{"seq", "1", "2", "3", "4"}},
	{"", []string{"seq", "x"}},
	{"", []string{"seq", "-f", "%d", "3"}},
	{"", []string{"seq", "-f", "x", "3"}},
	{"", []string{"seq", "-f", "%f%f", "3"}},
	{"", []string{"seq", "-f", "%", "3"}},
	{"", []string{"seq", "-w", "-f", "%f", "3"}},
	{"", []string{"seq", "--bogus"}},
	{"", []string{"seq", "-s", "-", "3"}},
	{"", []string{"seq", "99999999999999999998", "99999999999999999999"}},
	{stdinText, []string{"tr", "a-z", "A-Z"}},
	{"Hello World\n", []string{"tr", "[:lower:]", "[:upper:]"}},
	{"Hello World\n", []string{"tr", "[:upper:]", "[:lower:]"}},
	{"hello   world\n\n\nx\n", []string{"tr", "-s", " \n"}},
	{"hello world\n", []string{"tr", "-d", "lo"}},
	{"hello world 123\n", []string{"tr", "-cd", "[:alpha:]\n"}},
	{"hello world 123\n", []string{"tr", "-c", "[:alnum:]", "_"}},
	{"a,b,,c\n", []string{"tr", ",", "\\n"}},
	{"aabbcc\n", []string{"tr", "-s", "a-c", "x-z"}},
	{"abcdef\n", []string{"tr", "a-f", "xy"}},
	{"abcdef\n", []string{"tr", "-t", "a-f", "xy"}},
	{"abcdef\n", []string{"tr", "a-f", "[x*]"}},
	{"abcdef\n", []string{"tr", "a-f", "[x*2]yz"}},
	{"a\tb\\c\n", []string{"tr", "\\t\\\\", "T/"}},
	{"abc\n", []string{"tr", "\\141", "\\101"}},
	{"héllo\n", []string{"tr", "-d", "\\303"}},
	{"aaabbb  ccc\n", []string{"tr", "-ds", "b", " "}},
	{"x-y\n", []string{"tr", "a-", "_"}},
	{"x\n", []string{"tr", "[=x=]", "y"}},
	{"x\n", []string{"tr"}},
	{"x\n", []string{"tr", "abc"}},
	{"x\n", []string{"tr", "-d", "a", "b"}},
	{"x\n", []string{"tr", "-ds", "a"}},
	{"x\n", []string{"tr", "a", "b", "c"}},
	{"x\n", []string{"tr", "z-a", "b"}},
	{"x\n", []string{"tr", "[:foo:]", "b"}},
	{"x\n", []string{"tr", "a", "[:digit:]"}},
	{"x\n", []string{"tr", "a", ""}},
	{"x\n", []string{"tr", "[a*]", "b"}},
	{"x\n", []string{"tr", "--bogus"}},
	{"", []string{"basename", "/a/b/c.txt"}},
	{"", []string{"basename", "/a/b/c.txt", ".txt"}},
	{"", []string{"basename", "c.txt", "c.txt"}},
	{"", []string{"basename", "/a/b/"}},
	{"", []string{"basename", "/"}},
	{"", []string{"basename", "//"}},
	{"", []string{"basename", ""}},
	{"", []string{"basename", "-a", "a/b", "c/d/"}},
	{"", []string{"basename", "-s", ".md", "a/x.md", "y.md", "z.txt"}},
	{"", []string{"basename", "-z", "a/b"}},
	{"", []string{"basename"}},
	{"", []string{"basename", "a", "b", "c"}},
	{"", []string{"basename", "-x"}},
	{"", []string{"dirname", "/a/b/c.txt"}},
	{"", []string{"dirname", "a/b/", "a", "/", "//", "", "/a", "a//b//", "//a"}},
	{"", []string{"dirname", "-z", "a/b"}},
	{"", []string{"dirname"}},
	{"", []string{"dirname", "--bogus"}},
}

// TestTextDifferential runs every text command line through the real
// tool and through this package on the same files and input.
func TestTextDifferential(t *testing.T) {
	dir := textFixture(t)
	for _, c := range textDifferential {
		name, args := c.args[0], c.args[1:]
		want := runRealIn(t, dir, name, args, c.stdin)
		got := runOursIn(dir, name, args, c.stdin)
		if got != want {
			t.Errorf("%q <<< %q:\n--- ours (status %d)\n%q\n%s--- real (status %d)\n%q\n%s", c.args, c.stdin, got.status, got.stdout, got.stderr, want.status, want.stdout, want.stderr)
		}
	}
}

// TestTextUnsupported: options GNU has and these commands do not are
// usage errors in GNU's words, and nothing is read.
func TestTextUnsupported(t *testing.T) {
	for _, c := range [][]string{{"tail", "-f", "/a/x.md"}, {"tail", "-F"}, {"wc", "-L"}} {
		_, errOut, status := runEnv(Env{Stdin: strings.NewReader("x\n")}, c[0], c[1:]...)
		want := c[0] + ": invalid option -- '" + c[1][1:] + "'\nTry '" + c[0] + " --help' for more information.\n"
		if status != 1 || errOut != want {
			t.Errorf("%q: status %d, stderr %q; want 1, %q", c, status, errOut, want)
		}
	}
}

// readOnlyMount bind-mounts dir read-only on a new directory and returns
// it; it skips the test when the machine cannot (mounting needs root),
// and fails then under CI=true.
func readOnlyMount(t *testing.T, dir string) string {
	t.Helper()
	m := t.TempDir()
	if out, err := exec.Command("mount", "--bind", dir, m).CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount --bind: %v: %s", err, out)
		}
		t.Skipf("cannot bind-mount (root is needed): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", m).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", m, err, out)
		}
	})
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", m).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v: %s", err, out)
	}
	return m
}

// writeDifferential lists command lines of the write commands, which must
// fail as GNU coreutils 9.1 fails on a read-only mount.
var writeDifferential = [][]string{
	{"rm", "a.txt"}, {"rm", "nope"}, {"rm", "dir"}, {"rm", "-r", "dir"}, {"rm", "-rf", "dir", "nope"},
	{"rm", "-f", "nope"}, {"rm", "-f", "a.txt", "nope"}, {"rm"}, {"rm", "-f"}, {"rm", "-r", "empty"}, {"rm", "-d", "empty"},
	{"rm", "-r", "nope", "one"}, {"rm", "dir/"}, {"rm", "."}, {"rm", "-r", "."}, {"rm", "-r", "/"}, {"rm", "a.txt/x"},
	{"rm", "-f", "a.txt/x"}, {"rm", "-v", "sp ace.txt"}, {"rm", "-i", "a.txt"}, {"rm", "--bogus"},
	{"rmdir", "empty"}, {"rmdir", "dir"}, {"rmdir", "nope"}, {"rmdir", "a.txt"}, {"rmdir", "nope/x"}, {"rmdir"},
	{"rmdir", "-p", "dir/sub"}, {"rmdir", "-x"},
	{"mkdir", "x"}, {"mkdir", "dir"}, {"mkdir", "-p", "dir"}, {"mkdir", "-p", "a/b"}, {"mkdir", "a.txt", "dir/new"},
	{"mkdir", "-p", "a.txt"}, {"mkdir", "-p", "dir/in.txt/h"}, {"mkdir", "-p", "dir/new"}, {"mkdir", "nope/x"},
	{"mkdir", "-v", "x"}, {"mkdir", "-m", "755", "x"}, {"mkdir", "-m", "x", "y"}, {"mkdir"}, {"mkdir", "sp ace"},
	{"touch", "a.txt"}, {"touch", "nope"}, {"touch", "-c", "nope"}, {"touch", "-c", "a.txt"}, {"touch", "dir"},
	{"touch", "nope/x"}, {"touch", "dir/in.txt/x"}, {"touch"}, {"touch", "-r", "nope", "a.txt"}, {"touch", "-d", "2020-01-01", "a.txt"},
	{"cp", "a.txt", "x"}, {"cp", "nope", "x"}, {"cp", "a.txt", "dir"}, {"cp", "-r", "dir", "x"}, {"cp", "a.txt"}, {"cp"},
	{"cp", "a.txt", "dir/in.txt"}, {"cp", "dir", "x"}, {"cp", "a.txt", "dir/in.txt", "x"}, {"cp", "nope", "a.txt", "x"},
	{"cp", "a.txt", "a.txt"}, {"cp", "a.txt", "nope/x"}, {"cp", "-v", "a.txt", "x"}, {"cp", "-r", "one", "empty"},
	{"cp", "a.txt", "nonl.txt", "dir"}, {"cp", "-t", "dir", "a.txt"}, {"cp", "-t", "nope", "a.txt"},
	{"mv", "a.txt", "x"}, {"mv", "nope", "x"}, {"mv", "a.txt", "dir/"}, {"mv", "dir", "x"}, {"mv", "a.txt", "dir/in.txt", "x"},
	{"mv", "a.txt", "a.txt"}, {"mv", "a.txt", "nope/x"}, {"mv"}, {"mv", "a.txt"}, {"mv", "a.txt", "nonl.txt", "empty"},
	{"ln", "a.txt", "x"}, {"ln", "-s", "a.txt", "x"}, {"ln", "nope", "x"}, {"ln", "a.txt"}, {"ln", "a.txt", "dir"},
	{"ln", "a.txt", "dir/in.txt"}, {"ln", "-f", "a.txt", "dir/in.txt"}, {"ln", "-s", "a.txt", "dir/in.txt"},
	{"ln", "a.txt", "dir/in.txt", "x"}, {"ln", "dir", "x"}, {"ln", "a.txt", "nope/x"}, {"ln", "-sf", "a.txt", "x"}, {"ln"},
	{"chmod", "644", "a.txt"}, {"chmod", "644", "nope"}, {"chmod", "-R", "644", "one"}, {"chmod", "x", "a.txt"},
	{"chmod", "644"}, {"chmod"}, {"chmod", "u+x", "a.txt"}, {"chmod", "a=rw,g-w", "a.txt", "dir"}, {"chmod", "+t", "dir"},
	{"chmod", "-w", "a.txt"}, {"chmod", "9", "a.txt"}, {"chmod", "0755", "a.txt"}, {"chmod", "u+q", "a.txt"},
	{"chmod", "644", "dir", "nope", "a.txt"}, {"chmod", "-f", "644", "nope", "a.txt"}, {"chmod", "--reference=a.txt", "dir"},
	{"chmod", "a.txt/x"}, {"chmod", "g=u", "a.txt"}, {"chmod", "755", "a.txt/x"},
	{"tee"}, {"tee", "x"}, {"tee", "a.txt"}, {"tee", "-a", "a.txt"}, {"tee", "-", "a.txt"}, {"tee", "/dev/null"},
	{"tee", "nope/x", "dir"}, {"tee", "--bogus"},
	{"sort", "-o", "x", "a.txt"}, {"uniq", "a.txt", "x"},
}

// TestWriteDifferential runs the write commands against the real ones on
// a read-only bind mount of the same files.
func TestWriteDifferential(t *testing.T) {
	dir := textFixture(t)
	for _, d := range []string{"empty", "one"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "one", "f"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := readOnlyMount(t, dir)
	for _, c := range writeDifferential {
		name, args := c[0], c[1:]
		want := runRealIn(t, m, name, args, "in\n")
		got := runOursIn(dir, name, args, "in\n")
		if slices.ContainsFunc(args, func(a string) bool { return a == "-R" || strings.HasPrefix(a, "-r") }) {
			// GNU goes in directory order, these commands in name order.
			for _, r := range []*result{&got, &want} {
				lines := strings.Split(r.stderr, "\n")
				slices.Sort(lines)
				r.stderr = strings.Join(lines, "\n")
			}
		}
		if got != want {
			t.Errorf("%q:\n--- ours (status %d)\n%q\n%s--- real (status %d)\n%q\n%s", c, got.status, got.stdout, got.stderr, want.status, want.stdout, want.stderr)
		}
	}
}

// lineSource is n bytes of short lines, made as they are read.
type lineSource struct{ n, off int64 }

func (s *lineSource) Read(p []byte) (int, error) {
	if s.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && int64(k) < s.n {
		p[k] = "line 12345\n"[s.off%11]
		k++
		s.off++
	}
	s.n -= int64(k)
	return k, nil
}

// TestHoldLimit: commands that must hold their input stop with a clear
// error past HoldLimit; those that need only its end keep going.
func TestHoldLimit(t *testing.T) {
	// A lower limit, that the test does not take minutes under -race.
	defer func(l int) { holdLimit = l }(holdLimit)
	holdLimit = 1 << 20
	big := int64(holdLimit/11+1000) * 11
	for _, tc := range []struct {
		args        []string
		status      int
		out, errOut string
	}{
		{[]string{"sort"}, 2, "", "sort: read failed: -: " + ErrTooLarge.Error() + "\n"},
		{[]string{"tac"}, 1, "", "tac: -: read error: " + ErrTooLarge.Error() + "\n"},
		{[]string{"head", "-n", "-1"}, 1, "", "head: error reading 'standard input': " + ErrTooLarge.Error() + "\n"},
		{[]string{"tail", "-n", "2"}, 0, "line 12345\nline 12345\n", ""},
		{[]string{"tail", "-c", "3"}, 0, "45\n", ""},
		{[]string{"uniq", "-c"}, 0, fmt.Sprintf("%7d line 12345\n", big/11), ""},
	} {
		var out, errb strings.Builder
		env := &Env{FS: mapFS, Stdin: &lineSource{n: big}, Stdout: &out, Stderr: &errb}
		status := commands[tc.args[0]](context.Background(), env, tc.args[1:])
		if status != tc.status || out.String() != tc.out || errb.String() != tc.errOut {
			t.Errorf("%q over %d bytes: status %d, stdout %.80q, stderr %q; want %d, %q, %q", tc.args, big, status, out.String(), errb.String(), tc.status, tc.out, tc.errOut)
		}
	}
}
