package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeResults is a receiving middleware that has tool results encode
// their text contents once.
//
// The SDK marshals a *mcp.CallToolResult in nested json.Marshal calls:
// each text content is escaped (with HTML escaping), then the result's
// marshal compacts it, then the JSON-RPC layer compacts the result again
// and once more when it writes the message. Every pass reads the whole
// text, which for a 10 KB page costs more than the tool's own work.
// encodedResult writes the texts escaped once (without HTML escaping, as
// the JSON-RPC layer writes everything else) into the SDK's encoding of
// the rest of the result, so that only the JSON-RPC layer's passes remain.
// The JSON is the SDK's but for the escaping of <, > and &, which decode
// to the same strings (TestEncodedResult).
//
// A result of text contents only (every tool's here) goes further: it
// is a nativeResult, which encoding/json encodes field by field, so that
// the JSON-RPC layer does not compact the texts once more when it
// marshals the result.
func encodeResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r != nil {
			if n := newNativeResult(r); n != nil {
				return n, nil
			}
			return &encodedResult{r}, nil
		}
		return res, err
	}
}

// nativeResult is a tool result of text contents that encoding/json
// encodes without calling a MarshalJSON that holds the texts.
//
// encoding/json compacts (reads once more, byte by byte) what every
// MarshalJSON returns, and the SDK's JSON-RPC layer marshals a result and
// then the message that holds it: a result that is a json.Marshaler has
// its texts read by the compactor twice. A nativeResult is no
// json.Marshaler (its field MarshalJSON hides the method of the embedded
// result), so only the message's marshal compacts the texts, once, and
// its fields are the SDK's wire form of a CallToolResult in the SDK's
// order (TestNativeResult). The embedded result keeps what the SDK sets
// after the middleware: _meta and the result type are read from it when
// the result is encoded.
type nativeResult struct {
	*mcp.CallToolResult `json:"-"`
	// MarshalJSON hides (*mcp.CallToolResult).MarshalJSON.
	MarshalJSON struct{} `json:"-"`

	WireMeta       metaOf     `json:"_meta,omitzero"`
	WireContent    []wireText `json:"content"`
	WireStructured any        `json:"structuredContent,omitempty"`
	WireIsError    bool       `json:"isError,omitempty"`
	WireResultType resultOf   `json:"resultType,omitzero"`
}

// wireText is the SDK's wire form of a TextContent without _meta and
// annotations.
type wireText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// newNativeResult returns r as a nativeResult, or nil when r has what a
// nativeResult does not encode as the SDK does: content other than text,
// text content with _meta or annotations, input requests or request
// state.
func newNativeResult(r *mcp.CallToolResult) *nativeResult {
	if r.InputRequests != nil || r.RequestState != "" {
		return nil
	}
	n := &nativeResult{
		CallToolResult: r,
		WireMeta:       metaOf{r},
		WireStructured: r.StructuredContent,
		WireIsError:    r.IsError,
		WireResultType: resultOf{r},
	}
	if r.Content != nil {
		n.WireContent = make([]wireText, len(r.Content))
	}
	for i, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return nil
		}
		n.WireContent[i] = wireText{Type: "text", Text: t.Text}
	}
	return n
}

// metaOf encodes a result's _meta as the SDK does, when the result is
// encoded (the SDK may set it after the middleware).
type metaOf struct{ r *mcp.CallToolResult }

// IsZero reports whether the SDK would leave _meta out.
func (m metaOf) IsZero() bool { return len(m.r.Meta) == 0 }

// MarshalJSON encodes _meta as the SDK's json.Marshal of the result does.
func (m metaOf) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]any(m.r.Meta)) }

// resultOf encodes a result's result type (unexported in the SDK, which
// sets it after the middleware for clients of the newest protocol) as the
// SDK does: it is read from the SDK's encoding of the result without its
// contents.
type resultOf struct{ r *mcp.CallToolResult }

func (t resultOf) value() (string, error) {
	stub := *t.r
	stub.Meta, stub.Content, stub.StructuredContent = nil, nil, nil
	data, err := stub.MarshalJSON()
	if err != nil {
		return "", err
	}
	var w struct {
		ResultType string `json:"resultType"`
	}
	err = json.Unmarshal(data, &w)
	return w.ResultType, err
}

// IsZero reports whether the SDK would leave the result type out.
func (t resultOf) IsZero() bool {
	v, err := t.value()
	return v == "" && err == nil
}

// MarshalJSON encodes the result type.
func (t resultOf) MarshalJSON() ([]byte, error) {
	v, err := t.value()
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// encodedResult is a tool result that marshals as the SDK does, with
// each text content escaped once (see encodeResults). It embeds the
// result, so what the SDK sets on it after the middleware (the result
// type, _meta) is encoded as well.
type encodedResult struct {
	*mcp.CallToolResult
}

// sentinel is the text that stands for text content i in the SDK's
// encoding of a result: a string no encoder leaves unescaped, so it
// cannot occur in the rest of the encoding.
func sentinel(i int) string {
	return "\x00chromafs text " + strconv.Itoa(i) + "\x00"
}

// MarshalJSON encodes the result with its texts replaced by sentinels
// through the SDK, then puts each text, escaped once, in its sentinel's
// place. A result whose encoding does not hold each sentinel exactly once
// is encoded by the SDK alone.
func (r *encodedResult) MarshalJSON() ([]byte, error) {
	texts := 0
	for _, c := range r.Content {
		if _, ok := c.(*mcp.TextContent); ok {
			texts++
		}
	}
	if texts == 0 {
		return r.CallToolResult.MarshalJSON()
	}
	frameRes := *r.CallToolResult
	frameRes.Content = make([]mcp.Content, len(r.Content))
	size := 0
	for i, c := range r.Content {
		frameRes.Content[i] = c
		if t, ok := c.(*mcp.TextContent); ok {
			stand := *t
			stand.Text = sentinel(i)
			frameRes.Content[i] = &stand
			size += len(t.Text) + len(t.Text)/8 + 2
		}
	}
	frame, err := frameRes.MarshalJSON()
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(make([]byte, 0, len(frame)+size))
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	rest := frame
	for i, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		quoted, err := json.Marshal(sentinel(i))
		if err != nil {
			return nil, err
		}
		at := bytes.Index(rest, quoted)
		if at < 0 || bytes.Contains(rest[at+len(quoted):], quoted) {
			return r.CallToolResult.MarshalJSON()
		}
		out.Write(rest[:at])
		if err := enc.Encode(t.Text); err != nil {
			return nil, err
		}
		out.Truncate(out.Len() - 1) // Encode's newline
		rest = rest[at+len(quoted):]
	}
	out.Write(rest)
	return out.Bytes(), nil
}
