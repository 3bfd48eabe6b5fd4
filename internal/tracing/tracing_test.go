package tracing_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/internal/toolcall"
	"github.com/chromafs/chromafs/internal/tracing"
)

// receiver is an OTLP/HTTP collector that decodes what it receives.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	attrs   map[string]string // resource attributes seen
	headers http.Header       // of the last export
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{attrs: map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/json" {
			t.Errorf("collector: %s %s %s", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				t.Error(err)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Error(err)
			return
		}
		// Decoded by the official protobuf definitions' JSON mapping,
		// after the one change OTLP makes to it: ids are hex, not base64.
		b, err = hexIDsToBase64(b)
		if err != nil {
			t.Errorf("collector: %v", err)
			return
		}
		var msg collectortrace.ExportTraceServiceRequest
		if err := protojson.Unmarshal(b, &msg); err != nil {
			t.Errorf("collector: %v", err)
			return
		}
		r.mu.Lock()
		r.headers = req.Header.Clone()
		for _, rs := range msg.ResourceSpans {
			for _, kv := range rs.GetResource().GetAttributes() {
				r.attrs[kv.Key] = kv.GetValue().GetStringValue()
			}
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}") //nolint:errcheck
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// hexIDsToBase64 rewrites the traceId, spanId and parentSpanId fields of
// an OTLP JSON document from OTLP's hex to protobuf JSON's base64, and
// fails on an id that is not hex of the right length.
func hexIDsToBase64(b []byte) ([]byte, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var walk func(v any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				size := map[string]int{"traceId": 16, "spanId": 8, "parentSpanId": 8}[k]
				if s, ok := x.(string); ok && size > 0 {
					raw, err := hex.DecodeString(s)
					if err != nil || len(raw) != size {
						return fmt.Errorf("%s %q is not %d bytes of hex", k, s, size)
					}
					v[k] = base64.StdEncoding.EncodeToString(raw)
					continue
				}
				if err := walk(x); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(doc); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

func (r *receiver) byName() map[string]*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*tracepb.Span{}
	for _, s := range r.spans {
		out[s.Name] = s
	}
	return out
}

// setenv sets the OpenTelemetry variables that New reads to m's values
// (unset ones to "") for the test.
func setenv(t *testing.T, m map[string]string) {
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_SERVICE_NAME",
		"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TIMEOUT"} {
		t.Setenv(k, m[k])
	}
}

// TestTrace: a request with a W3C traceparent, through the HTTP
// middleware, an MCP tool call and a call to a real Chroma, arrives at
// an OTLP receiver as one trace: the request's span a child of the
// caller's, the tool's of the request's, Chroma's of the tool's; and the
// request to Chroma carries the trace context.
func TestTrace(t *testing.T) {
	rcv := newReceiver(t)
	ctx := context.Background()
	setenv(t, map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=ci",
		"OTEL_EXPORTER_OTLP_HEADERS": "x-tenant=acme,authorization=Bearer%20t0k", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"})
	tr, err := tracing.New(ctx, tracing.Config{Endpoint: rcv.srv.URL, Version: "test"})
	if err != nil || tr == nil {
		t.Fatalf("New: %v, %v", tr, err)
	}
	// Chroma, behind a proxy that notes the traceparent it is sent.
	srv := testenv.Chroma(t)
	var mu sync.Mutex
	var parents []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		parents = append(parents, r.Header.Get("Traceparent"))
		mu.Unlock()
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, srv.URL+r.URL.RequestURI(), r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body) //nolint:errcheck
	}))
	defer proxy.Close()
	cfg := chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t), Create: true}
	c := testbackend.OpenChroma(t, cfg)
	t.Cleanup(func() { _ = chromastore.DeleteCollection(context.Background(), cfg) })
	l := collection.DefaultLayout()
	if err := c.Upsert(ctx, []collection.Record{{ID: "a.md#0", Document: "alpha\n", Metadata: map[string]any{l.SlugField: "a.md", l.IndexField: 0}}}); err != nil {
		t.Fatal(err)
	}
	traced := testbackend.OpenChroma(t, chromastore.Config{URL: proxy.URL, Collection: cfg.Collection, Observe: tr.ObserveChroma, HTTPClient: tr.HTTPClient(nil)})

	srvMCP := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(srvMCP, &mcp.Tool{Name: "read"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if _, err := traced.ChunksByID(ctx, l, []string{"a.md#0"}); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	srvMCP.AddReceivingMiddleware(toolcall.Middleware("acme", []string{"read"}, tr.ObserveTool))
	h := tr.Middleware("mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srvMCP }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	front := httptest.NewServer(h)
	defer front.Close()

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	hc := &http.Client{Transport: headerTransport{"Traceparent": "00-" + traceID + "-" + parentID + "-01"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	cs.Close()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}

	spans := rcv.byName()
	tool, chroma := spans["mcp.tool read"], spans["chroma get_by_id"]
	if tool == nil || chroma == nil {
		t.Fatalf("spans %v; want mcp.tool read and chroma get_by_id", keys(spans))
	}
	var request *tracepb.Span
	for _, s := range rcv.spans {
		if s.Name == "POST mcp" && hex.EncodeToString(s.SpanId) == hex.EncodeToString(tool.ParentSpanId) {
			request = s
		}
	}
	if request == nil {
		t.Fatalf("the tool's span has no POST mcp parent; spans %v", keys(spans))
	}
	if got := hex.EncodeToString(request.TraceId); got != traceID {
		t.Errorf("the request's trace %s, want the caller's %s", got, traceID)
	}
	if got := hex.EncodeToString(request.ParentSpanId); got != parentID {
		t.Errorf("the request's parent %s, want the caller's span %s", got, parentID)
	}
	if !bytes.Equal(chroma.ParentSpanId, tool.SpanId) || !bytes.Equal(chroma.TraceId, tool.TraceId) || !bytes.Equal(tool.TraceId, request.TraceId) {
		t.Errorf("Chroma's span is not the tool's child in one trace")
	}
	if chroma.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("Chroma's span kind %v", chroma.Kind)
	}
	if rcv.attrs["service.name"] != "chromafs" || rcv.attrs["service.version"] != "test" || rcv.attrs["deployment.environment"] != "ci" {
		t.Errorf("resource %v", rcv.attrs)
	}
	if h := rcv.headers; h.Get("X-Tenant") != "acme" || h.Get("Authorization") != "Bearer t0k" || h.Get("Content-Encoding") != "gzip" {
		t.Errorf("the collector got headers %v; want OTEL_EXPORTER_OTLP_HEADERS's and gzip", h)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "00-" + traceID + "-" + hex.EncodeToString(chroma.SpanId) + "-01"
	found := false
	for _, p := range parents {
		found = found || p == want
	}
	if !found {
		t.Errorf("Chroma was sent traceparents %q; want %q", parents, want)
	}
}

type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func keys(m map[string]*tracepb.Span) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestNew: when tracing is off, and the configurations it refuses.
func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		endpoint string
		env      map[string]string
		on       bool
		err      error
	}{
		{"nothing set", "", nil, false, nil},
		{"flag", "http://127.0.0.1:4318", nil, true, nil},
		{"env", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, nil},
		{"traces env", "", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, nil},
		{"disabled", "http://127.0.0.1:4318", map[string]string{"OTEL_SDK_DISABLED": "true"}, false, nil},
		{"exporter none", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_TRACES_EXPORTER": "none"}, false, nil},
		{"grpc", "http://127.0.0.1:4317", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, tracing.ErrProtocol},
		{"http/json", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, true, nil},
		{"http/protobuf", "http://127.0.0.1:4318", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setenv(t, tt.env)
			tr, err := tracing.New(context.Background(), tracing.Config{Endpoint: tt.endpoint})
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if (tr != nil) != tt.on {
				t.Errorf("on %v, want %v", tr != nil, tt.on)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = tr.Shutdown(ctx) // nothing was traced: nothing to send
		})
	}
	for _, bad := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "ftp://x/y"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
	} {
		setenv(t, bad)
		if _, err := tracing.New(context.Background(), tracing.Config{}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestFrozenCollector: a collector that never answers costs Shutdown its
// deadline, not a hang, and the traced request is answered meanwhile.
func TestFrozenCollector(t *testing.T) {
	release := make(chan struct{})
	frozen := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer frozen.Close()
	defer close(release)
	setenv(t, nil)
	tr, err := tracing.New(context.Background(), tracing.Config{Endpoint: frozen.URL})
	if err != nil {
		t.Fatal(err)
	}
	h := tr.Middleware("http", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 204 {
		t.Fatalf("traced request: %d", rec.Code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tr.Shutdown(ctx) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Shutdown with a frozen collector: no error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown with a frozen collector still running after 30 s (its deadline was 500 ms)")
	}
}

// TestNil: a nil *Tracing traces nothing and changes nothing.
func TestNil(t *testing.T) {
	var tr *tracing.Tracing
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	rec := httptest.NewRecorder()
	tr.Middleware("http", h).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 204 {
		t.Errorf("through a nil Tracing's middleware: %d", rec.Code)
	}
	_, done := tr.ObserveChroma(context.Background(), chromastore.KindQuery)
	done(errors.New("x"))
	if tr.HTTPClient(nil) != nil {
		t.Error("a nil Tracing's HTTP client is not nil")
	}
	tracing.SetSite(context.Background(), "a")
}

// TestRedisSpans: with RedisHook on a real Redis, each command and
// pipeline of the page cache is a client span under the caller's span; a
// miss is no error.
func TestRedisSpans(t *testing.T) {
	rcv := newReceiver(t)
	setenv(t, nil)
	tr, err := tracing.New(context.Background(), tracing.Config{Endpoint: rcv.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rediscache.New(testenv.Redis(t).URL, rediscache.Options{Prefix: t.Name() + ":"})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rc.AddHook(tr.RedisHook())
	// A parent span, as an HTTP request's would be.
	h := tr.Middleware("http", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		rc.Put(ctx, "a", []byte("1"))                  //nolint:errcheck
		rc.Get(ctx, "missing")                         //nolint:errcheck
		rc.GetMany(ctx, []string{"a", "b", "missing"}) //nolint:errcheck
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	spans := rcv.byName()
	parent := spans["GET http"]
	if parent == nil {
		t.Fatalf("no request span; spans %v", keys(spans))
	}
	for _, name := range []string{"redis set", "redis get", "redis mget"} {
		s := spans[name]
		if s == nil {
			t.Errorf("no %q span; spans %v", name, keys(spans))
			continue
		}
		if !bytes.Equal(s.ParentSpanId, parent.SpanId) || s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("%s: not a client span under the request's", name)
		}
		if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
			t.Errorf("%s: marked failed (%s)", name, s.Status.GetMessage())
		}
	}
}
