package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestPointerFlags: by default the CLI and serve refuse pointers to
// loopback, private and link-local addresses (a pointer naming the real
// Chroma's own API among them) with an error naming the reason and the
// flag; --pointer-allow and CHROMAFS_POINTER_ALLOW allow them;
// --pointer-timeout bounds a fetch; no message shows a URL's query.
func TestPointerFlags(t *testing.T) {
	const body = "openapi: 3.1.0\n"
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/spec":
			_, _ = io.WriteString(w, body)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	chroma := testenv.Chroma(t)
	g := []string{"--chroma-url", chroma.URL, "--collection", testenv.CollectionName(t)}

	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "index.md"), []byte("# Hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chromaAPI := chroma.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections?token=SECRET"
	manifest := filepath.Join(dir, "pointers.json")
	entries := fmt.Sprintf(`[{"slug":"ssrf/collections.json","url":%q},
		{"slug":"ssrf/metadata","url":"http://169.254.169.254/latest/meta-data/?token=SECRET"},
		{"slug":"specs/spec.yaml","url":%q,"size":%d},
		{"slug":"specs/slow","url":%q}]`, chromaAPI, srv.URL+"/spec?token=SECRET", len(body), srv.URL+"/slow?token=SECRET")
	if err := os.WriteFile(manifest, []byte(entries), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := cli(t, append(g, "ingest", "--pointers", manifest, docs)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}

	chromaHost := strings.TrimPrefix(chroma.URL, "http://")
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/ssrf/collections.json", []string{"pointer blocked", "127.0.0.1 is a loopback address", `allow "` + chromaHost + `"`, "--pointer-allow"}},
		{"/ssrf/metadata", []string{"pointer blocked", "169.254.169.254 is a link-local address (the cloud metadata service)"}},
		{"/specs/spec.yaml", []string{"pointer blocked", "loopback"}},
	} {
		out, errOut, code := cli(t, append(g, "cat", tc.path)...)
		if code == 0 || out != "" || strings.Contains(errOut, "SECRET") {
			t.Errorf("cat %s: status %d, %q, stderr %q; want a failure, no output, no secret", tc.path, code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("cat %s: stderr %q lacks %q", tc.path, errOut, w)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the pointers' server got %d requests", n)
	}
	if out, errOut, code := cli(t, append(g, "grep", "-r", "openapi", "/specs", "/ssrf")...); code != 2 || out != "" || !strings.Contains(errOut, "pointer blocked") || strings.Contains(errOut, "SECRET") {
		t.Errorf("grep -r: status %d, %q, stderr %q; want status 2 and the refusal", code, out, errOut)
	}
	if out, _, code := cli(t, append(g, "validate", "--pointers")...); code != 1 || !strings.Contains(out, "pointer blocked") || strings.Contains(out, "SECRET") {
		t.Errorf("validate --pointers: status %d, %q; want 1 with the refusals", code, out)
	}

	// Allowed by flag (repeatable, comma-separated) or by environment.
	for _, tc := range []struct {
		env   string
		flags []string
	}{
		{"", []string{"--pointer-allow", srv.URL}},
		{"", []string{"--pointer-allow", "https://docs.example.com/," + srv.URL + "/spec"}},
		{"", []string{"--pointer-allow", "10.0.0.0/8", "--pointer-allow", strings.TrimPrefix(srv.URL, "http://")}},
		{srv.URL, nil},
		{"10.0.0.0/8, " + srv.URL, nil},
	} {
		t.Setenv("CHROMAFS_POINTER_ALLOW", tc.env)
		out, errOut, code := cli(t, append(append(g, tc.flags...), "cat", "/specs/spec.yaml")...)
		if code != 0 || out != body {
			t.Errorf("env %q, flags %q: cat = status %d, %q, %s", tc.env, tc.flags, code, out, errOut)
		}
	}
	// A flag replaces the environment's list.
	t.Setenv("CHROMAFS_POINTER_ALLOW", srv.URL)
	if _, errOut, code := cli(t, append(g, "--pointer-allow", "https://docs.example.com", "cat", "/specs/spec.yaml")...); code == 0 || !strings.Contains(errOut, "not matched by the allow list (https://docs.example.com)") {
		t.Errorf("flag over env: status %d, %s", code, errOut)
	}
	t.Setenv("CHROMAFS_POINTER_ALLOW", "")
	// A bad entry is a usage error naming it.
	if _, errOut, code := cli(t, append(g, "--pointer-allow", "docs.example.com", "cat", "/specs/spec.yaml")...); code != 2 || !strings.Contains(errOut, `"docs.example.com"`) {
		t.Errorf("bad entry: status %d, %s", code, errOut)
	}

	// --pointer-timeout bounds a fetch.
	start := time.Now()
	_, errOut, code := cli(t, append(g, "--pointer-allow", srv.URL, "--pointer-timeout", "200ms", "cat", "/specs/slow")...)
	if d := time.Since(start); code == 0 || d > 5*time.Second || !strings.Contains(errOut, "pointer timeout of 200ms") || strings.Contains(errOut, "SECRET") {
		t.Errorf("--pointer-timeout 200ms: status %d after %v, stderr %q", code, d, errOut)
	}

	// serve: refused pointers answer 502 (and are not requested); allowed
	// ones are served.
	for _, tc := range []struct {
		global []string
		path   string
		code   int
	}{
		{nil, "/ssrf/collections.json", http.StatusBadGateway},
		{nil, "/ssrf/metadata", http.StatusBadGateway},
		{nil, "/specs/spec.yaml", http.StatusBadGateway},
		{[]string{"--pointer-allow", srv.URL}, "/specs/spec.yaml", http.StatusOK},
		{[]string{"--pointer-allow", srv.URL}, "/ssrf/collections.json", http.StatusBadGateway},
	} {
		before := hits.Load()
		httpURL, _, stop := startServeFlags(t, append(append([]string(nil), g...), tc.global...), nil)
		resp, err := http.Get(httpURL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || (tc.code == http.StatusOK) != (string(got) == body) || strings.Contains(string(got), "default_database") {
			t.Errorf("serve %q GET %s: %d %q; want %d", tc.global, tc.path, resp.StatusCode, got, tc.code)
		}
		if n := hits.Load() - before; tc.code != http.StatusOK && n != 0 {
			t.Errorf("serve %q GET %s: %d requests to the pointers' server", tc.global, tc.path, n)
		}
		if code := stop(); code != 0 {
			t.Fatalf("serve exited with %d", code)
		}
	}
}
