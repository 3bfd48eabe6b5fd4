package gnu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHumanSizes compares ls -lh and ls -l --si with GNU ls, and tree -h,
// --si and -s with tree 2.1, on sparse files of sizes around every
// rounding boundary.
func TestHumanSizes(t *testing.T) {
	dir := t.TempDir()
	sizes := map[int64]bool{}
	for _, base := range []int64{1000, 1024} {
		for p := base; p <= 1<<40; p *= base {
			for _, m := range []int64{1, 9, 10, 99, 100, 999, 1000, 1023, 1024} {
				for _, d := range []int64{-1, 0, 1} {
					// ext4 holds files up to 16 TiB.
					if n := m*p + d; n >= 0 && n < 1<<44 {
						sizes[n] = true
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		sizes[r.Int64N(1<<uint(r.IntN(43)+1))] = true
	}
	when := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for n := range sizes {
		p := filepath.Join(dir, fmt.Sprintf("f%020d", n))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(n); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][]string{{"ls", "-lh"}, {"ls", "-l", "--si"}, {"tree", "-h"}, {"tree", "--si"}, {"tree", "-s"}} {
		name, args := c[0], c[1:]
		want := normalize(name, args, runReal(t, dir, name, args))
		got := normalize(name, args, runOurs(dir, name, args))
		if got != want {
			gl, wl := strings.Split(got.stdout, "\n"), strings.Split(want.stdout, "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Errorf("%q line %d:\n ours %s\n real %s", c, i, gl[i], wl[i])
				}
			}
			if len(gl) != len(wl) || got.status != want.status || got.stderr != want.stderr {
				t.Errorf("%q: %d lines, status %d, %q; real: %d lines, status %d, %q", c, len(gl), got.status, got.stderr, len(wl), want.status, want.stderr)
			}
		}
	}
}

// TestFnmatch compares -name and -iname patterns with GNU find's
// fnmatch(3) on names with the characters patterns treat specially.
func TestFnmatch(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a", "abc", "ABC", "a.md", ".hidden", "b-c", "[x]", "x]", "*star", "q?", "back\\slash", "{a,b}", "é", "É", "ñx", "a b", "-dash", "^caret", "!bang", "z9", "Zz", "]", "[", "a[b"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	patterns := []string{
		"*", "a*", "*c", "?", "??", "[ab]*", "[!a]*", "[^a]*", "[a-c]*", "[]x]*", "[!]]*", "[x", "a[b", "\\*star", "*\\?",
		"[[:upper:]]*", "[[:alpha:]]", "[[:digit:]]", "*[[:space:]]*", "[[:punct:]]*", "{a,b}", "*]", "[*]*", "[-a]*", "[a-]*",
		"é", "[é]", "?x", "*.md", ".*", "[.]*", "back\\\\slash", "[[]", "[[]*", "[z-a]*", "[[:bogus:]]", "\\", "a\\",
	}
	for _, fold := range []bool{false, true} {
		pred := "-name"
		if fold {
			pred = "-iname"
		}
		for _, p := range patterns {
			args := []string{".", "-mindepth", "1", pred, p}
			want := normalize("find", args, runReal(t, dir, "find", args))
			got := normalize("find", args, runOurs(dir, "find", args))
			if got != want {
				t.Errorf("find %s %q:\n ours %q %q %d\n real %q %q %d", pred, p, got.stdout, got.stderr, got.status, want.stdout, want.stderr, want.status)
			}
		}
	}
}

// FuzzParsers: no argument list makes a command panic, and every command
// returns a status GNU tools use.
func FuzzParsers(f *testing.F) {
	for _, c := range differential {
		f.Add(strings.Join(c, "\x00"))
	}
	for _, c := range textDifferential {
		f.Add(strings.Join(c.args, "\x00"))
	}
	for _, c := range writeDifferential {
		f.Add(strings.Join(c, "\x00"))
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("x\n"), 0o644)
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		name := args[0]
		cmd, ok := commands[name]
		if !ok {
			return
		}
		var out, errb strings.Builder
		env := &Env{FS: os.DirFS(dir), Stdout: &out, Stderr: &errb}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		watchdog := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("%q still running after 20 s", args)) })
		defer watchdog.Stop()
		if status := cmd(ctx, env, args[1:]); status < 0 || status > 2 {
			t.Fatalf("%q: status %d", args, status)
		}
	})
}
