package main

import (
	"bytes"
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// shared is data that several tests read and that is made once per test
// binary, by the first test that asks for it (a collection written to the
// shared Chroma, say). The setup must not tie what it makes to that test
// (no t.TempDir, testenv.CollectionName or t.Cleanup): use testenv.TempDir
// and testenv.SharedCollectionName.
type shared[T any] struct {
	mu    sync.Mutex
	state int // 0 not made, 1 made, 2 setup failed, 3 setup skipped
	v     T
}

// get returns the data, running setup with t if no test has yet. When
// setup failed or skipped its test, every later caller fails or skips too.
func (s *shared[T]) get(t *testing.T, setup func(t *testing.T) T) T {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == 0 {
		s.state = 2
		defer func() {
			if s.state == 2 && t.Skipped() {
				s.state = 3
			}
		}()
		s.v = setup(t)
		s.state = 1
	}
	switch s.state {
	case 2:
		t.Fatal("the shared test data could not be made: see the first test that asked for it")
	case 3:
		t.Skip("the shared test data was skipped: see the first test that asked for it")
	}
	return s.v
}

const docsDir = "../../examples/docs"

// cli runs the command in-process and returns its output and status.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// sourceFiles lists the files under dir (slash paths, sorted) and their content.
func sourceFiles(t testing.TB, dir string, keep func(string) bool) ([]string, map[string][]byte) {
	t.Helper()
	var names []string
	content := map[string][]byte{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !keep(p) {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		names = append(names, p)
		content[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names, content
}

func public(p string) bool { return !strings.HasPrefix(p, "internal/") }
func all(string) bool      { return true }

// copyTree copies the files of names into a new temp dir, for running the
// real ls and find on exactly the visible files.
func copyTree(t testing.TB, content map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for p, b := range content {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// realTool runs a coreutils/findutils command in dir and returns its output.
func realTool(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v", name, args, err)
	}
	return string(out)
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(lines)
	return lines
}

// TestEndToEnd ingests examples/docs into a real Chroma and checks ls,
// cat, find and access control against the source files and the real
// tools.
func TestEndToEnd(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}

	out, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...)
	if code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "added") {
		t.Fatalf("ingest output %q does not report what it added", out)
	}
	// Re-ingest changes nothing.
	out, _, code = cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...)
	if code != 0 || !strings.Contains(out, " 0 added, 0 updated") {
		t.Fatalf("re-ingest: status %d, %q; want nothing added or updated", code, out)
	}
	checkCollection(t, g)

	// validate is clean on our own collection.
	if out, errOut, code := cli(t, append(g, "validate")...); code != 0 {
		t.Fatalf("validate: status %d\n%s%s", code, out, errOut)
	}
}

// TestForeignCollection: a collection written the way other writers do it
// (mid-line chunks, shuffled insertion, gzip tree without sizes) reads
// back byte for byte.
func TestForeignCollection(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	_, content := sourceFiles(t, docsDir, all)
	files := map[string]string{}
	for p, b := range content {
		files[p] = string(b)
	}
	mem := memstore.New("foreign")
	err := memstore.Load(mem, collection.DefaultLayout(), files, memstore.LoadOptions{
		ChunkSize:  61,
		Shuffle:    rand.New(rand.NewPCG(7, 9)),
		Compressed: true,
		Access: func(slug string) (bool, []string) {
			if strings.HasPrefix(slug, "internal/") {
				return false, []string{"staff"}
			}
			return true, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, Collection: coll})
	if err := c.Upsert(ctx, mem.Records()); err != nil {
		t.Fatal(err)
	}
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	checkCollection(t, g)

	// Corrupt one page: validate reports it and cat refuses it.
	ids, err := c.ChunkIDs(ctx, collection.DefaultLayout(), []string{"guides/quickstart.md"})
	if err != nil || len(ids["guides/quickstart.md"]) < 3 {
		t.Fatalf("ChunkIDs = %v, %v", ids, err)
	}
	if err := c.Delete(ctx, ids["guides/quickstart.md"][1:2]); err != nil {
		t.Fatal(err)
	}
	out, _, code := cli(t, append(g, "validate")...)
	if code != 1 || !strings.Contains(out, "guides/quickstart.md") || !strings.Contains(out, "missing chunk index") {
		t.Fatalf("validate after deleting a chunk: status %d\n%s", code, out)
	}
	out, errOut, code := cli(t, append(g, "cat", "/guides/quickstart.md")...)
	if code == 0 || out != "" || !strings.Contains(errOut, "missing chunk index") {
		t.Fatalf("cat of a corrupt page: status %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func checkCollection(t *testing.T, g []string) {
	names, content := sourceFiles(t, docsDir, public)
	_, allContent := sourceFiles(t, docsDir, all)

	// find / -type f lists exactly the visible files, as GNU find would.
	out, errOut, code := cli(t, append(g, "find", "/", "-type", "f")...)
	if code != 0 {
		t.Fatalf("find: status %d: %s", code, errOut)
	}
	var want []string
	for _, n := range names {
		want = append(want, "/"+n)
	}
	if got := sortedLines(out); !slices.Equal(got, want) {
		t.Fatalf("find / -type f:\n%q\nwant\n%q", got, want)
	}

	// cat of every visible file is byte-identical.
	for _, n := range names {
		out, errOut, code := cli(t, append(g, "cat", "/"+n)...)
		if code != 0 || out != string(content[n]) {
			t.Fatalf("cat /%s: status %d, stderr %q, %d bytes; want %d bytes identical", n, code, errOut, len(out), len(content[n]))
		}
	}

	// Private pages are invisible without the group, readable with it.
	for _, p := range []string{"/internal/oncall.md", "/internal/runbooks/rotate-signing-key.md", "/internal"} {
		_, errOut, code := cli(t, append(g, "cat", p)...)
		if code != 1 || !strings.Contains(errOut, "No such file or directory") {
			t.Fatalf("cat %s without group: status %d, stderr %q", p, code, errOut)
		}
		_, errOut, code = cli(t, append(g, "ls", p)...)
		if code != 2 || !strings.Contains(errOut, "No such file or directory") {
			t.Fatalf("ls %s without group: status %d, stderr %q", p, code, errOut)
		}
	}
	out, errOut, code = cli(t, append(g, "--groups", "staff", "cat", "/internal/oncall.md")...)
	if code != 0 || out != string(allContent["internal/oncall.md"]) {
		t.Fatalf("cat with --groups staff: status %d, stderr %q, %q", code, errOut, out)
	}

	// ls and find agree with the real tools on a copy of the visible files.
	dir := copyTree(t, content)
	for _, args := range [][]string{{"/"}, {"/guides"}, {"/reference", "/guides/auth"}, {"/index.md", "/concepts"}} {
		out, errOut, code := cli(t, append(append(g, "ls"), args...)...)
		var rel []string
		for _, a := range args {
			rel = append(rel, "."+a)
		}
		wantOut := realTool(t, dir, "ls", rel...)
		wantOut = strings.ReplaceAll(wantOut, "./", "/")
		wantOut = strings.ReplaceAll(wantOut, ".:", "/:")
		if code != 0 || out != wantOut {
			t.Errorf("ls %q: status %d, stderr %q\n%s\nwant (ls)\n%s", args, code, errOut, out, wantOut)
		}
	}
	for _, args := range [][]string{
		{"/", "-name", "*.md"},
		{"/guides", "-type", "d"},
		{"/reference", "-path", "*/api/*"},
		{"/", "-maxdepth", "1"},
		{"/", "-mindepth", "2", "-type", "f", "!", "-name", "*.md"},
		{"/", "-iname", "MAKEFILE"},
	} {
		out, errOut, code := cli(t, append(append(g, "find"), args...)...)
		realArgs := append([]string{"." + args[0]}, args[1:]...)
		wantOut := realTool(t, dir, "find", realArgs...)
		var want []string
		for _, l := range sortedLines(wantOut) {
			l = strings.TrimPrefix(l, ".")
			if l == "" {
				l = "/"
			}
			want = append(want, strings.Replace(l, "//", "/", 1))
		}
		slices.Sort(want)
		if code != 0 || !slices.Equal(sortedLines(out), want) {
			t.Errorf("find %q: status %d, stderr %q\n%q\nwant (find)\n%q", args, code, errOut, sortedLines(out), want)
		}
	}

	// stat reports the true size, from the tree or by reading the page.
	out, _, code = cli(t, append(g, "stat", "/reference/api/users.md")...)
	if code != 0 || !strings.Contains(out, "Size: "+itoa(len(content["reference/api/users.md"]))) {
		t.Fatalf("stat: status %d\n%s", code, out)
	}

	// tree shows every visible file once.
	out, _, code = cli(t, append(g, "tree", "/")...)
	if code != 0 || !strings.HasSuffix(out, itoa(len(names))+" files\n") || strings.Contains(out, "internal") {
		t.Fatalf("tree /: status %d\n%s", code, out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
