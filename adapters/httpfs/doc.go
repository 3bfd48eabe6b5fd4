// Package httpfs serves the files of an io/fs.FS — typically a user's
// view of a chromafs collection — over HTTP, as a read-only file server
// with entity tags, conditional and range requests and directory
// listings.
//
//	h := httpfs.NewHandler(func(r *http.Request) (fs.FS, error) {
//		return viewFor(r) // for example a chromafs.FS for the user's groups
//	}, httpfs.Options{Prefix: "/files/"})
//
// # Resolving the filesystem
//
// For every request the handler calls resolve, which returns the
// filesystem the request may see: the caller authenticates the request
// and returns that user's view. An error from resolve is answered as a
// read's (see # Errors) when it is a fault of the store or the cache —
// 503, 504 or 502, never 500 — and with 500 otherwise, always with a
// generic body; its text goes only to Options.Logger. (Authentication
// failures, 401 and WWW-Authenticate, belong in a middleware in front of
// the handler.)
//
// # Request contexts
//
// The handler binds the request's context (r.Context()) to the
// filesystem that resolve returns, through one interface that any fs.FS
// may implement, fscap.BindContextFS:
//
//	BindContext(ctx context.Context) fs.FS
//
// and serves the request from the view that BindContext returns, so that
// a client that goes away, or the request's deadline, cancels the reads
// that its request started. *chromafs.FS implements it: its view reads
// with r.Context(), unless resolve bound a context already
// (FS.WithContext, for example with a deadline of its own), which then
// stands. A filesystem without the method is served as it is. Package
// webdavfs applies the same policy.
//
// # Requests and responses
//
//   - Only GET and HEAD are served; every other method gets 405 with
//     "Allow: GET, HEAD".
//   - A file is served with http.ServeContent: its ETag (attr.ETag: the
//     tree's content hash, or size and mod time), Last-Modified when the
//     mod time is known, Content-Type from attr.ContentType (Markdown,
//     .mdx and extensionless pages are UTF-8 text, never sniffed; active
//     content as text/plain, see # Content types), so
//     If-None-Match / If-Modified-Since (304), If-Match /
//     If-Unmodified-Since (412), Range (206, multipart/byteranges) and
//     unsatisfiable ranges (416) work. Files of an fs.FS that cannot Seek
//     are read whole into memory first.
//   - A directory is listed as a small HTML page: entries sorted by name,
//     directories with a trailing slash, names HTML-escaped and links
//     URL-escaped, with a Content-Security-Policy that allows no script,
//     style, form or frame and sandboxes the page. A listing uses names
//     and kinds only: it never reads content, so it works while the store
//     is down and lists pages that cannot be read (a corrupt page, a lazy
//     pointer not fetched), which fail when requested. There is no
//     index.html substitution. A directory
//     requested without its trailing slash is redirected (301) to it, and
//     a file requested with one is redirected to its name, as
//     http.FileServer does.
//   - Every response carries X-Content-Type-Options: nosniff and the
//     Cache-Control of Options.CacheControl (by default "private,
//     no-cache": views are per user, and a revalidation costs a 304).
//
// # Content types
//
// Active content — HTML, XHTML, SVG, XML of any kind, XSLT, JavaScript,
// whether the tree records the type (an entry's contentType) or the
// name's extension gives it; see attr.Active — would run in the browser
// as a page of the server's origin, where the browser holds the users'
// credentials. It is served as text/plain; charset=utf-8 unless
// Options.AllowActiveContent is set.
//
// # Errors
//
// A missing path and a hidden one both answer 404 with the same body, as
// does a URL outside Options.Prefix. An invalid path (an element "." or
// "..", an empty element "//", a NUL or a backslash) answers 400, before
// resolve is called. The handler reads a page before it writes the status
// line, so a failed read never becomes a 200 or 206 with partial content.
// A fault of a service behind the filesystem, in resolve or in a read, is
// never a 500:
//
//   - 503 with Retry-After: 5 when the store (Chroma) or the cache (Redis)
//     cannot be reached (refused, reset, closed, unresolvable);
//   - 504 when a deadline passed before it answered (a frozen store, a
//     slow pointer URL);
//   - 502 when it answered wrongly (a corrupt page, an error status, a
//     malformed tree), and for a lazy pointer whose content could not be
//     fetched (blocked, refused, an error status, the wrong size or hash,
//     or no fetching at all);
//   - 503 when the client canceled the request (nobody reads it).
//
// Bodies are fixed texts that name no page, address or error, such as
// "503 service unavailable: the document store cannot be reached; retry
// later". Details go to Options.Logger only, with the keys "err" (the
// error) and "kind" (unavailable, timeout, failed, canceled or other).
package httpfs
