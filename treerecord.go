package chromafs

// Metadata keys of the records a writer stores besides the chunks.
const (
	// SystemKey is the record metadata key, set to true, that marks a
	// record that is not content: the tree record and the shards of a
	// sharded tree. Such records are written with Record.System (a zero
	// embedding), so they never rank in a semantic search. Every writer and
	// checker of the format uses this key.
	SystemKey = "_system"

	// TreeShardKey is the metadata key of a tree shard record (see
	// ShardTree): the shard's 0-based position in the tree document.
	TreeShardKey = "chromafs_tree_shard"
)
