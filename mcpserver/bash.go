package mcpserver

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bashIn struct {
	Command string `json:"command" jsonschema:"e.g. grep -rn webhook /guides | head -20"`
}

// BashResult is the structured content of the bash tool. Its schema has
// no descriptions: the names say it all, and every byte of a tool list is
// paid for in each agent's context.
type BashResult struct {
	// Stdout is what the command line wrote to standard output.
	Stdout string `json:"stdout"`
	// Stderr is what it wrote to standard error.
	Stderr string `json:"stderr"`
	// ExitCode is its exit status: 0 for success.
	ExitCode int `json:"exit_code"`
	// Cwd is the working directory after it ran.
	Cwd string `json:"cwd"`
}

// bash runs in.Command in the session's shell. Its text is the output as
// written, both streams interleaved; the structured content has them
// apart.
func (s *server) bash(ctx context.Context, req *mcp.CallToolRequest, in bashIn) (*mcp.CallToolResult, BashResult, error) {
	ctx, cancel, se, _, err := s.call(ctx, req)
	if err != nil {
		return nil, BashResult{}, err
	}
	defer cancel()
	var all, stdout, stderr strings.Builder
	// The shell serializes writes to its two streams, so all keeps their
	// order.
	status, _ := se.sh.Run(ctx, in.Command, io.MultiWriter(&all, &stdout), io.MultiWriter(&all, &stderr))
	text := all.String()
	if status != 0 {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += fmt.Sprintf("[exit status %d]", status)
	}
	if text == "" {
		text = "(no output)"
	}
	out := BashResult{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: status, Cwd: se.sh.Dir()}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}
