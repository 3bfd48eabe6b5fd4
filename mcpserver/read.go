package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type readIn struct {
	Path   string `json:"path" jsonschema:"e.g. /guides/auth/oauth.mdx"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"number of lines (default 2000)"`
}

// read returns lines of a file numbered as cat -n numbers them.
func (s *server) read(ctx context.Context, req *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, any, error) {
	ctx, cancel, se, fsys, err := s.call(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	if in.Offset < 0 || in.Limit < 0 {
		return nil, nil, fmt.Errorf("offset and limit must be positive (offset is the first line, from 1)")
	}
	abs, name := se.resolve(in.Path)
	fi, _, err := stat(fsys, name)
	if err != nil {
		return nil, nil, pathError(fsys, abs, err)
	}
	if fi.IsDir() {
		return nil, nil, fmt.Errorf("%s is a directory, not a file: ls %s lists it", abs, abs)
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("%s: %w", abs, ctx.Err())
		}
		return nil, nil, pathError(fsys, abs, err)
	}
	text, err := numbered(abs, data, in.Offset, in.Limit, s.cfg.MaxOutput)
	if err != nil {
		return nil, nil, err
	}
	return textResult(text), nil, nil
}

// numbered renders lines offset.. of data (at most limit, and at most
// maxChars characters when maxChars >= 0) as cat -n does, with a footer
// when lines remain.
func numbered(abs string, data []byte, offset, limit, maxChars int) (string, error) {
	if len(data) == 0 {
		return fmt.Sprintf("(%s is an empty file)", abs), nil
	}
	if offset == 0 {
		offset = 1
	}
	if limit == 0 {
		limit = ReadLimit
	}
	total := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] != '\n' {
		total++
	}
	if offset > total {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", offset, abs, total)
	}
	budget := maxChars - noteRoom
	rest := data
	for i := 1; i < offset; i++ {
		_, rest, _ = bytes.Cut(rest, []byte("\n"))
	}
	var b strings.Builder
	// The lines plus their numbers in one allocation, at most what the
	// cap allows.
	size := len(rest) + min(total-offset+1, limit)*8 + noteRoom
	if maxChars >= 0 {
		size = min(size, maxChars*utf8.UTFMax)
	}
	b.Grow(size)
	chars, last := 0, offset-1
	var num [24]byte
	for n := offset; n <= total && n < offset+limit; n++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		prefix := numberPrefix(num[:0], n)
		var long string
		if len(line) > MaxLineLength {
			// More bytes than the cap may still be few enough characters.
			long = longLine(abs, n, string(line))
		}
		if maxChars >= 0 {
			c := len(prefix) + 1 // the number, the tab and the newline: ASCII
			if long != "" {
				c += utf8.RuneCountInString(long)
			} else {
				c += utf8.RuneCount(line)
			}
			if chars+c > budget && n > offset {
				break
			}
			chars += c
		}
		b.Write(prefix)
		if long != "" {
			b.WriteString(long)
		} else {
			b.Write(line)
		}
		b.WriteByte('\n')
		last = n
	}
	if last < total {
		fmt.Fprintf(&b, "(lines %d-%d of %d; use offset=%d to continue)\n", offset, last, total, last+1)
	}
	return b.String(), nil
}

// numberPrefix appends to dst line number n as cat -n prints it: right
// aligned in 6 columns, then a tab.
func numberPrefix(dst []byte, n int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(n), 10)
	for i := len(d); i < 6; i++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, d...)
	return append(dst, '\t')
}

// longLine is line n, longer than MaxLineLength bytes, cut at
// MaxLineLength characters with a marker that says how to see the rest
// (the line itself when it has no more characters than that).
func longLine(abs string, n int, line string) string {
	if cut, rest := cutLine(line); rest > 0 {
		from := strconv.Itoa(MaxLineLength + 1)
		return strings.TrimSuffix(cut, "]") + "; bash: sed -n " + strconv.Itoa(n) + "p " + shellQuote(abs) + " | cut -c" + from + "- shows them]"
	}
	return line
}

// shellQuote quotes s for bash when it needs it.
func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// textResult is an answer of one text.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
