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
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

var builtBinary = struct {
	once sync.Once
	path string
	err  error
	out  []byte
}{}

// chromafsBinary builds the command once per test binary and returns its
// path.
func chromafsBinary(tb testing.TB) string {
	tb.Helper()
	builtBinary.once.Do(func() {
		dir, err := testenv.TempDir("chromafs-bin-")
		if err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.path = filepath.Join(dir, "chromafs")
		builtBinary.out, builtBinary.err = exec.Command("go", "build", "-o", builtBinary.path, ".").CombinedOutput()
	})
	if builtBinary.err != nil {
		tb.Fatalf("go build: %v\n%s", builtBinary.err, builtBinary.out)
	}
	return builtBinary.path
}

// contentCounter is a reverse proxy in front of Chroma that counts the
// requests that fetch documents (content), as opposed to the tree record,
// collection lookups and id-only queries.
type contentCounter struct {
	srv     *httptest.Server
	content atomic.Int64
	search  atomic.Int64 // gets with a where_document filter: coarse queries
}

func newContentCounter(t *testing.T, chromaURL string) *contentCounter {
	t.Helper()
	u, err := url.Parse(chromaURL)
	if err != nil {
		t.Fatal(err)
	}
	c := &contentCounter{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/get") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"documents"`)) && !bytes.Contains(body, []byte(`__path_tree__`)) {
				c.content.Add(1)
			}
			if bytes.Contains(body, []byte(`"where_document"`)) {
				c.search.Add(1)
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// TestTwoProcessesShareRedis is issue 4's acceptance check: two separate
// `chromafs --redis-url … cat` processes against a real collection; the
// first fetches the page from Chroma, the second makes no content request
// to Chroma, and both print the source bytes.
func TestTwoProcessesShareRedis(t *testing.T) {
	srv := testenv.Chroma(t)
	rdb := testenv.Redis(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	counter := newContentCounter(t, srv.URL)
	bin := chromafsBinary(t)
	want, err := os.ReadFile(filepath.Join(docsDir, "guides/auth/oauth.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	// Keys carry the collection id, so other tests' keys cannot interfere.
	env := append(os.Environ(), "CHROMAFS_REDIS_URL="+patientRedis(rdb.URL))
	run := func() []byte {
		cmd := exec.Command(bin, "--chroma-url", counter.srv.URL, "--collection", coll, "cat", "/guides/auth/oauth.mdx")
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromafs cat: %v\n%s", err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Fatalf("chromafs cat wrote to stderr: %s", stderr.String())
		}
		return out
	}
	first := run()
	if n := counter.content.Load(); n == 0 {
		t.Fatal("the first process made no content request to Chroma")
	}
	before := counter.content.Load()
	second := run()
	if n := counter.content.Load() - before; n != 0 {
		t.Fatalf("the second process made %d content requests to Chroma; want 0", n)
	}
	if !bytes.Equal(first, want) || !bytes.Equal(second, want) {
		t.Fatalf("outputs differ from the source: %d and %d bytes, want %d", len(first), len(second), len(want))
	}
}
