package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// HTTP request names, the keys of Summary.Tools for the sessions of
// Config.HTTPURLs.
const (
	// HTTPDir is a GET of a directory listing.
	HTTPDir = "GET dir"
	// HTTPFile is a GET of a whole file.
	HTTPFile = "GET file"
	// HTTPRange is a GET of a file's first KiB (Range: bytes=0-1023).
	HTTPRange = "GET range"
)

// maxListing bounds the bytes read of a directory listing; a file's
// body is read and discarded.
const maxListing = 4 << 20

// httpSession is one simulated user of chromafs serve --http: it walks
// from the base URL's listing down to a file and reads it.
type httpSession struct {
	cfg    Config
	base   string
	auth   string
	client *http.Client
	// retryAfter: see session.
	retryAfter time.Duration
}

func newHTTPSession(cfg Config, base, token string) *httpSession {
	s := &httpSession{cfg: cfg, base: base, client: &http.Client{Transport: cfg.Transport, Timeout: cfg.Timeout}}
	if token != "" {
		s.auth = "Bearer " + token
	}
	return s
}

// get requests u (with a Range header when rng is set) and returns the
// start of its body for a listing, or an *Error.
func (s *httpSession) get(ctx context.Context, u, rng string, listing bool) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &Error{Kind: KindTransport, Err: err}
	}
	if s.auth != "" {
		req.Header.Set("Authorization", s.auth)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		e := &Error{Kind: KindTransport, Err: err}
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
			e.Kind = KindTimeout
		}
		return nil, e
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxListing))
		e := &Error{Status: resp.StatusCode, Err: fmt.Errorf("GET %s: %s", u, resp.Status)}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			e.Kind, e.RetryAfter = KindHTTP429, resp.Header.Get("Retry-After")
		case resp.StatusCode == http.StatusServiceUnavailable:
			e.Kind, e.RetryAfter = KindHTTP503, resp.Header.Get("Retry-After")
		case resp.StatusCode >= 500:
			e.Kind = KindHTTP5xx
		default:
			e.Kind = KindHTTP4xx
			if resp.StatusCode == http.StatusUnauthorized {
				e.Challenge = resp.Header.Get("WWW-Authenticate")
			}
		}
		return nil, e
	}
	if !listing {
		_, err = io.Copy(io.Discard, resp.Body)
	} else {
		var b bytes.Buffer
		_, err = b.ReadFrom(io.LimitReader(resp.Body, maxListing))
		if err == nil {
			return b.Bytes(), nil
		}
	}
	if err != nil {
		kind := KindTransport
		if ctx.Err() != nil {
			kind = KindTimeout
		}
		return nil, &Error{Kind: kind, Err: fmt.Errorf("GET %s: reading the body: %w", u, err)}
	}
	return nil, nil
}

var hrefRE = regexp.MustCompile(`<a href="([^"]*)"`)

// links are the entries of a listing as chromafs serve --http writes
// it: directories (ending in /) and files, without "../".
func links(body []byte) (dirs, files []string) {
	for _, m := range hrefRE.FindAllSubmatch(body, -1) {
		h := html.UnescapeString(string(m[1]))
		switch {
		case h == "../" || h == "" || strings.Contains(h, "://") || strings.HasPrefix(h, "/"):
		case strings.HasSuffix(h, "/"):
			dirs = append(dirs, h)
		default:
			files = append(files, h)
		}
	}
	return dirs, files
}

// run runs HTTP session n: GET of the base listing, then down one
// directory at a time (session n takes entry n of each, in turn) until
// a listing holds files, at most 8 levels; then GET of file n of it and
// a GET of its first KiB.
// As session.run, it reports a refused connection (down) and a first
// request refused with spare set (rerun: nothing counted).
func (s *httpSession) run(ctx context.Context, n int, st *stats, us *urlStats, spare bool) (rerun, down bool) {
	us.sessions.Started.Add(1)
	st.sessions.Started.Add(1)
	start := time.Now()
	first := true
	step := func(name, u, rng string, listing bool) ([]byte, bool) {
		ts := st.tool(name)
		ts.calls.Started.Add(1)
		st.calls.Started.Add(1)
		us.calls.Add(1)
		t := time.Now()
		body, err := s.get(ctx, u, rng, listing)
		wasFirst := first
		first = false
		if err != nil {
			if refused(err) {
				down = true
				if wasFirst && spare {
					ts.calls.Started.Add(-1)
					st.calls.Started.Add(-1)
					us.calls.Add(-1)
					us.sessions.Started.Add(-1)
					st.sessions.Started.Add(-1)
					rerun = true
					return nil, false
				}
			}
			if ctx.Err() != nil {
				return nil, false
			}
			ts.calls.Failed.Add(1)
			st.calls.Failed.Add(1)
			st.sessions.Failed.Add(1)
			us.sessions.Failed.Add(1)
			st.fail(name, err)
			s.retryAfter = retryWait(err, time.Now())
			return nil, false
		}
		ts.latency.record(time.Since(t))
		ts.calls.OK.Add(1)
		st.calls.OK.Add(1)
		return body, true
	}
	dir := s.base
	file := ""
	for range 8 {
		body, ok := step(HTTPDir, dir, "", true)
		if !ok {
			return
		}
		dirs, files := links(body)
		if len(files) > 0 {
			file = resolve(dir, files[n%len(files)])
			break
		}
		if len(dirs) == 0 {
			break
		}
		dir = resolve(dir, dirs[n%len(dirs)])
	}
	if file != "" {
		if _, ok := step(HTTPFile, file, "", false); !ok {
			return
		}
		if _, ok := step(HTTPRange, file, "bytes=0-1023", false); !ok {
			return
		}
	}
	st.sessionLatency.record(time.Since(start))
	st.sessions.OK.Add(1)
	us.sessions.OK.Add(1)
	return false, false
}

// resolve is ref relative to the directory URL base.
func resolve(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return base + ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return base + ref
	}
	return b.ResolveReference(r).String()
}

// checkHTTP asks the base listing once: see Check.
func checkHTTP(ctx context.Context, cfg Config, base, token string) error {
	s := newHTTPSession(cfg, base, token)
	_, err := s.get(ctx, base, "", true)
	var e *Error
	if err == nil || errors.As(err, &e) && (e.Kind == KindHTTP429 || e.Kind == KindHTTP503) {
		return nil
	}
	return fmt.Errorf("%s: %w%s", base, err, httpHint(err, cfg.Tokens != nil))
}

func httpHint(err error, tokens bool) string {
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return ": no listing there (chromafs serve --http serves the collection's root at /)"
	}
	h := hint(err, tokens)
	return strings.ReplaceAll(h, "chromafs serve --mcp", "chromafs serve --http")
}
