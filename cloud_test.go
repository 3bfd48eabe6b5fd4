package chromafs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/regex"
)

// cloudGate is an HTTP transport that plays Chroma Cloud's limits: it
// refuses (HTTP 422) any get or upsert that asks for more than 300 records
// or ids, any $in/$nin list over 200 values, and any $regex over 256 bytes;
// and it can answer 429 to a share of the requests, to exercise retries.
type cloudGate struct {
	base      http.RoundTripper
	mu        sync.Mutex
	refused   []string
	busyEvery atomic.Int64 // answer 429 to every n-th request (0: never)
	// busyWait is the Retry-After of the 429 answers after the first,
	// in seconds (the first says 0: the client's backoff). Set it before
	// busyEvery.
	busyWait int
	maxDoc   int // refuse upserts of longer documents (0: no limit)
	n        atomic.Int64
	busy     atomic.Int64
	late     atomic.Int64 // 429 answers to requests whose context was done
}

func (g *cloudGate) refuse(why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refused = append(g.refused, why)
}

func (g *cloudGate) RoundTrip(req *http.Request) (*http.Response, error) {
	answer := func(code int, msg string, wait int) *http.Response {
		return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {strconv.Itoa(wait)}},
			Body: io.NopCloser(strings.NewReader(`{"error":"CloudLimit","message":"` + msg + `"}`)), Request: req}
	}
	if every := g.busyEvery.Load(); every > 0 && g.n.Add(1)%every == 0 {
		wait := 0
		if g.busy.Add(1) > 1 {
			wait = g.busyWait
		}
		if req.Context().Err() != nil {
			g.late.Add(1)
		}
		return answer(http.StatusTooManyRequests, "busy", wait), nil
	}
	if req.Method == http.MethodPost && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			if why := overLimit(m, g.maxDoc); why != "" {
				g.refuse(req.URL.Path + ": " + why)
				return answer(422, why, 0), nil
			}
		}
	}
	return g.base.RoundTrip(req)
}

// overLimit says which Cloud limit a request body breaks, if any; maxDoc
// is the longest document an upsert may carry (0: any).
func overLimit(m map[string]any, maxDoc int) string {
	if l, ok := m["limit"].(float64); ok && l > 300 {
		return fmt.Sprintf("limit %v", l)
	}
	if docs, ok := m["documents"].([]any); ok && maxDoc > 0 {
		for _, d := range docs {
			if s, ok := d.(string); ok && len(s) > maxDoc {
				return fmt.Sprintf("document of %d bytes", len(s))
			}
		}
	}
	for _, k := range []string{"ids", "documents", "metadatas"} {
		if a, ok := m[k].([]any); ok && len(a) > 300 {
			return fmt.Sprintf("%d %s", len(a), k)
		}
	}
	var walk func(v any) string
	walk = func(v any) string {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if a, ok := x.([]any); ok && (k == "$in" || k == "$nin") && len(a) > 200 {
					return fmt.Sprintf("%s of %d values", k, len(a))
				}
				if s, ok := x.(string); ok && k == "$regex" && len(s) > 256 {
					return fmt.Sprintf("regex of %d bytes", len(s))
				}
				if why := walk(x); why != "" {
					return why
				}
			}
		case []any:
			for _, x := range v {
				if why := walk(x); why != "" {
					return why
				}
			}
		}
		return ""
	}
	if why := walk(m["where"]); why != "" {
		return why
	}
	return walk(m["where_document"])
}

// TestCloudLimits writes the corpus with both writers through the gate
// (CloudLimits on) into a real Chroma, then reads every page and runs
// grep searches (coarse filter included) through it: no request may break
// a limit, 429s are retried, and every result equals a plain search of
// the files.
func TestCloudLimits(t *testing.T) {
	files := corpus(t)
	for i := range 400 { // enough pages for $in batches and paging
		files[fmt.Sprintf("bulk/p%03d.md", i)] = fmt.Sprintf("page %d\nthe access_token of page %d\n", i, i)
	}
	ctx := context.Background()
	srv := testenv.Chroma(t)
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			gate := &cloudGate{base: http.DefaultTransport}
			if w.name == "sharded" {
				// The writer that shards its tree (into 1 KiB shards)
				// keeps every document within Cloud's limit.
				gate.maxDoc = chromastore.CloudMaxDocumentBytes
			}
			gate.busyEvery.Store(7)
			coll := testbackend.OpenChroma(t, chromastore.Config{
				URL: srv.URL, HTTPClient: &http.Client{Transport: gate}, CloudLimits: true,
			})
			w.write(t, coll, files)
			want := visible(files, []string{"staff"})
			fsys, err := chromafs.New(ctx, coll, chromafs.WithGroups("staff"))
			if err != nil {
				t.Fatal(err)
			}
			plain := mapFSOf(want)
			for _, q := range []grepx.Query{
				{Patterns: []string{"access_token"}, Recursive: true},
				{Patterns: []string{"ACCESS_TOKEN", "résumé"}, IgnoreCase: true, Recursive: true},
				{Patterns: []string{strings.Repeat("long literal ", 12)}, Syntax: regex.Fixed, IgnoreCase: true, Recursive: true},
				{Patterns: []string{"line end"}, Recursive: true, Mode: grepx.Count},
			} {
				got, wantOut := searchText(t, fsys, q), searchText(t, plain, q)
				if got != wantOut {
					t.Fatalf("%+v: results differ from a plain search:\n%s\nwant\n%s", q, got, wantOut)
				}
			}
			readAll(t, fsys, want)
			if len(gate.refused) > 0 {
				t.Fatalf("%d requests broke a Cloud limit, first: %s", len(gate.refused), gate.refused[0])
			}
			if gate.busy.Load() == 0 {
				t.Fatal("no request was answered 429: the retry path went untested")
			}
			t.Logf("%d requests answered 429 were retried", gate.busy.Load())
		})
	}
}

// TestRetryDeadline: a server that keeps answering 429 makes a read fail
// with that answer by the context's deadline, not after every retry: the
// read is retried after its backoff, and when the server then asks for a
// wait (Retry-After: 5 s, the most the client honours) that ends past the
// deadline, it fails at once, sending no request past the deadline. Every
// retry would take 15 s; the bound on the time taken (5 s, for a 2 s
// deadline) leaves the test seconds of slack on a loaded machine.
func TestRetryDeadline(t *testing.T) {
	ctx := context.Background()
	gate := &cloudGate{base: http.DefaultTransport}
	coll := testbackend.OpenChroma(t, chromastore.Config{URL: testenv.Chroma(t).URL, HTTPClient: &http.Client{Transport: gate}})
	files := corpus(t)
	ingested(t, coll, files)
	fsys, err := chromafs.New(ctx, coll)
	if err != nil {
		t.Fatal(err)
	}
	gate.busyWait = 5
	gate.busyEvery.Store(1) // every request from now on: 429
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err = fs.ReadFile(fsys.WithContext(dctx), "guides/quickstart.md")
	elapsed := time.Since(start)
	var ae *chromastore.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusTooManyRequests {
		t.Fatalf("read from a server answering 429: %v; want the 429 answer", err)
	}
	if gate.busy.Load() < 2 {
		t.Fatalf("the request was not retried (%d answers)", gate.busy.Load())
	}
	if n := gate.late.Load(); n > 0 {
		t.Fatalf("%d requests were sent past the read's deadline", n)
	}
	t.Logf("the read failed after %v, %d answers", elapsed, gate.busy.Load())
	if elapsed >= 5*time.Second {
		t.Fatalf("the read took %v: it waited for the server's Retry-After past its 2 s deadline", elapsed)
	}
	gate.busyEvery.Store(0)
	if got, err := fs.ReadFile(fsys, "guides/quickstart.md"); err != nil || string(got) != files["guides/quickstart.md"] {
		t.Fatalf("after the server recovered: %d bytes, %v", len(got), err)
	}
}

// searchText renders a search's results as grep -n -H would, with counts.
func searchText(t *testing.T, fsys fs.FS, q grepx.Query) string {
	t.Helper()
	var b strings.Builder
	_, err := grepx.Search(context.Background(), fsys, q, func(f *grepx.File) error {
		if f.Err != nil {
			return f.Err
		}
		fmt.Fprintf(&b, "%s count=%d\n", f.Path, f.Count)
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "%s:%d:%s\n", f.Path, l.Number, l.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mapFSOf(files map[string]string) fs.FS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
	}
	return m
}
