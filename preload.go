package chromafs

import "context"

// Preload loads the content of every page visible to fsys (below its
// root, for a Sub view) into the page cache, so that reads and searches
// afterwards send no request to the store: grepx.Search then reads every
// page from memory and asks no coarse query. It is meant to run in the
// background when a session starts, with the session's context (go
// fsys.Preload(ctx)); it returns when the pages are loaded, nothing is to
// be loaded, or ctx ends.
//
// It loads nothing when the visible pages' content, by the sizes the tree
// records, is more than the budget of WithPreload (64 MiB by default);
// pages whose size the tree does not record are loaded until the bytes
// loaded reach the budget. Lazy pointers (pages stored outside the
// collection) are not loaded. Pages that the cache holds, in memory or in
// a shared tier such as Redis, are not read from the store again; the
// others are read in bulk, up to 64 pages a request and one request at a
// time, and each request waits until no read, search or prefetch of this
// session (an FS and its views) is waiting for the store, so that the
// session's own requests queue behind at most one short request of the
// preload. Concurrent calls
// for one view, cache and tree version share one load.
//
// Preload never changes what reads return: a page it failed to load is
// read as usual. Its failures are logged once per call (see WithLogger),
// and the first is returned; when ctx ends first, ctx's error is returned
// and nothing is logged.
func (fsys *FS) Preload(ctx context.Context) error {
	return fsys.s.pages.Preload(ctx, fsys.s.view, fsys.prefix)
}
