package gnu

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// writeMapFS writes the files of m to a temp dir, for GNU grep.
func writeMapFS(t *testing.T, m fstest.MapFS) string {
	t.Helper()
	dir := t.TempDir()
	for name, f := range m {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// grepCase runs Grep with env (its FS mapFS) and GNU grep (or the
// wrapper bin) in the same directory with the same standard input, and
// compares.
func grepCase(t *testing.T, bin, dir string, env Env, stdin string, cmd Func, args []string) {
	t.Helper()
	var out, errb strings.Builder
	env.FS, env.Stdout, env.Stderr = mapFS, &out, &errb
	if stdin != "" {
		env.Stdin = strings.NewReader(stdin)
	}
	code := cmd(context.Background(), &env, args)
	wantOut, wantErr, wantCode := runGNUIn(t, bin, filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(env.Dir, "/"))), strings.NewReader(stdin), args)
	gotOut, gotErr := out.String(), errb.String()
	if isRecursive(args) {
		gotOut, wantOut = sortLines(gotOut), sortLines(wantOut)
	}
	if code != wantCode || gotOut != wantOut || gotErr != wantErr {
		t.Errorf("in %s, grep %q: status %d\nstdout %q\nstderr %q\nwant (GNU grep) status %d\nstdout %q\nstderr %q",
			env.Dir, args, code, gotOut, gotErr, wantCode, wantOut, wantErr)
	}
}

// TestGrepDir: with Env.Dir set, relative operands (and -f files, read
// from the FS when Env.ReadFile is nil) resolve against it and print as
// given, as GNU grep run in that directory prints them.
func TestGrepDir(t *testing.T) {
	bin := gnuGrep(t)
	dir := writeMapFS(t, mapFS)
	for _, tc := range []struct {
		dir  string
		args []string
	}{
		{"/a", []string{"-rn", "x", "."}},
		{"/a", []string{"-r", "y"}},
		{"/a", []string{"-rl", "[xyz]", "..", "b"}},
		{"/a", []string{"-H", "[xz]", "x.md", "../c/z"}},
		{"/a", []string{"-c", "y", "b/y.md", "missing"}},
		{"/a/b", []string{"-r", "z", "../../c/"}},
		{"/a", []string{"-rf", "x.md", "."}},
		{"/a", []string{"-f", "missing", "x.md"}},
		{"/a", []string{"x", "b"}},
	} {
		grepCase(t, bin, dir, Env{Dir: tc.dir}, "", Grep, tc.args)
	}
}

// TestGrepStdin: with Env.Stdin, grep searches it without operands (and
// without -r) and for "-", names it "(standard input)" or --label's
// name, and "-f -" reads it, as GNU grep does.
func TestGrepStdin(t *testing.T) {
	bin := gnuGrep(t)
	dir := writeMapFS(t, mapFS)
	for _, args := range [][]string{
		{"x"}, {"-H", "y"}, {"-n", "zzz"}, {"-c", "x", "-", "a/x.md"}, {"--label=in", "-Hn", "y"}, {"-r", "y", "-"},
		{"y", "-", "-"}, {"-L", "zzz"}, {"-l", "x", "c/z", "-"}, {"-f", "-", "-r", "."}, {"-f", "-", "a/x.md", "-"},
		{"-A1", "x"}, {"-o", "y*"},
	} {
		grepCase(t, bin, dir, Env{}, "x\nyy\nnone\n", Grep, args)
	}
	// Without Env.Stdin, standard input is an error.
	_, errOut, status := runEnv(Env{}, "grep", "x")
	if status != 2 || !strings.Contains(errOut, "standard input is not searched") {
		t.Errorf("grep x without Stdin: status %d, stderr %q", status, errOut)
	}
	// Standard input alone needs no filesystem.
	var out strings.Builder
	env := &Env{Stdin: strings.NewReader("a\nb\n"), Stdout: &out, Stderr: &out}
	if status := Grep(context.Background(), env, []string{"-n", "b"}); status != 0 || out.String() != "2:b\n" {
		t.Errorf("grep -n b with Stdin and no FS: status %d, %q", status, out.String())
	}
}

// TestEgrepFgrep: egrep and fgrep are grep -E and grep -F, with grep's
// diagnostics, as Debian's wrappers are.
func TestEgrepFgrep(t *testing.T) {
	gnuGrep(t)
	dir := writeMapFS(t, mapFS)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"egrep", []string{"-r", "x|y+", "."}}, {"egrep", []string{"-F", "x"}}, {"egrep", []string{"-k"}},
		{"fgrep", []string{"-r", "y+", "."}}, {"fgrep", []string{"-rx", "yy"}}, {"fgrep", []string{"-E", "x"}},
	} {
		bin := "/usr/bin/" + tc.name
		if _, err := os.Stat(bin); err != nil {
			t.Skipf("%s: %v", tc.name, err)
		}
		grepCase(t, bin, dir, Env{}, "", commands[tc.name], tc.args)
	}
}

// TestGrepOpen: Env.Open is not called for usage errors, --help or
// --version; its error is printed unless it wraps ErrReported.
func TestGrepOpen(t *testing.T) {
	calls := 0
	open := func(err error) Env {
		return Env{Open: func(context.Context) (fs.FS, error) { calls++; return nil, err }}
	}
	for _, args := range [][]string{{"--help"}, {"-V"}, {"-k", "x"}, {}, {"-A", "x", "p"}} {
		runEnv(open(errors.New("no")), "grep", args...)
	}
	if calls != 0 {
		t.Errorf("Open called %d times before the arguments parsed", calls)
	}
	if _, errOut, status := runEnv(open(errors.New("no collection")), "grep", "-r", "x"); status != 2 || errOut != "grep: no collection\n" {
		t.Errorf("Open failing: status %d, stderr %q", status, errOut)
	}
	if _, errOut, status := runEnv(open(ErrReported), "grep", "-r", "x"); status != 2 || errOut != "" {
		t.Errorf("Open failing with ErrReported: status %d, stderr %q", status, errOut)
	}
	// -f names a file of the FS, so Open is called to read it, once.
	calls = 0
	env := Env{Open: func(context.Context) (fs.FS, error) { calls++; return mapFS, nil }}
	if out, errOut, status := runEnv(env, "grep", "-f", "/a/x.md", "-r", "/a"); status != 0 || out != "/a/x.md:x\n" || calls != 1 {
		t.Errorf("grep -f /a/x.md -r /a: status %d, %q, stderr %q, %d opens", status, out, errOut, calls)
	}
}
