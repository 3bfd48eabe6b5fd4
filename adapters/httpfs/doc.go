// Package httpfs serves the files of an io/fs.FS — typically a user's
// view of a chromafs collection — over HTTP, as a read-only file server
// with entity tags, conditional and range requests and directory
// listings.
//
//	h := httpfs.NewHandler(func(r *http.Request) (fs.FS, error) {
//		return fsys.WithContext(r.Context()), nil
//	}, httpfs.Options{Prefix: "/files/"})
//
// # Resolving the filesystem
//
// For every request the handler calls resolve, which returns the
// filesystem the request may see: the caller authenticates the request
// and returns that user's view, bound to r.Context() (chromafs's
// FS.WithContext), so that a client that goes away cancels the reads
// that its request started. The handler never binds a context itself. An
// error from resolve is answered with 500 and a generic body; its text
// goes only to Options.Logger. (Authentication failures, 401 and
// WWW-Authenticate, belong in a middleware in front of the handler.)
//
// # Requests and responses
//
//   - Only GET and HEAD are served; every other method gets 405 with
//     "Allow: GET, HEAD".
//   - A file is served with http.ServeContent: its ETag (attr.ETag: the
//     tree's content hash, or size and mod time), Last-Modified when the
//     mod time is known, Content-Type from attr.ContentType (Markdown,
//     .mdx and extensionless pages are UTF-8 text, never sniffed), so
//     If-None-Match / If-Modified-Since (304), If-Match /
//     If-Unmodified-Since (412), Range (206, multipart/byteranges) and
//     unsatisfiable ranges (416) work. Files of an fs.FS that cannot Seek
//     are read whole into memory first.
//   - A directory is listed as a small HTML page: entries sorted by name,
//     directories with a trailing slash, names HTML-escaped and links
//     URL-escaped. There is no index.html substitution. A directory
//     requested without its trailing slash is redirected (301) to it, and
//     a file requested with one is redirected to its name, as
//     http.FileServer does.
//   - Every response carries X-Content-Type-Options: nosniff and the
//     Cache-Control of Options.CacheControl (by default "private,
//     no-cache": views are per user, and a revalidation costs a 304).
//
// # Errors
//
// A missing path and a hidden one both answer 404 with the same body, as
// does a URL outside Options.Prefix. An invalid path (an element "." or
// "..", an empty element "//", a NUL or a backslash) answers 400, before
// resolve is called. A page that cannot be read (Chroma unreachable, a corrupt page)
// answers 502 with a short body (504 when the read timed out, 503 when
// the request was canceled): the handler reads a page before it writes
// the status line, so such a failure never becomes a 200 or 206 with
// partial content. Details go to Options.Logger only.
package httpfs
