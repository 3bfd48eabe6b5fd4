// Package upstream classifies the failures of the services behind a
// filesystem — the document store (Chroma), the page cache (Redis) and
// the URLs of lazy file pointers — into the HTTP answers that httpfs and
// webdavfs share, so that both protocols give the same status for the same
// fault and neither ever answers 500 for a fault of an upstream service.
//
// | fault                                              | status                         |
// |----------------------------------------------------|--------------------------------|
// | store or cache cannot be reached (refused, reset…) | 503, Retry-After: [RetryAfter] |
// | a deadline passed (frozen store, slow pointer URL) | 504                            |
// | the store answered wrongly (corrupt page, error    | 502                            |
// | status, malformed tree), a lazy pointer failed     |                                |
// | the client canceled the request                    | 503 (nobody reads it)          |
//
// Bodies are fixed texts: they never carry an error's details, a page's
// name or an internal address; those go to the adapters' loggers only.
package upstream

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/fscap"
)

// RetryAfter is the Retry-After of a 503 answer, in seconds: about the time
// a restarted Chroma takes to answer again.
const RetryAfter = 5

// Kind is the class of an upstream failure.
type Kind int

const (
	// Other is an error that is not recognised as an upstream fault (a
	// bug, a misconfiguration): resolve errors of that kind are 500, read
	// errors of that kind are 502 (the store did not deliver).
	Other Kind = iota
	// Unavailable: the store or the cache cannot be reached (connection
	// refused or reset, no route, name resolution failed).
	Unavailable
	// Timeout: a deadline passed before the store (or a pointer's URL)
	// answered.
	Timeout
	// Failed: the store answered, but not with what was asked for (an
	// error status, a corrupt page, a malformed or missing tree), or a
	// lazy pointer's content could not be fetched.
	Failed
	// Canceled: the client canceled the request (it went away).
	Canceled
)

var kindNames = [...]string{"other", "unavailable", "timeout", "failed", "canceled"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Classify returns the kind of err, which came from a filesystem (or from
// the function that resolves one). pointer says that err came from
// reading a lazy file pointer: then every failure but a deadline is
// Failed, since what could not be reached is the pointer's URL, not the
// store (a refused connection included). Besides its own checks (a
// passed deadline, chromafs's content errors, connection errors, net/http
// transport errors, cachepkg.ErrUnavailable), it takes
// fscap.IsUnavailable's word, which also lets an error in the chain say so
// itself (an Unavailable() bool method). The errors of content
// (fscap.ErrContent: chromafs's corrupt page, missing or malformed tree,
// broken or unfetched pointer) are Failed. Errors of the io/fs kinds
// (fs.ErrNotExist, fs.ErrPermission, fs.ErrInvalid) are the callers' to
// map; Classify returns Other for them.
func Classify(err error, pointer bool) Kind {
	switch {
	case err == nil:
		return Other
	case errors.Is(err, context.Canceled):
		return Canceled
	case isTimeout(err):
		return Timeout
	case pointer, errors.Is(err, fscap.ErrContent):
		return Failed
	case isUnreachable(err), fscap.IsUnavailable(err):
		return Unavailable
	}
	return Other
}

// isTimeout reports a passed deadline: the context's, or a network
// timeout (http.Client.Timeout, a dial or read deadline).
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isUnreachable reports a service that could not be reached or dropped
// the connection: a connection refused, reset or aborted, no route, a
// failed name lookup, any other network operation error, a connection
// closed before a whole answer came (io.EOF, io.ErrUnexpectedEOF: a proxy
// in front of a stopped server), or the Redis cache's fail-fast
// ErrUnavailable.
func isUnreachable(err error) bool {
	for _, target := range []error{
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.EPIPE,
		io.EOF, io.ErrUnexpectedEOF, cachepkg.ErrUnavailable,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	var oe *net.OpError
	var de *net.DNSError
	if errors.As(err, &oe) || errors.As(err, &de) {
		return true
	}
	// net/http's transport errors are unexported values; a store client
	// that unwraps the *url.Error around them (chromastore does) leaves
	// only their text.
	msg := err.Error()
	for _, s := range transportErrors {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// transportErrors are the texts of net/http's unexported errors for a
// connection that the server closed or broke before answering.
var transportErrors = []string{
	"http: server closed idle connection",
	"net/http: HTTP/1.x transport connection broken",
	"http2: client connection lost",
	"http2: server sent GOAWAY and closed the connection",
}

// Status returns the HTTP status of an upstream fault of kind k; def is
// the status of Other.
func (k Kind) Status(def int) int {
	switch k {
	case Unavailable, Canceled:
		return http.StatusServiceUnavailable
	case Timeout:
		return http.StatusGatewayTimeout
	case Failed:
		return http.StatusBadGateway
	}
	return def
}

// Bodies of the answers, one line each.
const (
	BodyUnavailable = "503 service unavailable: the document store cannot be reached; retry later"
	BodyCanceled    = "503 service unavailable: the request was canceled"
	BodyTimeout     = "504 gateway timeout: the document store did not answer in time"
	BodyFailed      = "502 bad gateway: the document store did not deliver the page"
	BodyPointer     = "502 bad gateway: the page's content, stored outside the collection, could not be fetched"
	BodyInternal    = "500 internal server error"
)

// Write answers an upstream fault of kind k with a generic one-line body,
// X-Content-Type-Options: nosniff, and, for Unavailable, Retry-After. def
// is the status of Other: 502 (a read that failed, answered as Failed) or
// 500 (BodyInternal). pointer selects BodyPointer for Failed.
func Write(w http.ResponseWriter, k Kind, pointer bool, def int) {
	if k == Other && def == http.StatusBadGateway {
		k = Failed
	}
	body := BodyInternal
	switch k {
	case Unavailable:
		body = BodyUnavailable
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
	case Canceled:
		body = BodyCanceled
	case Timeout:
		body = BodyTimeout
	case Failed:
		body = BodyFailed
		if pointer {
			body = BodyPointer
		}
	}
	http.Error(w, body, k.Status(http.StatusInternalServerError))
}

// IsPointer reports whether fi describes a lazy file pointer: a file
// whose attributes (fscap.AttributesOf; chromafs's tree entry) have a URL.
func IsPointer(fi fs.FileInfo) bool {
	a, ok := fscap.AttributesOf(fi)
	return ok && a.URL != ""
}
