package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
)

// goDocs copies a real public documentation set — the Go distribution's
// doc/ tree and the Markdown files of its sources — into a temp dir.
func goDocs(t testing.TB) string {
	t.Helper()
	return copyGoDocs(t, t.TempDir())
}

// copyGoDocs copies goDocs' files into dst and returns dst.
func copyGoDocs(t testing.TB, dst string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
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

// writeIndependent loads the files under src into a new collection with
// scripts/independent_writer.py: chunks cut at random offsets, shuffled,
// a gzip tree without sizes, doc/initial/ private to "release" and
// src/runtime/ private to "runtime"; extra are more of its flags.
func writeIndependent(t testing.TB, url, coll, src string, extra ...string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is needed for the independent writer")
		}
		t.Skip("python3 not found")
	}
	args := []string{"../../scripts/independent_writer.py", "--url", url, "--collection", coll,
		"--private", "doc/initial/=release", "--private", "src/runtime/=runtime", "--seed", "42"}
	cmd := exec.Command(python, append(append(args, extra...), src)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("independent writer: %v\n%s", err, out)
	}
}

// independentSite is goDocs written once per test binary by the
// independent writer (writeIndependent, with n-gram embeddings for the
// search checks) into a collection of the shared Chroma, for the tests
// that only read it. It returns the server's URL, the collection and the
// source directory.
func independentSite(t *testing.T) (url, coll, src string) {
	t.Helper()
	site := independentData.get(t, func(t *testing.T) (s indepSite) {
		dir, err := testenv.TempDir("chromafs-godocs-")
		if err != nil {
			t.Fatal(err)
		}
		s.url, s.coll, s.src = testenv.Chroma(t).URL, testenv.SharedCollectionName("independent-site"), copyGoDocs(t, dir)
		writeIndependent(t, s.url, s.coll, s.src, "--embedding", "ngram")
		return s
	})
	return site.url, site.coll, site.src
}

type indepSite struct{ url, coll, src string }

var independentData shared[indepSite]

// TestIndependentWriter loads real docs with an independent writer (a
// Python script that speaks Chroma's REST API: mid-line chunks, shuffled
// insertion, gzip tree without sizes, private subtrees) and checks that
// find lists exactly the visible files, cat reproduces every one byte for
// byte, ls and find agree with the real tools, and private pages are
// invisible without their group and readable with it.
func TestIndependentWriter(t *testing.T) {
	t.Parallel() // runs beside the tests that wait for timeouts
	url, coll, src := independentSite(t)
	g := []string{"--chroma-url", url, "--collection", coll}
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

	all := maps.Clone(content)
	maps.Copy(all, privContent)
	t.Run("search", func(t *testing.T) { checkSiteSearch(t, url, coll, names, content) })
	t.Run("grep", func(t *testing.T) {
		checkStraddles(t, url, coll, names, content)
		grepBatteryOnSite(t, g, dir, []string{"doc/initial/", "src/runtime/"})
		grepBatteryOnSite(t, append(slices.Clone(g), "--groups", "release,runtime"), copyTree(t, all), nil)
	})
}

// siteGrepBattery are the grep command lines run over the independently
// written site, each compared with GNU grep on the visible files.
var siteGrepBattery = [][]string{
	{"-rn", "the"},
	{"-rn", "Go"},
	{"-rc", "the"},
	{"-rl", "function"},
	{"-rL", "function"},
	{"-rni", "goroot"},
	{"-rw", "go"},
	{"-rwi", "GO"},
	{"-rx", "## Introduction"},
	{"-rv", "e"},
	{"-rcv", "e"},
	{"-ro", "go[a-z]*"},
	{"-rnoi", "runtime\\.[a-z]*"},
	{"-rnE", "func [A-Z][a-z]+\\("},
	{"-rE", "(Go|Golang) [0-9]+\\.[0-9]+"},
	{"-rG", "pack\\(age\\)\\{1,2\\}"},
	{"-rG", "a\\|the\\+"},
	{"-rn", "-A2", "-B1", "Deprecated"},
	{"-rn", "-C1", "TODO"},
	{"-r", "-2", "garbage collector"},
	{"-rh", "release"},
	{"-rH", "-m1", "release"},
	{"-rc", "-m2", "the"},
	{"-rq", "the"},
	{"-rq", "no such string anywhere 1234"},
	{"-rn", "no such string anywhere 1234"},
	{"-rF", "-e", "[link]", "-e", "(see"},
	{"-rn", "--include=*.md", "memory"},
	{"-rl", "--exclude=*.html", "memory"},
	{"-rl", "--exclude-dir=runtime", "memory"},
	{"-rlZ", "memory"},
	{"-rn", "memory", "doc"},
	{"-rn", "memory", "src", "doc/go_spec.html"},
	{"-n", "memory", "doc"},
	{"-rn", "memory", "nonexistent"},
	{"-rs", "memory", "nonexistent"},
	{"-r", "a\\{1"},
	{"-rE", "("},
	{"-r", "["},
	{"-ri", "ß"},
	{"-r", "."},
	{"-rc", ""},
}

// grepBatteryOnSite runs siteGrepBattery with `chromafs grep` (global
// flags g) and with GNU grep in dir, a copy of the files g may see, and
// requires identical output (sorted: GNU walks directories in readdir
// order) and status. No output line starts with one of hidden (the
// directories of pages g may not see).
func grepBatteryOnSite(t *testing.T, g []string, dir string, hidden []string) {
	t.Helper()
	bin := gnuGrep(t)
	patFile := filepath.Join(t.TempDir(), "patterns")
	if err := os.WriteFile(patFile, []byte("heap\nstack\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	battery := append(slices.Clone(siteGrepBattery), []string{"-rn", "-f", patFile})
	for _, args := range battery {
		out, errOut, code := cli(t, append(append(slices.Clone(g), "grep"), args...)...)
		wantOut, wantErr, wantCode := runGNU(t, bin, dir, args)
		if slices.Contains(args, "-rlZ") { // names end in NUL, not newline
			out, wantOut = strings.ReplaceAll(out, "\x00", "\x00\n"), strings.ReplaceAll(wantOut, "\x00", "\x00\n")
		}
		if code != wantCode || !slices.Equal(sortedLines(out), sortedLines(wantOut)) || errOut != gnuNames(wantErr) {
			t.Errorf("grep %q: status %d, %d lines, stderr %q; GNU grep: status %d, %d lines, stderr %q\nfirst difference: %s",
				args, code, strings.Count(out, "\n"), errOut, wantCode, strings.Count(wantOut, "\n"), wantErr, firstDiff(sortedLines(out), sortedLines(wantOut)))
		}
		for _, l := range strings.Split(out, "\n") {
			for _, h := range hidden {
				if strings.HasPrefix(l, h) {
					t.Errorf("grep %q printed a hidden page: %q", args, l)
				}
			}
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("line %d: %q vs %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}

// checkStraddles makes sure that the site exercises matches across chunk
// boundaries: it counts the occurrences of literals that the battery
// searches for which straddle two chunks (Chroma's $contains, which sees
// one chunk at a time, cannot find them), and requires some.
func checkStraddles(t *testing.T, url, coll string, names []string, content map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	c, err := chromastore.Open(ctx, chromastore.Config{URL: url, Collection: coll})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	chunks, err := c.Chunks(ctx, collection.DefaultLayout(), names)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(chunks, func(a, b collection.Chunk) int {
		return cmp.Or(strings.Compare(a.Slug, b.Slug), a.Index-b.Index)
	})
	cuts := map[string][]int{} // page -> offsets where a chunk starts
	off := map[string]int{}
	for _, ch := range chunks {
		if off[ch.Slug] > 0 {
			cuts[ch.Slug] = append(cuts[ch.Slug], off[ch.Slug])
		}
		off[ch.Slug] += len(ch.Text)
	}
	for _, lit := range []string{"the", "memory", "release", "function"} {
		n := 0
		for _, name := range names {
			for _, cut := range cuts[name] {
				lo := max(0, cut-len(lit)+1)
				hi := min(len(content[name]), cut+len(lit)-1)
				if i := bytes.Index(content[name][lo:hi], []byte(lit)); i >= 0 && lo+i < cut {
					n++
				}
			}
		}
		t.Logf("%q straddles a chunk boundary %d times", lit, n)
		if lit == "the" && n == 0 {
			t.Fatal("no occurrence of \"the\" straddles chunks: the site does not exercise straddling matches")
		}
	}
}
