package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testenv"
	"golang.org/x/crypto/bcrypt"
)

// cheapHash returns a bcrypt hash of password at bcrypt.MinCost, for a
// users file. The serve tests check who may sign in and how often, not
// bcrypt's cost; at the minimum cost each check (and the server's
// comparison against its dummy hash for unknown names, which takes the
// users' common cost) is 64 times cheaper than at server.HashPassword's
// default cost, which takes most of a second under the race detector.
func cheapHash(t *testing.T, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// startServe runs `chromafs serve` in-process on free ports and returns
// the HTTP and WebDAV base URLs and a function that stops it (as SIGTERM
// would) and returns its exit status.
func startServe(t *testing.T, args ...string) (httpURL, davURL string, stop func() int) {
	t.Helper()
	return startServeFlags(t, args, nil)
}

// startServeFlags is startServe with serve's own flags after "serve".
func startServeFlags(t *testing.T, args, serveFlags []string) (httpURL, davURL string, stop func() int) {
	t.Helper()
	return startServeLog(t, args, serveFlags, io.Discard)
}

// startServeLog is startServeFlags with serve's log (stderr) written to
// stderr.
func startServeLog(t *testing.T, args, serveFlags []string, stderr io.Writer) (httpURL, davURL string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	argv := append(append(append([]string(nil), args...), "serve", "--http", "127.0.0.1:0", "--webdav", "127.0.0.1:0"), serveFlags...)
	go func() {
		done <- run(ctx, argv, pw, stderr)
		pw.Close()
	}()
	addr := regexp.MustCompile(`chromafs: (http|webdav) on (http://\S+/)`)
	sc := bufio.NewScanner(pr)
	for (httpURL == "" || davURL == "") && sc.Scan() {
		if m := addr.FindStringSubmatch(sc.Text()); m != nil {
			if m[1] == "http" {
				httpURL = strings.TrimSuffix(m[2], "/")
			} else {
				davURL = strings.TrimSuffix(m[2], "/")
			}
		}
	}
	if httpURL == "" || davURL == "" {
		cancel()
		t.Fatalf("serve did not start: status %d", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	stopped := false
	stop = func() int {
		if stopped {
			return 0
		}
		stopped = true
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not shut down")
			return -1
		}
	}
	t.Cleanup(func() { stop() })
	return httpURL, davURL, stop
}

// TestServe runs `chromafs serve` over examples/docs in a real Chroma with a
// users file: anonymous requests see public pages only, alice (password)
// and a token user see their groups' pages, wrong credentials get 401,
// writes are refused on both protocols, and SIGTERM-like cancellation
// shuts it down with status 0.
func TestServe(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	hash := cheapHash(t, "alice-pw")
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice password="+hash+" groups=staff\nbot token-sha256="+server.HashToken("tok")+" groups=staff\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	httpURL, davURL, stop := startServe(t, append(g, "--users", users)...)

	public := "guides/auth/oauth.mdx"
	private := privatePage(t)
	wantPublic, err := os.ReadFile(filepath.Join(docsDir, public))
	if err != nil {
		t.Fatal(err)
	}
	wantPrivate, err := os.ReadFile(filepath.Join(docsDir, private))
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, url string, auth func(*http.Request)) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		if auth != nil {
			auth(req)
		}
		if method == "PROPFIND" {
			req.Header.Set("Depth", "1")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	alice := func(r *http.Request) { r.SetBasicAuth("alice", "alice-pw") }
	bot := func(r *http.Request) { r.Header.Set("Authorization", "Bearer tok") }
	wrong := func(r *http.Request) { r.SetBasicAuth("alice", "wrong") }
	for _, base := range []string{httpURL, davURL} {
		if code, body, _ := do("GET", base+"/"+public, nil); code != 200 || body != string(wantPublic) {
			t.Errorf("%s anonymous GET %s: %d, %d bytes", base, public, code, len(body))
		}
		if code, _, _ := do("GET", base+"/"+private, nil); code != 404 {
			t.Errorf("%s anonymous GET %s: %d, want 404", base, private, code)
		}
		for name, auth := range map[string]func(*http.Request){"alice": alice, "bot": bot} {
			if code, body, _ := do("GET", base+"/"+private, auth); code != 200 || body != string(wantPrivate) {
				t.Errorf("%s %s GET %s: %d, %d bytes", base, name, private, code, len(body))
			}
		}
		if code, _, h := do("GET", base+"/"+public, wrong); code != 401 || h.Get("WWW-Authenticate") == "" {
			t.Errorf("%s wrong password: %d %v", base, code, h)
		}
		if code, body, _ := do("GET", base+"/healthz", nil); code != 200 || body != "ok\n" {
			t.Errorf("%s healthz: %d %q", base, code, body)
		}
		for _, m := range []string{"PUT", "DELETE", "MKCOL", "MOVE", "COPY", "PROPPATCH", "LOCK"} {
			if code, _, _ := do(m, base+"/"+public, alice); code != 405 {
				t.Errorf("%s %s: %d, want 405", base, m, code)
			}
		}
	}
	privDir := filepath.ToSlash(filepath.Dir(private))
	if code, body, _ := do("PROPFIND", davURL+"/"+privDir+"/", alice); code != 207 || !strings.Contains(body, filepath.Base(private)) {
		t.Errorf("PROPFIND %s as alice: %d\n%s", privDir, code, body)
	}
	if code, _, _ := do("PROPFIND", davURL+"/"+privDir+"/", nil); code != 404 {
		t.Errorf("anonymous PROPFIND %s: %d, want 404", privDir, code)
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with status %d", code)
	}
	if _, err := http.Get(httpURL + "/healthz"); err == nil {
		t.Fatal("serve still answers after shutdown")
	}
}

// privatePage returns a page of examples/docs that examples/access.rules
// makes private to staff.
func privatePage(t *testing.T) string {
	t.Helper()
	var found string
	_ = filepath.WalkDir(filepath.Join(docsDir, "internal"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && found == "" {
			found, _ = filepath.Rel(docsDir, p)
		}
		return err
	})
	if found == "" {
		t.Fatal("examples/docs has no internal/ page")
	}
	return filepath.ToSlash(found)
}

// TestServeIndependentSite is issue 5's acceptance check: `chromafs serve`
// over the Go docs loaded into Chroma by the independent writer (mid-line
// chunks, private subtrees), checked by scripts/dav_checker.py (Python
// stdlib, shares no code): PROPFIND depth 1 through every directory,
// depth infinity refused, every length listed equal to the visible source
// file's (the writer records no sizes, so listings give none until the
// files are read; after the reads below they give all 22),
// every file byte-identical over both protocols, Range and HEAD correct,
// every write method refused with a 4xx and nothing changed.
func TestServeIndependentSite(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is needed for the independent checker")
		}
		t.Skip("python3 not found")
	}
	chromaURL, coll, src := independentSite(t)
	_, content := sourceFiles(t, src, func(p string) bool {
		return !strings.HasPrefix(p, "doc/initial/") && !strings.HasPrefix(p, "src/runtime/")
	})
	dir := copyTree(t, content)
	httpURL, davURL, stop := startServe(t, "--chroma-url", chromaURL, "--collection", coll)
	out, err := exec.Command(python, "../../scripts/dav_checker.py", "--http", httpURL, "--webdav", davURL, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("dav_checker: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
	// Pages read once are in the server's memory cache, so a later listing
	// gives every length without reading anything.
	if m := regexp.MustCompile(`checked (\d+) files .*, (\d+) after reading them`).FindStringSubmatch(string(out)); m == nil || m[1] != m[2] {
		t.Errorf("not every file was listed with its length after being read: %q", out)
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with status %d", code)
	}
}
