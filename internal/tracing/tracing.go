// Package tracing is what `chromafs serve` sends to an OpenTelemetry
// collector: a span per HTTP request (the W3C trace context of the
// incoming request is its parent), a span per MCP tool call under it, and
// a span per call to Chroma under that, exported over OTLP/HTTP.
//
// Tracing is off unless an endpoint is configured: the --otlp-endpoint
// flag, or the standard environment variables OTEL_EXPORTER_OTLP_ENDPOINT
// or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. The other standard variables
// apply as the OpenTelemetry SDK reads them: OTEL_SERVICE_NAME (default
// chromafs) and OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and its
// argument, OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and their
// TRACES_ forms (read by this package: HEADERS, TIMEOUT, COMPRESSION);
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off. Spans
// are sent in OTLP's JSON encoding over HTTP, which OTLP/HTTP receivers
// (the OpenTelemetry Collector, Jaeger, Tempo) accept on the same port
// as protobuf, whether OTEL_EXPORTER_OTLP_PROTOCOL says http/json or
// http/protobuf; grpc is refused with an error that says so. (The SDK's
// own OTLP exporters link a gRPC stack and the protobuf runtime into
// every chromafs command.)
//
// A nil *Tracing traces nothing, so code that instruments need not check
// whether tracing is on.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/felixge/httpsnoop"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/internal/toolcall"
)

// Name is the instrumentation scope of chromafs's spans.
const Name = "github.com/chromafs/chromafs"

// Tracing exports the spans of one process.
type Tracing struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// Config configures New; zero fields take the environment's values.
type Config struct {
	// Endpoint is the OTLP/HTTP endpoint's URL (http://host:4318, to
	// which /v1/traces is added, or a URL with its own path); it wins
	// over the environment.
	Endpoint string
	// Version is the service.version of the spans' resource.
	Version string
}

// ErrProtocol is returned by New when OTEL_EXPORTER_OTLP_PROTOCOL (or its
// TRACES_ form) asks for gRPC.
var ErrProtocol = errors.New("tracing: only OTLP over HTTP is supported, not gRPC")

// New returns the process's tracing: nil (tracing off, no error) when no
// endpoint is configured or the environment turns it off. The exporter
// sends batches in the background; Shutdown flushes them.
func New(ctx context.Context, cfg Config) (*Tracing, error) {
	env := os.Getenv
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(env("OTEL_TRACES_EXPORTER"), "none") {
		return nil, nil
	}
	if cfg.Endpoint == "" && env("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, nil
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := env(k); p != "" {
			if p != "http/json" && p != "http/protobuf" {
				return nil, fmt.Errorf("%w: %s=%s (use http/json or http/protobuf, port 4318 on most collectors)", ErrProtocol, k, p)
			}
			break
		}
	}
	exp, err := exporterConfig(cfg.Endpoint, env)
	if err != nil {
		return nil, err
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", "chromafs")}
	if cfg.Version != "" {
		attrs = append(attrs, attribute.String("service.version", cfg.Version))
	}
	// The environment's resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES)
	// wins over these defaults.
	res, err := resource.Merge(resource.NewSchemaless(attrs...), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("tracing: the resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{
		tp:     tp,
		tracer: tp.Tracer(Name),
		prop:   propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}, nil
}

// Shutdown exports the spans not yet sent and stops the exporter, within
// ctx's deadline.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.tp.Shutdown(ctx)
}

// Middleware starts a server span for each request that next answers on
// listener (http, webdav, mcp), named "METHOD listener" (a method other
// than the usual ones is "HTTP"), whose parent is the request's W3C
// trace context (traceparent) when it has one. The span carries the
// request's method and path and the answer's status, and is marked as an
// error for a 5xx answer. One wrapper (httpsnoop) observes the answer
// and keeps its optional interfaces (http.Flusher for MCP's streams).
func (t *Tracing) Middleware(listener string, next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	names := map[string]string{}
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND", "CONNECT", "TRACE"} {
		names[m] = m + " " + listener
	}
	other := "HTTP " + listener
	kind := trace.WithSpanKind(trace.SpanKindServer)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := names[r.Method]
		method := r.Method
		if !ok {
			name, method = other, "_OTHER"
		}
		ctx := t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := t.tracer.Start(ctx, name, kind, trace.WithAttributes(
			attribute.String("http.request.method", method),
			attribute.String("url.path", r.URL.Path)))
		snoop := httpsnoop.CaptureMetricsFn(w, func(w http.ResponseWriter) { next.ServeHTTP(w, r.WithContext(ctx)) })
		span.SetAttributes(attribute.Int("http.response.status_code", snoop.Code))
		if snoop.Code >= 500 {
			span.SetStatus(codes.Error, "")
		}
		span.End()
	})
}

// SetSite records on the request's span the site that serves it.
func SetSite(ctx context.Context, site string) {
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("chromafs.site", site))
}

// ObserveTool is a toolcall.Observer that starts a span for each MCP
// tool call of site, named "mcp.tool NAME", marked as an error when the
// call fails or the tool answers with one.
func (t *Tracing) ObserveTool(ctx context.Context, site, tool string) (context.Context, func(toolcall.Outcome, error)) {
	if t == nil {
		return ctx, func(toolcall.Outcome, error) {}
	}
	ctx, span := t.tracer.Start(ctx, "mcp.tool "+tool, trace.WithAttributes(
		attribute.String("mcp.tool.name", tool), attribute.String("chromafs.site", site)))
	return ctx, func(outcome toolcall.Outcome, err error) {
		switch {
		case err != nil:
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		case outcome == toolcall.ToolError:
			span.SetStatus(codes.Error, "the tool answered with an error")
		}
		span.End()
	}
}

// ObserveChroma is a chromastore.Config.Observe that starts a client span
// "chroma KIND" for each call to Chroma, a child of the span in ctx.
func (t *Tracing) ObserveChroma(ctx context.Context, kind chromastore.RequestKind) (context.Context, func(error)) {
	if t == nil {
		return ctx, func(error) {}
	}
	ctx, span := t.tracer.Start(ctx, "chroma "+string(kind), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", "chroma"), attribute.String("chromafs.chroma.kind", string(kind))))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// HTTPClient returns a client whose requests carry the W3C trace context
// of their context's span (traceparent), over base (a clone of
// http.DefaultTransport if nil): for the calls to Chroma, so that a
// traced Chroma joins the trace. Without tracing it returns nil.
func (t *Tracing) HTTPClient(base http.RoundTripper) *http.Client {
	if t == nil {
		return nil
	}
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &http.Client{Transport: propagating{t.prop, base}}
}

type propagating struct {
	prop propagation.TextMapPropagator
	base http.RoundTripper
}

func (p propagating) RoundTrip(r *http.Request) (*http.Response, error) {
	if trace.SpanFromContext(r.Context()).SpanContext().IsValid() {
		r = r.Clone(r.Context())
		p.prop.Inject(r.Context(), propagation.HeaderCarrier(r.Header))
	}
	return p.base.RoundTrip(r)
}
