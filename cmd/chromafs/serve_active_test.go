package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestServeActiveContent: an HTML page of the collection is served as
// text/plain with nosniff by both protocols unless serve is started with
// --allow-active-content, which serves it as text/html.
func TestServeActiveContent(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	dir := t.TempDir()
	page := "<html><body><script>alert(document.cookie)</script></body></html>\n"
	if err := os.WriteFile(filepath.Join(dir, "evil.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", dir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, "text/plain"},
		{[]string{"--allow-active-content"}, "text/html"},
	} {
		httpURL, davURL, stop := startServeFlags(t, g, tc.flags)
		for _, base := range []string{httpURL, davURL} {
			resp, err := http.Get(base + "/evil.html")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			ct := resp.Header.Get("Content-Type")
			if resp.StatusCode != 200 || !strings.HasPrefix(ct, tc.want) {
				t.Errorf("serve %v: GET %s/evil.html: %d, Content-Type %q; want %s", tc.flags, base, resp.StatusCode, ct, tc.want)
			}
			if ns := resp.Header.Get("X-Content-Type-Options"); ns != "nosniff" {
				t.Errorf("serve %v: GET %s/evil.html: X-Content-Type-Options %q", tc.flags, base, ns)
			}
		}
		if code := stop(); code != 0 {
			t.Fatalf("serve exited with status %d", code)
		}
	}
}
