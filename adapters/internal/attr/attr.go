// Package attr derives the HTTP and WebDAV attributes of a file — its
// entity tag and content type — from its fs.FileInfo, without reading its
// content when the filesystem records them (chromafs's tree does: its
// FileInfo.Sys() is the page's *tree.Entry).
package attr

import (
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/chromafs/chromafs/tree"
)

// ETag returns a strong entity tag for the file: its content hash when
// the tree records one, else one derived from its size and modification
// time (which change whenever chromafs ingest rewrites a page).
func ETag(fi fs.FileInfo) string {
	if e, ok := fi.Sys().(*tree.Entry); ok && e.Hash != "" {
		h := e.Hash
		if i := strings.IndexByte(h, ':'); i >= 0 {
			h = h[i+1:]
		}
		if len(h) > 32 {
			h = h[:32]
		}
		return `"` + h + `"`
	}
	return fmt.Sprintf(`"%x-%x"`, fi.ModTime().UnixNano(), fi.Size())
}

// ContentType returns the file's MIME type: the tree's when it records
// one, else by extension, with Markdown (.md, .mdx) and extensionless
// files (README, Makefile, docs pages without an extension) served as
// UTF-8 text rather than sniffed or sent as application/octet-stream.
func ContentType(name string, fi fs.FileInfo) string {
	if e, ok := fi.Sys().(*tree.Entry); ok && e.ContentType != "" {
		return e.ContentType
	}
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".md", ".mdx", ".markdown":
		return "text/markdown; charset=utf-8"
	case "", ".txt":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}
