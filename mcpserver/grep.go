package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/gnu"
)

// The output modes of grep.
const (
	modeFiles   = "files_with_matches"
	modeContent = "content"
	modeCount   = "count"
)

type grepIn struct {
	Pattern         string `json:"pattern" jsonschema:"regular expression (grep -E)"`
	Path            string `json:"path,omitempty" jsonschema:"default: the working directory"`
	Glob            string `json:"glob,omitempty" jsonschema:"only files matching, e.g. *.md"`
	OutputMode      string `json:"output_mode,omitempty"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"grep -i"`
	FixedStrings    bool   `json:"fixed_strings,omitempty" jsonschema:"grep -F"`
	PerlRegexp      bool   `json:"perl_regexp,omitempty" jsonschema:"grep -P"`
	Context         int    `json:"context,omitempty" jsonschema:"grep -C, in content mode"`
	LineNumbers     *bool  `json:"line_numbers,omitempty" jsonschema:"grep -n, in content mode (default true)"`
	HeadLimit       int    `json:"head_limit,omitempty" jsonschema:"first N lines only"`
}

// grep runs package gnu's grep -r with the arguments in says.
func (s *server) grep(ctx context.Context, req *mcp.CallToolRequest, in grepIn) (*mcp.CallToolResult, any, error) {
	ctx, cancel, se, fsys, err := s.call(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	abs, name := se.resolve(in.Path)
	fi, _, err := stat(fsys, name)
	if err != nil {
		return nil, nil, s.pathError(fsys, abs, err)
	}
	args, err := grepArgs(in)
	if err != nil {
		return nil, nil, err
	}
	operands := []string{abs}
	if strings.Contains(in.Glob, "/") && fi.IsDir() {
		// A path glob: the files it matches are the operands. None is
		// an empty search, never the whole directory.
		if operands, err = s.globFiles(fsys, abs, name, in.Glob); err != nil {
			return nil, nil, err
		}
		if len(operands) == 0 {
			return textResult(fmt.Sprintf("No files under %s match the glob %s", abs, in.Glob)), nil, nil
		}
	} else if in.Glob != "" {
		args = append(args, "--include="+in.Glob)
	}
	args = append(append(args, "--"), operands...)

	out := newLines(s.cfg.MaxOutput, in.HeadLimit)
	w := out
	var stdout *countFilter
	if mode(in) == modeCount {
		stdout = &countFilter{w: out}
	}
	var stderr bytes.Buffer
	env := &gnu.Env{FS: fsys, Stdout: out, Stderr: &limitedBuffer{b: &stderr, max: 4096}, Dir: se.sh.Dir(), Prog: s.name("grep")}
	if stdout != nil {
		env.Stdout = stdout
	}
	status := gnu.Grep(ctx, env, args)
	if stdout != nil {
		stdout.flush()
	}
	text := w.text()
	diag := strings.TrimSpace(stderr.String())
	switch {
	case status == 2 && text == "":
		if diag == "" {
			diag = s.name("grep") + " failed"
		}
		return nil, nil, fmt.Errorf("%s", diag)
	case text == "" && status == 1:
		text = "No matches found\n"
	}
	if out.cut() {
		text += grepNote(in, out)
	}
	if diag != "" {
		text += diag + "\n"
	}
	return textResult(text), nil, nil
}

// mode is in's output mode, files_with_matches by default.
func mode(in grepIn) string {
	if in.OutputMode == "" {
		return modeFiles
	}
	return in.OutputMode
}

// grepArgs are the options of grep for in, before the operands.
func grepArgs(in grepIn) ([]string, error) {
	args := []string{"-r"}
	switch {
	case in.FixedStrings && in.PerlRegexp:
		return nil, fmt.Errorf("fixed_strings and perl_regexp exclude each other")
	case in.FixedStrings:
		args = append(args, "-F")
	case in.PerlRegexp:
		args = append(args, "-P")
	default:
		args = append(args, "-E")
	}
	if in.CaseInsensitive {
		args = append(args, "-i")
	}
	switch mode(in) {
	case modeFiles:
		args = append(args, "-l")
	case modeCount:
		args = append(args, "-c", "-H")
	case modeContent:
		args = append(args, "-H")
		if in.LineNumbers == nil || *in.LineNumbers {
			args = append(args, "-n")
		}
		if in.Context > 0 {
			args = append(args, "-C", strconv.Itoa(in.Context))
		}
	default:
		return nil, fmt.Errorf("output_mode must be files_with_matches, content or count, not %q", in.OutputMode)
	}
	if in.Context < 0 || in.HeadLimit < 0 {
		return nil, fmt.Errorf("context and head_limit must not be negative")
	}
	return append(args, "-e", in.Pattern), nil
}

// globFiles returns the files below the directory name (abs) whose path
// relative to it matches pattern, as absolute paths.
func (s *server) globFiles(fsys fs.FS, abs, name, pattern string) ([]string, error) {
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("invalid glob pattern %q", pattern)
	}
	matches, err := s.globPaths(fsys, abs, name, strings.TrimPrefix(pattern, "/"))
	if err != nil {
		return nil, err
	}
	files := matches[:0]
	for _, m := range matches {
		if !strings.HasSuffix(m, "/") {
			files = append(files, m)
		}
	}
	return files, nil
}

// grepNote ends an answer that was cut.
func grepNote(in grepIn, out *lines) string {
	what := "lines"
	switch mode(in) {
	case modeFiles:
		what = "files"
	case modeCount:
		what = "counts"
	}
	hint := "narrow the path or glob, or use a more specific pattern"
	if mode(in) == modeContent {
		hint += ", or output_mode=files_with_matches first"
	}
	return fmt.Sprintf("[%s more %s not shown; %s]\n", thousands(out.droppedLines), what, hint)
}

// countFilter passes on grep -c's lines but those of files without a
// match ("path:0").
type countFilter struct {
	w       *lines
	partial []byte
}

func (c *countFilter) Write(p []byte) (int, error) {
	n := len(p)
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		line := c.partial[:i+1]
		if !bytes.HasSuffix(line, []byte(":0\n")) {
			c.w.Write(line)
		}
		c.partial = c.partial[i+1:]
	}
	return n, nil
}

func (c *countFilter) flush() {
	if len(c.partial) > 0 && !bytes.HasSuffix(c.partial, []byte(":0")) {
		c.w.Write(c.partial)
	}
	c.partial = nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
