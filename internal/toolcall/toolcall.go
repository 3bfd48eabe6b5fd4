// Package toolcall observes the tool calls of an MCP server: one
// middleware names each tools/call's tool and outcome, once, for every
// observer (the metrics, the traces), so that they agree on both.
package toolcall

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An Outcome is how a tool call ended.
type Outcome string

const (
	// OK is a call that the tool answered without error.
	OK Outcome = "ok"
	// ToolError is a call that the tool answered with isError (a bad
	// argument, a missing file): the protocol worked.
	ToolError Outcome = "tool_error"
	// Error is a call that failed as a request: an unknown tool,
	// arguments that do not validate, a cancelled call.
	Error Outcome = "error"
)

// Other is the tool name of a call that names a tool the server does
// not serve (which the server refuses): clients cannot make names up.
const Other = "other"

// An Observer starts observing a call of tool (a served name, or Other)
// of site, and returns the context that the call runs with and the
// function that ends the observation with the call's outcome and error.
type Observer func(ctx context.Context, site, tool string) (context.Context, func(Outcome, error))

// Middleware observes each tools/call request of an MCP server of site
// with every observer, in order (the first one's context is the
// outermost). tools are the names the server serves its tools under.
// Other methods pass through untouched.
func Middleware(site string, tools []string, observers ...Observer) mcp.Middleware {
	known := make(map[string]bool, len(tools))
	for _, t := range tools {
		known[t] = true
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		if len(observers) == 0 {
			return next
		}
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			tool := Other
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && known[p.Name] {
				tool = p.Name
			}
			ends := make([]func(Outcome, error), len(observers))
			for i, o := range observers {
				ctx, ends[i] = o(ctx, site, tool)
			}
			res, err := next(ctx, method, req)
			outcome := OK
			if err != nil {
				outcome = Error
			} else if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
				outcome = ToolError
			}
			for i := len(ends) - 1; i >= 0; i-- {
				ends[i](outcome, err)
			}
			return res, err
		}
	}
}
