package webdavfs_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// Real WebDAV clients from Debian (installed by `make deps-tools` and
// .ci/run). A missing client skips its test, or fails it under CI=true.

func client(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (apt-get install %s): %v", name, name, err)
		}
		t.Skipf("%s is not installed (apt-get install %s)", name, name)
	}
	return p
}

// run runs a client with a time limit, in dir, with HOME set to dir so
// that no user configuration (.netrc, .cadaverrc, rclone.conf) applies.
func run(t *testing.T, dir, stdin string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "RCLONE_CONFIG="+filepath.Join(dir, "rclone.conf"))
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// clientEnv serves the corpus from real Chroma.
func clientEnv(t *testing.T) *env {
	files := corpus(t)
	store := testbackend.Chroma(t)
	ingestFiles(t, store, files)
	return newEnv(t, store, files, webdavfs.Options{})
}

// readTree reads every regular file under dir.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var litmusSuites = []string{"basic", "copymove", "props", "locks", "http"}

// TestLitmus runs every litmus suite. Each suite's setup (DELETE and
// MKCOL of /litmus/) must be refused with 405 and the Allow header, which
// stops the suite: a read-only server can pass nothing more. The debug log
// must show no request that was not refused, and the store is unchanged.
func TestLitmus(t *testing.T) {
	litmus := client(t, "litmus")
	e := clientEnv(t)
	before := snapshot(t, e.store)
	dir := t.TempDir()
	out, _ := run(t, dir, "", litmus, "--keep-going", e.srv.URL+"/") // exits 1: the suites fail
	t.Logf("litmus output:\n%s", out)
	for _, suite := range litmusSuites {
		i := strings.Index(out, "-> running `"+suite+"':")
		if i < 0 {
			t.Errorf("suite %s did not run", suite)
			continue
		}
		rest := out[i:]
		if j := strings.Index(rest, "<- summary"); j >= 0 {
			rest = rest[:j]
		}
		if !regexp.MustCompile(`0\. init\.+ pass`).MatchString(rest) {
			t.Errorf("suite %s: init did not pass", suite)
		}
		if !regexp.MustCompile("1\\. begin\\.+ FAIL \\(Could not create new collection `/litmus/' for tests: 405 Method Not Allowed").MatchString(rest) {
			t.Errorf("suite %s: begin was not refused with 405", suite)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, "debug.log"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := parseNeonLog(t, string(log))
	if len(reqs) < 2*len(litmusSuites) {
		t.Errorf("debug.log has %d requests, want at least %d", len(reqs), 2*len(litmusSuites))
	}
	for _, r := range reqs {
		if r.status != 405 || r.allow != webdavfs.Allow {
			t.Errorf("litmus %s %s = %d, Allow %q; want 405 and %q", r.method, r.path, r.status, r.allow, webdavfs.Allow)
		}
		if r.method != "DELETE" && r.method != "MKCOL" {
			t.Errorf("unexpected litmus request %s %s", r.method, r.path)
		}
	}
	if after := snapshot(t, e.store); after != before {
		t.Error("litmus changed the store")
	}
}

type neonRequest struct {
	method, path string
	status       int
	allow        string
}

// parseNeonLog reads the requests and answers from neon's debug log.
func parseNeonLog(t *testing.T, log string) []neonRequest {
	reqLine := regexp.MustCompile(`^([A-Z]+) (\S+) HTTP/1\.1$`)
	statusLine := regexp.MustCompile(`^\[status-line\] < HTTP/1\.1 (\d{3}) `)
	var out []neonRequest
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		line := sc.Text()
		if m := reqLine.FindStringSubmatch(line); m != nil {
			out = append(out, neonRequest{method: m[1], path: m[2]})
		} else if m := statusLine.FindStringSubmatch(line); m != nil && len(out) > 0 {
			out[len(out)-1].status, _ = strconv.Atoi(m[1])
		} else if a, ok := strings.CutPrefix(line, "[hdr] Allow: "); ok && len(out) > 0 {
			out[len(out)-1].allow = a
		}
	}
	return out
}

// TestCadaver drives cadaver from a script on stdin: ls and get work (the
// private directory is not listed for an anonymous user), every write
// command is refused with 405, and the store is unchanged.
func TestCadaver(t *testing.T) {
	cadaver := client(t, "cadaver")
	e := clientEnv(t)
	before := snapshot(t, e.store)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "up.md"), []byte("upload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writes := []string{
		"put up.md new.md", "put up.md quickstart.md", "mkcol newdir", "delete quickstart.md",
		"copy quickstart.md c.md", "move quickstart.md m.md", "propset quickstart.md foo bar",
		"lock quickstart.md", "unlock quickstart.md\nopaquelocktoken:x",
	}
	script := "ls\ncd guides\nls\nget quickstart.md got.md\n" + strings.Join(writes, "\n") + "\nquit\n"
	out, err := run(t, dir, script, cadaver, e.srv.URL+"/")
	if err != nil {
		t.Fatalf("cadaver: %v\n%s", err, out)
	}
	t.Logf("cadaver output:\n%s", out)
	if strings.Contains(out, "not WebDAV-enabled") {
		t.Error("cadaver did not recognise the server (OPTIONS)")
	}
	vis := visible(e.files, false)
	for _, want := range []string{
		"Listing collection `/': succeeded.",
		"Listing collection `/guides/': succeeded.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cadaver output lacks %q", want)
		}
	}
	// The progress dots vary with timing.
	if !regexp.MustCompile("Downloading `/guides/quickstart.md' to got.md:[^\n]*succeeded\\.").MatchString(out) {
		t.Error("cadaver get did not succeed")
	}
	// Listings: every visible entry with its size, nothing else.
	lsLine := regexp.MustCompile(`(?m)^(Coll:)?\s+(\S+)\s+(\d+)\s+\w{3}\s+\d+\s+\d+:?\d*$`)
	var listed []string
	for _, m := range lsLine.FindAllStringSubmatch(out, -1) {
		name := m[2]
		if m[1] != "" {
			listed = append(listed, name+"/")
			continue
		}
		listed = append(listed, name)
		size, _ := strconv.Atoi(m[3])
		found := false
		for _, slug := range []string{name, "guides/" + name} {
			if c, ok := vis[slug]; ok && len(c) == size {
				found = true
			}
		}
		if !found {
			t.Errorf("cadaver lists %s with size %d: no such visible file", name, size)
		}
	}
	slices.Sort(listed)
	want := []string{".well-known/", "api/", "auth/", "concepts/", "empty.md", "guides/", "i18n/", "index.md", "quickstart.md", "reference/"}
	if !slices.Equal(listed, want) {
		t.Errorf("cadaver ls listed %q, want %q", listed, want)
	}
	got, err := os.ReadFile(filepath.Join(dir, "got.md"))
	if err != nil || string(got) != e.files["guides/quickstart.md"] {
		t.Errorf("get: %q, %v", got, err)
	}
	// Each write command's output ends in "failed:" and a 405.
	failures := regexp.MustCompile(`failed:\s*\n405 Method Not Allowed`).FindAllStringIndex(out, -1)
	if len(failures) != len(writes) {
		t.Errorf("%d write commands refused with 405, want %d", len(failures), len(writes))
	}
	if strings.Contains(out, "succeeded.") && strings.Count(out, "succeeded.") != 3 {
		t.Errorf("a write reported success:\n%s", out)
	}
	if after := snapshot(t, e.store); after != before {
		t.Error("cadaver changed the store")
	}
}

// TestRclone lists, checks (downloading every file) and copies the tree
// with rclone's webdav backend, for an anonymous user and for staff (who
// see internal/), against copies of the visible source files; writes
// fail and the store is unchanged.
func TestRclone(t *testing.T) {
	rclone := client(t, "rclone")
	e := clientEnv(t)
	before := snapshot(t, e.store)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rclone.conf"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, view := range []string{"", "staff"} {
		t.Run("view="+view, func(t *testing.T) {
			vis := visible(e.files, view == "staff")
			src := testenv.WriteTree(t, vis)
			flags := []string{"--webdav-url=" + e.srv.URL + "/", "--webdav-vendor=other", "--retries=1", "--low-level-retries=1"}
			if view != "" {
				flags = append(flags, "--header=X-Test-Groups: "+view)
			}
			rc := func(args ...string) (string, error) {
				return run(t, dir, "", rclone, append(args, flags...)...)
			}
			out, err := rc("lsf", "-R", "--format=sp", "--separator=\t", ":webdav:")
			if err != nil {
				t.Fatalf("rclone lsf: %v\n%s", err, out)
			}
			var got, want []string
			for line := range strings.Lines(out) {
				size, name, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
				if !strings.HasSuffix(name, "/") {
					got = append(got, name+" "+size)
				}
			}
			for slug, c := range vis {
				want = append(want, fmt.Sprintf("%s %d", slug, len(c)))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("rclone lsf:\n got %q\nwant %q", got, want)
			}
			out, err = rc("check", "--download", src, ":webdav:")
			if err != nil || !strings.Contains(out, ": 0 differences found") ||
				!strings.Contains(out, fmt.Sprintf(": %d matching files", len(vis))) {
				t.Errorf("rclone check --download: %v\n%s", err, out)
			}
			dst := t.TempDir()
			if out, err := rc("copy", ":webdav:", dst); err != nil {
				t.Fatalf("rclone copy: %v\n%s", err, out)
			}
			if copied := readTree(t, dst); !mapsEqual(copied, vis) {
				t.Errorf("rclone copy: %d files differ from the %d visible source files", len(copied), len(vis))
			}
			up := filepath.Join(dir, "up.md")
			if err := os.WriteFile(up, []byte("upload\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// rclone takes 405 to MKCOL for "exists" (RFC 4918 answers
			// MKCOL on an existing collection with 405), so mkdir exits 0;
			// the directory must still not exist.
			if out, err := rc("mkdir", ":webdav:newdir"); err != nil {
				t.Logf("rclone mkdir: %v\n%s", err, out)
			}
			if out, err := rc("lsf", ":webdav:newdir"); err == nil || !strings.Contains(out, "directory not found") {
				t.Errorf("after rclone mkdir, lsf newdir: %v\n%s", err, out)
			}
			for _, args := range [][]string{
				{"copyto", up, ":webdav:new.md"},
				{"copyto", up, ":webdav:index.md"},
				{"deletefile", ":webdav:index.md"},
				{"moveto", ":webdav:index.md", ":webdav:moved.md"},
				{"purge", ":webdav:guides"},
			} {
				out, err := rc(args...)
				if err == nil {
					t.Errorf("rclone %q succeeded:\n%s", args, out)
				} else if !strings.Contains(out, "405") {
					t.Errorf("rclone %q failed without a 405:\n%s", args, out)
				}
			}
		})
	}
	if after := snapshot(t, e.store); after != before {
		t.Error("rclone changed the store")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal([]byte(v), []byte(w)) {
			return false
		}
	}
	return true
}
