// Package treeindex writes and reads the compact tree index: a binary form
// of a chromafs path tree (package tree) that a reader decodes faster
// than it parses the JSON tree document (BENCHMARKS.md, "Compact tree
// index and shared parsed trees"), and that is a fraction of its size
// without its hashes.
//
// chromafs ingest writes the index beside the JSON tree record (which
// stays, unchanged, for every other reader) as the record [RecordID] of
// the tree id, sharded like the tree under a document size limit
// (collection.ShardTree). The index is stamped with the version of the
// JSON tree it was made from (collection.TreeVersionOf): a reader uses it
// only when the stamp is the version the collection's tree version marker
// (collection.TreeVersionKey) names, and otherwise reads the JSON tree.
// The filesystem (package chromafs) does so, and keeps the index in a
// shared cache (a Redis, say) so that other processes skip the fetch.
//
// # Format
//
// The record's document is a first line, "chromafs-tree-index/2
// crc32c=" and the CRC-32C of the rest of the document in 8 lowercase hex
// digits, followed by the standard base64 encoding of the payload
// (documents of earlier versions start with the line [DocumentHeader] and
// carry no checksum of their own). [ReadDocument] checks that checksum
// and decodes the payload's header from the text, and a block's part of
// the text when a tree first needs the block. The payload is
//
//	"CFTI" 0x02             magic and format version (version 1 has no
//	                        rule counts, first paths or directory table)
//	codec                   one byte: 0 stored, 1 zstd (see Codec)
//	uvarint n, header       n bytes, never compressed
//	blocks                  the compressed blocks, back to back
//	checksum                CRC-32C of all the above, 4 bytes little endian
//
// The header holds, in order (a string is a uvarint length and its bytes):
//
//	stamp                   string: the JSON tree's version
//	metadata                string: the tree record's metadata, JSON
//	groups                  uvarint count, strings: every group name
//	content types           uvarint count, strings
//	rules                   uvarint count, each a flags byte (1 isPublic,
//	                        2 hasIsPublic, 4 groups present), a uvarint
//	                        count of uvarint group numbers, and the uvarint
//	                        number of entries with the rule
//	entries                 uvarint: the number of entries
//	blocks                  uvarint count, each the uvarint number of its
//	                        entries, raw size and compressed size, and the
//	                        string of its first entry's path
//	root rules              the rules below the root (see below)
//	directory table         uvarint number of directories (the root
//	                        aside), uvarint number of blocks, each block's
//	                        uvarint number of directories, the string of
//	                        its first directory's path and its uvarint
//	                        length in bytes; then the blocks, back to back
//
// The directory table (tree.Summarize) lists the directories in path
// order, in blocks of up to 64. A directory is its path front-coded
// against the one before in the block (uvarint shared length, string of
// the rest), the uvarint position of its first entry, the uvarint number
// of entries below it, the uvarint number of directories below it, and
// the rules below it: a uvarint count, then each rule's uvarint gap from
// the one before minus one, a time kind byte (0 none, 1 seconds, 2
// seconds and nanoseconds) and that newest time of its entries with the
// rule (a zigzag varint of Unix seconds, a uvarint of nanoseconds).
//
// A block holds up to [BlockEntries] consecutive entries in path order
// (Encode writes 256), in
// three sections: the paths, front-coded from the block's first (uvarint
// length of the prefix shared with the previous path, uvarint length of
// the rest, its bytes); then per entry a uvarint of flags (1 modTime,
// 2 modTime nanoseconds, 4 sha256 hash, 8 other hash, 16 url, 32
// splitLines, 64 parts), the uvarint rule number, the uvarint size plus one, the
// zigzag varint Unix seconds and uvarint nanoseconds of modTime when
// flagged, the uvarint chunks, the uvarint content type number plus one
// (0 for none), the other hash, url and parts strings when flagged (a
// reader that predates the parts flag finds the index corrupt and reads
// the JSON tree, whose parser skips the field); then the 32
// raw bytes of each sha256 hash ("sha256:" and 64 lowercase hex digits in
// the tree). Blocks decode on their own: Decode inflates them in order
// and decodes them on GOMAXPROCS goroutines; [Header.Lazy] makes a tree
// (tree.NewLazy) that decodes a block when an operation first needs it,
// from the block directory and the directory table, decoding a block of
// the table when it first needs one of its directories.
//
// # Limits
//
// [Decode] keeps the limits of tree.Parse (tree.Limits): before it
// inflates a block it checks that the raw bytes of the blocks so far stay
// within tree.BaseBytes plus Limits.BytesPerEntry for each entry decoded
// before it, and within Limits.MaxBytes, so that a small hostile index
// that claims to inflate to gigabytes fails after about a megabyte, with
// an error wrapping tree.ErrTooLarge. Every count and length is checked
// against the bytes that remain before anything is allocated for it; a
// malformed index is an error wrapping [ErrCorrupt] (and
// tree.ErrMalformed). The decoded entries get tree.New's validation
// without its sort (tree.NewSorted: each slug checked from where it
// starts to differ from the one before, and strictly after it in path
// order, with no clash), and an index whose entries are not all valid
// and in path order is corrupt: ingest never writes one.
package treeindex
