package httpfs_test

import (
	"bytes"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/internal/testcorpus"
)

// tool returns the path of a Debian client (curl, wget). It skips the
// test when the client is missing, and fails it under CI=true (.ci/run
// and make deps-tools install them).
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (apt-get install -y %s): %v", name, name, err)
		}
		t.Skipf("%s is not installed (apt-get install -y %s)", name, name)
	}
	return p
}

func run(t *testing.T, name string, args ...string) (stdout string, stderr string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\nstderr: %s", filepath.Base(name), args, err, e.String())
	}
	return o.String(), e.String()
}

// TestCurl: Range, HEAD, If-None-Match/304, 416 and 405 as curl sees them.
func TestCurl(t *testing.T) {
	curl := tool(t, "curl")
	files := testcorpus.Files(t)
	vis := testcorpus.Visible(files)
	for _, v := range testcorpus.Views(t, files) {
		t.Run(v.Name, func(t *testing.T) {
			srv := httptest.NewServer(handlerFor(v.FS, httpfs.Options{}))
			defer srv.Close()
			u := srv.URL + "/reference/big.md"
			big := vis["reference/big.md"]

			if out, _ := run(t, curl, "-sS", "--fail", "-r", "0-9", u); out != big[:10] {
				t.Errorf("curl -r 0-9 = %q, want %q", out, big[:10])
			}
			if out, _ := run(t, curl, "-sS", "--fail", "-r", "100-", u); out != big[100:] {
				t.Errorf("curl -r 100- = %d bytes, want %d", len(out), len(big)-100)
			}
			if out, _ := run(t, curl, "-sS", "--fail", u); out != big {
				t.Errorf("curl = %d bytes, want %d", len(out), len(big))
			}

			head, _ := run(t, curl, "-sS", "--fail", "-I", u)
			hdr := parseHead(head)
			if !strings.HasPrefix(hdr["status"], "HTTP/1.1 200") || hdr["content-length"] != strconv.Itoa(len(big)) ||
				hdr["content-type"] != "text/markdown; charset=utf-8" || hdr["etag"] == "" ||
				hdr["accept-ranges"] != "bytes" || hdr["x-content-type-options"] != "nosniff" {
				t.Errorf("curl -I:\n%s", head)
			}
			etag := hdr["etag"]
			if out, _ := run(t, curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: "+etag, u); out != "304" {
				t.Errorf("curl -H 'If-None-Match: %s' = %s, want 304", etag, out)
			}
			if out, _ := run(t, curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", `If-None-Match: "x"`, u); out != "200" {
				t.Errorf("curl with a stale If-None-Match = %s, want 200", out)
			}
			if out, _ := run(t, curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-r", "99999999-", u); out != "416" {
				t.Errorf("curl -r 99999999- = %s, want 416", out)
			}
			for _, m := range []string{"PUT", "DELETE", "POST"} {
				out, _ := run(t, curl, "-sS", "-o", "/dev/null", "-D", "-", "-X", m, "--data", "x", u)
				h := parseHead(out)
				if !strings.HasPrefix(h["status"], "HTTP/1.1 405") || h["allow"] != "GET, HEAD" {
					t.Errorf("curl -X %s:\n%s", m, out)
				}
			}
			if out, _ := run(t, curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", srv.URL+"/internal/oncall.md"); out != "404" {
				t.Errorf("curl of a hidden page = %s, want 404", out)
			}
			if out, _ := run(t, curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--path-as-is", srv.URL+"/guides/../internal/oncall.md"); out != "400" {
				t.Errorf("curl --path-as-is /guides/../internal/oncall.md = %s, want 400", out)
			}
			// -L follows the directory redirect to a listing.
			if out, _ := run(t, curl, "-sS", "--fail", "-L", srv.URL+"/guides"); !strings.Contains(out, `<a href="quickstart.md">quickstart.md</a>`) {
				t.Errorf("curl -L /guides:\n%s", out)
			}
		})
	}
}

// parseHead parses a response head as curl prints it: "status" is the
// status line, other keys are lowercase header names.
func parseHead(s string) map[string]string {
	out := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.TrimRight(line, "\r")
		if i == 0 {
			out["status"] = line
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[strings.ToLower(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// TestWgetMirror: wget --mirror of the whole site gets every visible
// file byte for byte, no hidden one, and one index.html per directory
// listing.
func TestWgetMirror(t *testing.T) {
	wget := tool(t, "wget")
	files := testcorpus.Files(t)
	vis := testcorpus.Visible(files)
	for _, v := range testcorpus.Views(t, files) {
		t.Run(v.Name, func(t *testing.T) {
			srv := httptest.NewServer(handlerFor(v.FS, httpfs.Options{Prefix: "/docs/"}))
			defer srv.Close()
			dir := t.TempDir()
			run(t, wget, "--mirror", "-np", "-nH", "-q", "-e", "robots=off", "--restrict-file-names=nocontrol",
				"--cut-dirs=1", "-P", dir, srv.URL+"/docs/")

			// Directories the site has: listings saved as DIR/index.html.
			dirs := map[string]bool{".": true}
			for name := range vis {
				for d := filepath.Dir(name); d != "."; d = filepath.Dir(d) {
					dirs[filepath.ToSlash(d)] = true
				}
			}
			var got, listings []string
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				rel = filepath.ToSlash(rel)
				if _, ok := vis[rel]; !ok && filepath.Base(rel) == "index.html" && dirs[filepath.ToSlash(filepath.Dir(rel))] {
					listings = append(listings, filepath.ToSlash(filepath.Dir(rel)))
					return nil
				}
				got = append(got, rel)
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if want, ok := vis[rel]; !ok {
					t.Errorf("wget saved %s, which is not a visible file", rel)
				} else if string(data) != want {
					t.Errorf("wget saved %s with %d bytes that differ from the source's %d", rel, len(data), len(want))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			wantNames := slices.Sorted(mapKeys(vis))
			if !slices.Equal(got, wantNames) {
				t.Errorf("wget files = %q\nwant %q", got, wantNames)
			}
			slices.Sort(listings)
			wantDirs := slices.Sorted(mapKeys(dirs))
			if !slices.Equal(listings, wantDirs) {
				t.Errorf("wget listings = %q\nwant %q", listings, wantDirs)
			}
		})
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
