package chromafs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// ErrBrokenPointer is wrapped by errors from reading a lazy file pointer
// whose target does not hold the content the tree promises: the server
// answered with a status other than 2xx (a 404 included: the page is
// listed, so a missing target is a broken pointer, not a missing file),
// the content is larger or smaller than the entry's declared size, larger
// than the resolver's limit, or does not match the entry's hash. Such
// content is never served, not even in part.
//
// Failures to reach the target at all (a refused connection, a deadline)
// do not wrap ErrBrokenPointer; they wrap the cause, such as
// context.DeadlineExceeded.
var ErrBrokenPointer = errors.New("broken lazy pointer")

// A Resolver fetches the content of lazy file pointers: tree entries whose
// URL field points at content stored outside the collection (for example
// a large OpenAPI spec in an object store). Users implement it for
// schemes that HTTPResolver does not handle (s3://, gs://, …); see
// WithResolver.
//
// Fetch returns the whole content of e.URL. It must honour ctx (its
// deadline and cancellation) and should not read more than it needs: when
// e.Size >= 0 the content must be exactly e.Size bytes, and a resolver
// should stop reading after e.Size+1 bytes and fail. A resolver that
// cannot handle e.URL's scheme returns an error wrapping ErrLazyPointer;
// one whose target is missing or wrong returns an error wrapping
// ErrBrokenPointer. The returned slice is owned by chromafs afterwards
// (it is cached and shared) and must not be modified.
//
// chromafs checks the result whatever the resolver: content whose length
// differs from e.Size (when e.Size >= 0), or whose sha256 differs from
// e.Hash (when e.Hash is "sha256:<hex>"), is an error wrapping
// ErrBrokenPointer, never served. Fetch is called only for entries
// visible to the session's user, and at most once per page version at a
// time in a process (concurrent reads share one call); its result is
// cached like any page's.
type Resolver interface {
	Fetch(ctx context.Context, e *tree.Entry) ([]byte, error)
}

// ResolverFunc adapts a function to a Resolver.
type ResolverFunc func(ctx context.Context, e *tree.Entry) ([]byte, error)

// Fetch calls f(ctx, e).
func (f ResolverFunc) Fetch(ctx context.Context, e *tree.Entry) ([]byte, error) { return f(ctx, e) }

const (
	// DefaultPointerMaxBytes is the largest content HTTPResolver reads
	// when its MaxBytes is 0.
	DefaultPointerMaxBytes = 64 << 20
	// DefaultPointerTimeout bounds one fetch (connection, headers and
	// body) by HTTPResolver when its Client is nil, on top of the
	// context's deadline.
	DefaultPointerTimeout = 2 * time.Minute
)

// DefaultResolver is the resolver of an FS created without WithResolver:
// an HTTPResolver with the default client and limits. It fetches http and
// https pointers; pointers with other schemes fail with ErrLazyPointer.
var DefaultResolver Resolver = &HTTPResolver{}

var defaultPointerClient = &http.Client{Timeout: DefaultPointerTimeout}

// HTTPResolver fetches http and https pointers with one GET each.
//
// The request carries the read's context, so a deadline set with
// FS.WithContext bounds it. A status other than 2xx is an error wrapping
// ErrBrokenPointer and a *StatusError naming the URL and the status.
// Content larger than the entry's declared size or than MaxBytes, or
// smaller than the declared size, is an error wrapping ErrBrokenPointer;
// the body is read at most one byte past the limit, and nothing is
// returned. Pointers with another scheme are an error wrapping
// ErrLazyPointer.
//
// The whole content is fetched on the first read of a page, even for
// ReadAt or Seek: a file of chromafs is an io.ReaderAt over the loaded
// page.
type HTTPResolver struct {
	// Client sends the requests. Nil means a client with a timeout of
	// DefaultPointerTimeout over http.DefaultTransport.
	Client *http.Client
	// MaxBytes is the largest content read. 0 means
	// DefaultPointerMaxBytes; a negative value means no limit other than
	// the declared size.
	MaxBytes int64
	// Header is added to every request (for example Authorization). It
	// may be nil.
	Header http.Header
}

// StatusError is an HTTP answer other than 2xx to a pointer's GET.
type StatusError struct {
	URL        string // with any password redacted
	StatusCode int
	Status     string // such as "404 Not Found"
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("GET %s: %s", e.URL, e.Status)
}

// Fetch implements Resolver.
func (r *HTTPResolver) Fetch(ctx context.Context, e *tree.Entry) ([]byte, error) {
	u, err := url.Parse(e.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: page %q: invalid pointer URL: %v", ErrBrokenPointer, e.Slug, err)
	}
	shown := u.Redacted()
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: page %q: %s: no resolver for scheme %q", ErrLazyPointer, e.Slug, shown, u.Scheme)
	}
	limit := r.MaxBytes
	if limit == 0 {
		limit = DefaultPointerMaxBytes
	}
	if e.Size >= 0 {
		if limit > 0 && e.Size > limit {
			return nil, fmt.Errorf("%w: page %q: %s: the tree declares %d bytes, more than the limit of %d", ErrBrokenPointer, e.Slug, shown, e.Size, limit)
		}
		limit = e.Size
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: page %q: %s: %v", ErrBrokenPointer, e.Slug, shown, err)
	}
	for k, vs := range r.Header {
		req.Header[k] = append(req.Header[k], vs...)
	}
	client := r.Client
	if client == nil {
		client = defaultPointerClient
	}
	resp, err := client.Do(req)
	if err != nil {
		// *url.Error already names the method and URL (redacted).
		return nil, fmt.Errorf("page %q: fetch pointer: %w", e.Slug, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%w: page %q: %w", ErrBrokenPointer, e.Slug,
			&StatusError{URL: shown, StatusCode: resp.StatusCode, Status: resp.Status})
	}
	if resp.ContentLength >= 0 {
		switch {
		case e.Size >= 0 && resp.ContentLength != e.Size:
			return nil, fmt.Errorf("%w: page %q: %s: the server announces %d bytes, the tree declares %d", ErrBrokenPointer, e.Slug, shown, resp.ContentLength, e.Size)
		case limit >= 0 && resp.ContentLength > limit:
			return nil, fmt.Errorf("%w: page %q: %s: the server announces %d bytes, more than the limit of %d", ErrBrokenPointer, e.Slug, shown, resp.ContentLength, limit)
		}
	}
	var body io.Reader = resp.Body
	if limit >= 0 {
		body = io.LimitReader(resp.Body, limit+1)
	}
	var buf []byte
	if e.Size >= 0 {
		buf = make([]byte, 0, e.Size+1)
	}
	data, err := readAllInto(buf, body)
	if err != nil {
		return nil, fmt.Errorf("page %q: fetch pointer %s: %w", e.Slug, shown, err)
	}
	if limit >= 0 && int64(len(data)) > limit {
		if e.Size >= 0 {
			return nil, fmt.Errorf("%w: page %q: %s: content is larger than the %d bytes the tree declares", ErrBrokenPointer, e.Slug, shown, e.Size)
		}
		return nil, fmt.Errorf("%w: page %q: %s: content is larger than the limit of %d bytes", ErrBrokenPointer, e.Slug, shown, limit)
	}
	if e.Size >= 0 && int64(len(data)) < e.Size {
		return nil, fmt.Errorf("%w: page %q: %s: content holds %d bytes, the tree declares %d", ErrBrokenPointer, e.Slug, shown, len(data), e.Size)
	}
	return data, nil
}

// readAllInto is io.ReadAll appending to buf.
func readAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// CheckPointer verifies content fetched for a lazy pointer against what
// its tree entry declares (size, sha256 hash), as FS does on every read.
// A mismatch is an error wrapping ErrBrokenPointer that names the page and
// its URL (without credentials). chromafs validate uses it too.
func CheckPointer(e *tree.Entry, data []byte) error {
	if e.Size >= 0 && int64(len(data)) != e.Size {
		return fmt.Errorf("%w: page %q: %s holds %d bytes, the tree declares %d", ErrBrokenPointer, e.Slug, redact(e.URL), len(data), e.Size)
	}
	if want, ok := strings.CutPrefix(e.Hash, "sha256:"); ok {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return fmt.Errorf("%w: page %q: %s: content hash sha256:%s does not match the tree's %s", ErrBrokenPointer, e.Slug, redact(e.URL), got, e.Hash)
		}
	}
	return nil
}

func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// resolve fetches a pointer page through the session's resolver and
// checks it.
func (s *session) resolve(ctx context.Context, n *tree.Node) ([]byte, error) {
	if s.resolver == nil {
		return nil, fmt.Errorf("%w: %s", ErrLazyPointer, redact(n.Entry.URL))
	}
	data, err := s.resolver.Fetch(ctx, n.Entry)
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{}
	}
	if err := CheckPointer(n.Entry, data); err != nil {
		return nil, err
	}
	return data, nil
}
