package gnu

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func runAwk(ctx context.Context, env *Env, args ...string) result {
	var out, errb bytes.Buffer
	env.Stdout, env.Stderr = &out, &errb
	status := Awk(ctx, env, args)
	return result{stdout: out.String(), stderr: errb.String(), status: status}
}

// TestAwkFrontEnd covers what the differential battery (shell) does not:
// help, version, program files through Env.ReadFile, the directory an
// operand resolves against, and the deadline's message.
func TestAwkFrontEnd(t *testing.T) {
	fsys := fstest.MapFS{
		"d/a.txt":  {Data: []byte("x y\n")},
		"p.awk":    {Data: []byte("{ print $2 }\n")},
		"bad.awk":  {Data: []byte("BEGIN {\n\tx = )\n}\n")},
		"host.awk": {Data: []byte("never read")},
	}
	env := func() *Env { return &Env{FS: fsys, Dir: "d", Version: "v1"} }
	tests := []struct {
		name string
		env  *Env
		args []string
		want result
	}{
		{"relative operand", env(), []string{"{ print $1 }", "a.txt"}, result{"x\n", "", 0}},
		{"absolute -f", env(), []string{"-f", "/p.awk", "a.txt"}, result{"y\n", "", 0}},
		{"--file=", env(), []string{"--file=/p.awk", "/d/a.txt"}, result{"y\n", "", 0}},
		{"syntax error in a file", env(), []string{"-f", "/bad.awk"}, result{"", "awk: /bad.awk:2: \tx = )\nawk: /bad.awk:2: \t    ^ syntax error\n", 1}},
		{"missing -f", env(), []string{"-f", "nope.awk"}, result{"", "awk: fatal: cannot open source file `nope.awk' for reading: No such file or directory\n", 2}},
		{"version", env(), []string{"--version"}, result{"awk (chromafs) v1\n", "", 0}},
		{"bad -v", env(), []string{"-v", "1x=2", "BEGIN {}"}, result{"", "", 1}},
		{"bad option", env(), []string{"-k", "BEGIN {}"}, result{"", "", 1}},
		{"-F attached", env(), []string{"-F:", "-vx=1", "{ print $2 x }"}, result{"", "", 0}},
		{"--assign", env(), []string{"--assign", "x=1", "--field-separator", ",", "BEGIN { print x FS }"}, result{"1,\n", "", 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runAwk(context.Background(), tc.env, tc.args...)
			if tc.want.stderr == "" && tc.want.status != 0 && got.stderr != "" {
				// a usage error: its text is checked against gawk's in the battery
				got.stderr = ""
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	e := env()
	e.ReadFile = func(name string) ([]byte, error) {
		if name == "host.awk" {
			return []byte("BEGIN { print \"host\" }"), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if got := runAwk(context.Background(), e, "-f", "host.awk"); got != (result{"host\n", "", 0}) {
		t.Errorf("ReadFile: got %+v", got)
	}
	if got := runAwk(context.Background(), env(), "--help"); got.status != 0 || !strings.HasPrefix(got.stdout, "Usage: awk ") {
		t.Errorf("help: got %+v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	e = env()
	e.Timeout = 50 * time.Millisecond
	got := runAwk(ctx, e, "BEGIN { while (1); }")
	if got.status != 2 || got.stderr != "awk: cmd. line:1: fatal: timed out after 50ms\n" {
		t.Errorf("deadline: got %+v", got)
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("the context did not end")
	}
}
