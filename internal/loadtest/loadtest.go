// Package loadtest is the load generator behind `chromafs loadtest`: N
// concurrent simulated agent sessions against one or more MCP endpoints
// (streamable HTTP, the official MCP Go SDK's client), each session
// initializing, listing the tools and running a Script of tool calls,
// for a duration or a number of sessions.
//
// Sessions go to the URLs in turn (session n to URLs[n % len(URLs)]), so
// a fleet without a load balancer is loaded evenly, and take the bearer
// tokens in turn (one per simulated user). Every network request has a
// deadline (Config.Timeout). Memory is bounded whatever the run's
// length: latencies go into HDR histograms (one per tool the script
// calls, one for sessions, one for initialize and one for tools/list)
// and errors into counters by kind with the first message of each.
//
// Config.HTTPURLs adds chromafs serve --http servers: their sessions walk
// from the root listing down to a file and GET it, whole and its first
// KiB, and take their turn with the MCP URLs.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Error kinds, the keys of Summary.Errors.
const (
	// KindHTTP429 is a 429 Too Many Requests answer.
	KindHTTP429 = "http_429"
	// KindHTTP503 is a 503 Service Unavailable answer.
	KindHTTP503 = "http_503"
	// KindHTTP4xx is any other 4xx answer (401 with its
	// WWW-Authenticate in the example).
	KindHTTP4xx = "http_4xx"
	// KindHTTP5xx is any other 5xx answer.
	KindHTTP5xx = "http_5xx"
	// KindTimeout is a request that did not finish within
	// Config.Timeout.
	KindTimeout = "timeout"
	// KindToolError is a tool's answer with isError set (a missing
	// file, a bad pattern): the server worked, the call did not.
	KindToolError = "tool_error"
	// KindRPCError is a JSON-RPC error answer (an unknown tool, bad
	// arguments).
	KindRPCError = "rpc_error"
	// KindTransport is any other failure: a refused or reset
	// connection, an answer that is not MCP.
	KindTransport = "transport"
)

// DefaultTimeout is Config.Timeout's default.
const DefaultTimeout = 30 * time.Second

// Config is a load run.
type Config struct {
	// URLs are the MCP endpoints (http://host:port/mcp); sessions go to
	// them in turn.
	URLs []string
	// HTTPURLs are the roots of chromafs serve --http servers
	// (http://host:port/); they take their turn after URLs.
	HTTPURLs []string
	// Concurrency is the number of sessions running at once (default
	// 1).
	Concurrency int
	// Duration ends the run: no session starts after it, and those
	// running finish. Zero: Count alone ends it.
	Duration time.Duration
	// Count ends the run after this many sessions. Zero: Duration
	// alone ends it. One of Duration and Count must be set.
	Count int
	// Script gives each session its calls (default DocsQuestion).
	Script Script
	// Tokens are bearer tokens, one per simulated user: session n
	// sends Tokens[n % len(Tokens)] as Authorization: Bearer. None:
	// sessions are anonymous.
	Tokens []string
	// Timeout bounds every network request: connecting, each call,
	// closing the session (default DefaultTimeout).
	Timeout time.Duration
	// Transport carries the requests (default: an http.Transport with
	// Timeout as dial, TLS handshake and response header deadlines,
	// and Concurrency idle connections per host).
	Transport http.RoundTripper
	// Version is sent as the client's version in initialize.
	Version string
	// IgnoreRetryAfter makes a session refused with 429 or 503 and
	// Retry-After start the next one at once. By default its worker
	// waits as the header asks (at most MaxRetryWait, and not past
	// Duration), as a well-behaved client does: without the wait, a
	// refused load turns into a loop of refusals that spends the
	// server's CPU (and this machine's) on them.
	IgnoreRetryAfter bool
}

// MaxRetryWait bounds a wait that Retry-After asks for.
const MaxRetryWait = time.Minute

// Summary is the result of a run, as `chromafs loadtest --json` prints
// it. Latencies are in milliseconds.
type Summary struct {
	URLs        []string `json:"urls"`
	HTTPURLs    []string `json:"http_urls"`
	Script      string   `json:"script"`
	Concurrency int      `json:"concurrency"`
	// ElapsedSeconds runs from the first session's start to the last
	// one's end.
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// Interrupted is set when the run's context ended it early.
	Interrupted bool `json:"interrupted"`
	// Sessions: started, ok (every step done; tool errors allowed) and
	// failed (a step that got no answer: HTTP error, timeout,
	// transport, JSON-RPC error).
	Sessions          Counts  `json:"sessions"`
	SessionsPerSecond float64 `json:"sessions_per_second"`
	// Calls are the tool calls: ok, or failed (any kind, tool errors
	// included).
	Calls          Counts  `json:"calls"`
	CallsPerSecond float64 `json:"calls_per_second"`
	// SessionLatency covers the sessions that completed: initialize to
	// the end of the last call (closing not included).
	SessionLatency Latency `json:"session_latency"`
	// Initialize is the initialize handshake; ListTools is tools/list
	// (MCP sessions only).
	Initialize Latency `json:"initialize"`
	ListTools  Latency `json:"list_tools"`
	// Tools holds each tool's calls: counts, and the latency of the
	// calls that got an answer (tool errors included); and those of
	// the HTTP sessions' requests, as "GET dir", "GET file" and "GET
	// range".
	Tools map[string]ToolStats `json:"tools"`
	// Errors counts failures by kind (the Kind constants), of calls and
	// of the session steps around them (initialize, tools/list).
	Errors map[string]int64 `json:"errors"`
	// ErrorExamples holds the first message of each kind.
	ErrorExamples map[string]string `json:"error_examples"`
	// RetryWaits counts the waits that Retry-After asked for and the
	// run made (see Config.IgnoreRetryAfter).
	RetryWaits int64 `json:"retry_waits"`
	// PerURL is the share of each URL, in the order of URLs then
	// HTTPURLs.
	PerURL []URLStats `json:"per_url"`
}

// Counts are numbers of sessions or calls.
type Counts struct {
	Started int64 `json:"started"`
	OK      int64 `json:"ok"`
	Failed  int64 `json:"failed"`
}

// Latency summarizes a histogram, in milliseconds (to the microsecond,
// within 0.1%).
type Latency struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
	Mean  float64 `json:"mean_ms"`
}

// ToolStats are one tool's calls.
type ToolStats struct {
	Calls   Counts  `json:"calls"`
	Latency Latency `json:"latency"`
}

// URLStats is one URL's share of the run.
type URLStats struct {
	URL      string `json:"url"`
	Sessions Counts `json:"sessions"`
	Calls    int64  `json:"calls"`
	// Refused counts the sessions whose first request this URL refused
	// (nothing listening: a process down) and that ran on another URL
	// instead; they are not in Sessions.
	Refused int64 `json:"refused"`
}

// An Error is a failure of a session step, with its kind.
type Error struct {
	Kind string
	// Status is the HTTP status that caused it (0: none).
	Status int
	// Challenge is the WWW-Authenticate header of a 401.
	Challenge string
	// RetryAfter is the Retry-After header of a 429 or 503.
	RetryAfter string
	Err        error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.Status)
		if e.Challenge != "" {
			fmt.Fprintf(&b, ", WWW-Authenticate: %s", e.Challenge)
		}
		if e.RetryAfter != "" {
			fmt.Fprintf(&b, ", Retry-After: %s", e.RetryAfter)
		}
		b.WriteString(")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Check connects to each URL once (with the first token), lists its
// tools and checks that it lists every tool the script always calls:
// the errors that would fail every session (nothing listening, a 401, a
// 404, a script naming a tool the server lacks) are found before the
// run. A 429 or 503 is not an error here (the run counts them). The
// error names the URL and, for a 401, the challenge it got.
func Check(ctx context.Context, cfg Config) error {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	token := ""
	if len(cfg.Tokens) > 0 {
		token = cfg.Tokens[0]
	}
	for _, u := range cfg.HTTPURLs {
		if err := checkHTTP(ctx, cfg, u, token); err != nil {
			return err
		}
	}
	for _, u := range cfg.URLs {
		s := newSession(cfg, u, token)
		cs, err := s.connect(ctx)
		if err != nil {
			var e *Error
			if errors.As(err, &e) && (e.Kind == KindHTTP429 || e.Kind == KindHTTP503) {
				continue
			}
			return fmt.Errorf("%s: %w%s", u, err, hint(err, len(cfg.Tokens) > 0))
		}
		tools, err := s.listTools(ctx, cs)
		s.close(cs)
		if err != nil {
			var e *Error
			if errors.As(err, &e) && (e.Kind == KindHTTP429 || e.Kind == KindHTTP503) {
				continue
			}
			return fmt.Errorf("%s: tools/list: %w", u, err)
		}
		for _, c := range cfg.Script.Tools() {
			// A script file's names are exact; the built-in script's
			// may carry a suffix.
			name := c.Tool
			if c.Line == 0 {
				name = toolName(tools, c.Tool)
			}
			if !hasTool(tools, name) {
				where := cfg.Script.Name()
				if c.Line > 0 {
					where = fmt.Sprintf("%s:%d", where, c.Line)
				}
				return fmt.Errorf("%s: tool %q is not served by %s (it lists %s)", where, c.Tool, u, strings.Join(tools, ", "))
			}
		}
	}
	return nil
}

// hint says what an operator can do about a failed first connection.
func hint(err error, tokens bool) string {
	var e *Error
	if !errors.As(err, &e) {
		return ""
	}
	switch {
	case e.Status == http.StatusUnauthorized && tokens:
		return ": the server refused the token (check --tokens)"
	case e.Status == http.StatusUnauthorized:
		return ": the server wants credentials (give --tokens FILE, a bearer token a line)"
	case e.Status == http.StatusForbidden:
		return ": the server refused the request (a DNS-rebinding or Origin check, or the user's rights)"
	case e.Status == http.StatusNotFound:
		return ": no MCP endpoint there (chromafs serve --mcp serves http://ADDR/mcp)"
	case e.Kind == KindTimeout:
		return ": no answer within --timeout; is chromafs serve --mcp running there, and reachable from here?"
	case e.Kind == KindTransport:
		return ": is chromafs serve --mcp running there, and reachable from here?"
	}
	return ""
}

func (cfg Config) withDefaults() Config {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.Script == nil {
		cfg.Script = DocsQuestion{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Transport == nil {
		d := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
		cfg.Transport = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           d.DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   cfg.Timeout,
			ResponseHeaderTimeout: cfg.Timeout,
			MaxIdleConns:          cfg.Concurrency * max(1, len(cfg.URLs)+len(cfg.HTTPURLs)),
			MaxIdleConnsPerHost:   cfg.Concurrency,
			IdleConnTimeout:       90 * time.Second,
		}
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	// A root without its slash: its listing's links are relative to it.
	cfg.HTTPURLs = slices.Clone(cfg.HTTPURLs)
	for i, u := range cfg.HTTPURLs {
		if !strings.HasSuffix(u, "/") {
			cfg.HTTPURLs[i] = u + "/"
		}
	}
	return cfg
}

func (cfg Config) validate() error {
	if len(cfg.URLs)+len(cfg.HTTPURLs) == 0 {
		return errors.New("no URL: give the MCP endpoint, e.g. http://127.0.0.1:8080/mcp")
	}
	for _, u := range slices.Concat(cfg.URLs, cfg.HTTPURLs) {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("%q is not an http:// or https:// URL (want e.g. http://127.0.0.1:8080/mcp)", u)
		}
	}
	if cfg.Duration <= 0 && cfg.Count <= 0 {
		return errors.New("neither a duration nor a count of sessions: the run would not end")
	}
	for i, t := range cfg.Tokens {
		if t == "" || strings.ContainsAny(t, " \t\r\n") {
			return fmt.Errorf("token %d is empty or holds white space", i+1)
		}
	}
	return nil
}

// Run runs the load and returns its summary. Only a bad configuration
// is an error: failures of sessions and calls are counted in the
// summary. Cancelling ctx stops the run (Summary.Interrupted), the
// sessions then running counting neither as ok nor as failed.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	st := newStats(cfg)
	var next atomic.Int64
	start := time.Now()
	var deadline time.Time
	if cfg.Duration > 0 {
		deadline = start.Add(cfg.Duration)
	}
	hosts := newFleet(len(cfg.URLs) + len(cfg.HTTPURLs))
	var wg sync.WaitGroup
	for range cfg.Concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				if !deadline.IsZero() && !time.Now().Before(deadline) {
					return
				}
				n := int(next.Add(1) - 1)
				if cfg.Count > 0 && n >= cfg.Count {
					return
				}
				turn := n % (len(cfg.URLs) + len(cfg.HTTPURLs))
				token := ""
				if len(cfg.Tokens) > 0 {
					token = cfg.Tokens[n%len(cfg.Tokens)]
				}
				var wait time.Duration
				for ctx.Err() == nil {
					u, spare := hosts.pick(turn, n, time.Now())
					var rerun, down bool
					if u < len(cfg.URLs) {
						s := newSession(cfg, cfg.URLs[u], token)
						rerun, down = s.run(ctx, n, st, &st.perURL[u], spare)
						wait = s.retryAfter
					} else {
						s := newHTTPSession(cfg, cfg.HTTPURLs[u-len(cfg.URLs)], token)
						rerun, down = s.run(ctx, n, st, &st.perURL[u], spare)
						wait = s.retryAfter
					}
					if !down {
						hosts.up(u)
						break
					}
					hosts.down(u, time.Now())
					if !rerun {
						break
					}
					st.perURL[u].refused.Add(1)
				}
				if wait > 0 && !cfg.IgnoreRetryAfter {
					st.retryWaits.Add(1)
					sleep(ctx, wait, deadline)
				}
			}
		})
	}
	wg.Wait()
	return st.summary(time.Since(start), ctx.Err() != nil), nil
}

// session is one simulated agent: one MCP session, one user.
type session struct {
	cfg Config
	url string
	rec *recorder
	// retryAfter is the wait that the answer refusing the session
	// asked for (0: none).
	retryAfter time.Duration
}

func newSession(cfg Config, url, token string) *session {
	rec := &recorder{base: cfg.Transport}
	if token != "" {
		rec.auth = "Bearer " + token
	}
	return &session{cfg: cfg, url: url, rec: rec}
}

func (s *session) connect(ctx context.Context) (*mcp.ClientSession, error) {
	t := &mcp.StreamableClientTransport{
		Endpoint: s.url,
		// Client.Timeout bounds each request with its answer;
		// the calls' contexts bound them too.
		HTTPClient:           &http.Client{Transport: s.rec, Timeout: s.cfg.Timeout},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "chromafs-loadtest", Version: s.cfg.Version}, nil)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	s.rec.reset()
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return nil, s.classify(ctx, err)
	}
	return cs, nil
}

func (s *session) listTools(ctx context.Context, cs *mcp.ClientSession) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	s.rec.reset()
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, s.classify(ctx, err)
		}
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names, nil
}

// close ends the MCP session (the SDK bounds its DELETE; the client's
// Timeout too).
func (s *session) close(cs *mcp.ClientSession) { _ = cs.Close() }

// call makes one tool call and returns the text of its answer, or its
// error; toolErr reports an answer with isError.
func (s *session) call(ctx context.Context, cs *mcp.ClientSession, c Call) (text string, toolErr bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	s.rec.reset()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
	if err != nil {
		return "", false, s.classify(ctx, err)
	}
	var b strings.Builder
	for _, content := range res.Content {
		if t, ok := content.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// run runs session n and records it. down reports that the URL refused
// a connection (see fleet); rerun, that it refused the session's first
// request, which spare allowed to leave uncounted so that the session
// runs on another URL.
func (s *session) run(ctx context.Context, n int, st *stats, us *urlStats, spare bool) (rerun, down bool) {
	defer func() { down = down || s.rec.wasRefused() }()
	us.sessions.Started.Add(1)
	st.sessions.Started.Add(1)
	fail := func(step string, err error) {
		if ctx.Err() != nil {
			return // interrupted: neither ok nor failed
		}
		st.sessions.Failed.Add(1)
		us.sessions.Failed.Add(1)
		st.fail(step, err)
		s.retryAfter = retryWait(err, time.Now())
	}
	start := time.Now()
	cs, err := s.connect(ctx)
	if err != nil && spare && s.rec.wasRefused() {
		us.sessions.Started.Add(-1)
		st.sessions.Started.Add(-1)
		return true, true
	}
	if err != nil {
		fail("initialize", err)
		return
	}
	defer s.close(cs)
	st.initialize.record(time.Since(start))
	t := time.Now()
	tools, err := s.listTools(ctx, cs)
	if err != nil {
		fail("tools/list", err)
		return
	}
	st.listTools.record(time.Since(t))
	next := s.cfg.Script.Session(n, tools)
	prev := ""
	for {
		c, ok := next(prev)
		if !ok {
			break
		}
		ts := st.tool(c.Tool)
		ts.calls.Started.Add(1)
		st.calls.Started.Add(1)
		us.calls.Add(1)
		t := time.Now()
		text, toolErr, err := s.call(ctx, cs, c)
		d := time.Since(t)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			ts.calls.Failed.Add(1)
			st.calls.Failed.Add(1)
			fail(c.Tool, err)
			return
		}
		ts.latency.record(d)
		if toolErr {
			ts.calls.Failed.Add(1)
			st.calls.Failed.Add(1)
			st.fail(c.Tool, &Error{Kind: KindToolError, Err: errors.New(firstLine(text))})
		} else {
			ts.calls.OK.Add(1)
			st.calls.OK.Add(1)
		}
		prev = text
	}
	st.sessionLatency.record(time.Since(start))
	st.sessions.OK.Add(1)
	us.sessions.OK.Add(1)
	return false, false
}

// retryWait is the wait that err's Retry-After asks for, at now: delay
// seconds or an HTTP date, at most MaxRetryWait; 0 for an error without
// one or a 429 or 503.
func retryWait(err error, now time.Time) time.Duration {
	var e *Error
	if !errors.As(err, &e) || e.RetryAfter == "" || (e.Kind != KindHTTP429 && e.Kind != KindHTTP503) {
		return 0
	}
	v := strings.TrimSpace(e.RetryAfter)
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), MaxRetryWait)
}

// sleep waits d, or until deadline (unless zero) or ctx ends.
func sleep(ctx context.Context, d time.Duration, deadline time.Time) {
	if !deadline.IsZero() {
		d = min(d, time.Until(deadline))
	}
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// classify turns a failed request into an *Error of its kind, with the
// HTTP status that the recorder saw.
func (s *session) classify(ctx context.Context, err error) error {
	status, challenge, retry := s.rec.last()
	e := &Error{Status: status, Err: err}
	var wire *jsonrpc.Error
	var ne net.Error
	switch {
	case status == http.StatusTooManyRequests:
		e.Kind, e.RetryAfter = KindHTTP429, retry
	case status == http.StatusServiceUnavailable:
		e.Kind, e.RetryAfter = KindHTTP503, retry
	case status >= 400 && status < 500:
		e.Kind = KindHTTP4xx
		if status == http.StatusUnauthorized {
			e.Challenge = challenge
		}
	case status >= 500:
		e.Kind = KindHTTP5xx
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout():
		e.Kind = KindTimeout
	case errors.As(err, &ne):
		// a refused or reset connection, a failed name lookup
		e.Kind = KindTransport
	case errors.As(err, &wire):
		e.Kind = KindRPCError
	default:
		e.Kind = KindTransport
	}
	return e
}

// recorder sends a session's requests with its Authorization header and
// remembers the last failed answer's status and headers.
type recorder struct {
	base http.RoundTripper
	auth string

	mu                    sync.Mutex
	status                int
	challenge, retryAfter string
	refused               bool // a connection was refused (not reset by reset)
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.auth != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", r.auth)
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil && refused(err) {
		r.mu.Lock()
		r.refused = true
		r.mu.Unlock()
	}
	if err == nil && resp.StatusCode >= 400 {
		r.mu.Lock()
		r.status = resp.StatusCode
		r.challenge = resp.Header.Get("WWW-Authenticate")
		r.retryAfter = resp.Header.Get("Retry-After")
		r.mu.Unlock()
	}
	return resp, err
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.status, r.challenge, r.retryAfter = 0, "", ""
	r.mu.Unlock()
}

// wasRefused reports whether a connection of the session was refused.
func (r *recorder) wasRefused() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused
}

func (r *recorder) last() (int, string, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.challenge, r.retryAfter
}
