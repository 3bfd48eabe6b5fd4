package collection

// Metadata keys of the records a writer stores besides the chunks.
const (
	// SystemKey is the record metadata key, set to true, that marks a
	// record that is not content: the tree record and the shards of a
	// sharded tree. Such records are written with Record.System (a zero
	// embedding), so they never rank in a semantic search. Every writer and
	// checker of the format uses this key.
	SystemKey = "_system"

	// ShardKey is the metadata key of a tree shard record (see
	// ShardTree): the shard's 0-based position in the tree document.
	ShardKey = "chromafs_tree_shard"
)

// TreeModTimeKey is the tree record metadata key under which a writer may
// record when it wrote the tree: an RFC 3339 string or a number of Unix
// seconds. The filesystem gives this time to a directory none of whose
// visible pages has a modTime (see "Directory times" in package chromafs).
const TreeModTimeKey = "chromafs_tree_mod_time"

// LineKey is the chunk metadata key under which a writer may record the
// 1-based number of the page line on which the chunk's first byte lies (a
// chunk that starts inside a line, after a cut of a long line, records
// that line). chromafs ingest writes it. Semantic search places a hit in
// its page with it without reading the page; a chunk without it (an older
// or foreign writer's) is placed by reassembling the page, with the same
// result.
const LineKey = "chromafs_line"
