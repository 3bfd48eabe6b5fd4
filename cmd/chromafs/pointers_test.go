package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestPointersEndToEnd registers lazy pointers with ingest --pointers,
// reads one with cat, and checks them with validate --pointers, against
// a real Chroma and a local HTTP server.
func TestPointersEndToEnd(t *testing.T) {
	body := strings.Repeat("openapi: 3.1.0\n", 100)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/spec.yaml" {
			_, _ = w.Write([]byte(body))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	chroma := testenv.Chroma(t)
	// The pointers' server listens on 127.0.0.1, which pointers may reach
	// only when allowed.
	g := []string{"--chroma-url", chroma.URL, "--collection", testenv.CollectionName(t), "--pointer-allow", srv.URL}

	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "index.md"), []byte("# Hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := func(name string, entries ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("["+strings.Join(entries, ",\n")+"]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := fmt.Sprintf(`{"slug":"specs/spec.yaml","url":%q,"size":%d}`, srv.URL+"/spec.yaml", len(body))
	goodOnly := manifest("good.json", good)
	withBroken := manifest("broken.json", good,
		fmt.Sprintf(`{"slug":"specs/gone.yaml","url":%q,"size":10}`, srv.URL+"/gone.yaml"),
		fmt.Sprintf(`{"slug":"specs/big.yaml","url":%q,"size":10}`, srv.URL+"/spec.yaml"))
	unsafe := manifest("unsafe.json", `{"slug":"../escape","url":"https://example.com/x"}`)

	out, errOut, code := cli(t, append(g, "ingest", "--pointers", goodOnly, docs)...)
	if code != 0 || !strings.Contains(out, "1 lazy pointers") {
		t.Fatalf("ingest --pointers: status %d\n%s%s", code, out, errOut)
	}
	// ls -l lists the pointer with its declared size without fetching it.
	before := hits.Load()
	out, errOut, code = cli(t, append(g, "ls", "-l", "/specs")...)
	if code != 0 || !strings.Contains(out, strconv.Itoa(len(body))+" ") {
		t.Fatalf("ls -l /specs before any read: status %d, %q lacks the declared size %d %s", code, out, len(body), errOut)
	}
	if n := hits.Load() - before; n != 0 {
		t.Fatalf("ls -l made %d requests to the pointer's server", n)
	}
	out, errOut, code = cli(t, append(g, "cat", "/specs/spec.yaml")...)
	if code != 0 || out != body {
		t.Fatalf("cat pointer: status %d, %d bytes (want %d)\n%s", code, len(out), len(body), errOut)
	}
	out, _, code = cli(t, append(g, "ls", "-l", "/specs")...)
	if code != 0 || !strings.Contains(out, strconv.Itoa(len(body))) {
		t.Fatalf("ls -l /specs: status %d, %q lacks the declared size %d", code, out, len(body))
	}
	if out, errOut, code := cli(t, append(g, "validate", "--pointers")...); code != 0 {
		t.Fatalf("validate --pointers, good pointer: status %d\n%s%s", code, out, errOut)
	}
	// grep searches pointer content, unless --no-pointers leaves it out
	// (without a request to the pointer's server).
	if out, errOut, code := cli(t, append(g, "grep", "-rc", "openapi", "/")...); code != 0 || out != "/index.md:0\n/specs/spec.yaml:100\n" {
		t.Fatalf("grep -rc: status %d, %q %s", code, out, errOut)
	}
	before = hits.Load()
	if out, errOut, code := cli(t, append(g, "grep", "--no-pointers", "-rc", "openapi", "/")...); code != 1 || out != "/index.md:0\n" {
		t.Fatalf("grep --no-pointers -rc: status %d, %q %s", code, out, errOut)
	}
	if n := hits.Load() - before; n != 0 {
		t.Fatalf("grep --no-pointers made %d requests to the pointer's server", n)
	}
	// serve fetches pointers, unless --no-pointer-fetch: then a read
	// answers 502 and the pointer's server sees no request.
	for _, tc := range []struct {
		flags []string
		code  int
	}{{nil, http.StatusOK}, {[]string{"--no-pointer-fetch"}, http.StatusBadGateway}} {
		httpURL, _, stop := startServeFlags(t, g, tc.flags)
		before := hits.Load()
		resp, err := http.Get(httpURL + "/specs/spec.yaml")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || tc.code == http.StatusOK && string(got) != body {
			t.Fatalf("serve %v: GET a pointer: %d, %d bytes; want %d", tc.flags, resp.StatusCode, len(got), tc.code)
		}
		if n := hits.Load() - before; tc.flags != nil && n != 0 {
			t.Fatalf("serve %v made %d requests to the pointer's server", tc.flags, n)
		}
		if code := stop(); code != 0 {
			t.Fatalf("serve exited with %d", code)
		}
	}

	out, errOut, code = cli(t, append(g, "ingest", "--pointers", withBroken, docs)...)
	if code != 0 {
		t.Fatalf("ingest broken pointers: status %d\n%s%s", code, out, errOut)
	}
	// Reading a missing or oversize pointer fails with a clear error and
	// prints nothing of it; grep reports it and exits 2.
	for _, tc := range []struct{ path, want string }{
		{"/specs/gone.yaml", "404 Not Found"},
		{"/specs/big.yaml", "the tree declares 10"},
	} {
		out, errOut, code := cli(t, append(g, "cat", tc.path)...)
		if code == 0 || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "broken lazy pointer") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("cat %s: status %d, %d bytes out, stderr %q; want a failure naming %q", tc.path, code, len(out), errOut, tc.want)
		}
	}
	if out, errOut, code := cli(t, append(g, "grep", "-r", "openapi", "/specs")...); code != 2 || !strings.Contains(out, "/specs/spec.yaml:openapi") || !strings.Contains(errOut, "gone.yaml") {
		t.Errorf("grep -r over broken pointers: status %d\n%s%s", code, out, errOut)
	}
	// Without --pointers nothing is fetched, so the collection is fine.
	if out, errOut, code := cli(t, append(g, "validate")...); code != 0 {
		t.Fatalf("validate: status %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, append(g, "validate", "--pointers")...)
	if code != 1 {
		t.Fatalf("validate --pointers, broken pointers: status %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"error: specs/gone.yaml: lazy pointer:", "404 Not Found", "error: specs/big.yaml: lazy pointer:", "2 errors"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate --pointers output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "specs/spec.yaml") {
		t.Errorf("the good pointer is reported:\n%s", out)
	}

	// A bad manifest fails before anything is written.
	out, errOut, code = cli(t, append(g, "ingest", "--pointers", unsafe, docs)...)
	if code == 0 || !strings.Contains(errOut, `entry 1 ("../escape"): unsafe slug`) {
		t.Fatalf("unsafe manifest: status %d\n%s%s", code, out, errOut)
	}
	// Re-ingest without the manifest removes the pointers.
	out, errOut, code = cli(t, append(g, "ingest", docs)...)
	if code != 0 || !strings.Contains(out, "3 removed") {
		t.Fatalf("ingest without pointers: status %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := cli(t, append(g, "validate", "--pointers")...); code != 0 {
		t.Fatalf("validate --pointers, no pointers left: status %d\n%s%s", code, out, errOut)
	}
}
