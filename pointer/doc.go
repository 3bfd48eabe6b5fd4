// Package pointer fetches lazy file pointers: tree entries whose URL field
// points at content stored outside the collection (a large OpenAPI spec in
// an object store, for example). The filesystem (package chromafs) lists
// them like any page and fetches them through a Resolver only when read
// (chromafs.WithResolver).
//
// HTTPResolver fetches http and https URLs; its zero value, with the
// default Policy (public addresses only), client and limits, is the
// resolver of a filesystem made without WithResolver. Other schemes
// (s3://, gs://, …) take a Resolver of the user's (ResolverFunc adapts a
// function); a RangeResolver also fetches parts of large pointers.
//
// Whoever writes the tree chooses the URLs, so HTTPResolver fetches them
// under a Policy (NewPolicy): by default only public addresses, checked
// on the address actually dialed (loopback, private, link-local, CGNAT
// and other internal addresses are refused unless an allow entry names
// them), redirects only to allowed targets, and a deadline on every fetch
// (HTTPResolver.Timeout). A refused pointer fails with an error wrapping
// ErrBlocked (a *BlockedError) that names the reason. URLs in errors have
// their userinfo and query redacted (RedactURL).
//
// Check verifies fetched content against the size and hash its tree entry
// declares, as the filesystem does on every read; a mismatch, like a
// target that is missing or answers with an error status, wraps
// ErrBroken. A pointer that no resolver handles wraps ErrLazy. Package
// chromafs exports the last two as ErrBrokenPointer and ErrLazyPointer
// (the same values), since reads of the filesystem return them.
package pointer

import "github.com/chromafs/chromafs/fscap"

// ErrLazy is wrapped by errors from reading a lazy file pointer that no
// resolver fetches: the filesystem has none (chromafs.WithResolver(nil)),
// the resolver does not handle the pointer's scheme, or (with ErrBlocked)
// the policy refused it. pointer.ErrLazy is the same value. It
// matches fscap.ErrContent.
var ErrLazy = fscap.NewContentError("page content is stored outside the collection")
