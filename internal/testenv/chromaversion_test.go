package testenv

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestChromaVersion(t *testing.T) {
	for _, tc := range []struct {
		env, want string
		err       bool
	}{
		{"", Chroma10, false},
		{"1.0", Chroma10, false},
		{"1.3", Chroma13, false},
		{"1.3.4", "", true},
		{"latest", "", true},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(EnvChromaVersion, tc.env)
			got, err := ChromaVersion()
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("ChromaVersion() = %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
			if err != nil && !strings.Contains(err.Error(), EnvChromaVersion) {
				t.Errorf("error %q does not name %s", err, EnvChromaVersion)
			}
		})
	}
}

// A bad version is a configuration error: it fails the test even outside
// CI, where a missing server would skip it.
func TestChromaVersionBadFails(t *testing.T) {
	t.Setenv(EnvChromaVersion, "0.9")
	t.Setenv("CHROMA_BIN", "")
	t.Setenv("CI", "")
	r := runRecorder(t, func(tb testing.TB) { NewChroma(tb) })
	if r.failed == "" || r.skipped != "" {
		t.Errorf("skipped=%q failed=%q, want a failure", r.skipped, r.failed)
	}
}

// TestChroma13 starts the Chroma 1.3 server and checks that the process
// answering is node under Debian 13's loader running chroma13's CLI, with
// the 1.3 bindings and that libc mapped (on Linux).
func TestChroma13(t *testing.T) {
	t.Setenv(EnvChromaVersion, Chroma13)
	t.Setenv("CHROMA_BIN", "")
	s := NewChroma(t)
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "internal", "testenv", "chroma13")
	s.mu.Lock()
	args := s.proc.cmd.Args
	pid := s.proc.cmd.Process.Pid
	s.mu.Unlock()
	if !strings.HasSuffix(args[0], "/ld-linux-x86-64.so.2") || !strings.HasPrefix(args[0], dir) {
		t.Errorf("command %q: not Debian 13's loader under %s", args, dir)
	}
	if cli := filepath.Join(dir, "node_modules", "chromadb", "dist", "cli.mjs"); !strings.Contains(strings.Join(args, " "), cli) {
		t.Errorf("command %q does not run %s", args, cli)
	}
	if runtime.GOOS != "linux" {
		return
	}
	maps, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "maps"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		filepath.Join(dir, "node_modules", "chromadb-js-bindings-linux-x64-gnu") + "/",
		filepath.Join(dir, "glibc", "usr", "lib", "x86_64-linux-gnu", "libc.so.6"),
	} {
		if !strings.Contains(string(maps), want) {
			t.Errorf("the server (pid %d) has not mapped %s", pid, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "chromadb-js-bindings-linux-x64-gnu", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"version": "1.3.`) {
		t.Errorf("chroma13's bindings are not 1.3.x:\n%s", b)
	}
}

// TestChroma13InMakefile keeps the Makefile's Chroma 1.3 pass in step
// with the tests: CHROMA13_RUN must be ^(Name|Name...)$ and each name a
// top-level test of a package in CHROMA13_PKGS (a renamed test would
// otherwise drop out of the pass unnoticed), the test-chroma13 target
// must run chromastore and that selection with CHROMAFS_CHROMA_VERSION=1.3
// and without -race, and make test must run test-chroma13.
func TestChroma13InMakefile(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	runPat := makeVar(t, mk, "CHROMA13_RUN")
	pkgs := strings.Fields(makeVar(t, mk, "CHROMA13_PKGS"))
	m := regexp.MustCompile(`^\^\(((?:Test\w*\|)*Test\w*)\)\$$`).FindStringSubmatch(runPat)
	if m == nil {
		t.Fatalf("CHROMA13_RUN %q: want ^(TestA|TestB|...)$, names this test can check", runPat)
	}
	_, tests := scanTests(t, root)
	for _, name := range strings.Split(m[1], "|") {
		found := false
		for _, p := range pkgs {
			found = found || slices.Contains(tests, testFunc{filepath.ToSlash(filepath.Clean(p)), name})
		}
		if !found {
			t.Errorf("CHROMA13_RUN names %s, which no package of CHROMA13_PKGS (%q) has: the Chroma 1.3 pass would not run it", name, pkgs)
		}
	}

	recipe := func(target string) []string {
		lines := strings.Split(string(mk), "\n")
		start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, target+":") })
		if start < 0 {
			t.Fatalf("the Makefile has no %s target", target)
		}
		var out []string
		for _, l := range lines[start+1:] {
			if !strings.HasPrefix(l, "\t") {
				break
			}
			out = append(out, l)
		}
		return out
	}
	for _, want := range []string{"./chromastore", "-run '$(CHROMA13_RUN)' $(CHROMA13_PKGS)"} {
		i := slices.IndexFunc(recipe("test-chroma13"), func(l string) bool {
			return strings.Contains(l, "CHROMAFS_CHROMA_VERSION=1.3 $(GO) test") && strings.HasSuffix(l, want) && !strings.Contains(l, "-race")
		})
		if i < 0 {
			t.Errorf("make test-chroma13 has no command `CHROMAFS_CHROMA_VERSION=1.3 $(GO) test ... %s` without -race", want)
		}
	}
	if !slices.ContainsFunc(recipe("test"), func(l string) bool { return strings.Contains(l, "test-chroma13") }) {
		t.Error("make test does not run test-chroma13")
	}
}
