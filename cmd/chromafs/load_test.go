package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestServeLoad runs 200 concurrent clients against `chromafs serve` over
// both protocols — GET and HEAD over HTTP, GET and PROPFIND depth 1 over
// WebDAV — and requires zero errors and every body byte-identical.
func TestServeLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped with -short")
	}
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	names, content := sourceFiles(t, docsDir, public)
	dirs := map[string]bool{"/": true}
	for _, n := range names {
		for i := range len(n) {
			if n[i] == '/' {
				dirs["/"+n[:i+1]] = true
			}
		}
	}
	var dirList []string
	for d := range dirs {
		dirList = append(dirList, d)
	}
	httpURL, davURL, stop := startServe(t, g...)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}, Timeout: 30 * time.Second}

	var ops, errs atomic.Int64
	var first atomic.Value
	fail := func(err error) {
		if errs.Add(1) == 1 {
			first.Store(err)
		}
	}
	deadline := time.Now().Add(testenv.SoakDuration(t))
	var wg sync.WaitGroup
	for w := range 200 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 11))
			for time.Now().Before(deadline) {
				name := names[r.IntN(len(names))]
				var req *http.Request
				kind := r.IntN(4)
				switch kind {
				case 0:
					req, _ = http.NewRequest("GET", httpURL+"/"+name, nil)
				case 1:
					req, _ = http.NewRequest("HEAD", httpURL+"/"+name, nil)
				case 2:
					req, _ = http.NewRequest("GET", davURL+"/"+name, nil)
				case 3:
					req, _ = http.NewRequest("PROPFIND", davURL+dirList[r.IntN(len(dirList))], nil)
					req.Header.Set("Depth", "1")
				}
				resp, err := client.Do(req)
				if err != nil {
					fail(err)
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case err != nil:
					fail(err)
				case kind == 3 && resp.StatusCode != 207:
					fail(fmt.Errorf("PROPFIND %s: %d", req.URL.Path, resp.StatusCode))
				case kind != 3 && resp.StatusCode != 200:
					fail(fmt.Errorf("%s %s: %d", req.Method, req.URL, resp.StatusCode))
				case kind == 1 && resp.ContentLength != int64(len(content[name])):
					fail(fmt.Errorf("HEAD %s: Content-Length %d, want %d", name, resp.ContentLength, len(content[name])))
				case (kind == 0 || kind == 2) && !bytes.Equal(body, content[name]):
					fail(fmt.Errorf("GET %s: %d bytes differ from the source", req.URL, len(body)))
				}
				ops.Add(1)
			}
		})
	}
	wg.Wait()
	if n := errs.Load(); n > 0 {
		t.Fatalf("%d of %d requests failed; first: %v", n, ops.Load(), first.Load())
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with status %d", code)
	}
	t.Logf("%d requests by 200 clients in %v, zero errors", ops.Load(), testenv.SoakDuration(t))
}
