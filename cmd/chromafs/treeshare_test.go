package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestTwoProcessesShareTree: with --redis-url, the first `chromafs ls`
// process reads the collection's tree (its compact index) from Chroma and
// stores it in Redis; a second process on the unchanged collection gets it
// from Redis, reads no tree record from Chroma, and prints the same.
func TestTwoProcessesShareTree(t *testing.T) {
	srv := testenv.Chroma(t)
	rdb := testenv.Redis(t)
	coll := testenv.CollectionName(t)
	if _, errOut, code := cli(t, "--chroma-url", srv.URL, "--collection", coll, "ingest", "--rules", "../../examples/access.rules", docsDir); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var treeGets atomic.Int64 // gets of the tree record or its index
	proxy := httputil.NewSingleHostReverseProxy(u)
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/get") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`__path_tree__`)) {
				treeGets.Add(1)
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	defer ps.Close()
	bin := chromafsBinary(t)
	run := func() string {
		t.Helper()
		cmd := exec.Command(bin, "--chroma-url", ps.URL, "--collection", coll, "ls", "-R", "/")
		cmd.Env = append(os.Environ(), "CHROMAFS_REDIS_URL="+patientRedis(rdb.URL))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("chromafs ls: %v\n%s", err, stderr.String())
		}
		return string(out)
	}
	first := run()
	if treeGets.Load() == 0 {
		t.Fatal("the first process read no tree record")
	}
	before := treeGets.Load()
	second := run()
	if n := treeGets.Load() - before; n != 0 {
		t.Fatalf("the second process read %d tree records from Chroma; want 0", n)
	}
	if second != first || strings.Count(first, "\n") < 5 {
		t.Fatalf("outputs differ:\n%s\nwant:\n%s", second, first)
	}
}
