package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/search"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"what to look for, in your own words (a question or a description)"`
	Path  string `json:"path,omitempty" jsonschema:"search only the pages at or below this directory (default: the whole documentation)"`
	K     int    `json:"k,omitempty" jsonschema:"how many chunks to rank (default 10, at most 1000)"`
}

const searchDescription = `Search the documentation by meaning (the collection's embeddings): for when you do not know the exact words to grep for, e.g. "how do I rotate credentials?". Returns the best places first, one a line: "/path:START-END  SCORE  first line", followed by the text of those lines, indented. START-END are the page's line numbers: read the page with offset=START to see the context. Chunks of one page that touch are merged into one hit. ` + paths + ` Scores are similarities (higher is better); they rank, they do not prove relevance: check by reading. For exact words, grep is faster and exhaustive.`

// search runs the session's search for in.
func (s *server) search(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
	ctx, cancel, se, fsys, err := s.call(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	abs, name := "/", "."
	if in.Path != "" {
		abs, name = se.resolve(in.Path)
		if _, _, err := stat(fsys, name); err != nil {
			return nil, nil, pathError(fsys, abs, err)
		}
	}
	if in.K < 0 || in.K > search.MaxK {
		return nil, nil, fmt.Errorf("k %d: want 1 to %d (or leave it out for 10)", in.K, search.MaxK)
	}
	hits, err := s.cfg.Search.Search(ctx, fsys, in.Query, search.Options{K: in.K, Path: name})
	if err != nil {
		return nil, nil, err
	}
	if len(hits) == 0 {
		return textResult(fmt.Sprintf("No matches found under %s\n", abs)), nil, nil
	}
	out := newLines(s.cfg.MaxOutput, 0)
	if err := search.Format(out, hits, true); err != nil {
		return nil, nil, err
	}
	text := out.text()
	if out.cut() {
		text += fmt.Sprintf("[%s more lines not shown; ask for fewer results (k) or a narrower path]\n", thousands(out.droppedLines))
	}
	return textResult(text), nil, nil
}
