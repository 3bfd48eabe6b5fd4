package gnu

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

var mapFS = fstest.MapFS{
	"a/x.md":   {Data: []byte("x\n"), Mode: 0o444},
	"a/b/y.md": {Data: []byte("yy\n"), Mode: 0o444},
	"c/z":      {Data: []byte("z\n"), Mode: 0o444},
}

func runEnv(env Env, name string, args ...string) (string, string, int) {
	var out, errb strings.Builder
	env.Stdout, env.Stderr = &out, &errb
	if env.FS == nil && env.Open == nil {
		env.FS = mapFS
	}
	status := commands[name](context.Background(), &env, args)
	return out.String(), errb.String(), status
}

// TestDir: relative operands resolve against Env.Dir and print as given;
// ".." stops at the root.
func TestDir(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		args []string
		want string
	}{
		{"/a", []string{"ls"}, "b\nx.md\n"},
		{"/a", []string{"ls", "../c", "/c"}, "../c:\nz\n\n/c:\nz\n"},
		{"/a/b", []string{"find", "."}, ".\n./y.md\n"},
		{"/a/b", []string{"find", "../../../..", "-name", "z"}, "../../../../c/z\n"},
		{"/a", []string{"cat", "x.md", "b/y.md"}, "x\nyy\n"},
		{"/a", []string{"stat", "-c", "%n %s", "b/y.md"}, "b/y.md 3\n"},
		{"a", []string{"tree", "--noreport"}, ".\n├── b\n│\u00a0\u00a0 └── y.md\n└── x.md\n"},
	} {
		out, errOut, status := runEnv(Env{Dir: tc.dir}, tc.args[0], tc.args[1:]...)
		if out != tc.want || errOut != "" || status != 0 {
			t.Errorf("in %s, %q: status %d, %q, stderr %q; want %q", tc.dir, tc.args, status, out, errOut, tc.want)
		}
	}
}

// TestOpen: Env.Open is called only once the arguments have parsed, and
// its error is status 2.
func TestOpen(t *testing.T) {
	calls := 0
	fail := Env{Open: func(context.Context) (fs.FS, error) { calls++; return nil, errors.New("no collection") }}
	for _, args := range [][]string{{"ls", "--bogus"}, {"ls", "--help"}, {"cat", "--version"}, {"stat"}, {"tree", "-L"}, {"find", "/", "-bogus"}, {"find", "--help"}} {
		if _, _, status := runEnv(fail, args[0], args[1:]...); status == 0 && !strings.HasPrefix(args[1], "--") {
			t.Errorf("%q: status 0", args)
		}
	}
	if calls != 0 {
		t.Fatalf("Open called %d times for command lines that do not parse or ask for help", calls)
	}
	for _, name := range []string{"ls", "cat", "stat", "tree", "find"} {
		out, errOut, status := runEnv(fail, name, "/a/x.md")
		if status != 2 || errOut != name+": no collection\n" {
			t.Errorf("%s with a failing Open: status %d, stdout %q, stderr %q", name, status, out, errOut)
		}
	}
	ok := Env{Open: func(context.Context) (fs.FS, error) { return mapFS, nil }}
	if out, _, status := runEnv(ok, "ls", "/a"); status != 0 || out != "b\nx.md\n" {
		t.Errorf("ls with Open: %d %q", status, out)
	}
}

// TestCanceled: a canceled context stops a command with a failure status
// and a message.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"ls", "cat", "stat", "tree", "find"} {
		var out, errb strings.Builder
		status := commands[name](ctx, &Env{FS: mapFS, Stdout: &out, Stderr: &errb}, []string{"/a/x.md"})
		if status == 0 || !strings.Contains(errb.String(), "context canceled") {
			t.Errorf("%s with a canceled context: status %d, stderr %q", name, status, errb.String())
		}
	}
}

// TestStdin: cat reads Env.Stdin for "-" and without operands, and fails
// without one.
func TestStdin(t *testing.T) {
	if out, _, status := runEnv(Env{Stdin: strings.NewReader("in\n")}, "cat", "-n"); status != 0 || out != "     1\tin\n" {
		t.Errorf("cat -n from stdin: %d %q", status, out)
	}
	if out, _, status := runEnv(Env{Stdin: strings.NewReader("in\n")}, "cat", "/c/z", "-", "/c/z"); status != 0 || out != "z\nin\nz\n" {
		t.Errorf("cat z - z: %d %q", status, out)
	}
	if _, errOut, status := runEnv(Env{}, "cat"); status != 1 || !strings.Contains(errOut, "missing file operand") {
		t.Errorf("cat without stdin: %d %q", status, errOut)
	}
}
