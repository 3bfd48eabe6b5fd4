package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEncodedResult checks that an encodedResult is the SDK's encoding of
// the same result but for the escaping of <, > and & (json.HTMLEscape
// makes them equal), and that it decodes to the same result.
func TestEncodedResult(t *testing.T) {
	text := func(s string) *mcp.TextContent { return &mcp.TextContent{Text: s} }
	nasty := "tab\there \"quoted\" back\\slash <b>&amp;</b> \u2028\u2029 \x01\x1f\x7f é 日本 \xff\xfe bad utf-8\r\n"
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		raw  string // in the encoding as is: a text escaped once, without HTML escaping
	}{
		{"empty text", &mcp.CallToolResult{Content: []mcp.Content{text("")}}, `"text":""`},
		{"cat -n lines", &mcp.CallToolResult{Content: []mcp.Content{text("     1\t<Note>\n     2\tA & B\n")}}, `"     1\t<Note>\n     2\tA & B\n"`},
		{"every escape", &mcp.CallToolResult{Content: []mcp.Content{text(nasty)}}, `<b>&amp;</b> \u2028\u2029 \u0001\u001f` + "\x7f" + ` é 日本 \ufffd\ufffd bad utf-8\r\n"`},
		{"a sentinel as text", &mcp.CallToolResult{Content: []mcp.Content{text(sentinel(0)), text(sentinel(1) + sentinel(0))}}, `"\u0000chromafs text 1\u0000\u0000chromafs text 0\u0000"`},
		{"error", &mcp.CallToolResult{Content: []mcp.Content{text("/x: no such file or directory")}, IsError: true}, `"isError":true`},
		{"structured", &mcp.CallToolResult{
			Content:           []mcp.Content{text("a <b>\n[exit status 1]")},
			StructuredContent: json.RawMessage(`{"stdout":"a <b>\n","stderr":"","exit_code":1,"cwd":"/"}`),
		}, `"a <b>\n[exit status 1]"`},
		{"meta and annotations", &mcp.CallToolResult{
			Meta:    mcp.Meta{"k": "v <x>"},
			Content: []mcp.Content{&mcp.TextContent{Text: "<t>", Meta: mcp.Meta{"m": 1.0}, Annotations: &mcp.Annotations{Priority: 0.5}}},
		}, `"<t>"`},
		{"text after another content", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"}, text(strings.Repeat("<line>\n", 1000)),
		}}, `"<line>\n<line>`},
		{"no text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"}}}, `"image/png"`},
		{"no content", &mcp.CallToolResult{}, `"content":null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			// As the JSON-RPC layer marshals it: without HTML escaping.
			got, err := (&encodedResult{tc.res}).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var escaped bytes.Buffer
			json.HTMLEscape(&escaped, got)
			if !bytes.Contains(got, []byte(tc.raw)) {
				t.Errorf("encoded:\n%.300s\nwant it to hold %s", got, tc.raw)
			}
			if !bytes.Equal(escaped.Bytes(), want) {
				t.Errorf("encoded:\n%.300s\nwant (the SDK's):\n%.300s", got, want)
			}
			var back, sdk mcp.CallToolResult
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want, &sdk); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, sdk) {
				t.Errorf("decoded %+v, want %+v", back, sdk)
			}
		})
	}
}

// TestNativeResult checks that a nativeResult is no json.Marshaler, that
// encoded as the JSON-RPC layer encodes it (without HTML escaping) it is
// the SDK's encoding of the same result but for the escaping of <, > and
// & (json.HTMLEscape makes them equal), with what the SDK sets after the
// middleware (_meta, the result type), and that results it cannot encode
// so are left to encodedResult.
func TestNativeResult(t *testing.T) {
	text := func(s string) *mcp.TextContent { return &mcp.TextContent{Text: s} }
	nasty := "tab\there \"quoted\" back\\slash <b>&amp;</b> \u2028\u2029 \x01\x1f\x7f é 日本 \xff\xfe bad utf-8\r\n"
	complete := func(r *mcp.CallToolResult) *mcp.CallToolResult {
		// The SDK sets the result type of a result it decodes, as it does
		// after the middleware for clients of the newest protocol.
		var typed mcp.CallToolResult
		if err := json.Unmarshal([]byte(`{"content":[],"resultType":"complete"}`), &typed); err != nil {
			t.Fatal(err)
		}
		typed.Content, typed.IsError, typed.StructuredContent = r.Content, r.IsError, r.StructuredContent
		return &typed
	}
	for _, tc := range []struct {
		name  string
		res   *mcp.CallToolResult
		after func(r *nativeResult) // what the SDK does after the middleware
	}{
		{"empty text", &mcp.CallToolResult{Content: []mcp.Content{text("")}}, nil},
		{"cat -n lines", &mcp.CallToolResult{Content: []mcp.Content{text("     1\t<Note>\n     2\tA & B\n")}}, nil},
		{"every escape", &mcp.CallToolResult{Content: []mcp.Content{text(nasty), text(nasty)}}, nil},
		{"error", &mcp.CallToolResult{Content: []mcp.Content{text("/x: no such file or directory")}, IsError: true}, nil},
		{"structured", &mcp.CallToolResult{
			Content:           []mcp.Content{text("a <b>\n[exit status 1]")},
			StructuredContent: map[string]any{"stdout": "a <b>\n", "stderr": "", "exit_code": 1, "cwd": "/"},
		}, nil},
		{"structured raw", &mcp.CallToolResult{
			Content:           []mcp.Content{text("x")},
			StructuredContent: json.RawMessage(`{"stdout": "a <b>\n"}`),
		}, nil},
		{"empty content", &mcp.CallToolResult{Content: []mcp.Content{}}, nil},
		{"no content", &mcp.CallToolResult{}, nil},
		{"meta", &mcp.CallToolResult{Meta: mcp.Meta{"k": "v <x>"}, Content: []mcp.Content{text("t")}}, nil},
		{"meta set after", &mcp.CallToolResult{Content: []mcp.Content{text("t")}}, func(r *nativeResult) {
			r.SetMeta(map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "chromafs"}})
		}},
		{"result type", complete(&mcp.CallToolResult{Content: []mcp.Content{text("<t>\n")}, IsError: true}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNativeResult(tc.res)
			if n == nil {
				t.Fatal("newNativeResult: nil")
			}
			if _, ok := any(n).(json.Marshaler); ok {
				t.Fatal("a *nativeResult is a json.Marshaler")
			}
			if _, ok := any(*n).(json.Marshaler); ok {
				t.Fatal("a nativeResult is a json.Marshaler")
			}
			if tc.after != nil {
				tc.after(n)
			}
			want, err := json.Marshal(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			enc := json.NewEncoder(&got)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(n); err != nil {
				t.Fatal(err)
			}
			var escaped bytes.Buffer
			json.HTMLEscape(&escaped, bytes.TrimSuffix(got.Bytes(), []byte("\n")))
			if !bytes.Equal(escaped.Bytes(), want) {
				t.Errorf("encoded:\n%.300s\nwant (the SDK's):\n%.300s", got.Bytes(), want)
			}
			var back, sdk mcp.CallToolResult
			if err := json.Unmarshal(got.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want, &sdk); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, sdk) {
				t.Errorf("decoded %+v, want %+v", back, sdk)
			}
		})
	}
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
	}{
		{"image", &mcp.CallToolResult{Content: []mcp.Content{text("a"), &mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"}}}},
		{"text with meta", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "<t>", Meta: mcp.Meta{"m": 1.0}}}}},
		{"text with annotations", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "<t>", Annotations: &mcp.Annotations{Priority: 0.5}}}}},
		{"request state", &mcp.CallToolResult{Content: []mcp.Content{text("a")}, RequestState: "s"}},
	} {
		if n := newNativeResult(tc.res); n != nil {
			t.Errorf("%s: newNativeResult: %+v, want nil", tc.name, n)
		}
	}
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEncodeResult marshals the answer of a read of a 10 KB page as
// the SDK's JSON-RPC layer does (the result, then the message that holds
// it as a json.RawMessage, each with an Encoder without HTML escaping):
// as the SDK's *mcp.CallToolResult, as an encodedResult and as a
// nativeResult.
func BenchmarkEncodeResult(b *testing.B) {
	var page strings.Builder
	for n := 1; page.Len() < 10_000; n++ {
		page.Write(numberPrefix(nil, n))
		page.WriteString("Configure the <webhook> signing secret & verify each request's signature header.\n")
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: page.String()}}}
	marshal := func(v any) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			b.Fatal(err)
		}
		return bytes.TrimRight(buf.Bytes(), "\n")
	}
	type wire struct {
		Version string          `json:"jsonrpc"`
		ID      any             `json:"id,omitempty"`
		Result  json.RawMessage `json:"result,omitempty"`
	}
	for _, tc := range []struct {
		name   string
		result func() any
	}{
		{"SDK", func() any { return res }},
		{"Encoded", func() any { return &encodedResult{res} }},
		{"Native", func() any { return newNativeResult(res) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(page.Len()))
			start := processCPU()
			for b.Loop() {
				marshal(&wire{Version: "2.0", ID: int64(1), Result: marshal(tc.result())})
			}
			// The process's CPU time per marshal, which a busy machine
			// does not inflate as it does the wall time.
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
