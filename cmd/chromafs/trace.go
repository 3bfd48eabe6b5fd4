package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/fscap"
)

// tracer prints to standard error where a command's time goes, when the
// environment sets CHROMAFS_TRACE (to anything but "" or "0"): the
// phases of the command as they end, every HTTP request to Chroma, and
// grep's walk, coarse query, prefetches and reads. Times are wall times
// in milliseconds since main was entered. With tracing off, trace is nil
// and every method returns at once.
type tracer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time // main entered
	last  time.Time // the end of the last phase
	// searches counts the requests with a document filter (the coarse
	// filter's queries).
	searches atomic.Int64
}

// trace is the process's tracer; nil when tracing is off.
var trace *tracer

// traceFromEnv returns a tracer writing to w if CHROMAFS_TRACE asks for
// one, after printing how long the process ran before main.
func traceFromEnv(w io.Writer) *tracer {
	if v := os.Getenv("CHROMAFS_TRACE"); v == "" || v == "0" {
		return nil
	}
	now := time.Now()
	t := &tracer{w: w, start: now, last: now}
	if d, ok := beforeMain(); ok {
		t.printf("%8.2f %8.2f  before main (runtime and package initialisation; the main thread's run and wait time)", -ms(d), ms(d))
	}
	return t
}

// beforeMain is the time the main thread spent running or runnable
// before main: process start to main when it did not sleep, as during
// initialisation. Linux only.
func beforeMain() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/self/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	run, err1 := strconv.ParseInt(f[0], 10, 64)
	wait, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(run + wait), true
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (t *tracer) printf(format string, a ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "chromafs trace: "+format+"\n", a...)
}

// phase ends a phase of the command that began where the last one ended.
func (t *tracer) phase(name string) {
	if t == nil {
		return
	}
	now := time.Now()
	t.mu.Lock()
	from := t.last
	t.last = now
	t.mu.Unlock()
	t.printf("%8.2f %8.2f  %s", ms(now.Sub(t.start)), ms(now.Sub(from)), name)
}

// span reports an interval that overlaps the phases (a request, a
// prefetch), indented under them.
func (t *tracer) span(from time.Time, format string, a ...any) {
	if t == nil {
		return
	}
	now := time.Now()
	t.printf("%8.2f %8.2f    "+format, append([]any{ms(now.Sub(t.start)), ms(now.Sub(from))}, a...)...)
}

// httpClient returns an HTTP client whose requests are traced, or nil
// (the store's own client) when tracing is off.
func (t *tracer) httpClient() *http.Client {
	if t == nil {
		return nil
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: traceTransport{t: t, base: tr}}
}

// traceTransport reports each request when its answer has been read.
type traceTransport struct {
	t    *tracer
	base http.RoundTripper
}

func (tt traceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	what := req.Method + " " + shortPath(req.URL.Path)
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(body)
			what += describeBody(b)
			if bytes.Contains(b, []byte(`"where_document"`)) {
				tt.t.searches.Add(1)
			}
		}
	}
	start := time.Now()
	resp, err := tt.base.RoundTrip(req)
	if err != nil {
		tt.t.span(start, "http %s: %v", what, err)
		return nil, err
	}
	resp.Body = &tracedBody{ReadCloser: resp.Body, t: tt.t, start: start, what: what, status: resp.StatusCode}
	return resp, nil
}

// shortPath drops the tenant and database from a Chroma API path.
func shortPath(p string) string {
	if i := strings.Index(p, "/collections/"); i >= 0 {
		return p[i:]
	}
	return p
}

// describeBody summarises a request body: a coarse query's regex, the
// number of ids asked for, what is included.
func describeBody(b []byte) string {
	var parts []string
	if i := bytes.Index(b, []byte(`"$regex":`)); i >= 0 {
		var re string
		if json.NewDecoder(bytes.NewReader(b[i+len(`"$regex":`):])).Decode(&re) == nil {
			if len(re) > 60 {
				re = re[:60] + "…"
			}
			parts = append(parts, fmt.Sprintf("regex %q", re))
		}
	}
	if i := bytes.Index(b, []byte(`"ids":[`)); i >= 0 {
		end := bytes.IndexByte(b[i:], ']')
		if end > 0 {
			parts = append(parts, fmt.Sprintf("%d ids", bytes.Count(b[i:i+end], []byte(","))+1))
		}
	}
	if i := bytes.Index(b, []byte(`"include":[`)); i >= 0 {
		end := bytes.IndexByte(b[i:], ']')
		if end > 0 {
			parts = append(parts, "include "+string(b[i+len(`"include":`):i+end+1]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// tracedBody reports its request when it is closed.
type tracedBody struct {
	io.ReadCloser
	t      *tracer
	start  time.Time
	what   string
	status int
	n      int64
	done   atomic.Bool
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *tracedBody) Close() error {
	err := b.ReadCloser.Close()
	if !b.done.Swap(true) {
		b.t.span(b.start, "http %s: %d, %d bytes", b.what, b.status, b.n)
	}
	return err
}

// traceFS times the calls that grepx.Search makes on a chromafs.FS:
// the embedded *FS keeps every method (and so every fscap capability
// Search looks for), and these wrap the ones worth timing.
type traceFS struct {
	*chromafs.FS
	t         *tracer
	reads     atomic.Int64
	firstRead atomic.Int64 // ns since t.start; 0 until the first read
}

// traceFS keeps every capability of package fscap that grepx.Search
// uses. Uncached, Candidates and Prefetch are timed and ReadFileShared
// counted; PrefetchEach, which Search calls rather than Prefetch when the
// filesystem has it, is *FS's own.
var _ interface {
	fscap.UncachedFS
	fscap.CandidatesFS
	fscap.PrefetchFS
	fscap.ReadFileSharedFS
	fscap.PrefetchEachFS
	fscap.WalkDirFS
	fscap.IsLazyFS
} = (*traceFS)(nil)

func (f *traceFS) Uncached(ctx context.Context, names []string) []string {
	f.t.phase("walk (grep's scope: stat and read directories)")
	out := f.FS.Uncached(ctx, names)
	f.t.phase(fmt.Sprintf("cache check (%d of %d files uncached)", len(out), len(names)))
	return out
}

func (f *traceFS) Candidates(ctx context.Context, names []string, literals []string, fold bool) ([]string, error) {
	before := f.t.searches.Load()
	out, err := f.FS.Candidates(ctx, names, literals, fold)
	// Pages that a shared cache (Redis) holds are candidates without a
	// query: zero searches when it holds them all.
	f.t.phase(fmt.Sprintf("coarse filter (%d of %d files are candidates; %d Chroma searches)", len(out), len(names), f.t.searches.Load()-before))
	return out, err
}

func (f *traceFS) Prefetch(ctx context.Context, names []string) error {
	start := time.Now()
	err := f.FS.Prefetch(ctx, names)
	f.t.span(start, "prefetch of %d files", len(names))
	return err
}

func (f *traceFS) ReadFileShared(name string) ([]byte, error) {
	f.firstRead.CompareAndSwap(0, int64(time.Since(f.t.start)))
	f.reads.Add(1)
	return f.FS.ReadFileShared(name)
}
