package gnu

import (
	"os/exec"
	"testing"
)

var rgFiles = map[string]string{
	"a.md":          "foo bar\nbaz\nFoo qux\n",
	"c.txt":         "x foo\ny\nfoo z\nw\nv\nu\nfoo\n",
	".h.md":         "foo hidden\n",
	"d/b.txt":       "nothing\nfoo\n",
	"d/.hid/c.md":   "foo in hid\n",
	"bin.dat":       "foo\x00bin\n",
	"e/x.json":      "{\"foo\":1}\n",
	"e/y.yaml":      "key: Foo\nwébhook: été\n",
	"sp ace/z.go":   "package foo // fooBar\n",
	"Makefile":      "all:\n\techo foo\n",
	"deep/er/f.rst": "Foo\n===\nfood\n",
}

func rgDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, rgFiles)
	return dir
}

var rgCases = []sedCase{
	sc("foo"),
	sc("-n", "foo"),
	sc("-N", "foo"),
	sc("foo", "a.md"),
	sc("-n", "foo", "a.md"),
	sc("-H", "foo", "a.md"),
	sc("-I", "foo"),
	sc("foo", "a.md", "c.txt"),
	sc("foo", "."),
	sc("foo", "d"),
	sc("foo", "d/"),
	sc("foo", "./d"),
	sc("-i", "FOO"),
	sc("-S", "Foo"),
	sc("-S", "foo"),
	sc("-s", "Foo"),
	sc("-l", "foo"),
	sc("-c", "foo"),
	sc("-c", "foo", "a.md"),
	sc("-c", "-v", "foo", "c.txt"),
	sc("-v", "foo", "c.txt"),
	sc("-F", "a.m", "."),
	sc("-F", "{\"foo\""),
	sc("-w", "fo"),
	sc("-w", "foo"),
	sc("-x", "foo"),
	sc("-e", "foo", "-e", "baz"),
	sc("-o", "f.o"),
	sc("-o", "-n", "fo+", "c.txt", "a.md"),
	sc("-m1", "foo"),
	sc("-A1", "-m1", "foo"),
	sc("-n", "-C1", "foo", "c.txt", "a.md"),
	sc("-B2", "foo", "c.txt"),
	sc("-C1", "baz"),
	sc("-g", "*.md", "foo"),
	sc("-g", "!*.md", "foo"),
	sc("-g", "!d", "-g", "!e", "foo"),
	sc("-g", "d/*", "foo"),
	sc("-g", "*.md", "-g", "!a.md", "foo"),
	sc("--iglob", "*.MD", "foo"),
	sc("-t", "md", "foo"),
	sc("-t", "json", "-t", "yaml", "-i", "foo"),
	sc("-T", "md", "foo"),
	sc("-t", "make", "foo"),
	sc("-t", "go", "foo"),
	sc("-t", "rst", "foo"),
	sc("--hidden", "foo"),
	sc("-uu", "foo"),
	sc("foo", "d/.hid"),
	sc("foo", ".h.md"),
	sc("foo", "bin.dat"),
	sc("bin", "bin.dat"),
	sc("-q", "foo"),
	sc("-q", "nomatch"),
	sc("nomatch"),
	sc("foo", "nosuch", "a.md"),
	sc("-t", "nosuchtype", "foo"),
	sc("w.bhook"),
	sc("-i", "ÉTÉ"),
	sc(`\bfoo\b`),
	sc(`^foo`),
	sc(`foo$`),
	sc(`fo{2}d?`),
	sc(`[[:upper:]]oo`),
	sc("--files"),
	sc("--files", "d"),
	sc("--files", "-g", "*.md"),
	sc("--files", "-t", "md"),
	sc("--files", "-T", "md", "--hidden"),
	sc("--files", "--hidden"),
	sc("--files", "a.md", "d"),
	sc("--sort", "path", "foo"),
	sc("--sort=path", "-l", "foo"),
	{stdin: "from foo\nstdin\n", args: []string{"foo"}},
	{stdin: "from foo\nstdin\n", args: []string{"-n", "std"}},
}

func TestRgDifferential(t *testing.T) {
	bin, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep not installed")
	}
	dir := rgDir(t)
	for _, c := range rgCases {
		args := c.args
		if len(args) == 0 || args[0] != "--sort" && args[0] != "--sort=path" {
			args = append([]string{"--sort", "path"}, args...)
		}
		var want result
		if c.stdin == "" {
			// Standard input /dev/null, not a pipe: rg searches the
			// directory.
			want = runReal(t, dir, bin, args)
		} else {
			want = runSedReal(t, dir, c.stdin, bin, args)
		}
		got := runSedOurs(dir, c.stdin, Rg, c.args)
		if got != want {
			t.Errorf("rg %q (stdin %q):\n got %q\n     %q %d\nwant %q\n     %q %d", c.args, c.stdin,
				got.stdout, got.stderr, got.status, want.stdout, want.stderr, want.status)
		}
	}
}
