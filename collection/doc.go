// Package collection is the data contract of a chromafs collection: what
// a store must offer (Store and its optional capabilities IDReader,
// PartReader, RecordReader, Scanner, Searcher, VectorQuerier, Limiter,
// TreeVersioner, and Writer for writers), the records it holds (Chunk, Record, TreeRecord), their
// layout (Layout, the metadata keys), and the format's functions that
// need no filesystem: chunk ids (ChunkID), sharded trees (ShardTree,
// ReadTree, ParseManifest) and page reassembly (Assemble).
//
// A collection holds one record per chunk of a page, whose metadata names
// the page (Layout.SlugField) and the chunk's position (Layout.IndexField),
// and one tree record (Layout.TreeID) whose document is the path tree
// (package tree). Package chromafs serves it as a filesystem; package
// chromastore implements Store over a Chroma server, package memstore in
// memory; package ingest writes collections and package validate checks
// them. Package collection/storetest checks a store against the contracts
// of this package, as testing/fstest checks an fs.FS.
//
// # Sharded trees
//
// A store may limit a document's size (Chroma Cloud: 16 KiB), and a tree
// of a few hundred pages is larger. ShardTree cuts such a tree into shard
// records plus a manifest in the tree record; ReadTree joins the shards
// back and checks them against the manifest's size and sha256 (ErrShard
// otherwise). The joined document has the version it would have in one
// record, so the layouts are interchangeable.
package collection
