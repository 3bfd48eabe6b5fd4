package webdavfs

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"

	"golang.org/x/net/webdav"

	"github.com/chromafs/chromafs/adapters/internal/attr"
	"github.com/chromafs/chromafs/adapters/internal/upstream"
	"github.com/chromafs/chromafs/fscap"
)

// Allow is the value of the Allow header of every answer to OPTIONS and of
// every 405 answer to a write method: the methods the handler serves.
const Allow = "OPTIONS, GET, HEAD, PROPFIND"

// allowCollection is the Allow header of a 405 answer to GET or HEAD on a
// directory.
const allowCollection = "OPTIONS, PROPFIND"

// FiniteDepthBody is the body of the 403 answer to a PROPFIND with Depth
// infinity (or without a Depth header): the DAV:propfind-finite-depth
// precondition of RFC 4918, section 9.1.
const FiniteDepthBody = `<?xml version="1.0" encoding="utf-8"?><D:error xmlns:D="DAV:"><D:propfind-finite-depth/></D:error>`

// Options configure [NewHandler].
type Options struct {
	// Prefix is the URL path under which the filesystem is served, such
	// as "/dav" ("" or "/": the root). Requests outside it get 404; hrefs
	// in PROPFIND answers carry it.
	Prefix string

	// AllowInfiniteDepth answers PROPFIND with Depth: infinity (or
	// without a Depth header) with the whole subtree, instead of 403.
	AllowInfiniteDepth bool

	// AllowActiveContent serves pages with the content type the tree
	// records (or their extension gives) even when it is active content —
	// HTML, SVG, XML, JavaScript (see the package documentation) — which
	// a browser would run as a page of the server's origin. By default
	// such pages are served, and listed in PROPFIND, as
	// text/plain; charset=utf-8. Set it only when every writer of the
	// collection is trusted with the origin.
	AllowActiveContent bool

	// Logger receives failures: resolve errors and store errors, with
	// their details (clients get a generic body). Nil means
	// slog.Default().
	Logger *slog.Logger
}

// NewHandler returns a read-only WebDAV handler (DAV class 1) over the
// filesystem that resolve returns for each request — typically a view
// pruned for the request's user. See the package documentation for what
// it answers to each method.
func NewHandler(resolve func(r *http.Request) (fs.FS, error), opt Options) http.Handler {
	if resolve == nil {
		panic("webdavfs: nil resolve")
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	return &handler{
		resolve:     resolve,
		prefix:      strings.TrimRight(opt.Prefix, "/"),
		infinite:    opt.AllowInfiniteDepth,
		allowActive: opt.AllowActiveContent,
		log:         log,
	}
}

type handler struct {
	resolve     func(r *http.Request) (fs.FS, error)
	prefix      string // "" or "/x" without a trailing slash
	infinite    bool
	allowActive bool
	log         *slog.Logger
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	name, ok := h.strip(r.URL.Path)
	if !ok {
		h.fail(w, http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodOptions:
		hd := w.Header()
		hd.Set("Allow", Allow)
		hd.Set("DAV", "1")
		hd.Set("MS-Author-Via", "DAV")
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodGet, http.MethodHead, "PROPFIND":
	default:
		w.Header().Set("Allow", Allow)
		http.Error(w, "405 method not allowed: read-only WebDAV server", http.StatusMethodNotAllowed)
		return
	}
	if IsProbe(name) {
		h.fail(w, http.StatusNotFound)
		return
	}
	depth := 0
	if r.Method == "PROPFIND" {
		switch r.Header.Get("Depth") {
		case "0":
		case "1":
			depth = 1
		case "", "infinity":
			if !h.infinite {
				w.Header().Set("Content-Type", "application/xml; charset=utf-8")
				w.WriteHeader(http.StatusForbidden)
				w.Write([]byte(FiniteDepthBody))
				return
			}
			depth = -1
		default:
			h.fail(w, http.StatusBadRequest)
			return
		}
	}

	fsys, err := h.resolve(r)
	if err == nil && fsys == nil {
		err = errors.New("resolve returned a nil fs.FS")
	}
	if err != nil {
		k := upstream.Classify(err, false)
		if k != upstream.Canceled {
			h.log.Error("webdavfs: resolve", "method", r.Method, "path", r.URL.Path, "kind", k.String(), "err", err)
		}
		upstream.Write(w, k, false, http.StatusInternalServerError)
		return
	}
	wfs := &fileSystem{fsys: fsys}
	view := wfs.view(r.Context())
	n := fsName(name)
	// Metadata only: a PROPFIND never reads content, and GET and HEAD
	// learn here whether the file is a lazy pointer.
	fi, sized, err := fscap.StatNoRead(view, n)
	if err != nil {
		h.storeFail(w, r, err, false)
		return
	}
	if r.Method == "PROPFIND" {
		webName := "/"
		if n != "." {
			webName += n
		}
		h.propfind(w, r, view, resource{name: webName, base: path.Base(n), fi: fi, sized: sized}, n, depth)
		return
	}

	// GET and HEAD, served by webdav.Handler.
	if fi.IsDir() {
		w.Header().Set("Allow", allowCollection)
		h.fail(w, http.StatusMethodNotAllowed)
		return
	}
	pointer := upstream.IsPointer(fi)
	var davErr error
	dav := &webdav.Handler{
		Prefix:     h.prefix,
		FileSystem: wfs,
		LockSystem: noLocks{},
		Logger:     func(_ *http.Request, err error) { davErr = err },
	}
	if r.Method == http.MethodGet {
		// Load the page now, so that a failed read is an error status
		// rather than a 200 whose body stops short.
		data, err := fscap.ReadFileShared(view, n)
		if err != nil {
			h.storeFail(w, r, err, pointer)
			return
		}
		if !sized {
			fi = sizedInfo{FileInfo: fi, size: int64(len(data))}
		}
		wfs.pinName = name
		wfs.pin = &memFile{Reader: bytes.NewReader(data), info: &fileInfo{FileInfo: fi, name: path.Base(n)}, name: name}
	} else if !sized {
		// HEAD sends the size: a read, reported here rather than as
		// webdav.Handler's 500.
		if fi, err = fs.Stat(view, n); err != nil {
			h.storeFail(w, r, err, pointer)
			return
		}
	}
	w.Header().Set("Content-Type", attr.ServedType(path.Base(n), fi, h.allowActive))
	dav.ServeHTTP(w, r)
	if davErr != nil {
		h.log.Error("webdavfs: serve", "method", r.Method, "path", r.URL.Path, "err", davErr)
	}
}

// strip maps a URL path to a WebDAV name under the prefix.
func (h *handler) strip(p string) (string, bool) {
	if h.prefix == "" {
		return p, true
	}
	if p == h.prefix {
		return "/", true
	}
	if strings.HasPrefix(p, h.prefix+"/") {
		return p[len(h.prefix):], true
	}
	return "", false
}

// fail answers status with its text.
func (h *handler) fail(w http.ResponseWriter, status int) {
	http.Error(w, http.StatusText(status), status)
}

// storeFail answers a failed filesystem operation with the status of
// [Status] (pointer: err came from reading a lazy pointer, see
// upstream.Classify) and a generic body; failures other than a missing or
// forbidden file, and a canceled request, are logged.
func (h *handler) storeFail(w http.ResponseWriter, r *http.Request, err error, pointer bool) {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid):
		h.fail(w, http.StatusNotFound)
		return
	case errors.Is(err, fs.ErrPermission):
		h.fail(w, http.StatusForbidden)
		return
	}
	k := upstream.Classify(err, pointer)
	if k != upstream.Canceled {
		h.log.Error("webdavfs: store", "method", r.Method, "path", r.URL.Path,
			"status", k.Status(http.StatusBadGateway), "kind", k.String(), "err", err)
	}
	upstream.Write(w, k, pointer, http.StatusBadGateway)
}

// Status returns the HTTP status for an error of the filesystem: 404 for
// a missing (or hidden, or invalid) path, 403 for a permission error, and
// for a failure of the services behind the filesystem 503 when the store
// or the cache cannot be reached (and when the request was canceled), 504
// when a deadline passed, and 502 for anything else (a corrupt page, an
// error answer of the store, a broken lazy pointer). It never returns 500.
func Status(err error) int {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid):
		return http.StatusNotFound
	case errors.Is(err, fs.ErrPermission):
		return http.StatusForbidden
	}
	return upstream.Classify(err, false).Status(http.StatusBadGateway)
}

// IsProbe reports whether a path names a file that desktop clients look
// for on every server (macOS AppleDouble "._*" files and ".DS_Store",
// Windows "desktop.ini" and "Thumbs.db") in any of its segments. The
// handler answers 404 for them without resolving a filesystem.
func IsProbe(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(seg, "._") || seg == ".DS_Store" ||
			strings.EqualFold(seg, "desktop.ini") || strings.EqualFold(seg, "Thumbs.db") {
			return true
		}
	}
	return false
}
