package httpfs

import (
	"bytes"
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
	"github.com/chromafs/chromafs/adapters/internal/upstream"
	"github.com/chromafs/chromafs/fscap"
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

	// AllowActiveContent serves files with the content type the tree
	// records (or their extension gives) even when it is active content —
	// HTML, SVG, XML, JavaScript (see the package documentation) — which
	// a browser would run as a page of the server's origin, where it holds
	// the users' credentials. By default such files are served as
	// text/plain; charset=utf-8. Set it only when every writer of the
	// collection is trusted with the origin.
	AllowActiveContent bool
}

// handler is the http.Handler of NewHandler.
type handler struct {
	resolve      func(*http.Request) (fs.FS, error)
	prefix       string // "/" or "/files/"
	log          *slog.Logger
	cacheControl string
	allowActive  bool
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
	return &handler{resolve: resolve, prefix: prefix, log: opt.Logger, cacheControl: cc, allowActive: opt.AllowActiveContent}
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
	if err == nil && fsys == nil {
		err = errors.New("resolve returned a nil fs.FS")
	}
	if err != nil {
		k := upstream.Classify(err, false)
		if k != upstream.Canceled {
			h.logf(r, "resolve filesystem", k, err)
		}
		upstream.Write(w, k, false, http.StatusInternalServerError)
		return
	}
	fsys = fscap.Bind(r.Context(), fsys)

	// Metadata first (no read on chromafs), to know whether a file is a
	// lazy pointer before anything reads it.
	fi, sized, err := fscap.StatNoRead(fsys, name)
	if err != nil {
		h.fail(w, r, "stat", err, false)
		return
	}
	if !fi.IsDir() && !sized {
		// The file's size is needed for its headers: a read.
		pointer := upstream.IsPointer(fi)
		if fi, err = fs.Stat(fsys, name); err != nil {
			h.fail(w, r, "stat", err, pointer)
			return
		}
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
	pointer := upstream.IsPointer(fi)
	f, err := fsys.Open(name)
	if err != nil {
		h.fail(w, r, "open", err, pointer)
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
			h.fail(w, r, "read", err, pointer)
			return
		}
		content = bytes.NewReader(data)
	} else if r.Method == http.MethodGet && !notModified(r, etag, fi.ModTime()) {
		// Load the content before ServeContent writes a status line:
		// chromafs fetches a page on its first read, and a failure after
		// "200 OK" would send a truncated body. A HEAD or a 304 needs no
		// content.
		if err := preload(content, rangeStart(r, fi.Size())); err != nil {
			h.fail(w, r, "read", err, pointer)
			return
		}
	}

	hdr := w.Header()
	hdr.Set("ETag", etag)
	hdr.Set("Content-Type", attr.ServedType(name, fi, h.allowActive))
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
	// Names and kinds only: a listing never asks for an entry's Info,
	// which on chromafs could read a page to learn its size.
	ents, err := fs.ReadDir(fsys, name)
	if err != nil {
		h.fail(w, r, "readdir", err, false)
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
	hdr.Set("Content-Security-Policy", listingCSP)
	hdr.Set("Content-Length", fmt.Sprint(b.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// listingCSP is the Content-Security-Policy of directory listings: no
// script, style, frame, form or other resource, in a sandbox with an
// opaque origin; only the links work.
const listingCSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox"

// fail answers a failed filesystem operation: 404 for missing and hidden
// paths alike, 400 for invalid ones, 403 for refused ones, and for a
// failure of the services behind the filesystem the status of
// upstream.Classify (pointer: err came from reading a lazy pointer): 503
// with Retry-After when the store or the cache cannot be reached, 504 when
// a deadline passed, 502 for anything else, and 503 when the client
// canceled the request (nobody reads that answer).
func (h *handler) fail(w http.ResponseWriter, r *http.Request, op string, err error, pointer bool) {
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
	k := upstream.Classify(err, pointer)
	if k != upstream.Canceled {
		h.logf(r, op, k, err)
	}
	upstream.Write(w, k, pointer, http.StatusBadGateway)
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

func (h *handler) logf(r *http.Request, op string, k upstream.Kind, err error) {
	if h.log == nil {
		return
	}
	h.log.LogAttrs(r.Context(), slog.LevelError, "httpfs: "+op+" failed",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("kind", k.String()), slog.Any("err", err))
}
