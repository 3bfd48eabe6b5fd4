// Package metrics is what `chromafs serve` tells Prometheus: the counters
// and histograms of its requests, MCP tool calls, Chroma requests, page
// caches, sessions, sign-ins and rate limits, on a registry of its own,
// with the instrumentation that fills them (an HTTP middleware, an MCP
// middleware, an observer for package chromastore, a collector over the
// page caches' counts) and the admin listener's handler that serves them.
//
// Names and labels follow Prometheus's conventions: a chromafs_ prefix,
// base units (seconds, bytes), _total for counters, and labels of bounded
// cardinality only: a listener, a site name from the operator's sites
// file, an HTTP method of a fixed set, a status code, a tool name, a
// request kind, an outcome. No path, user name or query is ever a label.
package metrics

import (
	"context"
	"net/http"
	"net/http/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/felixge/httpsnoop"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/internal/toolcall"
)

// Buckets are the latency histograms' upper bounds in seconds: from
// 0.5 ms (a cached read) to 30 s (a request's longest deadline).
var Buckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Metrics holds the collectors of one serve process. Its methods are
// safe for concurrent use; a nil *Metrics records nothing, so code that
// instruments need not check whether metrics are on.
type Metrics struct {
	// Registry holds every collector of m, the Go runtime's and the
	// process's included; Handler serves it.
	Registry *prometheus.Registry

	httpRequests  *prometheus.CounterVec
	httpDuration  *prometheus.HistogramVec
	httpBytes     *prometheus.CounterVec
	toolCalls     *prometheus.CounterVec
	toolDuration  *prometheus.HistogramVec
	chromaReqs    *prometheus.CounterVec
	chromaLatency *prometheus.HistogramVec
	sessions      *prometheus.GaugeVec
	signIn        *prometheus.CounterVec
	limited       *prometheus.CounterVec

	mu     sync.Mutex
	caches []namedCache
	trees  []func() TreeStats
}

// New returns the metrics of a serve process, registered on a new
// registry with the Go runtime's and the process's collectors.
func New() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	m.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "chromafs_http_requests_total",
		Help: "HTTP requests answered, by listener (http, webdav, mcp), site, method and status code.",
	}, []string{"listener", "site", "method", "code"})
	m.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "chromafs_http_request_duration_seconds",
		Help:    "Time from a request's arrival to the end of its answer, by listener, site and method.",
		Buckets: Buckets,
	}, []string{"listener", "site", "method"})
	m.httpBytes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "chromafs_http_response_bytes_total",
		Help: "Bytes of answer bodies written, by listener and site.",
	}, []string{"listener", "site"})
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "chromafs_mcp_tool_calls_total",
		Help: "MCP tool calls, by site, tool and outcome (ok; tool_error: the tool answered with an error for the agent; error: the call failed).",
	}, []string{"site", "tool", "outcome"})
	m.toolDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "chromafs_mcp_tool_call_duration_seconds",
		Help:    "Time an MCP tool call took in the server, by site and tool.",
		Buckets: Buckets,
	}, []string{"site", "tool"})
	m.chromaReqs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "chromafs_chroma_requests_total",
		Help: "Calls to Chroma (retries included in one call), by kind (get_by_id, get_by_where, search, scan, query, write, collection) and outcome (ok, error).",
	}, []string{"kind", "outcome"})
	m.chromaLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "chromafs_chroma_request_duration_seconds",
		Help:    "Time a call to Chroma took, retries included, by kind.",
		Buckets: Buckets,
	}, []string{"kind"})
	m.sessions = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "chromafs_mcp_sessions_open",
		Help: "MCP sessions open, by site.",
	}, []string{"site"})
	m.signIn = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "chromafs_signin_failures_total",
		Help: "Requests refused for their credentials, by site and reason (password, token, missing).",
	}, []string{"site", "reason"})
	m.limited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "chromafs_rate_limited_total",
		Help: "Requests answered 429 or 503 with Retry-After for a limit, by site and limit (signin, sessions, user_sessions, rate, in_flight).",
	}, []string{"site", "limit"})
	m.Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.httpBytes,
		m.toolCalls, m.toolDuration,
		m.chromaReqs, m.chromaLatency,
		m.sessions, m.signIn, m.limited,
		cacheCollector{m}, treeCollector{m},
	)
	return m
}

// Handler serves the registry in the Prometheus exposition format
// (OpenMetrics when the scraper asks for it), counting its own scrapes.
func (m *Metrics) Handler() http.Handler {
	return promhttp.InstrumentMetricHandler(m.Registry, promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
		// A scrape that cannot be answered whole says so (500) rather
		// than serving part of the metrics as if they were all.
		ErrorHandling: promhttp.HTTPErrorOnError,
		Timeout:       10 * time.Second,
	}))
}

// AdminHandler is the admin listener's handler: /metrics, /healthz and
// /readyz (the given handlers; nil ones answer 404), and with pprof the
// runtime profiles under /debug/pprof/. It must be served on a listener
// of its own, never a public one: profiles and metrics tell an attacker
// about the process.
func (m *Metrics) AdminHandler(healthz, readyz http.Handler, withPprof bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	if healthz != nil {
		mux.Handle("GET /healthz", healthz)
	}
	if readyz != nil {
		mux.Handle("GET /readyz", readyz)
	}
	if withPprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// siteKey carries a *siteLabel through a request's context.
type siteKey struct{}

// siteLabel is the site of a request, set by the router that handles it
// (inside the middleware, which reads it when the answer is done).
type siteLabel struct {
	mu   sync.Mutex
	name string
}

// SetSite records the site that serves the request of ctx, for the
// labels of Middleware's metrics; a request that reaches no site has the
// site label "". The router calls it with the name from the sites file,
// never with anything the client chose.
func SetSite(ctx context.Context, site string) {
	if l, ok := ctx.Value(siteKey{}).(*siteLabel); ok {
		l.mu.Lock()
		l.name = site
		l.mu.Unlock()
	}
}

// methodLabel is the method label of an HTTP method: promhttp's set
// (get, put, head, post, delete, connect, options, notify, trace, patch)
// and WebDAV's propfind, lower case; any other is "unknown", so that
// clients cannot make labels up.
func methodLabel(m string) string {
	switch m {
	case "GET":
		return "get"
	case "POST":
		return "post"
	case "DELETE":
		return "delete"
	case "PUT":
		return "put"
	case "HEAD":
		return "head"
	case "OPTIONS":
		return "options"
	case "PROPFIND":
		return "propfind"
	case "PATCH":
		return "patch"
	case "CONNECT":
		return "connect"
	case "NOTIFY":
		return "notify"
	case "TRACE":
		return "trace"
	}
	return "unknown"
}

// codeLabel is the code label of a status; 0 (nothing written) is 200,
// as net/http answers.
func codeLabel(code int) string {
	if code == 0 {
		code = http.StatusOK
	}
	if code >= 100 && code < 600 {
		if s := codeLabels[code]; s != "" {
			return s
		}
	}
	return strconv.Itoa(code)
}

var codeLabels = func() (s [600]string) {
	for c := 100; c < 600; c++ {
		if http.StatusText(c) != "" {
			s[c] = strconv.Itoa(c)
		}
	}
	return s
}()

// Middleware counts the requests that next answers on listener (http,
// webdav, mcp: a fixed name), with their status, duration and body
// bytes, labelled by the site that SetSite names. One wrapper
// (httpsnoop) observes the answer and keeps its optional interfaces
// (http.Flusher for MCP's streams, http.Hijacker, io.ReaderFrom).
func (m *Metrics) Middleware(listener string, next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site := &siteLabel{}
		r = r.WithContext(context.WithValue(r.Context(), siteKey{}, site))
		snoop := httpsnoop.CaptureMetricsFn(w, func(w http.ResponseWriter) { next.ServeHTTP(w, r) })
		site.mu.Lock()
		name := site.name
		site.mu.Unlock()
		method := methodLabel(r.Method)
		m.httpRequests.WithLabelValues(listener, name, method, codeLabel(snoop.Code)).Inc()
		m.httpDuration.WithLabelValues(listener, name, method).Observe(snoop.Duration.Seconds())
		if snoop.Written > 0 {
			m.httpBytes.WithLabelValues(listener, name).Add(float64(snoop.Written))
		}
	})
}

// ObserveTool is a toolcall.Observer that counts the tool calls of an
// MCP server by site, tool and outcome, and times them.
func (m *Metrics) ObserveTool(ctx context.Context, site, tool string) (context.Context, func(toolcall.Outcome, error)) {
	start := time.Now()
	return ctx, func(outcome toolcall.Outcome, _ error) {
		if m == nil {
			return
		}
		m.toolDuration.WithLabelValues(site, tool).Observe(time.Since(start).Seconds())
		m.toolCalls.WithLabelValues(site, tool, string(outcome)).Inc()
	}
}

// ObserveChroma is a chromastore.Config.Observe that counts and times
// each call to Chroma by kind and outcome.
func (m *Metrics) ObserveChroma(ctx context.Context, kind chromastore.RequestKind) (context.Context, func(error)) {
	start := time.Now()
	return ctx, func(err error) {
		if m == nil {
			return
		}
		outcome := "ok"
		if err != nil {
			outcome = "error"
		}
		m.chromaLatency.WithLabelValues(string(kind)).Observe(time.Since(start).Seconds())
		m.chromaReqs.WithLabelValues(string(kind), outcome).Inc()
	}
}

// SessionOpened and SessionClosed count the MCP sessions open of site.
func (m *Metrics) SessionOpened(site string) {
	if m != nil {
		m.sessions.WithLabelValues(site).Inc()
	}
}

// SessionClosed: see SessionOpened.
func (m *Metrics) SessionClosed(site string) {
	if m != nil {
		m.sessions.WithLabelValues(site).Dec()
	}
}

// SignInFailed counts a request of site refused for its credentials;
// reason is one of a fixed set (password, token, missing).
func (m *Metrics) SignInFailed(site, reason string) {
	if m != nil {
		m.signIn.WithLabelValues(site, reason).Inc()
	}
}

// Limited counts a request of site refused by limit (signin, sessions,
// user_sessions, rate, in_flight).
func (m *Metrics) Limited(site, limit string) {
	if m != nil {
		m.limited.WithLabelValues(site, limit).Inc()
	}
}
