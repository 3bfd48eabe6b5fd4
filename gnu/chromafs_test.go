package gnu_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/gnu"
	"github.com/chromafs/chromafs/memstore"
)

// docsFS loads examples/docs (its public pages) into an in-memory store
// and opens a chromafs.FS on it, with every page modified at mod (zero:
// the tree records no times).
func docsFS(t *testing.T, mod time.Time) (*chromafs.FS, map[string]string) {
	t.Helper()
	files := map[string]string{}
	root := "../examples/docs"
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "internal/") {
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	mem := memstore.New("docs")
	if err := memstore.Load(mem, collection.DefaultLayout(), files, memstore.LoadOptions{ChunkSize: 100, WithSizes: true, ModTime: mod}); err != nil {
		t.Fatal(err)
	}
	fsys, err := chromafs.New(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	return fsys, files
}

// mirror writes the files of fsys to a temp dir with the same modes and
// modification times, for the real tools.
func mirror(t *testing.T, fsys fs.FS) string {
	t.Helper()
	dir := t.TempDir()
	var dirs []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			dirs = append(dirs, p)
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.Chtimes(dst, fi.ModTime(), fi.ModTime()); err != nil {
			return err
		}
		return os.Chmod(dst, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	// Directories last, deepest first: their times and modes after their
	// contents are written.
	slices.Reverse(dirs)
	for _, p := range dirs {
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.Chtimes(dst, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dst, fi.Mode().Perm()|0o200); err != nil { // writable, for t.TempDir's cleanup
			t.Fatal(err)
		}
	}
	return dir
}

var (
	spaces  = regexp.MustCompile(` +`)
	dirSize = regexp.MustCompile(`(?m)^(d\S+ \d+ \S+ \S+) \d+ `)
	owners  = regexp.MustCompile(`(?m)^(\S{10} \d+) root root `)
	totals  = regexp.MustCompile(`(?m)^total \S+$`)
)

// normLong makes ls -l output comparable across chromafs and a real
// directory: single spaces, owner, directory sizes (a real directory has
// 4096 bytes, a chromafs one 0), write bits (the copy must be writable
// to be removed) and the total line.
func normLong(s string) string {
	s = spaces.ReplaceAllString(s, " ")
	s = owners.ReplaceAllString(s, "$1 chromafs chromafs ")
	s = dirSize.ReplaceAllString(s, "$1 * ")
	s = totals.ReplaceAllString(s, "total *")
	return strings.ReplaceAll(s, "drwxr-xr-x", "dr-xr-xr-x")
}

// TestChromaFS runs the commands over a chromafs.FS (grep with its
// accelerations) and the real tools over a copy of its files.
func TestChromaFS(t *testing.T) {
	fsys, _ := docsFS(t, time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC))
	dir := mirror(t, fsys)
	for _, c := range [][]string{
		{"ls"},
		{"ls", "-R"},
		{"ls", "-l", "guides/auth"},
		{"ls", "-lR"},
		{"ls", "-lhS", "reference/api"},
		{"ls", "-d", "guides", "index.md"},
		{"ls", "nope"},
		{"ls", "guides/auth/oauth.mdx", "reference"},
		{"cat", "index.md", "guides/quickstart.md"},
		{"cat", "-n", "guides/quickstart.md"},
		{"cat", "guides"},
		{"cat", "nope"},
		{"stat", "-c", "%n|%s|%F|%a|%A|%Y|%y|%h", "index.md", "guides/quickstart.md"},
		{"stat", "nope"},
		{"tree"},
		{"tree", "-L", "1"},
		{"tree", "-d", "guides", "reference"},
		{"tree", "index.md"},
		{"tree", "nope"},
		{"find", ".", "-name", "*.md"},
		{"find", "guides", "-type", "f", "-size", "-2k"},
		{"find", ".", "-newer", "index.md"},
		{"find", ".", "-empty"},
		{"find", ".", "-name", "*.md", "-o", "-type", "d", "-print0"},
		{"find", "nope"},
		{"grep", "-rn", "token"},
		{"grep", "-rli", "oauth", "guides", "nope"},
		{"grep", "-c", "the", "index.md", "guides/quickstart.md"},
		{"grep", "-rw", "-C1", "users", "reference"},
		{"grep", "-rho", "[A-Z][a-z]*ing", "."},
		{"egrep", "-rc", "token|oauth", "guides"},
	} {
		name, args := c[0], c[1:]
		real := exec.Command(name, args...)
		real.Dir = dir
		real.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "TZ=UTC")
		var rout, rerr bytes.Buffer
		real.Stdout, real.Stderr = &rout, &rerr
		err := real.Run()
		rstatus := 0
		if ee, ok := err.(*exec.ExitError); ok {
			rstatus = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		status := lookup(t, name)(context.Background(), &gnu.Env{FS: fsys, Stdout: &out, Stderr: &errb, Location: time.UTC}, args)
		got, want := out.String(), rout.String()
		switch {
		case name == "ls" && slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") && strings.Contains(a, "l") }):
			got, want = normLong(got), normLong(want)
		case name == "find", strings.HasSuffix(name, "grep") && strings.Contains(args[0], "r"):
			got, want = sortLines(got), sortLines(want)
		}
		if got != want || errb.String() != rerr.String() || status != rstatus {
			t.Errorf("%q:\n--- ours (status %d)\n%s%s--- real (status %d)\n%s%s", c, status, got, errb.String(), rstatus, want, rerr.String())
		}
	}
}

func sortLines(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == 0 })
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestZeroModTime: a tree without modification times shows "?" in ls -l
// (as GNU ls shows a time it cannot get) and "-" in stat, never 1970.
func TestZeroModTime(t *testing.T) {
	fsys, _ := docsFS(t, time.Time{})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", "-l", "guides/auth"}, "-r--r--r-- 1 chromafs chromafs 822            ? oauth.mdx\n"},
		{[]string{"stat", "-c", "%y|%Y", "index.md"}, "-|0\n"},
		{[]string{"stat", "index.md"}, "Modify: -\n"},
	} {
		var out, errb bytes.Buffer
		status := lookup(t, c.args[0])(context.Background(), &gnu.Env{FS: fsys, Stdout: &out, Stderr: &errb}, c.args[1:])
		if status != 0 || !strings.Contains(out.String(), c.want) || strings.Contains(out.String(), "1970") {
			t.Errorf("%q: status %d, %q %s; want a line %q", c.args, status, out.String(), errb.String(), c.want)
		}
	}
}

// lookup is gnu's command called name; it fails t when there is none.
func lookup(t *testing.T, name string) gnu.Func {
	t.Helper()
	f, ok := gnu.Lookup(name)
	if !ok {
		t.Fatalf("gnu.Lookup(%q): no such command", name)
	}
	return f
}
