package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chromafs/chromafs/fscap"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type readIn struct {
	Path   string     `json:"path,omitempty" jsonschema:"e.g. /guides/auth/oauth.mdx"`
	Offset int        `json:"offset,omitempty" jsonschema:"first line (default 1)"`
	Limit  int        `json:"limit,omitempty" jsonschema:"number of lines (default 2000)"`
	Paths  []readPart `json:"paths,omitempty" jsonschema:"several files instead of path"`
}

// readPart is one file of a read of several, with its own window.
type readPart struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// MaxReadPaths bounds the files of one read call (its paths argument).
const MaxReadPaths = 20

// read returns lines of a file numbered as cat -n numbers them, or of
// several files (paths), each under a header, within one output bound.
func (s *server) read(ctx context.Context, req *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, any, error) {
	switch {
	case in.Path != "" && len(in.Paths) > 0:
		return nil, nil, fmt.Errorf("give path or paths, not both")
	case in.Path == "" && len(in.Paths) == 0:
		return nil, nil, fmt.Errorf("path is empty: give the file to read (e.g. /index.md), or paths for several")
	case len(in.Paths) > MaxReadPaths:
		return nil, nil, fmt.Errorf("paths names %d files; at most %d in one call", len(in.Paths), MaxReadPaths)
	}
	ctx, cancel, se, fsys, err := s.call(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	if len(in.Paths) == 0 {
		text, err := s.readOne(ctx, se, fsys, readPart{Path: in.Path, Offset: in.Offset, Limit: in.Limit}, s.cfg.MaxOutput)
		if err != nil {
			return nil, nil, err
		}
		return textResult(text), nil, nil
	}
	return textResult(s.readMany(ctx, se, fsys, in.Paths)), nil, nil
}

// readOne renders one file's window within maxChars characters (no bound
// when negative), or says why it cannot.
func (s *server) readOne(ctx context.Context, se *session, fsys fs.FS, p readPart, maxChars int) (string, error) {
	if p.Offset < 0 || p.Limit < 0 {
		return "", fmt.Errorf("offset and limit must be positive (offset is the first line, from 1)")
	}
	if p.Path == "" {
		return "", fmt.Errorf("path is empty: give the file to read (e.g. /index.md)")
	}
	abs, name := se.resolve(p.Path)
	fi, _, err := stat(fsys, name)
	if err != nil {
		return "", s.pathError(fsys, abs, err)
	}
	if fi.IsDir() {
		if l := s.listCall(abs); l != "" {
			return "", fmt.Errorf("%s is a directory, not a file: %s lists it", abs, l)
		}
		return "", fmt.Errorf("%s is a directory, not a file", abs)
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s: %w", abs, ctx.Err())
		}
		return "", s.pathError(fsys, abs, err)
	}
	return s.numbered(abs, data, p.Offset, p.Limit, maxChars)
}

// readMany renders several files in the order given, each under a
// "==> PATH <==" header as head and tail print them, with an error line
// in place of a file that cannot be read. The files share one bound of
// Config.MaxOutput characters: once too little of it is left for a file,
// the files not shown are listed at the end, to be read in another call.
// Their pages are fetched together first, in as few requests as the
// filesystem allows.
func (s *server) readMany(ctx context.Context, se *session, fsys fs.FS, parts []readPart) string {
	names := make([]string, 0, len(parts))
	for _, p := range parts {
		if _, name := se.resolve(p.Path); name != "" && name != "." {
			names = append(names, name)
		}
	}
	// A failed prefetch is no answer: each read below fails or succeeds
	// on its own, with its own error.
	_ = fscap.Prefetch(ctx, fsys, names)
	var b strings.Builder
	var skipped []string
	left := s.cfg.MaxOutput
	for _, p := range parts {
		abs, _ := se.resolve(p.Path)
		header := "==> " + abs + " <==\n"
		if b.Len() > 0 {
			header = "\n" + header
		}
		if left >= 0 && left < utf8.RuneCountInString(header)+noteRoom*2 {
			skipped = append(skipped, abs)
			continue
		}
		bound := -1
		if left >= 0 {
			bound = left - utf8.RuneCountInString(header)
		}
		text, err := s.readOne(ctx, se, fsys, p, bound-noteRoom)
		if err != nil {
			text = "error: " + err.Error()
		}
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if left >= 0 && utf8.RuneCountInString(text) > bound-noteRoom && b.Len() > 0 {
			// A first line longer than what is left: the file waits
			// for another call rather than break the bound.
			skipped = append(skipped, abs)
			continue
		}
		b.WriteString(header)
		b.WriteString(text)
		if left >= 0 {
			left -= utf8.RuneCountInString(header) + utf8.RuneCountInString(text)
		}
	}
	if len(skipped) > 0 {
		b.WriteString(notShown(skipped, s.name("read")))
	}
	return b.String()
}

// notShown is the note that ends a read of several files when some did
// not fit: it names them, as many as fit in noteRoom characters, and the
// tool (read, as served) to ask for them.
func notShown(paths []string, read string) string {
	const head = "\n(output limit reached; not shown: "
	tail := "; ask " + read + " for them in another call)\n"
	list := ""
	for i, p := range paths {
		more := ""
		if i < len(paths)-1 {
			more = fmt.Sprintf(" and %d more", len(paths)-1-i)
		}
		if len(head)+len(list)+2+len(p)+len(more)+len(tail) > noteRoom {
			if i == 0 {
				return head + fmt.Sprintf("%d files", len(paths)) + tail
			}
			return head + list + fmt.Sprintf(" and %d more", len(paths)-i) + tail
		}
		if i > 0 {
			list += ", "
		}
		list += p
	}
	return head + list + tail
}

// numbered renders lines offset.. of data (at most limit, and at most
// maxChars characters when maxChars >= 0) as cat -n does, with a footer
// when lines remain.
func (s *server) numbered(abs string, data []byte, offset, limit, maxChars int) (string, error) {
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
			long = s.longLine(abs, n, string(line))
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
// (the line itself when it has no more characters than that): sed in
// the bash tool, named as served, when it is served.
func (s *server) longLine(abs string, n int, line string) string {
	if cut, rest := cutLine(line); rest > 0 {
		if !s.has("bash") {
			return cut
		}
		from := strconv.Itoa(MaxLineLength + 1)
		return strings.TrimSuffix(cut, "]") + "; " + s.name("bash") + ": sed -n " + strconv.Itoa(n) + "p " + shellQuote(abs) + " | cut -c" + from + "- shows them]"
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
