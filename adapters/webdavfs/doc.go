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
//     extensionless files as UTF-8 text), Last-Modified, Range and
//     If-None-Match. A GET loads the whole page before answering, so that
//     a failed read is an error status, never a 200 whose body stops
//     short. GET and HEAD on a directory are 405 (Allow: OPTIONS, PROPFIND).
//   - PROPFIND is answered by the handler itself, not by webdav.Handler,
//     with a multistatus written from precomputed fragments (about a
//     tenth of webdav.Handler's time on a listing of 1,000 pages; see
//     BenchmarkPropfindDepth1). The answers are webdav.Handler's: allprop
//     (or an empty body), propname, and prop with named properties, whose
//     unknown ones (and creationdate, getcontentlanguage and
//     lockdiscovery, which webdav.Handler hides) are in a 404 propstat;
//     DAV:include is ignored, as webdav.Handler ignores it; an invalid body
//     is 400. The live properties are resourcetype (DAV:collection for
//     directories), displayname (empty for the root), getlastmodified (in
//     http.TimeFormat) and supportedlock for every resource, and
//     getcontentlength, getcontenttype and getetag for files, the last two
//     those of package attr, taken from metadata: a listing never opens or
//     sniffs content, and on a chromafs collection whose tree records
//     sizes (chromafs ingest writes them) it sends no content request at
//     all. DAV:supportedlock is empty: no lock type is supported. Hrefs
//     carry Options.Prefix, are URL-escaped as webdav.Handler escapes them
//     and end with "/" for collections; entries whose names are not valid
//     io/fs names (invalid UTF-8) are left out. A missing or hidden target
//     is 404. The answer is built in memory and sent only when complete,
//     with a Content-Length: a store failure half-way gives a 5xx, not a
//     multistatus that leaves entries out. Depth: infinity — and no Depth
//     header, which RFC 4918 treats as infinity — is refused with 403 and
//     the body [FiniteDepthBody] (the DAV:propfind-finite-depth
//     precondition of RFC 4918, section 9.1) unless
//     Options.AllowInfiniteDepth is set, when the whole subtree is walked.
//     Other Depth values are 400.
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
// # Errors
//
// NewFileSystem's writes (OpenFile with any write flag, Mkdir, RemoveAll,
// Rename, File.Write) return errors wrapping chromafs.ErrReadOnly, which
// matches fs.ErrPermission and syscall.EROFS. Missing, hidden and invalid
// names give errors for which os.IsNotExist is true.
//
// The handler maps errors with [Status]: 404 for missing or hidden paths,
// 502 when the store behind the filesystem fails (Chroma unreachable),
// 504 on a deadline, 500 for a corrupt page and for a resolve error.
// Clients get a generic body; the details go to Options.Logger.
//
// # Contexts
//
// When the filesystem is a *chromafs.FS, the handler binds the request's
// context to it (FS.WithContext), as does each call of the
// webdav.FileSystem, so a client that goes away cancels the reads it
// started.
package webdavfs
