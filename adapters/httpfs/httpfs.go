package httpfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/chromafs/chromafs/adapters/internal/attr"
)

// Options configure NewHandler. The zero value serves from the root of
// the URL space with the default headers.
type Options struct {
	// Prefix is the URL path under which the files are served, such as
	// "/files/"; it is stripped before the file is looked up. A missing
	// leading or trailing slash is added. Requests for paths outside it
	// answer 404; the prefix without its trailing slash is redirected to
	// it. Empty means "/".
	Prefix string

	// Logger receives the errors that the responses do not detail
	// (resolve's errors, failed reads). Nil means no logging.
	Logger *slog.Logger

	// CacheControl is the Cache-Control header of every response. Empty
	// means "private, no-cache"; "-" sends none.
	CacheControl string
}

// handler is the http.Handler of NewHandler.
type handler struct {
	resolve      func(*http.Request) (fs.FS, error)
	prefix       string // "/" or "/files/"
	log          *slog.Logger
	cacheControl string
}

// NewHandler returns a read-only file server for the filesystem that
// resolve returns for each request. See the package documentation for
// its behaviour. It panics if resolve is nil.
func NewHandler(resolve func(r *http.Request) (fs.FS, error), opt Options) http.Handler {
	if resolve == nil {
		panic("httpfs: nil resolve")
	}
	prefix := opt.Prefix
	if !strings.HasPrefix(prefix, "/") {
		prefix = "/" + prefix
	}
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	cc := opt.CacheControl
	switch cc {
	case "":
		cc = "private, no-cache"
	case "-":
		cc = ""
	}
	return &handler{resolve: resolve, prefix: prefix, log: opt.Logger, cacheControl: cc}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	if h.cacheControl != "" {
		hdr.Set("Cache-Control", h.cacheControl)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}

	urlPath := r.URL.Path
	if h.prefix != "/" && urlPath+"/" == h.prefix {
		redirect(w, r, path.Base(h.prefix)+"/")
		return
	}
	rel, ok := strings.CutPrefix(urlPath, h.prefix)
	if !ok {
		notFound(w)
		return
	}
	name, wantDir, ok := fsName(rel)
	if !ok {
		http.Error(w, "400 bad request: invalid path", http.StatusBadRequest)
		return
	}

	fsys, err := h.resolve(r)
	if err != nil {
		h.logf(r, "resolve filesystem", err)
		http.Error(w, "500 internal server error", http.StatusInternalServerError)
		return
	}
	if fsys == nil {
		h.logf(r, "resolve filesystem", errors.New("resolve returned a nil fs.FS"))
		http.Error(w, "500 internal server error", http.StatusInternalServerError)
		return
	}

	fi, err := fs.Stat(fsys, name)
	if err != nil {
		h.fail(w, r, "stat", err)
		return
	}
	switch {
	case fi.IsDir() && !wantDir:
		redirect(w, r, path.Base(urlPath)+"/")
	case fi.IsDir():
		h.serveDir(w, r, fsys, name)
	case wantDir:
		redirect(w, r, "../"+path.Base(name))
	default:
		h.serveFile(w, r, fsys, name, fi)
	}
}

// fsName maps the URL path below the prefix to an fs.FS name. wantDir
// reports a trailing slash. ok is false for a path that is not valid:
// "." or ".." elements, empty elements, NUL or backslash.
func fsName(rel string) (name string, wantDir, ok bool) {
	if strings.ContainsAny(rel, "\x00\\") {
		return "", false, false
	}
	if rel == "" {
		return ".", true, true
	}
	name, wantDir = strings.CutSuffix(rel, "/")
	if !fs.ValidPath(name) || name == "." {
		return "", false, false
	}
	return name, wantDir, true
}

// serveFile serves one file with http.ServeContent.
func (h *handler) serveFile(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string, fi fs.FileInfo) {
	f, err := fsys.Open(name)
	if err != nil {
		h.fail(w, r, "open", err)
		return
	}
	defer f.Close()

	etag := attr.ETag(fi)
	content, ok := f.(io.ReadSeeker)
	if !ok {
		// Not seekable: read it whole (ServeContent needs Seek for sizes
		// and ranges).
		data, err := io.ReadAll(f)
		if err != nil {
			h.fail(w, r, "read", err)
			return
		}
		content = bytes.NewReader(data)
	} else if r.Method == http.MethodGet && !notModified(r, etag, fi.ModTime()) {
		// Load the content before ServeContent writes a status line:
		// chromafs fetches a page on its first read, and a failure after
		// "200 OK" would send a truncated body. A HEAD or a 304 needs no
		// content.
		if err := preload(content, rangeStart(r, fi.Size())); err != nil {
			h.fail(w, r, "read", err)
			return
		}
	}

	hdr := w.Header()
	hdr.Set("ETag", etag)
	hdr.Set("Content-Type", attr.ContentType(name, fi))
	http.ServeContent(w, r, fi.Name(), fi.ModTime(), content)
}

// preload makes a lazy file fetch its content: it reads one byte at off
// (with ReadAt, when the file has it and off > 0, so that a chromafs lazy
// pointer fetches only a window of a large file with a ranged request) or
// at the start, and seeks back to the start.
func preload(f io.ReadSeeker, off int64) error {
	var b [1]byte
	if ra, ok := f.(io.ReaderAt); ok && off > 0 {
		if _, err := ra.ReadAt(b[:], off); err != nil && err != io.EOF {
			return err
		}
		return nil
	}
	if _, err := f.Read(b[:]); err != nil && err != io.EOF {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// rangeStart returns the first byte that ServeContent will send for a
// request with a single range ("bytes=a-b", "bytes=a-", "bytes=-n") on a
// file of size bytes, or 0: for other requests, or with If-Range (whose
// mismatch makes ServeContent send the whole file), the whole content is
// loaded before the status line.
func rangeStart(r *http.Request, size int64) int64 {
	spec, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !ok || strings.Contains(spec, ",") || r.Header.Get("If-Range") != "" {
		return 0
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return 0
	}
	if first == "" { // the last n bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n <= 0 {
			return 0
		}
		return max(size-n, 0)
	}
	a, err := strconv.ParseInt(first, 10, 64)
	if err != nil || a < 0 || a >= size {
		return 0
	}
	return a
}

// notModified reports whether ServeContent will answer 304, so that the
// content need not be loaded. It follows ServeContent's precedence: an
// If-None-Match header decides alone; else If-Modified-Since.
func notModified(r *http.Request, etag string, modtime time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etagMatches(inm, etag)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || modtime.IsZero() || modtime.Equal(time.Unix(0, 0)) {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !modtime.Truncate(time.Second).After(t)
}

// etagMatches reports whether the If-None-Match header value matches
// etag, with the weak comparison that ServeContent uses.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	weak := strings.TrimPrefix(etag, "W/")
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == weak {
			return true
		}
	}
	return false
}

// serveDir writes an HTML listing of the directory name.
func (h *handler) serveDir(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string) {
	ents, err := fs.ReadDir(fsys, name)
	if err != nil {
		h.fail(w, r, "readdir", err)
		return
	}
	var b bytes.Buffer
	title := html.EscapeString(r.URL.Path)
	fmt.Fprintf(&b, "<!doctype html>\n<meta charset=\"utf-8\">\n<title>Index of %s</title>\n<h1>Index of %s</h1>\n<pre>\n", title, title)
	if name != "." {
		b.WriteString("<a href=\"../\">../</a>\n")
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		// url.URL.String escapes the path and adds "./" when the first
		// element has a colon, so a name never reads as a scheme.
		href := (&url.URL{Path: n}).String()
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>\n", html.EscapeString(href), html.EscapeString(n))
	}
	b.WriteString("</pre>\n")

	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hdr.Set("Content-Length", fmt.Sprint(b.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// fail answers a failed filesystem operation: 404 for missing and hidden
// paths alike, 400 for invalid ones, 403 for refused ones, 503 for a
// canceled request, 504 for a timed-out read and 502 for any other
// failure (the store did not deliver).
func (h *handler) fail(w http.ResponseWriter, r *http.Request, op string, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		notFound(w)
		return
	case errors.Is(err, fs.ErrInvalid):
		http.Error(w, "400 bad request: invalid path", http.StatusBadRequest)
		return
	case errors.Is(err, fs.ErrPermission):
		http.Error(w, "403 forbidden", http.StatusForbidden)
		return
	}
	if r.Context().Err() != nil {
		// The client went away; nobody reads this answer.
		h.logf(r, op, err)
		http.Error(w, "503 request canceled", http.StatusServiceUnavailable)
		return
	}
	h.logf(r, op, err)
	if errors.Is(err, context.DeadlineExceeded) {
		http.Error(w, "504 gateway timeout: the page could not be read in time", http.StatusGatewayTimeout)
		return
	}
	http.Error(w, "502 bad gateway: the page could not be read", http.StatusBadGateway)
}

func notFound(w http.ResponseWriter) {
	http.Error(w, "404 page not found", http.StatusNotFound)
}

// redirect sends a 301 to the relative target (an unescaped path),
// keeping the query, as http.FileServer does.
func redirect(w http.ResponseWriter, r *http.Request, target string) {
	target = (&url.URL{Path: target}).String()
	if q := r.URL.RawQuery; q != "" {
		target += "?" + q
	}
	w.Header().Set("Location", target)
	w.WriteHeader(http.StatusMovedPermanently)
}

func (h *handler) logf(r *http.Request, op string, err error) {
	if h.log == nil {
		return
	}
	h.log.LogAttrs(r.Context(), slog.LevelError, "httpfs: "+op+" failed",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
}
