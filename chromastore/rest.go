package chromastore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sync/semaphore"
)

// Every call, collection lookup, creation, deletion, metadata and count
// as well as the record operations (get, upsert, delete), is a plain REST
// call to /api/v2/tenants/{t}/databases/{d}/collections/..., rather than
// chroma-go's client, because chroma-go v0.4.0
//
//   - turns transport errors into strings (ChromaErrorFromHTTPResponse), so
//     errors.Is(err, context.Canceled) and errors.Is(err,
//     syscall.ECONNREFUSED) fail on what it returns;
//   - cannot ask for ids only (its get refuses an empty include list),
//     which IDs and Scan's callers want;
//   - decodes a get response through map[string]any and per-value
//     metadata wrappers, which costs more time and memory than decoding
//     into the typed structs below;
//   - costs every process that links its API client (pkg/api/v2)
//     milliseconds of package initialisation, which a one-shot command
//     such as `chromafs grep` pays on every run (BENCHMARKS.md).
//
// chroma-go's embedding functions (pkg/embeddings) are adapted by
// package chromaembed, for the programs that embed with them.

// APIError is an error answer from the Chroma server.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Kind is Chroma's name for the error, such as "NotFoundError" or
	// "InvalidArgumentError"; it may be empty.
	Kind string
	// Message is Chroma's explanation, or the body of a non-JSON answer.
	Message string

	retryAfter time.Duration // the answer's Retry-After, if any
}

// retryable reports whether the request may succeed if sent again: the
// server was busy (429) or failed (5xx), but not for want of a record
// (missingID), which sending again does not change.
func (e *APIError) retryable() bool {
	return (e.Status == http.StatusTooManyRequests || e.Status >= 500) && !e.missingID()
}

// missingID reports whether e is Chroma's answer (1.0 and 1.3: 500,
// "Error executing plan: Internal error: Error finding id") to a query
// whose ids list names a record that does not exist.
func (e *APIError) missingID() bool {
	return e.Status == http.StatusInternalServerError && strings.Contains(e.Message, "Error finding id")
}

// missingID reports whether err is such an answer.
func missingID(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.missingID()
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "chroma answered %d", e.Status)
	if t := http.StatusText(e.Status); t != "" {
		fmt.Fprintf(&b, " %s", t)
	}
	if e.Kind != "" {
		fmt.Fprintf(&b, " (%s)", e.Kind)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// noCollection reports whether err is Chroma's answer for a missing
// collection.
func noCollection(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound &&
		(ae.Kind == "NotFoundError" || ae.Kind == "") &&
		strings.Contains(strings.ToLower(ae.Message), "collection")
}

// apiError reads an error answer.
func apiError(resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &APIError{Status: resp.StatusCode}
	var parsed struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &parsed) == nil && (parsed.Error != "" || parsed.Message != "") {
		e.Kind, e.Message = parsed.Error, parsed.Message
	} else {
		e.Message = strings.TrimSpace(string(body))
	}
	return e
}

// rest sends JSON requests to one Chroma server.
type rest struct {
	hc      *http.Client
	api     string // http://host:port/api/v2
	headers map[string]string
	timeout time.Duration // per request; 0 means none
	observe func(ctx context.Context, kind RequestKind) (context.Context, func(error))
	// slots bounds the requests in flight (Config.MaxConcurrent); nil
	// for no bound.
	slots    *semaphore.Weighted
	maxSlots int
}

// withTimeout bounds ctx by the per-request timeout.
func (r *rest) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.timeout > 0 {
		return context.WithTimeout(ctx, r.timeout)
	}
	return context.WithCancel(ctx)
}

// explain turns the error of a request made under rctx (ctx bounded by
// the per-request timeout) into its cause.
func (r *rest) explain(ctx, rctx context.Context, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is in the caller's message already
	}
	if ctx.Err() == nil && rctx.Err() != nil {
		return fmt.Errorf("no answer within %v: %w", r.timeout, rctx.Err())
	}
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// do sends in (if not nil) as JSON with method to path under the API root
// and decodes the answer into out (if not nil) with jsonv2 and
// decodeOptions, or with out's decodeAnswer if it is an answer. An in of
// type []byte is sent as it is.
//
// An answer of 429 (too many requests) or 5xx is retried, up to
// maxAttempts in all, after a backoff that doubles from retryBase with
// ±50% jitter (or the server's Retry-After, up to maxRetryAfter), and
// never past ctx's deadline: every request it sends is idempotent.
func (r *rest) do(ctx context.Context, method, path string, in, out any) error {
	var b []byte
	if in != nil {
		var ok bool
		if b, ok = in.([]byte); !ok {
			var err error
			if b, err = json.Marshal(in); err != nil {
				return fmt.Errorf("encode request: %w", err)
			}
		}
	}
	if r.observe != nil {
		var done func(error)
		ctx, done = r.observe(ctx, requestKind(method, path, in))
		err := retry(ctx, func() error { return r.once(ctx, method, path, b, in != nil, out) })
		done(err)
		return err
	}
	return retry(ctx, func() error { return r.once(ctx, method, path, b, in != nil, out) })
}

// requestKind classifies a request of do.
func requestKind(method, path string, in any) RequestKind {
	switch {
	case strings.HasSuffix(path, "/query"):
		return KindQuery
	case strings.HasSuffix(path, "/upsert"), strings.HasSuffix(path, "/delete"):
		return KindWrite
	case strings.HasSuffix(path, "/get"):
		if g, ok := in.(*getRequest); ok {
			switch {
			case len(g.WhereDocument) > 0:
				return KindSearch
			case len(g.IDs) > 0:
				return KindGetByID
			case len(g.Where) > 0:
				return KindGetByWhere
			}
		}
		return KindScan
	}
	return KindCollection
}

// retry calls f until it succeeds, fails with an error that is not a
// retryable *APIError, or has been called maxAttempts times, waiting
// between calls as rest.do describes (never past ctx's deadline).
func retry(ctx context.Context, f func() error) error {
	for attempt := 1; ; attempt++ {
		err := f()
		var ae *APIError
		if err == nil || !errors.As(err, &ae) || !ae.retryable() || attempt >= maxAttempts {
			return err
		}
		wait := ae.retryAfter
		if wait <= 0 {
			d := retryBase << (attempt - 1)
			wait = d/2 + time.Duration(rand.Int64N(int64(d)))
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
	}
}

// Retries of rest.do.
const (
	maxAttempts   = 4
	retryBase     = 100 * time.Millisecond
	maxRetryAfter = 5 * time.Second
)

// once sends one request; see do.
func (r *rest) once(ctx context.Context, method, path string, b []byte, hasBody bool, out any) error {
	var body io.Reader
	if hasBody {
		body = bytes.NewReader(b)
	}
	if r.slots != nil {
		if err := r.slots.Acquire(ctx, 1); err != nil {
			return fmt.Errorf("waiting for one of %d request slots (Config.MaxConcurrent): %w", r.maxSlots, err)
		}
		defer r.slots.Release(1)
	}
	rctx, cancel := r.withTimeout(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, r.api+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	// Every request sent is idempotent: gets, upserts, deletes of records,
	// lookups, get-or-create, whole-metadata updates. (Deleting a
	// collection sent again answers that it does not exist.) Saying so (a nil header value
	// is not sent) lets net/http retry a request that failed on a reused
	// keep-alive connection before any answer, as happens on the first
	// request after the server restarted.
	req.Header["X-Idempotency-Key"] = nil
	resp, err := r.hc.Do(req)
	if err != nil {
		return r.explain(ctx, rctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := apiError(resp)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			e.retryAfter = min(time.Duration(s)*time.Second, maxRetryAfter)
		}
		return e
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
	} else {
		var data []byte
		if data, err = readBody(resp.Body, resp.ContentLength); err == nil {
			if a, ok := out.(answer); ok {
				err = a.decodeAnswer(data)
			} else {
				err = jsonv2.Unmarshal(data, out, decodeOptions)
			}
		}
	}
	if err != nil {
		return r.explain(ctx, rctx, fmt.Errorf("read answer: %w", err))
	}
	return nil
}

// answer is implemented by an out of rest.do that decodes itself.
type answer interface {
	// decodeAnswer decodes data, which it may keep parts of.
	decodeAnswer(data []byte) error
}

// decodeOptions are the JSON options of answers. Requests are encoded
// with encoding/json, which is as fast as jsonv2 on them (an upsert's
// time goes into formatting its vectors).
//
// Duplicate member names are accepted (the last one wins, as in
// encoding/json), which also spares the decoder tracking names. Unlike
// encoding/json, invalid UTF-8 is an error rather than mangled to U+FFFD:
// Chroma never sends any, and rawString relies on the check. Member names
// match exactly (Chroma's are lower case), and numbers in metadata are
// decoded as json.Number by the metadata type.
var decodeOptions = jsontext.AllowDuplicateNames(true)

// maxPrealloc is the largest Content-Length that readBody trusts enough
// to allocate up front; longer bodies grow as they arrive.
const maxPrealloc = 256 << 20

// readBody reads all of body, whose length is n if n >= 0, into one
// buffer: allocated once when n is known, so that a multi-megabyte answer
// (the tree record) is neither copied while the buffer grows nor held
// twice.
func readBody(body io.Reader, n int64) ([]byte, error) {
	if n < 0 || n > maxPrealloc {
		return io.ReadAll(body)
	}
	// One byte more than announced, so that reading the end of the body
	// needs no growth and a longer body than announced still reads in
	// full.
	buf := make([]byte, 0, n+1)
	for {
		m, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
		}
	}
}
