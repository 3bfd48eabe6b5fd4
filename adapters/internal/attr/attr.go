// Package attr derives the HTTP and WebDAV attributes of a file — its
// entity tag and content type — from its fs.FileInfo, without reading its
// content when the filesystem records them (fscap.AttributesOf: chromafs's
// tree does, through FileInfo.Sys).
package attr

import (
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/chromafs/chromafs/fscap"
)

// ETag returns a strong entity tag for the file: its content hash when
// the tree records one, else one derived from its size and modification
// time (which change whenever chromafs ingest rewrites a page).
func ETag(fi fs.FileInfo) string {
	if a, ok := fscap.AttributesOf(fi); ok && a.Hash != "" {
		h := a.Hash
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

// HasETag reports whether ETag(fi) can be computed without reading the
// file: always when the tree records a content hash, else only when
// sizeKnown (the tag is then derived from the size, which a listing that
// reads nothing may not know).
func HasETag(fi fs.FileInfo, sizeKnown bool) bool {
	if sizeKnown {
		return true
	}
	a, ok := fscap.AttributesOf(fi)
	return ok && a.Hash != ""
}

// ContentType returns the file's MIME type: the tree's when it records
// one, else by extension, with Markdown (.md, .mdx) and extensionless
// files (README, Makefile, docs pages without an extension) served as
// UTF-8 text rather than sniffed or sent as application/octet-stream.
func ContentType(name string, fi fs.FileInfo) string {
	if a, ok := fscap.AttributesOf(fi); ok && a.ContentType != "" {
		return a.ContentType
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

// PlainText is the content type that active content is served as when it
// is not allowed.
const PlainText = "text/plain; charset=utf-8"

// ServedType returns the content type to send for the file: ContentType's,
// unless that is active content (see [Active]) and allowActive is false,
// when it is PlainText, so that a page whose tree entry says text/html (or
// whose name ends in .html or .svg) is shown as text rather than run as a
// document of the server's origin, where browsers hold users' credentials.
func ServedType(name string, fi fs.FileInfo, allowActive bool) string {
	ct := ContentType(name, fi)
	if !allowActive && Active(ct) {
		return PlainText
	}
	return ct
}

// Active reports whether a browser would render a response of content
// type ct as a document that can run script or load other resources with
// the origin's authority: HTML and XHTML, SVG, XML of any kind (which XSLT
// can turn into HTML) and XSLT, JavaScript and ECMAScript, Flash, and
// multipart/x-mixed-replace. A type that does not parse as a media type
// counts as active (fail closed). Text, Markdown, JSON, CSS, images other
// than SVG, audio, video, fonts, PDF and archives are passive.
func Active(ct string) bool {
	mt, ok := mediaType(ct)
	if !ok {
		var err error
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			return true
		}
	}
	switch mt {
	case "text/html", "application/xhtml+xml", "image/svg+xml",
		"text/xml", "application/xml", "text/xsl", "application/xslt+xml",
		"application/x-shockwave-flash", "multipart/x-mixed-replace",
		"text/vbscript", "application/hta", "text/x-component":
		return true
	}
	return strings.HasSuffix(mt, "+xml") || strings.HasSuffix(mt, "/xml") ||
		strings.Contains(mt, "javascript") || strings.Contains(mt, "ecmascript") ||
		strings.Contains(mt, "jscript")
}

// mediaType returns the media type of ct without its parameters, when it
// is a plain lower-case type/subtype (the usual case, with no allocation);
// ok is false otherwise, for mime.ParseMediaType to decide.
func mediaType(ct string) (mt string, ok bool) {
	mt = ct
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		mt = ct[:i]
	}
	slash := 0
	for i := 0; i < len(mt); i++ {
		switch c := mt[i]; {
		case c == '/':
			slash++
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '-', c == '.':
		default:
			return "", false
		}
	}
	return mt, slash == 1 && mt[0] != '/' && mt[len(mt)-1] != '/'
}
