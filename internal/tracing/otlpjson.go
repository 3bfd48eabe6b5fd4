package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// jsonExporter sends spans to an OTLP/HTTP endpoint in OTLP's JSON
// encoding, which every OTLP/HTTP receiver accepts beside protobuf. It
// is written here rather than taken from otlptracehttp because that
// exporter links a gRPC stack and the protobuf runtime into every
// chromafs command, doubling the binary and adding milliseconds to the
// start of each (BENCHMARKS.md, "Metrics and traces").
type jsonExporter struct {
	url      string
	headers  http.Header
	gzip     bool
	timeout  time.Duration
	client   *http.Client
	maxReply int64
}

// exporterConfig reads the exporter's settings from the standard
// variables (the TRACES_ form first), with endpoint winning when set.
func exporterConfig(endpoint string, env func(string) string) (*jsonExporter, error) {
	get := func(name string) string {
		if v := env("OTEL_EXPORTER_OTLP_TRACES_" + name); v != "" {
			return v
		}
		return env("OTEL_EXPORTER_OTLP_" + name)
	}
	e := &jsonExporter{headers: http.Header{}, timeout: 10 * time.Second, maxReply: 1 << 20}
	switch {
	case endpoint != "":
		e.url = endpoint
		if u, err := url.Parse(endpoint); err == nil && (u.Path == "" || u.Path == "/") {
			e.url = strings.TrimSuffix(endpoint, "/") + "/v1/traces"
		}
	case env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "":
		e.url = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") // used as it is, per the specification
	default:
		e.url = strings.TrimSuffix(env("OTEL_EXPORTER_OTLP_ENDPOINT"), "/") + "/v1/traces"
	}
	u, err := url.Parse(e.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing: OTLP endpoint %q: want an http:// or https:// URL, such as http://localhost:4318", e.url)
	}
	if h := get("HEADERS"); h != "" {
		for _, kv := range strings.Split(h, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k, _ = url.PathUnescape(strings.TrimSpace(k))
			v, _ = url.PathUnescape(strings.TrimSpace(v))
			if !ok || k == "" {
				return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_HEADERS: %q is not key=value", kv)
			}
			e.headers.Add(k, v)
		}
	}
	switch c := get("COMPRESSION"); c {
	case "", "none":
	case "gzip":
		e.gzip = true
	default:
		return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_COMPRESSION=%s: want gzip or none", c)
	}
	if t := get("TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_TIMEOUT=%s: want milliseconds, such as 10000", t)
		}
		e.timeout = time.Duration(ms) * time.Millisecond
	}
	e.client = &http.Client{Timeout: e.timeout, Transport: http.DefaultTransport.(*http.Transport).Clone()}
	return e, nil
}

// ExportSpans implements sdktrace.SpanExporter: one POST of every span,
// within the exporter's timeout and ctx. Spans that the receiver
// refuses are dropped, with an error for the SDK to report.
func (e *jsonExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(encodeSpans(spans))
	if err != nil {
		return fmt.Errorf("tracing: encode %d spans: %w", len(spans), err)
	}
	if e.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body) //nolint:errcheck // a bytes.Buffer does not fail
		zw.Close()
		body = b.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range e.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("tracing: send %d spans: %w", len(spans), err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, e.maxReply))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("tracing: the collector at %s refused %d spans: %s: %.200s", e.url, len(spans), resp.Status, reply)
	}
	return nil
}

// Shutdown implements sdktrace.SpanExporter.
func (e *jsonExporter) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

// The OTLP JSON encoding (opentelemetry-proto's JSON mapping): ids as
// hex, 64-bit integers as strings, enums as numbers, lowerCamelCase.
type (
	otlpRequest struct {
		ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
	}
	otlpResourceSpans struct {
		Resource   otlpResource     `json:"resource"`
		ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
	}
	otlpResource struct {
		Attributes []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpScopeSpans struct {
		Scope otlpScope  `json:"scope"`
		Spans []otlpSpan `json:"spans"`
	}
	otlpScope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	otlpSpan struct {
		TraceID           string         `json:"traceId"`
		SpanID            string         `json:"spanId"`
		ParentSpanID      string         `json:"parentSpanId,omitempty"`
		TraceState        string         `json:"traceState,omitempty"`
		Name              string         `json:"name"`
		Kind              int            `json:"kind"`
		StartTimeUnixNano string         `json:"startTimeUnixNano"`
		EndTimeUnixNano   string         `json:"endTimeUnixNano"`
		Attributes        []otlpKeyValue `json:"attributes,omitempty"`
		Events            []otlpEvent    `json:"events,omitempty"`
		Status            otlpStatus     `json:"status"`
	}
	otlpEvent struct {
		TimeUnixNano string         `json:"timeUnixNano"`
		Name         string         `json:"name"`
		Attributes   []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpStatus struct {
		Code    int    `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
	otlpKeyValue struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	otlpValue struct {
		StringValue *string     `json:"stringValue,omitempty"`
		BoolValue   *bool       `json:"boolValue,omitempty"`
		IntValue    *string     `json:"intValue,omitempty"`
		DoubleValue *float64    `json:"doubleValue,omitempty"`
		ArrayValue  *otlpValues `json:"arrayValue,omitempty"`
	}
	otlpValues struct {
		Values []otlpValue `json:"values"`
	}
)

// encodeSpans groups spans by resource and scope, in the order met.
func encodeSpans(spans []sdktrace.ReadOnlySpan) otlpRequest {
	var req otlpRequest
	resIdx := map[string]int{}
	scopeIdx := map[[2]string]int{}
	for _, s := range spans {
		rk := s.Resource().Encoded(attribute.DefaultEncoder())
		ri, ok := resIdx[rk]
		if !ok {
			ri = len(req.ResourceSpans)
			resIdx[rk] = ri
			req.ResourceSpans = append(req.ResourceSpans, otlpResourceSpans{Resource: otlpResource{Attributes: encodeAttrs(s.Resource().Attributes())}})
		}
		sc := s.InstrumentationScope()
		sk := [2]string{rk, sc.Name + "\x00" + sc.Version}
		si, ok := scopeIdx[sk]
		rs := &req.ResourceSpans[ri]
		if !ok {
			si = len(rs.ScopeSpans)
			scopeIdx[sk] = si
			rs.ScopeSpans = append(rs.ScopeSpans, otlpScopeSpans{Scope: otlpScope{Name: sc.Name, Version: sc.Version}})
		}
		rs.ScopeSpans[si].Spans = append(rs.ScopeSpans[si].Spans, encodeSpan(s))
	}
	return req
}

func encodeSpan(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	out := otlpSpan{
		TraceID:           hex.EncodeToString(tid[:]),
		SpanID:            hex.EncodeToString(sid[:]),
		TraceState:        sc.TraceState().String(),
		Name:              s.Name(),
		Kind:              int(s.SpanKind()), // trace.SpanKind's values are OTLP's
		StartTimeUnixNano: nanos(s.StartTime()),
		EndTimeUnixNano:   nanos(s.EndTime()),
		Attributes:        encodeAttrs(s.Attributes()),
	}
	if p := s.Parent(); p.IsValid() {
		psid := p.SpanID()
		out.ParentSpanID = hex.EncodeToString(psid[:])
	}
	for _, ev := range s.Events() {
		out.Events = append(out.Events, otlpEvent{TimeUnixNano: nanos(ev.Time), Name: ev.Name, Attributes: encodeAttrs(ev.Attributes)})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		out.Status = otlpStatus{Code: 2, Message: st.Description}
	case codes.Ok:
		out.Status = otlpStatus{Code: 1}
	}
	return out
}

func nanos(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

func encodeAttrs(kvs []attribute.KeyValue) []otlpKeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]otlpKeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, otlpKeyValue{Key: string(kv.Key), Value: encodeValue(kv.Value)})
	}
	return out
}

func encodeValue(v attribute.Value) otlpValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return otlpValue{BoolValue: &b}
	case attribute.INT64:
		s := strconv.FormatInt(v.AsInt64(), 10)
		return otlpValue{IntValue: &s}
	case attribute.FLOAT64:
		f := v.AsFloat64()
		return otlpValue{DoubleValue: &f}
	case attribute.BOOLSLICE:
		var vs []otlpValue
		for _, b := range v.AsBoolSlice() {
			vs = append(vs, encodeValue(attribute.BoolValue(b)))
		}
		return otlpValue{ArrayValue: &otlpValues{Values: vs}}
	case attribute.INT64SLICE:
		var vs []otlpValue
		for _, i := range v.AsInt64Slice() {
			vs = append(vs, encodeValue(attribute.Int64Value(i)))
		}
		return otlpValue{ArrayValue: &otlpValues{Values: vs}}
	case attribute.FLOAT64SLICE:
		var vs []otlpValue
		for _, f := range v.AsFloat64Slice() {
			vs = append(vs, encodeValue(attribute.Float64Value(f)))
		}
		return otlpValue{ArrayValue: &otlpValues{Values: vs}}
	case attribute.STRINGSLICE:
		var vs []otlpValue
		for _, s := range v.AsStringSlice() {
			vs = append(vs, encodeValue(attribute.StringValue(s)))
		}
		return otlpValue{ArrayValue: &otlpValues{Values: vs}}
	}
	s := v.String()
	return otlpValue{StringValue: &s}
}
