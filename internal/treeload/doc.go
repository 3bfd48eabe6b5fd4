// Package treeload is the tree-loading engine of the root package's
// filesystem: how the root's New gets a collection's path tree. A [Cache]
// holds what the sessions of one root Shared share of trees (parsed
// trees within a memory bound, the last fetch and failure of each
// collection, fetches in flight); [Cache.Current] returns the tree a new
// session is to use, with the [State] of its record, for [Options] that
// carry the root's tree options (WithTreeMaxAge, WithStaleTree,
// WithTreeLimits) and its page cache and logger.
//
// Current reuses a tree fetched earlier when its age or the collection's
// tree version marker allows it, else reads the compact tree index
// (package treeindex) when the marker names its stamp, from a shared tier
// of the page cache ([SharedCache]) or the collection, else the JSON tree
// record, parsed only when this version was not parsed before. A tree
// that fails to parse is remembered and not fetched again before its
// retry time; an unreachable store gives the tree fetched last, within
// Options.MaxStale. Comments that say New mean the root's New, for which
// Current works; the root documents the behaviour users see.
//
// This package does not import the root.
package treeload
