package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// goDocs copies a real public documentation set — the Go distribution's
// doc/ tree and the Markdown files of its sources — into a temp dir.
func goDocs(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	dst := t.TempDir()
	n := 0
	copyFile := func(src, rel string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	for _, sub := range []string{"doc", "src"} {
		root := filepath.Join(goroot, sub)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || (sub == "src" && !strings.HasSuffix(p, ".md")) {
				return nil
			}
			rel, _ := filepath.Rel(goroot, p)
			copyFile(p, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 10 {
		t.Fatalf("only %d files found under %s", n, goroot)
	}
	return dst
}

// TestIndependentWriter loads real docs with an independent writer (a
// Python script that speaks Chroma's REST API: mid-line chunks, shuffled
// insertion, gzip tree without sizes, private subtrees) and checks that
// find lists exactly the visible files, cat reproduces every one byte for
// byte, ls and find agree with the real tools, and private pages are
// invisible without their group and readable with it.
func TestIndependentWriter(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is needed for the independent writer")
		}
		t.Skip("python3 not found")
	}
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	src := goDocs(t)
	cmd := exec.Command(python, "../../scripts/independent_writer.py", "--url", srv.URL, "--collection", coll,
		"--private", "doc/initial/=release", "--private", "src/runtime/=runtime", "--seed", "42", src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("independent writer: %v\n%s", err, out)
	}
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	isPrivate := func(p string) bool {
		return strings.HasPrefix(p, "doc/initial/") || strings.HasPrefix(p, "src/runtime/")
	}
	names, content := sourceFiles(t, src, func(p string) bool { return !isPrivate(p) })
	privNames, privContent := sourceFiles(t, src, isPrivate)
	if len(privNames) == 0 {
		t.Fatal("the corpus has no private pages")
	}

	out, errOut, code := cli(t, append(g, "find", "/", "-type", "f")...)
	var want []string
	for _, n := range names {
		want = append(want, "/"+n)
	}
	if got := sortedLines(out); code != 0 || !slices.Equal(got, want) {
		t.Fatalf("find / -type f: status %d %s\n%q\nwant\n%q", code, errOut, got, want)
	}
	for _, n := range names {
		out, errOut, code := cli(t, append(g, "cat", "/"+n)...)
		if code != 0 || out != string(content[n]) {
			t.Fatalf("cat /%s: status %d, stderr %q, %d bytes; want %d identical bytes", n, code, errOut, len(out), len(content[n]))
		}
	}
	dir := copyTree(t, content)
	wantFind := realTool(t, dir, "find", ".", "-type", "d")
	out, _, _ = cli(t, append(g, "find", "/", "-type", "d")...)
	var wantDirs []string
	for _, l := range sortedLines(wantFind) {
		wantDirs = append(wantDirs, "/"+strings.TrimPrefix(strings.TrimPrefix(l, "."), "/"))
	}
	slices.Sort(wantDirs)
	if got := sortedLines(out); !slices.Equal(got, wantDirs) {
		t.Fatalf("find / -type d:\n%q\nwant\n%q", got, wantDirs)
	}
	for _, d := range wantDirs {
		out, errOut, code := cli(t, append(g, "ls", d)...)
		wantLs := realTool(t, dir, "ls", "."+d)
		if code != 0 || out != wantLs {
			t.Fatalf("ls %s: status %d %s\n%s\nwant\n%s", d, code, errOut, out, wantLs)
		}
	}
	for _, n := range privNames {
		_, errOut, code := cli(t, append(g, "cat", "/"+n)...)
		if code != 1 || !strings.Contains(errOut, "No such file or directory") {
			t.Fatalf("cat /%s without group: status %d, %q", n, code, errOut)
		}
		group := "release"
		if strings.HasPrefix(n, "src/runtime/") {
			group = "runtime"
		}
		out, errOut, code := cli(t, append(g, "--groups", group, "cat", "/"+n)...)
		if code != 0 || out != string(privContent[n]) {
			t.Fatalf("cat /%s with --groups %s: status %d, %q", n, group, code, errOut)
		}
	}
	for _, d := range []string{"/doc/initial", "/src/runtime"} {
		if _, errOut, code := cli(t, append(g, "ls", d)...); code != 2 || !strings.Contains(errOut, "No such file or directory") {
			t.Fatalf("ls %s without group: status %d, %q", d, code, errOut)
		}
	}
	// validate finds no error (the writer leaves out the _system marker:
	// a warning).
	if out, _, code := cli(t, append(g, "validate", "-q")...); code != 0 {
		t.Fatalf("validate: status %d\n%s", code, out)
	}
}
