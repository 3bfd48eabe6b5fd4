// Package cachepkg defines the page cache that chromafs reads through, an
// in-memory, byte-bounded implementation of it, and a tiered cache that
// puts a local cache in front of a shared one. The Redis cache is in the
// subpackage rediscache, so that only programs that use it link go-redis.
//
// # Keys and values
//
// Keys are opaque strings built by chromafs; they carry the collection id
// and the page's content version, so an entry is never stale: a changed
// page gets a new key. Values are page contents. A cache never modifies a
// value it was given and callers never modify a value they got back: the
// same slice may be shared by every reader.
//
// # Errors
//
// A cache is an optimisation. Callers treat an error from a cache like a
// miss (for reads) or ignore it (for writes), so implementations backed by
// a network service report failures instead of hiding them, and chromafs
// decides what to do with them.
package cachepkg
