package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// addTextTool adds a tool of text answers (no output schema) whose
// handler takes typed input, as mcp.AddTool does: the same input schema,
// the same validation, the same answers and errors for every argument
// (TestArgsLikeSDK). What differs is the cost of plain arguments.
//
// mcp.AddTool checks every call's arguments by decoding them to a map,
// applying the schema's defaults, validating the map and encoding it again
// before it decodes them into the input: a measurable part of the server's
// work for a read of a cached page (BENCHMARKS.md). Arguments that are
// plain (plainArgs: an object of the schema's keys only, strings without
// escapes and small non-negative integers, every required key present) are
// valid whatever the rest of the schema says only when it says nothing else
// (plainSchema), so then they are decoded once, directly; any other
// arguments take the SDK's path, reproduced here with the libraries it
// uses.
func addTextTool[In any](srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, any]) {
	var schema *jsonschema.Schema
	if t.InputSchema != nil {
		schema = t.InputSchema.(*jsonschema.Schema)
	} else {
		var err error
		if schema, err = jsonschema.ForType(reflect.TypeFor[In](), &jsonschema.ForOptions{}); err != nil {
			panic(fmt.Sprintf("mcpserver: %s's input schema: %v", t.Name, err))
		}
	}
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %s's input schema: %v", t.Name, err))
	}
	tt := *t
	tt.InputSchema = schema
	a := &args[In]{resolved: resolved, plain: plainSchema(schema)}
	srv.AddTool(&tt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := a.decode(req.Params.Arguments)
		if err != nil {
			var res mcp.CallToolResult
			res.SetError(err)
			return &res, nil
		}
		res, _, err := h(ctx, req, in)
		if err != nil {
			if wireErr, ok := err.(*jsonrpc.Error); ok {
				return nil, wireErr
			}
			var res mcp.CallToolResult
			res.SetError(err)
			return &res, nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		return res, nil
	})
}

// args decodes the arguments of one tool.
type args[In any] struct {
	resolved *jsonschema.Resolved
	// plain maps each property that plain arguments may have to whether
	// its value is a string (else an integer); nil when the schema says
	// more than plain arguments show (plainSchema).
	plain map[string]bool
}

// decode returns the input of raw arguments, or the error the SDK's
// mcp.AddTool answers for them.
func (a *args[In]) decode(raw json.RawMessage) (In, error) {
	var in In
	if a.plain != nil && plainArgs(raw, a.plain, a.resolved.Schema().Required) {
		if err := json.Unmarshal(raw, &in); err == nil {
			return in, nil
		}
		in = *new(In)
	}
	// The SDK's path (mcp.AddTool, applySchema): decode to a map, apply
	// the defaults, validate, encode, decode into the input; the
	// arguments have been through the SDK's depth check with the request.
	v := make(map[string]any)
	if len(raw) > 0 {
		if err := sdkUnmarshal(raw, &v); err != nil {
			return in, fmt.Errorf("validating \"arguments\": %v", fmt.Errorf("unmarshaling arguments: %w", err))
		}
	}
	var u any = v
	if err := a.resolved.ApplyDefaults(&u); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %v", fmt.Errorf("applying schema defaults:\n%w", err))
	}
	if err := a.resolved.Validate(&u); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %v", err)
	}
	data, err := json.Marshal(u)
	if err != nil {
		return in, fmt.Errorf("validating \"arguments\": %v", fmt.Errorf("marshalling with defaults: %v", err))
	}
	if err := sdkUnmarshal(data, &in); err != nil {
		return in, err
	}
	return in, nil
}

// sdkUnmarshal decodes data as the SDK decodes JSON (its internal/json):
// segmentio's decoder, struct fields matched by exact name.
func sdkUnmarshal(data []byte, v any) error {
	dec := segjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// plainSchema returns, for a schema that says no more of an object than
// its properties' types, which are required and that no other is allowed,
// the name of each property of type string or integer (with nothing else
// said of it) and whether it is a string; nil for any other schema, or
// when a required property is not such. Array properties without a
// default (read's paths) are left out: arguments that have one are not
// plain, and take the SDK's way.
func plainSchema(s *jsonschema.Schema) map[string]bool {
	closed := &jsonschema.Schema{Not: &jsonschema.Schema{}}
	if !reflect.DeepEqual(s, &jsonschema.Schema{Type: "object", Properties: s.Properties, PropertyOrder: s.PropertyOrder, Required: s.Required, AdditionalProperties: closed}) {
		return nil
	}
	plain := make(map[string]bool, len(s.Properties))
	for name, p := range s.Properties {
		if p == nil || p.Type != "string" && p.Type != "integer" ||
			!reflect.DeepEqual(p, &jsonschema.Schema{Type: p.Type, Description: p.Description}) {
			if p == nil || p.Default != nil || p.Type != "array" && !slices.Contains(p.Types, "array") {
				// A default the SDK would fill in, or a constraint
				// on a scalar: not plain at all.
				return nil
			}
			continue
		}
		plain[name] = p.Type == "string"
	}
	for _, name := range s.Required {
		if _, ok := plain[name]; !ok {
			return nil
		}
	}
	return plain
}

// plainArgs reports whether raw is a JSON object whose keys are among
// props, each once and without escapes, each value a string without
// escapes in valid UTF-8 (props[key]) or an integer of at most 9 digits
// (!props[key]), with every key of required: arguments that every
// decoder reads alike and that a plain schema (plainSchema) accepts.
func plainArgs(raw []byte, props map[string]bool, required []string) bool {
	var seen [8]string
	n := 0
	b := skipSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = skipSpace(b[1:])
	if len(b) > 0 && b[0] == '}' {
		b = b[1:]
	} else {
		for {
			key, rest, ok := plainString(b)
			if !ok || n == len(seen) || slices.Contains(seen[:n], string(key)) {
				return false
			}
			isString, known := props[string(key)]
			if !known {
				return false
			}
			seen[n] = string(key)
			n++
			b = skipSpace(rest)
			if len(b) == 0 || b[0] != ':' {
				return false
			}
			b = skipSpace(b[1:])
			if isString {
				if _, b, ok = plainString(b); !ok {
					return false
				}
			} else {
				i := 0
				for i < len(b) && b[i] >= '0' && b[i] <= '9' {
					i++
				}
				if i == 0 || i > 9 || i > 1 && b[0] == '0' {
					return false
				}
				b = b[i:]
			}
			b = skipSpace(b)
			if len(b) == 0 {
				return false
			}
			if b[0] == '}' {
				b = b[1:]
				break
			}
			if b[0] != ',' {
				return false
			}
			b = skipSpace(b[1:])
		}
	}
	if len(skipSpace(b)) != 0 {
		return false
	}
	for _, name := range required {
		if !slices.Contains(seen[:n], name) {
			return false
		}
	}
	return true
}

// plainString returns the contents of the JSON string at the start of b
// and what follows it, when it has no escapes, no control characters and
// is valid UTF-8.
func plainString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 {
		return nil, nil, false
	}
	s = b[1 : 1+end]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return nil, nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, nil, false
	}
	return s, b[2+end:], true
}

// skipSpace returns b after JSON white space.
func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
