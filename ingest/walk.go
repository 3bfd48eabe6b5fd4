package ingest

import (
	"context"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// file is a regular file to ingest.
type file struct {
	slug string
	info fs.FileInfo
}

// walk lists the regular files of src, in fs.WalkDir order, and records
// the skipped and excluded ones in r.
func walk(ctx context.Context, src fs.FS, ex *excluder, rulesSlug string, r *Report) ([]file, error) {
	var files []file
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("ingest: walk %s: %w", displayPath(p), err)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest: walk: %w", err)
		}
		if p == "." {
			return nil
		}
		skipDir := func() error {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" {
			return skipDir()
		}
		if ex.match(p, d.IsDir()) {
			r.Excluded++
			return skipDir()
		}
		if reason := badName(p); reason != "" {
			r.Skipped = append(r.Skipped, Skip{p, reason})
			return skipDir()
		}
		mode := d.Type()
		switch {
		case mode&fs.ModeSymlink != 0:
			r.Skipped = append(r.Skipped, Skip{p, "symbolic link"})
			return nil
		case d.IsDir():
			return nil
		case !mode.IsRegular():
			r.Skipped = append(r.Skipped, Skip{p, "not a regular file (" + kind(mode) + ")"})
			return nil
		case p == rulesSlug:
			r.Skipped = append(r.Skipped, Skip{p, "access rules file"})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("ingest: stat %s: %w", displayPath(p), err)
		}
		if !info.Mode().IsRegular() {
			r.Skipped = append(r.Skipped, Skip{p, "not a regular file (" + kind(info.Mode()) + ")"})
			return nil
		}
		files = append(files, file{slug: p, info: info})
		return nil
	})
	return files, err
}

// kind names the type of a file that is not regular.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeDir != 0:
		return "directory"
	}
	return "irregular file"
}

// badName says why the path p cannot be a slug, or returns "".
func badName(p string) string {
	switch {
	case !utf8.ValidString(p):
		return "name is not valid UTF-8"
	case !fs.ValidPath(p):
		return "name is not a valid path"
	case strings.Contains(p, `\`):
		return "name contains a backslash"
	case strings.ContainsFunc(p, unicode.IsControl):
		return "name contains a control character"
	}
	return ""
}

// ContentType returns the media type ingest records for a page:
// text/markdown for .md and .mdx, the registered type of other
// extensions, else a type sniffed from the first 512 bytes of content.
func ContentType(slug string, content []byte) string {
	ext := strings.ToLower(path.Ext(slug))
	switch ext {
	case ".md", ".mdx":
		return "text/markdown; charset=utf-8"
	case "":
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return http.DetectContentType(content[:min(len(content), 512)])
}

// excluder matches paths against Options.Exclude.
type excluder struct {
	patterns []exclude
}

type exclude struct {
	glob    string
	base    bool // match the last element only
	dirOnly bool
}

func newExcluder(globs []string) (*excluder, error) {
	ex := &excluder{}
	for _, g := range globs {
		e := exclude{glob: g}
		if strings.HasSuffix(e.glob, "/") {
			e.glob, e.dirOnly = strings.TrimRight(e.glob, "/"), true
		}
		e.base = !strings.Contains(e.glob, "/")
		e.glob = strings.TrimPrefix(strings.TrimPrefix(e.glob, "./"), "/")
		if e.glob == "" || !doublestar.ValidatePattern(e.glob) {
			return nil, fmt.Errorf("ingest: bad exclude pattern %q", g)
		}
		ex.patterns = append(ex.patterns, e)
	}
	return ex, nil
}

func (ex *excluder) match(p string, isDir bool) bool {
	for _, e := range ex.patterns {
		if e.dirOnly && !isDir {
			continue
		}
		target := p
		if e.base {
			target = path.Base(p)
		}
		if ok, _ := doublestar.Match(e.glob, target); ok {
			return true
		}
	}
	return false
}
