package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testenv"
)

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
	cmd := exec.Command(bin, args...)
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

// gnuNames rewrites GNU grep's program name in diagnostics to ours.
func gnuNames(s string) string {
	s = strings.ReplaceAll(s, "Usage: grep ", "Usage: "+grepProg+" ")
	s = strings.ReplaceAll(s, "Try 'grep --help'", "Try '"+grepProg+" --help'")
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "grep: ") {
			l = grepProg + l[len("grep"):]
		}
		b.WriteString(l)
	}
	return b.String()
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

// TestGrepEndToEnd runs chromafs grep over a real Chroma collection of
// examples/docs and compares it with GNU grep over the visible files.
func TestGrepEndToEnd(t *testing.T) {
	bin := gnuGrep(t)
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if out, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	_, content := sourceFiles(t, docsDir, public)
	dir := copyTree(t, content)
	for _, args := range [][]string{
		{"-rn", "the"}, {"-ric", "api"}, {"-rl", "token"}, {"-rL", "token"}, {"-rw", "-C1", "users", "reference"},
		{"-r", "--include=*.md", "-o", "[A-Z][a-z]*ing", "guides", "concepts"}, {"-h", "-i", "install", "index.md"},
		{"-rE", "^#+ ", "guides/"}, {"-q", "zzz-nothing", "index.md"}, {"oncall", "internal/oncall.md"},
	} {
		out, errOut, code := cli(t, append(append(g, "grep"), args...)...)
		wantOut, wantErr, wantCode := runGNU(t, bin, dir, args)
		if isRecursive(args) {
			out, wantOut = sortLines(out), sortLines(wantOut)
		}
		if code != wantCode || out != wantOut || errOut != gnuNames(wantErr) {
			t.Errorf("grep %q: status %d\nstdout %q\nstderr %q\nwant (GNU grep) status %d\nstdout %q\nstderr %q",
				args, code, out, errOut, wantCode, wantOut, gnuNames(wantErr))
		}
	}
	// Absolute operands print as given.
	out, errOut, code := cli(t, append(g, "grep", "-r", "-l", "token", "/")...)
	want, _, _ := runGNU(t, bin, dir, []string{"-r", "-l", "token", "."})
	if code != 0 || sortLines(out) != sortLines(strings.ReplaceAll(want, "./", "/")) {
		t.Errorf("grep -rl token /: status %d, stderr %q\n%s\nwant\n%s", code, errOut, out, want)
	}
}

// hugePatternFile writes n distinct random 12-letter words to a file and
// returns its path.
func hugePatternFile(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "patterns")
	if err := os.WriteFile(p, []byte(strings.Join(gen.Words(n, 5), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGrepHugePatternListProcess runs the built binary on a huge -f file
// (300,000 words with -i, seconds of compilation): with --timeout 1s it
// stops compiling at the deadline and says so, with status 2; and
// SIGTERM during the compilation ends it promptly, also with status 2.
// (Compilation used to take time quadratic in the number of patterns and
// observed neither the deadline nor the signal.)
func TestGrepHugePatternListProcess(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if out, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	bin := chromafsBinary(t)
	const n = 300_000
	pats := hugePatternFile(t, n)

	t.Run("timeout", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		var err error
		var elapsed time.Duration
		// The second is the whole command's: on a loaded machine it can
		// end while the collection is still being opened, before any
		// pattern is compiled, which this test is not about; it tries
		// again then, up to three times.
		for attempt := 1; ; attempt++ {
			cmd := exec.Command(bin, append(g, "--timeout", "1s", "grep", "-i", "-rl", "-f", pats, "/")...)
			stdout.Reset()
			stderr.Reset()
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err = cmd.Run()
			elapsed = time.Since(start)
			early := strings.Contains(stderr.String(), "context deadline exceeded") && !strings.Contains(stderr.String(), "compiling")
			if !early || attempt == 3 {
				break
			}
			t.Logf("attempt %d: the deadline struck before compiling (%q); again", attempt, stderr.String())
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("status: %v, want 2\nstdout %q\nstderr %q", err, stdout.String(), stderr.String())
		}
		want := "chromafs grep: timed out after 1s while compiling 300000 patterns\n"
		if stderr.String() != want || stdout.Len() != 0 {
			t.Errorf("stdout %q, stderr %q; want no output and %q", stdout.String(), stderr.String(), want)
		}
		if elapsed > 10*time.Second {
			t.Errorf("exited after %v with --timeout 1s", elapsed)
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		cmd := exec.Command(bin, append(g, "grep", "-i", "-rl", "-f", pats, "/")...)
		cmd.Env = append(os.Environ(), "CHROMAFS_TRACE=1")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		// The trace's session phase ends just before the search, which
		// starts by compiling.
		var rest bytes.Buffer
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "session (") {
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
		sent := time.Now()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			rest.WriteString(sc.Text() + "\n")
		}
		err = cmd.Wait()
		elapsed := time.Since(sent)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("status: %v, want 2\nstderr %q", err, rest.String())
		}
		if want := "chromafs grep: interrupted while compiling 300000 patterns\n"; !strings.Contains(rest.String(), want) {
			t.Errorf("stderr %q; want %q", rest.String(), want)
		}
		if elapsed > 10*time.Second {
			t.Errorf("exited %v after SIGTERM", elapsed)
		}
		t.Logf("exited %v after SIGTERM", elapsed)
	})
}
