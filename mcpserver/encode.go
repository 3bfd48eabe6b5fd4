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
func encodeResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r != nil {
			return &encodedResult{r}, nil
		}
		return res, err
	}
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
