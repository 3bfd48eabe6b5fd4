// Package webdavfs serves an io/fs filesystem — typically a per-user
// [chromafs.FS] view — over WebDAV, read-only, with
// golang.org/x/net/webdav for GET and HEAD and its own PROPFIND.
//
// [NewFileSystem] adapts an fs.FS to a webdav.FileSystem. [NewHandler]
// serves OPTIONS and PROPFIND itself and wraps webdav.Handler, for GET and
// HEAD, in a guard that lets only reads reach it, resolving the filesystem
// for each request (so that each user sees their own view):
//
//	h := webdavfs.NewHandler(func(r *http.Request) (fs.FS, error) {
//		return viewFor(r) // for example chromafs.New(ctx, store, chromafs.WithGroups(groupsOf(r)...))
//	}, webdavfs.Options{Prefix: "/dav"})
//	http.Handle("/dav/", h)
//
// Authentication belongs in front of the handler (a middleware that
// answers 401); resolve then maps the authenticated user to a view.
//
// # Methods
//
//   - OPTIONS is answered by the handler itself, without resolving a
//     filesystem: 200, Allow: OPTIONS, GET, HEAD, PROPFIND and DAV: 1
//     (class 1: no locks).
//   - GET and HEAD serve a file with the ETag and content type of package
//     attr (from the tree: a content hash, a recorded type, Markdown and
//     extensionless files as UTF-8 text; see # Content types),
//     Last-Modified, Range and If-None-Match. A GET loads the whole page
//     before answering, so that a failed read is an error status, never a
//     200 whose body stops short; a HEAD of a page whose size the tree
//     does not record reads it too, for its Content-Length. GET and HEAD
//     on a directory are 405 (Allow: OPTIONS, PROPFIND).
//   - PROPFIND is answered by the handler itself, not by webdav.Handler,
//     with a multistatus written from precomputed fragments, in a fraction
//     of webdav.Handler's time (BenchmarkPropfindDepth1; BENCHMARKS.md,
//     "HTTP and WebDAV adapters"). The answers are webdav.Handler's:
//     allprop (or an empty body), propname, and prop with named properties,
//     whose unknown ones (and creationdate, getcontentlanguage and
//     lockdiscovery, which webdav.Handler hides) are in a 404 propstat;
//     DAV:include is ignored, as webdav.Handler ignores it; an invalid body
//     is 400. The live properties are resourcetype (DAV:collection for
//     directories), displayname (empty for the root), getlastmodified (in
//     http.TimeFormat; for a directory, when known: see below) and supportedlock for every resource, and
//     getcontentlength, getcontenttype and getetag for files, the last two
//     those of package attr. DAV:supportedlock is empty: no lock type is
//     supported. Hrefs carry Options.Prefix, are URL-escaped as
//     webdav.Handler escapes them and end with "/" for collections;
//     entries whose names are not valid io/fs names (invalid UTF-8) are
//     left out. A missing or hidden target is 404. Depth: infinity — and
//     no Depth header, which RFC 4918 treats as infinity — is refused with
//     403 and the body [FiniteDepthBody] (the DAV:propfind-finite-depth
//     precondition of RFC 4918, section 9.1) unless
//     Options.AllowInfiniteDepth is set, when the whole subtree is walked.
//     Other Depth values are 400.
//   - A listing never reads content. Properties come from metadata only:
//     fscap.StatNoRead (on a *chromafs.FS, FS.StatNoRead), so PROPFIND
//     sends no content request to the store and fetches no lazy pointer,
//     whatever the tree records. A page whose size is known neither from the tree nor from
//     an earlier read in the session (a collection written by another
//     writer, a lazy pointer that declares no size) is listed without
//     getcontentlength, and without getetag unless the tree records its
//     hash; allprop leaves them out, prop names them in the 404 propstat.
//     So with getlastmodified for a directory whose modification time is
//     unknown (the zero time: no page below it and no tree record has one;
//     the Unix epoch is taken as unknown too, as http.ServeContent takes
//     it for Last-Modified), where webdav.Handler answers "Mon, 01 Jan
//     0001 00:00:00 GMT", which clients show as a date. A file keeps
//     getlastmodified, that date included, when its time is unknown:
//     cadaver lists a file without it as an error, not as a file.
//     A page that cannot be read (a corrupt page, a pointer not fetched)
//     is listed like any other and fails when read. (On another fs.FS,
//     DirEntry.Info gives the properties.)
//   - PROPFIND is bounded: a body over [MaxPropfindBody] bytes, naming
//     more than [MaxPropfindProps] properties, or a property whose
//     namespace or local name is longer than [MaxPropNameLen] bytes is 413;
//     an answer that could exceed [MaxPropfindAnswer] bytes is 507 before
//     anything is sent. The answer declares the namespaces of the named
//     properties once, on the multistatus element, and is streamed: the
//     handler holds about 64 KiB of it at a time, and an answer of up to
//     64 KiB is sent whole with a Content-Length. At depth 0 and 1 every
//     resource is described before the status line, so a failure (on an
//     fs.FS whose ReadDir or Info can fail) is an error status, not a
//     multistatus that leaves entries out; at Depth: infinity a failure
//     or the answer limit after the first bytes aborts the answer
//     (http.ErrAbortHandler), so the client sees a truncated body, never a
//     well-formed partial one.
//   - Every other method — PUT, MKCOL, DELETE, COPY, MOVE, PROPPATCH,
//     LOCK, UNLOCK, POST, PATCH and unknown ones — is 405 with
//     Allow: OPTIONS, GET, HEAD, PROPFIND, before any lookup. No lock is
//     ever granted: the webdav.Handler inside gets a LockSystem that
//     refuses everything, and only ever sees GET and HEAD.
//
// # Access control
//
// The handler shows exactly the filesystem resolve returns: a page hidden
// from a chromafs view is 404 for GET, HEAD and PROPFIND and absent from
// listings, like a page that does not exist. Desktop probe files (names
// starting with "._", ".DS_Store", "desktop.ini", "Thumbs.db"; see
// [IsProbe]) are 404 at once, without calling resolve or looking anything
// up. Requests outside Options.Prefix are 404.
//
// # Content types
//
// Active content — HTML, XHTML, SVG, XML of any kind, XSLT, JavaScript,
// whether the tree records the type (an entry's contentType) or the
// name's extension gives it; see attr.Active — would run in a browser as a
// page of the server's origin, where the browser holds the users'
// credentials. It is served, and listed in getcontenttype, as
// text/plain; charset=utf-8, unless Options.AllowActiveContent is set.
// Every answer, errors and listings included, carries
// X-Content-Type-Options: nosniff.
//
// # Errors
//
// NewFileSystem's writes (OpenFile with any write flag, Mkdir, RemoveAll,
// Rename, File.Write) return errors wrapping fscap.ErrReadOnly, which
// matches fs.ErrPermission and syscall.EROFS. Missing, hidden and invalid
// names give errors for which os.IsNotExist is true.
//
// The handler maps errors as httpfs does, never answering 500 for a
// fault of a service behind the filesystem: 404 for missing or hidden
// paths, 503 with Retry-After: 5 when the store (Chroma) or the cache
// (Redis) cannot be reached — in resolve or in a read —, 504 when a
// deadline passed before it answered (a frozen store), 502 when it
// answered wrongly (a corrupt page, an error status, a malformed tree) and
// for a lazy pointer whose content could not be fetched (but 504 for a
// pointer's deadline). A resolve error that is none of these is 500.
// Bodies are fixed texts that name no page, address or error (for
// example "503 service unavailable: the document store cannot be
// reached; retry later"); the details go to Options.Logger, with the key
// "err". [Status] gives the status of a filesystem error.
//
// # Request contexts
//
// The handler binds the request's context to the filesystem that resolve
// returns, and each call of the webdav.FileSystem of [NewFileSystem]
// binds the context it is given, through one interface that any fs.FS may
// implement, fscap.BindContextFS:
//
//	BindContext(ctx context.Context) fs.FS
//
// The adapter serves the request from the view that BindContext returns,
// so a client that goes away, or the request's deadline, cancels the
// reads the request started. *chromafs.FS implements it: its view reads
// with ctx, unless resolve bound a context already (FS.WithContext, for
// example with a deadline of its own), which then stands. A filesystem
// without the method is served as it is. Package httpfs applies the same
// policy.
package webdavfs
