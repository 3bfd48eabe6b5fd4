package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/search"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"a question or description, in your own words"`
	Path  string `json:"path,omitempty" jsonschema:"only pages at or below it (default: all)"`
	K     int    `json:"k,omitempty" jsonschema:"pages to rank (default 10, at most 1000)"`
}

// lexicalNote is the first line of an answer ranked by the query's words
// because a semantic search cannot run.
const lexicalNote = "(lexical ranking: this collection has no usable embedding function, so pages are ranked by the query's words)"

// search runs the session's search for in. A semantic search that cannot
// run, for want of a usable embedding function (search.ErrNoEmbedder) or
// of a filesystem that ranks by vector (search.ErrNotSearchable), which
// no retry mends, is answered from the lexical ranking, after
// lexicalNote; any other failure (Chroma unreachable, a deadline) is an
// error.
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
			return nil, nil, s.pathError(fsys, abs, err)
		}
	}
	if in.K < 0 || in.K > search.MaxK {
		return nil, nil, fmt.Errorf("k %d: want 1 to %d (or leave it out for 10)", in.K, search.MaxK)
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, errors.New("the query is empty: say what to look for")
	}
	opt := search.Options{K: in.K, Path: name}
	hits, err := s.cfg.Search.Search(ctx, fsys, in.Query, opt)
	note := ""
	if errors.Is(err, search.ErrNoEmbedder) || errors.Is(err, search.ErrNotSearchable) {
		opt.Lexical, note = true, lexicalNote+"\n"
		hits, err = s.cfg.Search.Search(ctx, fsys, in.Query, opt)
	}
	if err != nil {
		return nil, nil, s.searchError(err)
	}
	if len(hits) == 0 {
		return textResult(note + fmt.Sprintf("No matches found under %s\n", abs)), nil, nil
	}
	out := newLines(s.cfg.MaxOutput, 0)
	out.Write([]byte(note))
	if err := search.Format(out, hits, true); err != nil {
		return nil, nil, err
	}
	text := out.text()
	if out.cut() {
		text += fmt.Sprintf("[%s more lines not shown; ask for fewer results (k) or a narrower path]\n", thousands(out.droppedLines))
	}
	return textResult(text), nil, nil
}

// searchError is the tool error of a search that failed: what went wrong
// and what the agent can do about it, which is never an option of a
// program (the searcher's errors name none; see search.Engine.Search).
// It names the tools as served.
func (s *server) searchError(err error) error {
	exact := s.pick(", or ", " for the exact words", "grep", s.name("grep"), "bash", "grep -r in "+s.name("bash"))
	msg := strings.TrimPrefix(err.Error(), "search: ")
	switch {
	case errors.Is(err, search.ErrNoWords):
		return fmt.Errorf("%s: rephrase it with words", msg)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s timed out (%s): try again, with a narrower path%s", s.name("search"), msg, exact)
	}
	return fmt.Errorf("%s failed: %s; try again%s", s.name("search"), msg, exact)
}
