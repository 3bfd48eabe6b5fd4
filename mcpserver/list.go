package mcpserver

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/fscap"
)

type lsIn struct {
	Path string `json:"path,omitempty" jsonschema:"default: the working directory"`
}

// ls lists a directory, or describes a file, one entry a line.
func (s *server) ls(ctx context.Context, req *mcp.CallToolRequest, in lsIn) (*mcp.CallToolResult, any, error) {
	_, cancel, se, fsys, err := s.call(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	abs, name := se.resolve(in.Path)
	fi, size, err := stat(fsys, name)
	if err != nil {
		return nil, nil, s.pathError(fsys, abs, err)
	}
	if !fi.IsDir() {
		return textResult(s.entryLine(abs, false, size) + "\n"), nil, nil
	}
	entries, err := fs.ReadDir(fsys, name)
	if err != nil {
		return nil, nil, s.pathError(fsys, abs, err)
	}
	if len(entries) == 0 {
		return textResult(fmt.Sprintf("(%s is an empty directory)", abs)), nil, nil
	}
	out := newLines(s.cfg.MaxOutput, 0)
	for _, e := range entries {
		size := int64(0)
		if !e.IsDir() {
			_, size, err = stat(fsys, path.Join(name, e.Name()))
			if err != nil {
				size = -1
			}
		}
		io.WriteString(out, s.entryLine(e.Name(), e.IsDir(), size)+"\n")
	}
	text := out.text()
	if out.cut() {
		text += fmt.Sprintf("[%s more entries not shown; %s a subdirectory%s]\n", thousands(out.droppedLines), s.name("ls"), s.pick(", or ", " with a narrower pattern", "glob", s.name("glob")))
	}
	return textResult(text), nil, nil
}

// entryLine is one line of ls: "name/" for a directory, "name  N bytes"
// for a file (size -1: not known without reading it).
func (s *server) entryLine(name string, dir bool, size int64) string {
	switch {
	case dir:
		return name + "/"
	case size < 0:
		return name + "  (size not recorded" + s.pick("; ", " reads it", "stat", s.name("stat")) + ")"
	case size == 1:
		return name + "  1 byte"
	}
	return name + "  " + strconv.FormatInt(size, 10) + " bytes"
}

type globIn struct {
	Pattern string `json:"pattern" jsonschema:"e.g. **/*.md"`
	Path    string `json:"path,omitempty" jsonschema:"default: the working directory"`
}

// glob lists the paths below a directory that a doublestar pattern
// matches.
func (s *server) glob(ctx context.Context, req *mcp.CallToolRequest, in globIn) (*mcp.CallToolResult, any, error) {
	_, cancel, se, fsys, err := s.call(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	pattern := in.Pattern
	var abs, name string
	if strings.HasPrefix(pattern, "/") {
		abs, name = "/", "."
		pattern = strings.TrimLeft(pattern, "/")
	} else {
		abs, name = se.resolve(in.Path)
	}
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return nil, nil, fmt.Errorf("invalid glob pattern %q", in.Pattern)
	}
	matches, err := s.globPaths(fsys, abs, name, pattern)
	if err != nil {
		return nil, nil, err
	}
	if len(matches) == 0 {
		return textResult(fmt.Sprintf("No paths under %s match %s", abs, in.Pattern)), nil, nil
	}
	out := newLines(s.cfg.MaxOutput, 0)
	for _, m := range matches {
		fmt.Fprintln(out, m)
	}
	text := out.text()
	if out.cut() {
		text += fmt.Sprintf("[%s more paths not shown; narrow the pattern or the path]\n", thousands(out.droppedLines))
	}
	return textResult(text), nil, nil
}

// globPaths returns the absolute paths below the directory name (abs)
// that pattern matches, sorted, directories with a trailing "/".
func (s *server) globPaths(fsys fs.FS, abs, name, pattern string) ([]string, error) {
	fi, _, err := stat(fsys, name)
	if err != nil {
		return nil, s.pathError(fsys, abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a directory: %s needs a directory as path", abs, s.name("glob"))
	}
	sub := fsys
	if name != "." {
		if sub, err = fs.Sub(fsys, name); err != nil {
			return nil, s.pathError(fsys, abs, err)
		}
	}
	var matches []string
	err = doublestar.GlobWalk(sub, pattern, func(p string, d fs.DirEntry) error {
		if p == "." {
			return nil // the directory itself
		}
		p = path.Join(abs, p)
		if d.IsDir() {
			p += "/"
		}
		matches = append(matches, p)
		return nil
	})
	if err != nil {
		return nil, s.pathError(fsys, abs, err)
	}
	slices.Sort(matches)
	return matches, nil
}

type statIn struct {
	Path string `json:"path" `
}

// StatResult is the structured content of the stat tool. Its schema
// describes only what its names do not say.
type StatResult struct {
	// Path is the absolute path.
	Path string `json:"path"`
	// Type is "file" or "directory".
	Type string `json:"type" jsonschema:"file or directory"`
	// Size is the size in bytes, 0 for a directory.
	Size int64 `json:"size" jsonschema:"bytes"`
	// ModTime is the modification time (RFC 3339), when known.
	ModTime string `json:"mod_time,omitempty" jsonschema:"RFC 3339"`
	// ContentType is the MIME type the documentation records, when it
	// does.
	ContentType string `json:"content_type,omitempty"`
	// Hash is the content hash the documentation records, such as
	// sha256:<hex>, when it does.
	Hash string `json:"hash,omitempty" jsonschema:"e.g. sha256:<hex>"`
	// Reassembled says, for a page rebuilt from another tool's
	// overlapping, trimmed chunks, how exactly: "exact", or
	// "edges-assumed: " or "inexact: " and which bytes were guessed
	// (fscap.Attributes.Reassembly).
	Reassembled string `json:"reassembled,omitempty" jsonschema:"exact, edges-assumed: or inexact: and the bytes guessed"`
	// Entries is a directory's number of entries.
	Entries int `json:"entries,omitempty"`
}

// stat describes a file or directory.
func (s *server) stat(ctx context.Context, req *mcp.CallToolRequest, in statIn) (*mcp.CallToolResult, StatResult, error) {
	_, cancel, se, fsys, err := s.call(ctx, req)
	if err != nil {
		return nil, StatResult{}, err
	}
	defer cancel()
	abs, name := se.resolve(in.Path)
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, StatResult{}, s.pathError(fsys, abs, err)
	}
	out := StatResult{Path: abs, Type: "file", Size: fi.Size()}
	if t := fi.ModTime(); !t.IsZero() {
		out.ModTime = t.UTC().Format(time.RFC3339)
	}
	if fi.IsDir() {
		out.Type, out.Size = "directory", 0
		entries, err := fs.ReadDir(fsys, name)
		if err != nil {
			return nil, StatResult{}, s.pathError(fsys, abs, err)
		}
		out.Entries = len(entries)
	} else {
		if a, ok := fscap.AttributesOf(fi); ok {
			out.ContentType, out.Hash, out.Reassembled = a.ContentType, a.Hash, a.Reassembly
		}
	}
	return textResult(statText(out)), out, nil
}

// statText is the text of the stat tool's answer.
func statText(r StatResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\ntype: %s\n", r.Path, r.Type)
	if r.Type == "directory" {
		fmt.Fprintf(&b, "entries: %d\n", r.Entries)
	} else {
		fmt.Fprintf(&b, "size: %d bytes\n", r.Size)
	}
	modTime := r.ModTime
	if modTime == "" {
		modTime = "unknown"
	}
	fmt.Fprintf(&b, "modified: %s\n", modTime)
	if r.ContentType != "" {
		fmt.Fprintf(&b, "content type: %s\n", r.ContentType)
	}
	if r.Hash != "" {
		fmt.Fprintf(&b, "hash: %s\n", r.Hash)
	}
	if r.Reassembled != "" {
		fmt.Fprintf(&b, "reassembled: %s\n", r.Reassembled)
	}
	return b.String()
}
