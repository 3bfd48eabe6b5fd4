// Package pageload is the page-loading engine of the root package's
// filesystem: how one session reads the content of its pages. A [Loader]
// holds a session's part (the store, layout, separator, page cache,
// resolver and the sizes it learned); [Flights] holds what the sessions of
// one root Shared share (page fetches in flight, preloads in progress);
// a [Gate] tells background work (Preload) when the session's own
// requests wait for the store.
//
// What the loader does:
//
//   - [Loader.Load] reads one page from the page cache, or else from the
//     store (by chunk id when the collection declares
//     collection.ChunkIDScheme, by slug otherwise) or through the
//     pointer.Resolver for a lazy pointer; concurrent loads of one page,
//     in any session of one Flights, cost one fetch;
//   - [Loader.PrefetchEach] and [Loader.Preload] read many pages in bulk,
//     assembling each page as soon as its chunks are in;
//   - [Loader.Uncached] tells which pages a read would cost a request;
//   - [Loader.Cached] and [Loader.ResolveRange] serve ranged reads of lazy
//     pointers;
//   - [Loader.KnownSize], [Loader.Size] and [Loader.LocalSize] give a
//     page's size with as little reading as possible.
//
// Every page's content is made from its chunks by one function,
// Loader.assemble, which checks it against the tree entry (size, chunk
// count, indexes, hash): single reads and bulk reads alike call it.
//
// The root package supplies what depends on a view: which names are
// visible (a [Lookup]), the view and prefix a preload covers, and the
// fs.PathError of each operation. This package does not import the root.
package pageload
