package pointer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/tree"
)

// ErrBroken is wrapped by errors from reading a lazy file pointer
// whose target does not hold the content the tree promises: the server
// answered with a status other than 2xx (a 404 included: the page is
// listed, so a missing target is a broken pointer, not a missing file),
// the content is larger or smaller than the entry's declared size, larger
// than the resolver's limit, or does not match the entry's hash. Such
// content is never served, not even in part.
//
// Failures to reach the target at all (a refused connection, a deadline)
// do not wrap ErrBroken; they wrap the cause, such as
// context.DeadlineExceeded. It matches fscap.ErrContent.
var ErrBroken = fscap.NewContentError("broken lazy pointer")

// A Resolver fetches the content of lazy file pointers: tree entries whose
// URL field points at content stored outside the collection (for example
// a large OpenAPI spec in an object store). Users implement it for
// schemes that HTTPResolver does not handle (s3://, gs://, …); see
// chromafs.WithResolver.
//
// Fetch returns the whole content of e.URL. It must honour ctx (its
// deadline and cancellation) and should not read more than it needs: when
// e.Size >= 0 the content must be exactly e.Size bytes, and a resolver
// should stop reading after e.Size+1 bytes and fail. A resolver that
// cannot handle e.URL's scheme returns an error wrapping ErrLazy;
// one whose target is missing or wrong returns an error wrapping
// ErrBroken. The returned slice is owned by chromafs afterwards
// (it is cached and shared) and must not be modified.
//
// chromafs checks the result whatever the resolver: content whose length
// differs from e.Size (when e.Size >= 0), or whose sha256 differs from
// e.Hash (when e.Hash is "sha256:<hex>"), is an error wrapping
// ErrBroken, never served. Fetch is called only for entries
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

// A RangeResolver is a Resolver that can also fetch part of a pointer's
// content, so that ReadAt, and Read after a Seek away from the start, of
// a large pointer do not fetch it whole. HTTPResolver is one.
//
// chromafs calls FetchRange only for pointers larger than its read
// window (256 KiB) whose entry declares a size (e.Size >= 0), only when
// the page is not in the session's cache, and only with
// 0 <= off < e.Size and 0 < n <= e.Size-off. Plain reads from the start
// and ReadFile still call Fetch, whose result is checked for size and
// hash and cached.
//
// FetchRange returns the n bytes of the content at [off, off+n), clipped
// to e.Size: exactly min(n, e.Size-off) bytes, never fewer and never
// more, with full false. An off at or after e.Size returns (nil, false,
// io.EOF); a negative off or n is an error wrapping fs.ErrInvalid. A
// target that holds a different total size than e.Size (as an HTTP
// server tells in Content-Range), that refuses the range (HTTP 416) or
// answers with a status other than 2xx, or that sends more or fewer bytes
// than it announces, is an error wrapping ErrBroken (with a
// *StatusError for HTTP statuses); no bytes are returned with an error.
// chromafs treats an io.EOF answer to an off it asked for (below e.Size)
// as a broken pointer too: the content is shorter than declared.
//
// A resolver that cannot fetch a part (an HTTP server that ignores the
// Range header and answers 200 with the whole content, or an entry
// without a declared size) may return the whole content instead, with
// full true, under the rules of Fetch. chromafs then checks it like a
// Fetch result (size and hash), caches it as the page and serves the
// read from it.
//
// Ranged bytes cannot be checked against e.Hash, which covers the whole
// content: a partial answer is checked for the declared total size and
// its own length only. chromafs checks the length of every answer
// whatever the resolver (a wrong one is an error wrapping
// ErrBroken, never served), and does not cache partial answers
// beyond the open file's current window. The returned slice is owned by
// chromafs afterwards and must not be modified.
type RangeResolver interface {
	Resolver
	FetchRange(ctx context.Context, e *tree.Entry, off, n int64) (data []byte, full bool, err error)
}

const (
	// DefaultMaxBytes is the largest content HTTPResolver reads
	// when its MaxBytes is 0.
	DefaultMaxBytes = 64 << 20
	// DefaultTimeout bounds one fetch by HTTPResolver (connection,
	// headers and body; for FetchRange, all of its requests) when its
	// Timeout is 0, on top of the context's deadline.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxRedirects is the most redirects HTTPResolver
	// follows for one request when its MaxRedirects is 0.
	DefaultMaxRedirects = 5
)

// HTTPResolver fetches http and https pointers with one GET each.
//
// Every fetch is checked against Policy (the zero Policy when nil):
// by default any host is fetched, but only from public addresses, so a
// pointer cannot make chromafs request a loopback, private or link-local
// address (Chroma's own API, a cloud metadata service, an internal
// service) unless an allow entry names it; redirects are followed only
// to targets the policy allows, at most MaxRedirects of them. A refused
// fetch is an error wrapping ErrBlocked (and ErrLazy), a
// *BlockedError that names the reason and the allow entry that would
// permit it. URLs in errors have their userinfo and query redacted (see
// RedactURL).
//
// The request carries the read's context, so a deadline set with
// chromafs.FS.WithContext bounds it, and Timeout bounds it further. A status other
// than 2xx is an error wrapping ErrBroken and a *StatusError
// naming the URL and the status. Content larger than the entry's
// declared size or than MaxBytes, or smaller than the declared size, is
// an error wrapping ErrBroken; the body is read at most one byte
// past the limit, and nothing is returned. Pointers with another scheme
// are an error wrapping ErrLazy.
//
// HTTPResolver is a RangeResolver: ReadAt, and Read after a Seek away
// from the start, of a pointer larger than 256 KiB with a declared size
// send GETs with a "Range: bytes=a-b" header and read a window of at
// least 256 KiB (so that the sequential reads after a Seek, such as
// http.ServeContent's, share one request). A 206 answer must carry a
// Content-Range for exactly the bytes asked (or a prefix of them, in
// which case the rest is asked for again, up to 16 requests) and the
// declared total size ("*" is refused); a 416 or a wrong total is an
// error wrapping ErrBroken. Ranged bytes are checked for the
// declared total size and their own length only, not for the entry's
// hash, which covers the whole content. A server that ignores Range and
// answers 200 sends the whole content: it is read and checked like a
// Fetch (MaxBytes applies) and cached as the page. Plain reads from the
// start and ReadFile fetch the whole content, checked for size and hash.
//
// The fields must not be changed once the resolver is in use.
type HTTPResolver struct {
	// Client sends the requests. Nil means a client over the policy's
	// Transport, whose dialer refuses the addresses the policy refuses.
	// A custom Client's transport is used as it is: its URL and
	// redirects are still checked against the policy (CheckRedirect is
	// wrapped), but the addresses its dialer connects to are checked only
	// if it uses the policy's Control (or Transport).
	Client *http.Client
	// Policy decides which URLs and addresses may be fetched. Nil means
	// the zero Policy: any host, public addresses only.
	Policy *Policy
	// Timeout bounds each fetch (Fetch, or FetchRange with all of its
	// requests), within the context's deadline. 0 means
	// DefaultTimeout; a negative value means no bound other than
	// the context's.
	Timeout time.Duration
	// MaxRedirects is the most redirects followed for one request. 0
	// means DefaultMaxRedirects; a negative value follows none (a
	// redirect is then a broken pointer).
	MaxRedirects int
	// MaxBytes is the largest content read whole. 0 means
	// DefaultMaxBytes; a negative value means no limit other than
	// the declared size. Ranged reads of a pointer declared larger are
	// allowed: they hold one window at a time.
	MaxBytes int64
	// Header is added to every request (for example Authorization). It
	// may be nil. net/http drops Authorization and Cookie on a redirect
	// to another domain.
	Header http.Header
}

var _ RangeResolver = (*HTTPResolver)(nil)

// StatusError is an HTTP answer other than 2xx to a pointer's GET (or,
// for a ranged GET, a 416).
type StatusError struct {
	URL        string // with userinfo and query redacted (see RedactURL)
	StatusCode int
	Status     string // such as "404 Not Found"
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("GET %s: %s", e.URL, e.Status)
}

func (r *HTTPResolver) policy() *Policy {
	if r.Policy == nil {
		return defaultPolicy
	}
	return r.Policy
}

// target checks e's URL against the policy and returns it redacted.
func (r *HTTPResolver) target(e *tree.Entry) (string, error) {
	u, err := url.Parse(e.URL)
	if err != nil {
		return "", fmt.Errorf("%w: page %q: invalid pointer URL %s: %v", ErrBroken, e.Slug, RedactURL(e.URL), errors.Unwrap(err))
	}
	if err := r.policy().checkURL(u); err != nil {
		return "", fmt.Errorf("page %q: %w", e.Slug, err)
	}
	return redactURL(u), nil
}

// maxBytes is r.MaxBytes with its default; negative means no limit.
func (r *HTTPResolver) maxBytes() int64 {
	if r.MaxBytes == 0 {
		return DefaultMaxBytes
	}
	return r.MaxBytes
}

// withTimeout returns ctx bounded by r.Timeout.
func (r *HTTPResolver) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	d := r.Timeout
	if d == 0 {
		d = DefaultTimeout
	}
	if d < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// timedOut adds the resolver's timeout to err when it is what passed
// (the caller's context is still live).
func (r *HTTPResolver) timedOut(parent context.Context, err error) error {
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || parent.Err() != nil {
		return err
	}
	d := r.Timeout
	if d == 0 {
		d = DefaultTimeout
	}
	return fmt.Errorf("%w (the pointer timeout of %v passed; HTTPResolver.Timeout, chromafs --pointer-timeout)", err, d)
}

// client returns the client for one fetch: r.Client or one over the
// policy's transport, with redirects checked against the policy.
func (r *HTTPResolver) client() *http.Client {
	pol := r.policy()
	var c http.Client
	if r.Client != nil {
		c = *r.Client
	} else {
		c.Transport = pol.Transport()
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := r.checkRedirect(pol, req, via); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &c
}

// checkRedirect refuses a redirect past MaxRedirects, from https to
// http, or to a target the policy refuses.
func (r *HTTPResolver) checkRedirect(pol *Policy, req *http.Request, via []*http.Request) error {
	from := redactURL(via[len(via)-1].URL)
	limit := r.MaxRedirects
	if limit == 0 {
		limit = DefaultMaxRedirects
	}
	if len(via) > limit {
		if limit < 0 {
			limit = 0
		}
		return fmt.Errorf("%w: redirect from %s: more than %d redirects", ErrBroken, from, limit)
	}
	if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme == "http" {
		return &BlockedError{URL: redactURL(req.URL), Reason: "redirect from https (" + from + ") to http"}
	}
	if err := pol.checkURL(req.URL); err != nil {
		return fmt.Errorf("redirect from %s: %w", from, err)
	}
	return nil
}

// wholeLimit is the most bytes read for the whole content of e: its
// declared size, or MaxBytes. A declared size over MaxBytes is an error.
func (r *HTTPResolver) wholeLimit(e *tree.Entry, shown string) (int64, error) {
	limit := r.maxBytes()
	if e.Size >= 0 {
		if limit > 0 && e.Size > limit {
			return 0, fmt.Errorf("%w: page %q: %s: the tree declares %d bytes, more than the limit of %d", ErrBroken, e.Slug, shown, e.Size, limit)
		}
		limit = e.Size
	}
	return limit, nil
}

// get sends a GET for e.URL, with a Range header if rng is not empty.
func (r *HTTPResolver) get(ctx context.Context, e *tree.Entry, shown, rng string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: page %q: %s: %v", ErrBroken, e.Slug, shown, errors.Unwrap(err))
	}
	for k, vs := range r.Header {
		req.Header[k] = append(req.Header[k], vs...)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	} else {
		req.Header.Del("Range")
	}
	resp, err := r.client().Do(req)
	if err != nil {
		return nil, fetchError(e, shown, err)
	}
	return resp, nil
}

// fetchError rewrites a client error so that it names the page and
// shows URLs redacted; a refusal by the policy is returned as its
// *BlockedError (wrapped), naming the host and the address it resolved
// to.
func fetchError(e *tree.Entry, shown string, err error) error {
	inner, where := err, shown
	var ue *url.Error
	if errors.As(err, &ue) {
		inner, where = ue.Err, RedactURL(ue.URL)
		ue.URL = where
	}
	var be *BlockedError
	if errors.As(inner, &be) {
		if be.URL == "" {
			be.URL = where
		}
		var oe *net.OpError
		if errors.As(inner, &oe) && oe.Op == "dial" {
			// Refused by the dialer: name the host, which may be a
			// name that resolved to the address.
			if u, err := url.Parse(where); err == nil && be.addr != "" {
				if h := u.Hostname(); h != "" && h != be.addr {
					if a, err := netip.ParseAddr(h); err != nil || a.Unmap().String() != be.addr {
						be.Reason = h + " resolves to " + be.addr + ", " + be.kind
					}
				}
			}
			return fmt.Errorf("page %q: %w", e.Slug, be)
		}
		return fmt.Errorf("page %q: %w", e.Slug, inner)
	}
	if errors.Is(inner, ErrBroken) {
		return fmt.Errorf("page %q: %s: %w", e.Slug, where, inner)
	}
	// *url.Error names the method and the (now redacted) URL.
	return fmt.Errorf("page %q: fetch pointer: %w", e.Slug, err)
}

func statusError(e *tree.Entry, shown string, resp *http.Response) error {
	return fmt.Errorf("%w: page %q: %w", ErrBroken, e.Slug,
		&StatusError{URL: shown, StatusCode: resp.StatusCode, Status: resp.Status})
}

// Fetch implements Resolver.
func (r *HTTPResolver) Fetch(ctx context.Context, e *tree.Entry) ([]byte, error) {
	parent := ctx
	ctx, cancel := r.withTimeout(ctx)
	defer cancel()
	data, err := r.fetch(ctx, e)
	return data, r.timedOut(parent, err)
}

func (r *HTTPResolver) fetch(ctx context.Context, e *tree.Entry) ([]byte, error) {
	shown, err := r.target(e)
	if err != nil {
		return nil, err
	}
	limit, err := r.wholeLimit(e, shown)
	if err != nil {
		return nil, err
	}
	resp, err := r.get(ctx, e, shown, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, statusError(e, shown, resp)
	}
	return readWhole(resp, e, shown, limit)
}

// readWhole reads the body of a 2xx answer that carries the whole content
// of e, at most limit bytes (negative: no limit), and checks its size.
func readWhole(resp *http.Response, e *tree.Entry, shown string, limit int64) ([]byte, error) {
	if resp.ContentLength >= 0 {
		switch {
		case e.Size >= 0 && resp.ContentLength != e.Size:
			return nil, fmt.Errorf("%w: page %q: %s: the server announces %d bytes, the tree declares %d", ErrBroken, e.Slug, shown, resp.ContentLength, e.Size)
		case limit >= 0 && resp.ContentLength > limit:
			return nil, fmt.Errorf("%w: page %q: %s: the server announces %d bytes, more than the limit of %d", ErrBroken, e.Slug, shown, resp.ContentLength, limit)
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
			return nil, fmt.Errorf("%w: page %q: %s: content is larger than the %d bytes the tree declares", ErrBroken, e.Slug, shown, e.Size)
		}
		return nil, fmt.Errorf("%w: page %q: %s: content is larger than the limit of %d bytes", ErrBroken, e.Slug, shown, limit)
	}
	if e.Size >= 0 && int64(len(data)) < e.Size {
		return nil, fmt.Errorf("%w: page %q: %s: content holds %d bytes, the tree declares %d", ErrBroken, e.Slug, shown, len(data), e.Size)
	}
	return data, nil
}

// maxRangeRequests bounds the requests of one FetchRange whose answers
// hold fewer bytes than asked.
const maxRangeRequests = 16

// FetchRange implements RangeResolver with "Range: bytes=a-b" GETs.
func (r *HTTPResolver) FetchRange(ctx context.Context, e *tree.Entry, off, n int64) ([]byte, bool, error) {
	parent := ctx
	ctx, cancel := r.withTimeout(ctx)
	defer cancel()
	data, full, err := r.fetchRange(ctx, e, off, n)
	if err == io.EOF {
		return nil, false, err
	}
	return data, full, r.timedOut(parent, err)
}

func (r *HTTPResolver) fetchRange(ctx context.Context, e *tree.Entry, off, n int64) ([]byte, bool, error) {
	if off < 0 || n < 0 {
		return nil, false, fmt.Errorf("page %q: range of %d bytes at %d: %w", e.Slug, n, off, fs.ErrInvalid)
	}
	if e.Size < 0 {
		// No declared size to check the answers against: fetch it whole.
		data, err := r.fetch(ctx, e)
		if err != nil {
			return nil, false, err
		}
		return data, true, nil
	}
	if off >= e.Size {
		return nil, false, io.EOF
	}
	n = min(n, e.Size-off)
	if n == 0 {
		return []byte{}, false, nil
	}
	shown, err := r.target(e)
	if err != nil {
		return nil, false, err
	}
	last := off + n - 1
	var out []byte
	for i := 0; ; i++ {
		if i == maxRangeRequests {
			return nil, false, fmt.Errorf("%w: page %q: %s: %d answers to a request for bytes %d-%d held only %d bytes", ErrBroken, e.Slug, shown, i, off, last, len(out))
		}
		pos := off + int64(len(out))
		data, full, err := r.getRange(ctx, e, shown, pos, last)
		if err != nil {
			return nil, false, err
		}
		if full {
			return data, true, nil
		}
		if out == nil && int64(len(data)) == n {
			return data, false, nil
		}
		out = append(out, data...)
		if int64(len(out)) == n {
			return out, false, nil
		}
	}
}

// getRange sends one GET for bytes first-last of e (first <= last <
// e.Size) and returns a prefix of them (at least one byte), or the whole
// content with full true if the server ignored the range.
func (r *HTTPResolver) getRange(ctx context.Context, e *tree.Entry, shown string, first, last int64) ([]byte, bool, error) {
	resp, err := r.get(ctx, e, shown, "bytes="+strconv.FormatInt(first, 10)+"-"+strconv.FormatInt(last, 10))
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent:
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		err := statusError(e, shown, resp)
		if _, _, total, ok := parseContentRange(resp.Header.Get("Content-Range")); ok && total >= 0 {
			return nil, false, fmt.Errorf("%w (the server says the content holds %d bytes, the tree declares %d)", err, total, e.Size)
		}
		return nil, false, fmt.Errorf("%w (bytes %d-%d of the %d the tree declares)", err, first, last, e.Size)
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		// The server ignored the range: the body is the whole content.
		if limit := r.maxBytes(); limit >= 0 && e.Size > limit {
			return nil, false, fmt.Errorf("%w: page %q: %s: the server ignores Range requests, and the tree declares %d bytes, more than the limit of %d", ErrBroken, e.Slug, shown, e.Size, limit)
		}
		data, err := readWhole(resp, e, shown, e.Size)
		if err != nil {
			return nil, false, err
		}
		return data, true, nil
	default:
		return nil, false, statusError(e, shown, resp)
	}
	cr := resp.Header.Get("Content-Range")
	start, end, total, ok := parseContentRange(cr)
	switch {
	case !ok || start < 0:
		return nil, false, fmt.Errorf("%w: page %q: %s: the server answered bytes %d-%d with Content-Range %q", ErrBroken, e.Slug, shown, first, last, cr)
	case total < 0:
		return nil, false, fmt.Errorf("%w: page %q: %s: the server does not tell the content's total size (Content-Range %q); the tree declares %d bytes", ErrBroken, e.Slug, shown, cr, e.Size)
	case total != e.Size:
		return nil, false, fmt.Errorf("%w: page %q: %s: the server says the content holds %d bytes, the tree declares %d", ErrBroken, e.Slug, shown, total, e.Size)
	case start != first || end > last:
		return nil, false, fmt.Errorf("%w: page %q: %s: the server answered bytes %d-%d to a request for bytes %d-%d", ErrBroken, e.Slug, shown, start, end, first, last)
	}
	want := end - start + 1
	if resp.ContentLength >= 0 && resp.ContentLength != want {
		return nil, false, fmt.Errorf("%w: page %q: %s: the server announces %d bytes for bytes %d-%d", ErrBroken, e.Slug, shown, resp.ContentLength, start, end)
	}
	data, err := readAllInto(make([]byte, 0, min(want, 1<<20)+1), io.LimitReader(resp.Body, want+1))
	if err != nil {
		return nil, false, fmt.Errorf("page %q: fetch pointer %s: %w", e.Slug, shown, err)
	}
	if int64(len(data)) != want {
		return nil, false, fmt.Errorf("%w: page %q: %s: the server sent %d bytes for bytes %d-%d", ErrBroken, e.Slug, shown, len(data), start, end)
	}
	return data, false, nil
}

// parseContentRange parses "bytes a-b/total" or "bytes */total" (start
// and end -1), where total may be "*" (-1). It checks a <= b < total.
func parseContentRange(s string) (start, end, total int64, ok bool) {
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, 0, false
	}
	rng, tot, ok := strings.Cut(strings.TrimSpace(rest), "/")
	if !ok {
		return 0, 0, 0, false
	}
	total = -1
	if tot != "*" {
		if total, ok = parseDigits(tot); !ok {
			return 0, 0, 0, false
		}
	}
	if rng == "*" {
		return -1, -1, total, total >= 0
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, false
	}
	start, ok1 := parseDigits(a)
	end, ok2 := parseDigits(b)
	if !ok1 || !ok2 || start > end || (total >= 0 && end >= total) {
		return 0, 0, 0, false
	}
	return start, end, total, true
}

// parseDigits parses a non-negative decimal int64 of digits only.
func parseDigits(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
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

// Check verifies content fetched for a lazy pointer against what
// its tree entry declares (size, sha256 hash), as the filesystem does on every read.
// A mismatch is an error wrapping ErrBroken that names the page and
// its URL (without credentials). chromafs validate uses it too.
func Check(e *tree.Entry, data []byte) error {
	if e.Size >= 0 && int64(len(data)) != e.Size {
		return fmt.Errorf("%w: page %q: %s holds %d bytes, the tree declares %d", ErrBroken, e.Slug, RedactURL(e.URL), len(data), e.Size)
	}
	if want, ok := strings.CutPrefix(e.Hash, "sha256:"); ok {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return fmt.Errorf("%w: page %q: %s: content hash sha256:%s does not match the tree's %s", ErrBroken, e.Slug, RedactURL(e.URL), got, e.Hash)
		}
	}
	return nil
}
