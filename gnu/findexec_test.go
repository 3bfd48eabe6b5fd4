package gnu

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// TestFindExec checks what find hands Env.Exec: the command lines of
// -exec ; and {} +, the directories and ./NAME of -execdir, -ok's
// answers, and what find says when Exec is missing or fails.
func TestFindExec(t *testing.T) {
	fsys := fstest.MapFS{
		"d/a.md":   {Data: []byte("a\n")},
		"d/e/b.md": {Data: []byte("bb\n")},
	}
	type call struct {
		dir  string
		args string
	}
	run := func(stdin string, exec func(ctx context.Context, dir string, args []string) (int, error), args ...string) (calls []call, out, errOut string, st int) {
		var o, e bytes.Buffer
		env := &Env{FS: fsys, Stdout: &o, Stderr: &e, Dir: "/", Stdin: strings.NewReader(stdin)}
		if exec != nil {
			env.Exec = func(ctx context.Context, dir string, args []string) (int, error) {
				calls = append(calls, call{dir, strings.Join(args, " ")})
				fmt.Fprintf(env.Stdout, "ran %s\n", args[0])
				return exec(ctx, dir, args)
			}
		}
		st = Find(context.Background(), env, args)
		return calls, o.String(), e.String(), st
	}
	ok := func(context.Context, string, []string) (int, error) { return 0, nil }

	calls, out, _, st := run("", ok, "d", "-name", "*.md", "-print", "-exec", "x", "a{}b", "{}", ";")
	if want := []call{{"/", "x ad/a.mdb d/a.md"}, {"/", "x ad/e/b.mdb d/e/b.md"}}; fmt.Sprint(calls) != fmt.Sprint(want) || st != 0 {
		t.Errorf("-exec ;: calls %v, status %d", calls, st)
	}
	if out != "d/a.md\nran x\nd/e/b.md\nran x\n" {
		t.Errorf("-exec ;: output %q (find's own output must come first)", out)
	}
	calls, _, _, st = run("", func(context.Context, string, []string) (int, error) { return 1, nil }, "d", "-type", "f", "-exec", "x", "{}", "+")
	if want := []call{{"/", "x d/a.md d/e/b.md"}}; fmt.Sprint(calls) != fmt.Sprint(want) || st != 1 {
		t.Errorf("-exec +: calls %v, status %d (want 1: a command failed)", calls, st)
	}
	calls, _, _, _ = run("", ok, "d", "-type", "f", "-execdir", "x", "{}", "+")
	if want := []call{{"/d", "x ./a.md"}, {"/d/e", "x ./b.md"}}; fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("-execdir +: calls %v", calls)
	}
	calls, _, errOut, _ := run("y\nn\n", ok, "d", "-type", "f", "-ok", "x", "{}", ";")
	if want := []call{{"/", "x d/a.md"}}; fmt.Sprint(calls) != fmt.Sprint(want) || errOut != "< x ... d/a.md > ? < x ... d/e/b.md > ? " {
		t.Errorf("-ok: calls %v, stderr %q", calls, errOut)
	}
	_, _, errOut, st = run("", func(context.Context, string, []string) (int, error) { return 127, fs.ErrNotExist }, "d/a.md", "-exec", "nosuch", ";", "-print")
	if errOut != "find: ‘nosuch’: No such file or directory\n" || st != 0 {
		t.Errorf("missing command: stderr %q, status %d", errOut, st)
	}
	for _, args := range [][]string{{"-exec", "x", "{}", "y", "+"}, {"-exec", ";"}, {"-exec"}} {
		_, _, errOut, st = run("", ok, append([]string{"d"}, args...)...)
		if errOut != "find: missing argument to `-exec'\n" || st != 1 {
			t.Errorf("%q: stderr %q, status %d", args, errOut, st)
		}
	}
	_, out, errOut, st = run("", nil, "d", "-exec", "x", ";")
	if out != "" || errOut != "find: -exec: no command can be run here\n" || st != 1 {
		t.Errorf("without Exec: out %q, stderr %q, status %d", out, errOut, st)
	}
	// -delete implies -depth: the starting point comes last.
	_, out, errOut, st = run("", nil, "d/", "-printf", `%p|%h|%P|%f|%d|%y|%s|%k|%m|%#m|%M|%-3d|%.3f\n`, "-name", "b.md", "-delete")
	if want := "d/|.||d|0|d|0|0|555|0555|dr-xr-xr-x|0  |d\n"; !strings.HasSuffix(out, want) || errOut != "find: cannot delete ‘d/e/b.md’: Read-only file system\n" || st != 1 {
		t.Errorf("-printf, -delete: out %q, stderr %q, status %d", out, errOut, st)
	}
}
