package chromafs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// rangeWindow is chromafs's read window for ranged reads (file.go).
const rangeWindow = 256 << 10

// bigBody is the 1 MiB content of the ranged pointers: no two aligned
// 4-byte words are equal, so a shifted answer cannot pass for the right one.
var bigBody = func() []byte {
	b := make([]byte, 1<<20)
	for i := 0; i < len(b); i += 4 {
		copy(b[i:], fmt.Appendf(nil, "%04x", i/4%0x10000))
		b[i] ^= byte(i >> 16)
	}
	return b
}()

// smallBody is a pointer no larger than the window: always fetched whole.
var smallBody = bytes.Repeat([]byte("small pointer\n"), 100)

// rangeRequest is one request received by a rangeServer.
type rangeRequest struct {
	path, rng string
	sent      int // body bytes written
}

// rangeServer serves bigBody at paths that each answer ranges in their
// own (mostly wrong) way, and records the requests.
type rangeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []rangeRequest
}

// countingWriter counts the body bytes of request i of rs before it
// writes them, so that the count is complete when the client has them.
type countingWriter struct {
	http.ResponseWriter
	rs *rangeServer
	i  int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.rs.mu.Lock()
	w.rs.reqs[w.i].sent += len(b)
	w.rs.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w *countingWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// askedRange parses the request's "bytes=a-b" (b clipped to the body).
func askedRange(r *http.Request, size int) (a, b int, ok bool) {
	s, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !ok {
		return 0, 0, false
	}
	as, bs, _ := strings.Cut(s, "-")
	a, err1 := strconv.Atoi(as)
	b, err2 := strconv.Atoi(bs)
	if err1 != nil || err2 != nil || a > b || a >= size {
		return 0, 0, false
	}
	return a, min(b, size-1), true
}

func newRangeServer(t *testing.T) *rangeServer {
	t.Helper()
	rs := &rangeServer{}
	size := len(bigBody)
	partial := func(w http.ResponseWriter, cr string, body []byte, stream bool) {
		w.Header().Set("Content-Range", cr)
		if !stream {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(http.StatusPartialContent)
		if stream && len(body) > 1 {
			_, _ = w.Write(body[:1])
			w.(http.Flusher).Flush()
			body = body[1:]
		}
		_, _ = w.Write(body)
	}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(hw http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.reqs = append(rs.reqs, rangeRequest{path: r.URL.Path, rng: r.Header.Get("Range")})
		w := &countingWriter{ResponseWriter: hw, rs: rs, i: len(rs.reqs) - 1}
		rs.mu.Unlock()
		path := r.URL.Path
		if path == "/small" || path == "/ok" {
			body := bigBody
			if path == "/small" {
				body = smallBody
			}
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
			return
		}
		a, b, ok := askedRange(r, size)
		if !ok || path == "/ignore" || path == "/ignorebad" {
			body := bigBody
			if path == "/ignorebad" {
				body = bytes.ToUpper(bigBody)
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
			return
		}
		span := func(a, b int) string { return fmt.Sprintf("bytes %d-%d/%d", a, b, size) }
		switch path {
		case "/partial": // a correct prefix of what was asked, 100000 bytes at most
			e := min(b, a+100000-1)
			partial(w, span(a, e), bigBody[a:e+1], false)
		case "/wrongtotal":
			partial(w, fmt.Sprintf("bytes %d-%d/%d", a, b, size+1), bigBody[a:b+1], false)
		case "/star":
			partial(w, fmt.Sprintf("bytes %d-%d/*", a, b), bigBody[a:b+1], false)
		case "/shifted":
			partial(w, span(a+1, b), bigBody[a+1:b+1], false)
		case "/more": // more than asked, and says so
			partial(w, span(a, min(b+10, size-1)), bigBody[a:min(b+11, size)], false)
		case "/short": // announces the range, sends a byte less
			partial(w, span(a, b), bigBody[a:b], true)
		case "/long": // announces the range, sends a byte more
			partial(w, span(a, b), bigBody[a:min(b+2, size)], true)
		case "/badlength": // Content-Length disagrees with Content-Range
			w.Header().Set("Content-Range", span(a, b))
			w.Header().Set("Content-Length", strconv.Itoa(b-a))
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(bigBody[a:b])
		case "/garbage":
			partial(w, fmt.Sprintf("bytes -%d-%d/%d", a, b, size), bigBody[a:b+1], false)
		case "/negative":
			partial(w, fmt.Sprintf("bytes %d-%d/-1", a, b), bigBody[a:b+1], false)
		case "/none": // 206 without a Content-Range
			w.Header().Set("Content-Length", strconv.Itoa(b-a+1))
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(bigBody[a : b+1])
		case "/416":
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size/2))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		case "/500":
			w.WriteHeader(http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(rs.Close)
	return rs
}

// since returns the requests received from mark on.
func (rs *rangeServer) since(mark int) []rangeRequest {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]rangeRequest(nil), rs.reqs[mark:]...)
}

func (rs *rangeServer) mark() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.reqs)
}

// rangePaths are the pointers of newRangeFS, as "big/<path>.bin".
var rangePaths = []string{"ok", "ignore", "ignorebad", "partial", "wrongtotal", "star", "shifted", "more",
	"short", "long", "badlength", "garbage", "negative", "none", "416", "500"}

// newRangeFS writes a collection whose pages are pointers at rs (each
// declaring bigBody's size and hash, plus small.txt) and opens it.
func newRangeFS(t *testing.T, rs *rangeServer, opts ...chromafs.Option) *chromafs.FS {
	t.Helper()
	store := memstore.New(t.Name())
	var entries []tree.Entry
	for _, p := range rangePaths {
		entries = append(entries, tree.Entry{Slug: "big/" + p + ".bin", IsPublic: true, HasIsPublic: true,
			URL: rs.URL + "/" + p, Size: int64(len(bigBody)), Hash: sha(string(bigBody)), ModTime: pointerModTime})
	}
	entries = append(entries, tree.Entry{Slug: "small.txt", IsPublic: true, HasIsPublic: true,
		URL: rs.URL + "/small", Size: int64(len(smallBody)), Hash: sha(string(smallBody)), ModTime: pointerModTime})
	doc, err := tree.Encode(entries, false)
	if err != nil {
		t.Fatal(err)
	}
	err = store.Upsert(context.Background(), []collection.Record{{ID: collection.DefaultLayout().TreeID, Document: string(doc),
		Metadata: map[string]any{"_system": true}, System: true}})
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]chromafs.Option{chromafs.WithResolver(&pointer.HTTPResolver{Policy: allowing(t, rs.URL)})}, opts...)
	fsys, err := chromafs.New(context.Background(), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

type readSeekerAt interface {
	fs.File
	io.ReaderAt
	io.Seeker
}

func openRSA(t *testing.T, fsys fs.FS, name string) readSeekerAt {
	t.Helper()
	f, err := fsys.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f.(readSeekerAt)
}

// TestRangeReadAt reads a 1 MiB pointer at various offsets: each read
// fetches one window (at least the bytes asked, 256 KiB with read-ahead,
// clipped to the size) and never the whole content.
func TestRangeReadAt(t *testing.T) {
	rs := newRangeServer(t)
	size := int64(len(bigBody))
	for _, tc := range []struct {
		name     string
		off      int64
		n        int
		wantN    int
		wantEOF  bool
		requests []string // the Range headers sent
	}{
		{"start", 0, 10, 10, false, []string{"bytes=0-262143"}},
		{"middle", 500000, 100, 100, false, []string{"bytes=500000-762143"}},
		{"last byte", size - 1, 1, 1, false, []string{fmt.Sprintf("bytes=%d-%d", size-1, size-1)}},
		{"across the end", size - 5, 10, 5, true, []string{fmt.Sprintf("bytes=%d-%d", size-5, size-1)}},
		{"at the end", size, 10, 0, true, nil},
		{"past the end", size + 100, 10, 0, true, nil},
		{"larger than a window", 1000, rangeWindow + 5000, rangeWindow + 5000, false, []string{fmt.Sprintf("bytes=1000-%d", 1000+rangeWindow+5000-1)}},
		{"empty", 10, 0, 0, false, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := newRangeFS(t, rs)
			f := openRSA(t, fsys, "big/ok.bin")
			mark := rs.mark()
			buf := make([]byte, tc.n)
			n, err := f.ReadAt(buf, tc.off)
			if n != tc.wantN || (err == io.EOF) != tc.wantEOF || (err != nil && err != io.EOF) {
				t.Fatalf("ReadAt(%d bytes at %d) = %d, %v; want %d (EOF %v)", tc.n, tc.off, n, err, tc.wantN, tc.wantEOF)
			}
			if n > 0 && !bytes.Equal(buf[:n], bigBody[tc.off:tc.off+int64(n)]) {
				t.Fatalf("ReadAt(%d bytes at %d): wrong bytes", tc.n, tc.off)
			}
			var got []string
			for _, r := range rs.since(mark) {
				got = append(got, r.rng)
			}
			if strings.Join(got, " ") != strings.Join(tc.requests, " ") {
				t.Fatalf("requests %q; want %q", got, tc.requests)
			}
		})
	}

	t.Run("window", func(t *testing.T) {
		fsys := newRangeFS(t, rs)
		f := openRSA(t, fsys, "big/ok.bin")
		mark := rs.mark()
		buf := make([]byte, 10)
		if n, err := f.ReadAt(buf, 100); n != 10 || err != nil || !bytes.Equal(buf, bigBody[100:110]) {
			t.Fatalf("ReadAt = %d, %v", n, err)
		}
		reqs := rs.since(mark)
		if len(reqs) != 1 || reqs[0].sent != rangeWindow {
			t.Fatalf("ReadAt of 10 bytes of 1 MiB: requests %+v; want one of %d bytes", reqs, rangeWindow)
		}
		// Inside the window: no request.
		for _, off := range []int64{100, 5000, 100 + rangeWindow - 10} {
			if n, err := f.ReadAt(buf, off); n != 10 || err != nil || !bytes.Equal(buf, bigBody[off:off+10]) {
				t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
			}
		}
		if n := len(rs.since(mark)); n != 1 {
			t.Fatalf("reads inside the window made %d requests; want 1", n)
		}
		// Across the window's end: the next window is fetched.
		off := int64(100 + rangeWindow - 5)
		if n, err := f.ReadAt(buf, off); n != 10 || err != nil || !bytes.Equal(buf, bigBody[off:off+10]) {
			t.Fatalf("ReadAt across the window = %d, %v", n, err)
		}
		reqs = rs.since(mark)
		if len(reqs) != 2 || reqs[1].rng != fmt.Sprintf("bytes=%d-%d", 100+rangeWindow, 100+2*rangeWindow-1) {
			t.Fatalf("requests %+v", reqs)
		}
		// Stat and Seek from the end need no request.
		if fi, err := f.Stat(); err != nil || fi.Size() != size {
			t.Fatalf("Stat = %v, %v", fi, err)
		}
		if pos, err := f.Seek(-3, io.SeekEnd); err != nil || pos != size-3 {
			t.Fatalf("Seek = %d, %v", pos, err)
		}
		if n := len(rs.since(mark)); n != 2 {
			t.Fatalf("Stat and Seek made requests (%d in all)", n)
		}
		if _, err := f.ReadAt(buf, -1); !errors.Is(err, fs.ErrInvalid) {
			t.Fatalf("ReadAt(-1) = %v", err)
		}
		f.Close()
		if _, err := f.ReadAt(buf, 0); !errors.Is(err, fs.ErrClosed) {
			t.Fatalf("ReadAt after Close = %v", err)
		}
	})

	t.Run("small", func(t *testing.T) {
		// A pointer no larger than the window is fetched whole, checked
		// and cached.
		fsys := newRangeFS(t, rs)
		mark := rs.mark()
		buf := make([]byte, 5)
		if n, err := openRSA(t, fsys, "small.txt").ReadAt(buf, 20); n != 5 || err != nil || !bytes.Equal(buf, smallBody[20:25]) {
			t.Fatalf("ReadAt = %d, %v", n, err)
		}
		if got, err := fs.ReadFile(fsys, "small.txt"); err != nil || !bytes.Equal(got, smallBody) {
			t.Fatalf("ReadFile = %d bytes, %v", len(got), err)
		}
		if reqs := rs.since(mark); len(reqs) != 1 || reqs[0].rng != "" {
			t.Fatalf("requests %+v; want one without Range", reqs)
		}
	})
}

// TestRangeSeekRead reads after a Seek the way http.ServeContent does
// (32 KiB at a time): one request per window, not per read.
func TestRangeSeekRead(t *testing.T) {
	rs := newRangeServer(t)
	fsys := newRangeFS(t, rs)
	f := openRSA(t, fsys, "big/ok.bin")
	mark := rs.mark()
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	const start = 600000
	if pos, err := f.Seek(start, io.SeekStart); err != nil || pos != start {
		t.Fatalf("Seek = %d, %v", pos, err)
	}
	var got bytes.Buffer
	buf := make([]byte, 32<<10)
	reads := 0
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		reads++
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), bigBody[start:]) {
		t.Fatalf("read %d bytes after Seek; want bigBody[%d:]", got.Len(), start)
	}
	reqs := rs.since(mark)
	want := (len(bigBody) - start + rangeWindow - 1) / rangeWindow
	if len(reqs) != want {
		t.Fatalf("%d reads made %d requests %+v; want %d", reads, len(reqs), reqs, want)
	}
	sent := 0
	for _, r := range reqs {
		sent += r.sent
		if r.rng == "" {
			t.Fatalf("a request without Range: %+v", reqs)
		}
	}
	if sent != len(bigBody)-start {
		t.Fatalf("%d bytes sent; want %d", sent, len(bigBody)-start)
	}
	// Back to the start: a plain Read fetches the whole content, which is
	// then cached; the ranged reads after it make no request.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	mark = rs.mark()
	if n, err := f.Read(buf[:10]); n != 10 || err != nil || !bytes.Equal(buf[:10], bigBody[:10]) {
		t.Fatalf("Read at 0 = %d, %v", n, err)
	}
	if reqs := rs.since(mark); len(reqs) != 1 || reqs[0].rng != "" || reqs[0].sent != len(bigBody) {
		t.Fatalf("Read at 0: requests %+v; want one whole GET", reqs)
	}
	g := openRSA(t, fsys, "big/ok.bin")
	if _, err := g.Seek(700000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if n, err := g.Read(buf); n != len(buf) || err != nil || !bytes.Equal(buf, bigBody[700000:700000+len(buf)]) {
		t.Fatalf("Read after Seek of a cached page = %d, %v", n, err)
	}
	if n, err := g.ReadAt(buf[:10], 5); n != 10 || err != nil || !bytes.Equal(buf[:10], bigBody[5:15]) {
		t.Fatalf("ReadAt of a cached page = %d, %v", n, err)
	}
	if n := len(rs.since(mark)); n != 1 {
		t.Fatalf("reads of a cached page made %d more requests", n-1)
	}
}

// TestRangeCached: a page in the cache is never read by range.
func TestRangeCached(t *testing.T) {
	rs := newRangeServer(t)
	fsys := newRangeFS(t, rs)
	f := openRSA(t, fsys, "big/ok.bin")
	if got, err := fs.ReadFile(fsys, "big/ok.bin"); err != nil || !bytes.Equal(got, bigBody) {
		t.Fatalf("ReadFile = %d bytes, %v", len(got), err)
	}
	mark := rs.mark()
	buf := make([]byte, 100)
	for _, off := range []int64{0, 400000, int64(len(bigBody)) - 100} {
		if n, err := f.ReadAt(buf, off); n != 100 || err != nil || !bytes.Equal(buf, bigBody[off:off+100]) {
			t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
		}
	}
	if reqs := rs.since(mark); len(reqs) != 0 {
		t.Fatalf("ReadAt of a cached page made requests %+v", reqs)
	}
	// A page cached after a window was read: the next window comes from
	// the cache.
	fsys = newRangeFS(t, rs)
	f = openRSA(t, fsys, "big/ok.bin")
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadFile(fsys, "big/ok.bin"); err != nil {
		t.Fatal(err)
	}
	mark = rs.mark()
	if n, err := f.ReadAt(buf, 900000); n != 100 || err != nil || !bytes.Equal(buf, bigBody[900000:900100]) {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if reqs := rs.since(mark); len(reqs) != 0 {
		t.Fatalf("ReadAt after the page was cached made requests %+v", reqs)
	}
}

// TestRangeIgnored: a server that answers a range request with 200 sends
// the whole content; it is checked like a whole fetch (size and hash) and
// cached, and a wrong one is an error, never served.
func TestRangeIgnored(t *testing.T) {
	rs := newRangeServer(t)
	fsys := newRangeFS(t, rs)
	mark := rs.mark()
	buf := make([]byte, 10)
	if n, err := openRSA(t, fsys, "big/ignore.bin").ReadAt(buf, 500000); n != 10 || err != nil || !bytes.Equal(buf, bigBody[500000:500010]) {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if got, err := fs.ReadFile(fsys, "big/ignore.bin"); err != nil || !bytes.Equal(got, bigBody) {
		t.Fatalf("ReadFile = %d bytes, %v", len(got), err)
	}
	if reqs := rs.since(mark); len(reqs) != 1 || reqs[0].rng == "" {
		t.Fatalf("requests %+v; want one ranged request answered whole", reqs)
	}

	for i := range buf {
		buf[i] = '#'
	}
	n, err := openRSA(t, fsys, "big/ignorebad.bin").ReadAt(buf, 500000)
	var pe *fs.PathError
	if n != 0 || !errors.Is(err, pointer.ErrBroken) || !errors.As(err, &pe) || !strings.Contains(err.Error(), "hash") {
		t.Fatalf("ReadAt of a wrong whole answer = %d, %v; want a hash pointer.ErrBroken", n, err)
	}
	if string(buf) != "##########" {
		t.Fatalf("ReadAt wrote %q into the buffer", buf)
	}

	// Over MaxBytes, the whole answer is not read.
	small := newRangeFS(t, rs, chromafs.WithResolver(&pointer.HTTPResolver{MaxBytes: 1000, Policy: allowing(t, rs.URL)}))
	if _, err := openRSA(t, small, "big/ignore.bin").ReadAt(buf, 500000); !errors.Is(err, pointer.ErrBroken) || !strings.Contains(err.Error(), "ignores Range") {
		t.Fatalf("ReadAt over MaxBytes, range ignored = %v", err)
	}
	// ...but a server that honours ranges is read by range.
	if n, err := openRSA(t, small, "big/ok.bin").ReadAt(buf, 500000); n != 10 || err != nil || !bytes.Equal(buf, bigBody[500000:500010]) {
		t.Fatalf("ReadAt over MaxBytes = %d, %v", n, err)
	}
}

// TestRangePartial: a server that answers a prefix of the range asked is
// asked again for the rest.
func TestRangePartial(t *testing.T) {
	rs := newRangeServer(t)
	fsys := newRangeFS(t, rs)
	mark := rs.mark()
	buf := make([]byte, 1000)
	if n, err := openRSA(t, fsys, "big/partial.bin").ReadAt(buf, 300000); n != 1000 || err != nil || !bytes.Equal(buf, bigBody[300000:301000]) {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if reqs := rs.since(mark); len(reqs) < 2 || len(reqs) > 16 {
		t.Fatalf("requests %+v", reqs)
	}
}

// TestRangeBroken: wrong answers to a range request are errors wrapping
// pointer.ErrBroken that name the page; no byte of them is served.
func TestRangeBroken(t *testing.T) {
	rs := newRangeServer(t)
	fsys := newRangeFS(t, rs)
	for _, tc := range []struct {
		path, msg string
		status    int
	}{
		{"wrongtotal", "the server says the content holds 1048577 bytes, the tree declares 1048576", 0},
		{"star", "does not tell the content's total size", 0},
		{"shifted", "answered bytes 500001-762143 to a request for bytes 500000-762143", 0},
		{"more", "answered bytes 500000-762153 to a request for bytes 500000-762143", 0},
		{"short", "sent 262143 bytes", 0},
		{"long", "sent 262145 bytes", 0},
		{"badlength", "announces 262143 bytes", 0},
		{"garbage", "Content-Range", 0},
		{"negative", "Content-Range", 0},
		{"none", "Content-Range", 0},
		{"416", "the server says the content holds 524288 bytes", 416},
		{"500", "500 Internal Server Error", 500},
	} {
		t.Run(tc.path, func(t *testing.T) {
			f := openRSA(t, fsys, "big/"+tc.path+".bin")
			buf := bytes.Repeat([]byte("#"), 100)
			n, err := f.ReadAt(buf, 500000)
			var pe *fs.PathError
			if n != 0 || !errors.Is(err, pointer.ErrBroken) || !errors.As(err, &pe) || pe.Path != "big/"+tc.path+".bin" {
				t.Fatalf("ReadAt = %d, %v; want a *fs.PathError wrapping pointer.ErrBroken", n, err)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), rs.URL+"/"+tc.path) {
				t.Fatalf("error %q does not say %q and the URL", err, tc.msg)
			}
			var se *pointer.StatusError
			if tc.status != 0 && (!errors.As(err, &se) || se.StatusCode != tc.status) {
				t.Fatalf("error %v: want a StatusError %d", err, tc.status)
			}
			if !bytes.Equal(buf, bytes.Repeat([]byte("#"), 100)) {
				t.Fatal("ReadAt wrote into the buffer")
			}
			// Read after Seek fails the same way.
			if _, err := f.Seek(500000, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			if n, err := f.Read(buf); n != 0 || !errors.Is(err, pointer.ErrBroken) {
				t.Fatalf("Read after Seek = %d, %v", n, err)
			}
			t.Logf("%v", err)
		})
	}
}

// TestRangeResolverContract checks HTTPResolver.FetchRange directly, and
// that chromafs checks what any RangeResolver answers.
func TestRangeResolverContract(t *testing.T) {
	rs := newRangeServer(t)
	ctx := context.Background()
	r := &pointer.HTTPResolver{Policy: allowing(t, rs.URL)}
	e := &tree.Entry{Slug: "big.bin", URL: rs.URL + "/ok", Size: int64(len(bigBody))}
	for _, tc := range []struct {
		off, n int64
		want   []byte
		err    error
	}{
		{0, 4, bigBody[:4], nil},
		{e.Size - 2, 100, bigBody[e.Size-2:], nil},
		{e.Size, 1, nil, io.EOF},
		{e.Size + 5, 1, nil, io.EOF},
		{5, 0, []byte{}, nil},
		{-1, 5, nil, fs.ErrInvalid},
		{5, -1, nil, fs.ErrInvalid},
	} {
		data, full, err := r.FetchRange(ctx, e, tc.off, tc.n)
		if full || !errors.Is(err, tc.err) || !bytes.Equal(data, tc.want) || (tc.err != nil && data != nil) {
			t.Errorf("FetchRange(%d, %d) = %d bytes, %v, %v; want %d bytes, %v", tc.off, tc.n, len(data), full, err, len(tc.want), tc.err)
		}
	}
	// Without a declared size: the whole content.
	noSize := &tree.Entry{Slug: "big.bin", URL: rs.URL + "/ok", Size: -1}
	if data, full, err := r.FetchRange(ctx, noSize, 10, 10); !full || err != nil || !bytes.Equal(data, bigBody) {
		t.Errorf("FetchRange without size = %d bytes, %v, %v", len(data), full, err)
	}

	// A resolver answering the wrong length, or a whole content with the
	// wrong hash: errors, not served.
	for name, rr := range map[string]rangeFunc{
		"short": func(e *tree.Entry, off, n int64) ([]byte, bool, error) { return bigBody[off : off+n-1], false, nil },
		"long":  func(e *tree.Entry, off, n int64) ([]byte, bool, error) { return bigBody[off : off+n+1], false, nil },
		"full":  func(e *tree.Entry, off, n int64) ([]byte, bool, error) { return bytes.ToUpper(bigBody), true, nil },
		"eof":   func(e *tree.Entry, off, n int64) ([]byte, bool, error) { return nil, false, io.EOF },
	} {
		fsys := newRangeFS(t, rs, chromafs.WithResolver(rr))
		buf := bytes.Repeat([]byte("#"), 10)
		n, err := openRSA(t, fsys, "big/ok.bin").ReadAt(buf, 1000)
		if n != 0 || !errors.Is(err, pointer.ErrBroken) || string(buf) != "##########" {
			t.Errorf("%s: ReadAt = %d, %v, %q; want pointer.ErrBroken and no bytes", name, n, err, buf)
		}
	}
	// A resolver without FetchRange is asked for the whole content.
	whole := 0
	fsys := newRangeFS(t, rs, chromafs.WithResolver(pointer.ResolverFunc(func(ctx context.Context, e *tree.Entry) ([]byte, error) {
		whole++
		return bigBody, nil
	})))
	buf := make([]byte, 10)
	if n, err := openRSA(t, fsys, "big/ok.bin").ReadAt(buf, 1000); n != 10 || err != nil || whole != 1 || !bytes.Equal(buf, bigBody[1000:1010]) {
		t.Errorf("ReadAt through a plain Resolver = %d, %v (%d fetches)", n, err, whole)
	}
}

// rangeFunc is a RangeResolver for tests; Fetch is never expected.
type rangeFunc func(e *tree.Entry, off, n int64) ([]byte, bool, error)

func (f rangeFunc) Fetch(ctx context.Context, e *tree.Entry) ([]byte, error) {
	return nil, errors.New("rangeFunc: Fetch called")
}

func (f rangeFunc) FetchRange(ctx context.Context, e *tree.Entry, off, n int64) ([]byte, bool, error) {
	return f(e, off, n)
}

// TestRangeConcurrent reads one open pointer file and several others from
// many goroutines (run with -race).
func TestRangeConcurrent(t *testing.T) {
	rs := newRangeServer(t)
	fsys := newRangeFS(t, rs)
	shared := openRSA(t, fsys, "big/ok.bin")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			f, err := fsys.Open("big/partial.bin")
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			buf := make([]byte, 3000)
			for j := range 4 {
				off := int64((i*4+j)*31337) % int64(len(bigBody)-len(buf))
				for _, r := range []io.ReaderAt{shared, f.(io.ReaderAt)} {
					if n, err := r.ReadAt(buf, off); n != len(buf) || err != nil || !bytes.Equal(buf, bigBody[off:off+int64(len(buf))]) {
						t.Errorf("ReadAt(%d) = %d, %v", off, n, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
