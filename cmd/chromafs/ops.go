package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/pflag"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/internal/inflight"
	"github.com/chromafs/chromafs/internal/metrics"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/toolcall"
	"github.com/chromafs/chromafs/internal/tracing"
	"github.com/chromafs/chromafs/mcpserver"
)

// opsFlags are serve's flags for operating a fleet: the admin listener
// (metrics, probes, pprof), traces, and the bounds on work in flight.
type opsFlags struct {
	admin         string
	pprof         bool
	otlpEndpoint  string
	maxInFlight   int
	inFlightWait  time.Duration
	chromaMaxConc int
}

func (o *opsFlags) flags(f *pflag.FlagSet) {
	f.StringVar(&o.admin, "admin", "", "address of the admin listener, e.g. 127.0.0.1:9090: /metrics (Prometheus), /healthz, /readyz, and with --pprof /debug/pprof/; keep it off public networks")
	f.BoolVar(&o.pprof, "pprof", false, "serve Go's runtime profiles at /debug/pprof/ on the admin listener (needs --admin)")
	f.StringVar(&o.otlpEndpoint, "otlp-endpoint", "", "send OpenTelemetry traces over OTLP/HTTP to `URL` (e.g. http://127.0.0.1:4318); the standard OTEL_EXPORTER_OTLP_ENDPOINT and other OTEL_* variables work too")
	f.IntVar(&o.maxInFlight, "max-in-flight", 0, "requests served at once, all listeners together; past it a request gets 503 with Retry-After (0: 256 x GOMAXPROCS; -1: no bound)")
	f.DurationVar(&o.inFlightWait, "max-in-flight-wait", time.Second, "past --max-in-flight, a request of an open MCP session waits this long for its turn before 503 (new sessions and other requests are refused at once; 0: refused at once too)")
	f.IntVar(&o.chromaMaxConc, "chroma-max-concurrent", 0, "requests in flight to Chroma at once; past it requests wait their turn within their deadline (0: 10 with --cloud-limits, else no bound; -1: no bound)")
}

// observers are what opsFlags started: each may be nil (off).
type observers struct {
	o       *opsFlags
	metrics *metrics.Metrics
	tracing *tracing.Tracing
	limit   *inflight.Limiter
}

// start makes the metrics (with --admin), the tracing (with an
// endpoint) and the in-flight bound.
func (o *opsFlags) start(ctx context.Context, log *slog.Logger) (*observers, error) {
	if o.pprof && o.admin == "" {
		return nil, fmt.Errorf("serve: --pprof needs --admin ADDR (profiles are served on the admin listener only)")
	}
	obs := &observers{o: o}
	if o.admin != "" {
		obs.metrics = metrics.New()
	}
	tr, err := tracing.New(ctx, tracing.Config{Endpoint: o.otlpEndpoint, Version: shortVersion()})
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if tr != nil {
		log.Info("tracing on: spans are sent over OTLP/HTTP")
	}
	obs.tracing = tr
	obs.limit = inflight.New(o.maxInFlight, time.Second)
	// Probes are answered whatever the load: a busy process is alive.
	// A DELETE ends an MCP session (the WebDAV listener refuses it at
	// once): refused, it would leave the session holding its place, and
	// its user one of --mcp-max-user-sessions, until the idle timeout, so
	// that a burst of 503s turned into 429s for the user's next sessions.
	obs.limit.Exempt = func(r *http.Request) bool {
		return inflight.EventStream(r) || r.Method == http.MethodDelete || r.URL.Path == "/healthz" || r.URL.Path == "/readyz"
	}
	obs.limit.OnRefused = func(*http.Request) { obs.metrics.Limited("", "in_flight") }
	// A request of an open MCP session waits its turn: refused, it would
	// fail the session's work so far, where a new session refused at
	// once has cost nothing yet.
	obs.limit.Wait = o.inFlightWait
	obs.limit.Patient = func(r *http.Request) bool { return r.Header.Get("Mcp-Session-Id") != "" }
	return obs, nil
}

// stop flushes the spans not yet sent, within 5 s.
func (obs *observers) stop(log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := obs.tracing.Shutdown(ctx); err != nil {
		log.Warn("tracing: spans not sent at shutdown", "err", err)
	}
}

// instrumentStore has the store's calls to Chroma counted and traced,
// and bounded in number.
func (obs *observers) instrumentStore(cfg *chromastore.Config) {
	cfg.MaxConcurrent = obs.o.chromaMaxConc
	if obs.metrics == nil && obs.tracing == nil {
		return
	}
	if c := obs.tracing.HTTPClient(nil); c != nil {
		cfg.HTTPClient = c
	}
	m, tr := obs.metrics, obs.tracing
	cfg.Observe = func(ctx context.Context, kind chromastore.RequestKind) (context.Context, func(error)) {
		ctx, endSpan := tr.ObserveChroma(ctx, kind)
		ctx, count := m.ObserveChroma(ctx, kind)
		return ctx, func(err error) {
			count(err)
			endSpan(err)
		}
	}
}

// instrumentMCP counts and traces the tool calls of site's MCP servers,
// and counts its sessions.
func (obs *observers) instrumentMCP(opt *server.MCPOptions, site string) {
	tools := opt.Tools.Tools
	if len(tools) == 0 {
		tools = mcpserver.ToolNames()
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t
		if opt.Tools.NameSuffix != "" {
			names[i] += "_" + opt.Tools.NameSuffix
		}
	}
	var observers []toolcall.Observer
	if obs.metrics != nil {
		observers = append(observers, obs.metrics.ObserveTool)
		opt.OnSession = func(d int) {
			if d > 0 {
				obs.metrics.SessionOpened(site)
			} else {
				obs.metrics.SessionClosed(site)
			}
		}
	}
	if obs.tracing != nil {
		observers = append(observers, obs.tracing.ObserveTool)
	}
	if len(observers) > 0 {
		opt.Middleware = append(opt.Middleware, toolcall.Middleware(site, names, observers...))
	}
}

// addTrees counts the trees that s holds and has loaded and evicted.
func (obs *observers) addTrees(s *chromafs.Shared) {
	obs.metrics.AddTrees(func() metrics.TreeStats {
		st := s.Stats()
		return metrics.TreeStats{Loaded: st.TreesLoaded, Evicted: st.TreesEvicted, Trees: st.Trees, Bytes: st.TreeBytes}
	})
}

// refused counts a request refused for its credentials or sign-in limits.
func (obs *observers) refused(why string) { obs.refusedAt("")(why) }

// refusedAt is refused for the requests of site (of a sites file).
func (obs *observers) refusedAt(site string) func(why string) {
	return func(why string) {
		if why == server.RefusedCredentials {
			obs.metrics.SignInFailed(site, why)
			return
		}
		obs.metrics.Limited(site, why)
	}
}

// wrap puts the metrics, the trace and the in-flight bound around a
// listener's handler h: metrics outermost (they count the 503s of the
// bound too).
func (obs *observers) wrap(kind string, h http.Handler) http.Handler {
	return obs.metrics.Middleware(kind, obs.tracing.Middleware(kind, obs.limit.Middleware(h)))
}

// adminListener opens the admin listener (nil without --admin), whose
// probes are health and ready.
func (obs *observers) adminListener(out io.Writer, health, ready http.Handler) (*server.Listener, error) {
	if obs.o.admin == "" {
		return nil, nil
	}
	l, err := net.Listen("tcp", obs.o.admin)
	if err != nil {
		return nil, fmt.Errorf("serve admin: %w", err)
	}
	fmt.Fprintf(out, "chromafs: admin on http://%s/metrics\n", l.Addr())
	h := obs.metrics.AdminHandler(health, ready, obs.o.pprof)
	return &server.Listener{Listener: l, Handler: h}, nil
}
