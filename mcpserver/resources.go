package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/fscap"
)

// Resources: the pages of the session's view as MCP resources.
const (
	// ResourceScheme is the scheme of the resources' URIs:
	// chromafs:///path, with the path's bytes that are not unreserved
	// percent-encoded as RFC 3986 wants (a space as %20).
	ResourceScheme = "chromafs"
	// ResourceTemplate is the RFC 6570 template of a page's URI, served
	// by resources/templates/list.
	ResourceTemplate = "chromafs:///{+path}"
	// ResourcePageSize is the most resources of one resources/list
	// answer; nextCursor continues the list.
	ResourcePageSize = 500
	// DefaultMaxResourceBytes is Config.MaxResourceBytes's default.
	DefaultMaxResourceBytes = 256 << 10
)

// resourceTemplate is the template served, with the server's handler.
func resourceTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		Name:        "page",
		Title:       "A page of the collection by its path",
		Description: "Any page of the collection: chromafs:///path, the path absolute from the root without its leading slash, as resources/list names them.",
		URITemplate: ResourceTemplate,
	}
}

// addResources serves the resources: the template (with which the SDK
// declares the resources capability), and resources/list and
// resources/read answered from the session's view by resourcesMiddleware.
func (s *server) addResources(srv *mcp.Server) {
	srv.AddResourceTemplate(resourceTemplate(), s.readResource)
}

// resourcesChanged sends notifications/resources/list_changed to every
// session of srv: the SDK sends it when a resource template is added
// again (it replaces the one of the same URI template, the same here),
// after 10 ms without another change, so that a burst of calls sends one
// notification.
func (s *server) resourcesChanged(srv *mcp.Server) {
	srv.AddResourceTemplate(resourceTemplate(), s.readResource)
}

// resourcesMiddleware answers resources/list and resources/read from the
// session's view, so that the list is of the user's pages (not a list
// shared by every session of the server) and every URI, even one that is
// no chromafs:/// URI, gets an answer that says what is wrong with it.
func (s *server) resourcesMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.ListResourcesRequest:
			if method == "resources/list" {
				return s.listResources(ctx, r)
			}
		case *mcp.ReadResourceRequest:
			if method == "resources/read" {
				res, err := s.readResource(ctx, r)
				if err != nil {
					return nil, err
				}
				return &readResult{res}, nil
			}
		}
		return next(ctx, method, req)
	}
}

// resourceFS is the filesystem that a resource request of the session ss
// reads: Config.Resources's when set, else the session's.
func (s *server) resourceFS(ctx context.Context, ss *mcp.ServerSession) (fs.FS, error) {
	var fsys fs.FS
	if s.cfg.Resources != nil {
		f, err := s.cfg.Resources(ctx)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the filesystem cannot be opened: %v", err)}
		}
		fsys = f
	} else {
		se, err := s.session(ctx, ss)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the filesystem cannot be opened: %v", err)}
		}
		fsys = se.fsys
	}
	return fscap.Bind(ctx, fsys), nil
}

// listResources answers resources/list: the pages of the view (never a
// directory, never a page the view hides), in the order of fs.WalkDir,
// at most ResourcePageSize an answer, with a cursor that names the last
// page listed so that the next answer starts after it even when the tree
// changed in between.
func (s *server) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var after []string // the segments of the cursor's path
	if req.Params != nil && req.Params.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(req.Params.Cursor)
		if err != nil || !fs.ValidPath(string(b)) || string(b) == "." {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: give the nextCursor of the previous resources/list answer as it was, or no cursor to list from the start"}
		}
		after = strings.Split(string(b), "/")
	}
	fsys, err := s.resourceFS(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourcesResult{Cacheable: private, Resources: []*mcp.Resource{}}
	var last string
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if name == "." {
				return err
			}
			return nil // a directory that cannot be listed lists nothing
		}
		if name == "." {
			return nil
		}
		if after != nil {
			segs := strings.Split(name, "/")
			c := compareSegments(segs, after)
			if d.IsDir() {
				if c < 0 && !hasPrefix(after, segs) {
					return fs.SkipDir // all of it was listed
				}
				return nil
			}
			if c <= 0 {
				return nil
			}
		}
		if d.IsDir() {
			return nil
		}
		if len(res.Resources) == ResourcePageSize {
			res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(last))
			return fs.SkipAll
		}
		res.Resources = append(res.Resources, pageResource(fsys, name))
		last = name
		return nil
	})
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("listing the pages: %v", err)}
	}
	return res, nil
}

// compareSegments compares two paths split at "/" in the order of
// fs.WalkDir: element by element, a directory before what it holds.
func compareSegments(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// hasPrefix reports whether the path p is below the directory dir (both
// split at "/").
func hasPrefix(p, dir []string) bool {
	if len(p) <= len(dir) {
		return false
	}
	for i := range dir {
		if p[i] != dir[i] {
			return false
		}
	}
	return true
}

// pageResource describes the page name: its URI, its absolute path as
// name and title, its MIME type, and its size when known without a read.
func pageResource(fsys fs.FS, name string) *mcp.Resource {
	r := &mcp.Resource{URI: PageURI(name), Name: absPath(name), MIMEType: mimeType(name)}
	if _, size, err := stat(fsys, name); err == nil && size > 0 {
		r.Size = size
	}
	return r
}

// mimeType is a page's MIME type: text/markdown for .md and .mdx,
// text/plain otherwise.
func mimeType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".mdx":
		return "text/markdown"
	}
	return "text/plain"
}

// PageURI is the resource URI of the page at path p (absolute or not):
// chromafs:/// and the path, each byte other than RFC 3986's unreserved
// characters and "/" percent-encoded.
func PageURI(p string) string {
	p = strings.TrimLeft(p, "/")
	var b strings.Builder
	b.WriteString(ResourceScheme + ":///")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || unreserved(c) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// unreserved reports whether c is an unreserved character of RFC 3986.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// pageName returns the fs.FS name of a page's URI, or an error that says
// what is wrong with the URI and what a valid one looks like. A URI is
// chromafs:/// (the scheme in any case) and a path whose percent-encoded
// bytes are decoded: any encoding of the path is accepted, but not one
// that decodes to "/", to a control character or to invalid UTF-8, nor a
// path with an empty, "." or ".." element.
func pageName(uri string) (string, error) {
	scheme, rest, ok := strings.Cut(uri, ":")
	if !ok || !strings.EqualFold(scheme, ResourceScheme) {
		return "", fmt.Errorf("%q is not a chromafs URI: the pages are chromafs:///path (for /guide/intro.md, chromafs:///guide/intro.md), as resources/list names them", uri)
	}
	p, ok := strings.CutPrefix(rest, "///")
	if !ok {
		return "", fmt.Errorf("%q: a chromafs URI has three slashes and no host: chromafs:///path (for /guide/intro.md, chromafs:///guide/intro.md)", uri)
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		return "", fmt.Errorf("%q: a chromafs URI has no query or fragment; a %c in a path is written %%%02X", uri, p[i], p[i])
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return "", fmt.Errorf("%q: a %% that is not followed by two hexadecimal digits; a %% in a path is written %%25", uri)
		}
		d := unhex(p[i+1])<<4 | unhex(p[i+2])
		if d == '/' || d < 0x20 || d == 0x7f {
			return "", fmt.Errorf("%q: %s decodes to %q, which no path holds; write a / as itself", uri, p[i:i+3], d)
		}
		b.WriteByte(d)
		i += 2
	}
	name := b.String()
	switch {
	case name == "":
		return "", fmt.Errorf("%q names the root, a directory: name a page (resources/list lists them)", uri)
	case !utf8.ValidString(name):
		return "", fmt.Errorf("%q: the path is not valid UTF-8 once decoded", uri)
	case !fs.ValidPath(name):
		return "", fmt.Errorf("%q: the path %q has an empty, \".\" or \"..\" element or ends with /: give the page's path from the root as resources/list names it", uri, "/"+name)
	}
	return name, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// readResource answers resources/read of a page's URI: its text, at most
// Config.MaxResourceBytes of it. A longer page is cut at the end of its
// last whole line within the bound, and a last line says so and how to
// read the rest (with the read tool, or bash's sed, when served). A URI
// that is not a valid chromafs URI is an invalid-params error that says
// why; so is a directory, and a page that does not exist or that the
// view hides (the same words, and the URI as data: the SDK's
// resource-not-found error).
func (s *server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	uri := req.Params.URI
	name, err := pageName(uri)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	fsys, err := s.resourceFS(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	abs := absPath(name)
	notFound := func(err error) error {
		data, _ := json.Marshal(map[string]string{"uri": uri})
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: s.pathError(fsys, abs, err).Error(), Data: data}
	}
	fi, _, err := stat(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(err)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.pathError(fsys, abs, err).Error()}
	}
	if fi.IsDir() {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is a directory, not a page: resources/list lists the pages", abs)}
	}
	text, err := s.pageText(fsys, name, abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(err)
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.pathError(fsys, abs, err).Error()}
	}
	return &mcp.ReadResourceResult{
		Cacheable: private,
		Contents:  []*mcp.ResourceContents{{URI: uri, MIMEType: mimeType(name), Text: text}},
	}, nil
}

// private is the cache hint of the resources' answers: they are of the
// user's view, for the user's client only, and may change at any time.
var private = mcp.Cacheable{CacheScope: "private"}

// readResult is a resources/read answer whose empty texts are encoded as
// "text": "": the SDK omits an empty text, and a client then finds a
// content with neither text nor blob, which the protocol's schema refuses
// (the TypeScript SDK's client throws).
type readResult struct{ *mcp.ReadResourceResult }

func (r *readResult) MarshalJSON() ([]byte, error) {
	b, err := r.ReadResourceResult.MarshalJSON()
	if err != nil || !slices.ContainsFunc(r.Contents, func(c *mcp.ResourceContents) bool { return c.Text == "" && c.Blob == nil }) {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	var contents []map[string]json.RawMessage
	if err := json.Unmarshal(m["contents"], &contents); err != nil {
		return nil, err
	}
	for _, c := range contents {
		if c["text"] == nil && c["blob"] == nil {
			c["text"] = json.RawMessage(`""`)
		}
	}
	if m["contents"], err = json.Marshal(contents); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// pageText reads the page name (abs) within Config.MaxResourceBytes.
func (s *server) pageText(fsys fs.FS, name, abs string) (string, error) {
	limit := s.cfg.MaxResourceBytes
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", err
	}
	if len(data) <= limit {
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil
	}
	keep := data[:limit]
	if i := strings.LastIndexByte(string(keep), '\n'); i >= 0 {
		keep = keep[:i+1]
	} else {
		// No line ends within the bound: cut before the rune that
		// the bound splits.
		for len(keep) > 0 && !utf8.RuneStart(data[len(keep)]) {
			keep = keep[:len(keep)-1]
		}
	}
	lines := strings.Count(string(keep), "\n")
	note := fmt.Sprintf("\n[%s cut after %d bytes (line %d): resources/read returns at most %d bytes of a page", abs, len(keep), lines, limit)
	switch {
	case s.has("read"):
		note += fmt.Sprintf("; %s path=%s offset=%d reads the rest", s.name("read"), abs, lines+1)
	case s.has("bash"):
		note += fmt.Sprintf("; %s: sed -n '%d,$p' %s prints the rest", s.name("bash"), lines+1, shellQuote(abs))
	}
	note += "]\n"
	text := strings.ToValidUTF8(string(keep), "\uFFFD")
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + note, nil
}
