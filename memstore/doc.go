// Package memstore is an in-memory collection that implements
// [collection.Store], [collection.Writer], [collection.IDReader],
// [collection.RecordReader], [collection.Scanner], [collection.Searcher]
// and [collection.TreeVersioner], for fast unit tests and runnable
// examples. Its tests run package collection/storetest's conformance
// suite, as chromastore's do.
//
// A [Store] behaves like a Chroma collection in the ways the filesystem
// can observe: records keep their insertion order, an upsert replaces a
// record in place but merges its metadata into the old one (as Chroma
// 1.0 does: keys it leaves out are kept, a nil value removes a key), a
// delete ignores unknown ids, and a chunk query never returns records of
// pages that were not asked for.
//
// # Building collections
//
// [Load] writes a map of files into a store the way other writers do
// (arbitrary chunk boundaries, shuffled insertion order, a compressed or
// plain tree, with or without sizes and hashes), so that tests can check
// that the filesystem copes with collections it did not write.
//
// # Observing and breaking a store
//
// [Store.Requests] counts calls per method, so a test can prove, for
// example, that listing a directory sends no content request.
// [Store.SetFailure] and [Store.SetHook] make calls fail or block, for
// fault and cancellation tests.
//
// # Metadata
//
// A record belongs to a page when its slug field (named by the layout)
// holds a string. Its index field counts when it holds a non-negative
// value of a Go integer type; any other value, floats included, gives
// [collection.NoIndex]. An empty field of a layout is read as the field of
// [collection.DefaultLayout()].
package memstore
