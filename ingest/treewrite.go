package ingest

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// TreeRecords are the records that store one path tree in a collection,
// as chromafs ingest writes them. [BuildTree] makes them; [Run] and the
// benchmark data generator (internal/gen) both write their trees through
// BuildTree and [TreeRecords.Write], so there is one writer of the format.
type TreeRecords struct {
	// Doc is the tree document: tree.Encode of the entries, plain JSON or
	// gzip-compressed and base64-encoded.
	Doc []byte

	// Shards are the shard records of a tree document larger than the
	// limit given to BuildTree (see collection.ShardTree), nil when the
	// document fits in the tree record. They are written before Record.
	Shards []collection.Record

	// Record is the tree record (id Layout.TreeID), System set. Its
	// document is Doc, or the manifest naming Shards. Its metadata is
	// TreeMetadata().
	Record collection.Record
}

// TreeMetadata returns the metadata of a tree record written by ingest:
// collection.SystemKey (MetaSystem) true, MetaWriter WriterName,
// MetaLineAligned true (every chunk is cut by [Chunk]), MetaDirty false,
// and collection.ChunkIDsKey collection.ChunkIDScheme (chunk ids are
// [ChunkID]). Each call returns a new map.
func TreeMetadata() map[string]any {
	return map[string]any{
		MetaSystem:             true,
		MetaWriter:             WriterName,
		MetaLineAligned:        true,
		MetaDirty:              false,
		collection.ChunkIDsKey: collection.ChunkIDScheme,
	}
}

// BuildTree encodes entries as a tree document (gzip-compressed and
// base64-encoded when compressed is set) and returns the records that
// store it under treeID: the tree record with TreeMetadata, and, when
// maxBytes is positive and the document is larger, the shards that the
// tree record's manifest names. maxBytes must be 0 (no limit) or at least
// collection.MinShardBytes. The result depends on its arguments only.
func BuildTree(treeID string, entries []tree.Entry, compressed bool, maxBytes int) (*TreeRecords, error) {
	doc, err := tree.Encode(entries, compressed)
	if err != nil {
		return nil, fmt.Errorf("encode tree: %w", err)
	}
	manifest, shards, err := collection.ShardTree(treeID, doc, maxBytes)
	if err != nil {
		return nil, err
	}
	return &TreeRecords{
		Doc:    doc,
		Shards: shards,
		Record: collection.Record{
			ID:       treeID,
			Document: string(manifest),
			System:   true,
			Metadata: TreeMetadata(),
		},
	}, nil
}

// Version returns the tree's version, collection.TreeVersionOf(Doc): the
// value Write records under collection.TreeVersionKey.
func (t *TreeRecords) Version() string { return collection.TreeVersionOf(t.Doc) }

// Write writes the tree into dst in the order readers rely on:
//
//  1. when dst has collection metadata (a SetMetadata method, as
//     chromastore.Collection and memstore.Store have), it clears
//     collection.TreeVersionKey, so that no reader takes the previous
//     tree's version marker for the new tree;
//  2. the shards, batchSize records per Upsert (all at once when
//     batchSize <= 0); their ids carry the document's digest, so the
//     previous tree's shards stay intact;
//  3. the tree record, which from then on names the new tree;
//  4. TreeVersionKey set to Version().
//
// Write deletes nothing: the caller deletes the previous tree's shards
// that Shards does not reuse, after Write. written reports whether the
// tree record was written (step 3), so whether the collection names the
// new tree; an error says which step failed. An error after step 3 leaves
// a correct collection whose readers fetch the tree record until the
// marker is set again.
func (t *TreeRecords) Write(ctx context.Context, dst collection.Writer, batchSize int) (written bool, err error) {
	ms, marks := dst.(metadataSetter)
	if marks {
		if err := ms.SetMetadata(ctx, map[string]any{collection.TreeVersionKey: ""}); err != nil {
			return false, fmt.Errorf("clear the collection's tree version: %w", err)
		}
	}
	if batchSize <= 0 {
		batchSize = max(len(t.Shards), 1)
	}
	for b := range slices.Chunk(t.Shards, batchSize) {
		if err := dst.Upsert(ctx, b); err != nil {
			return false, fmt.Errorf("write tree shards: %w", err)
		}
	}
	if err := dst.Upsert(ctx, []collection.Record{t.Record}); err != nil {
		return false, fmt.Errorf("write tree record %s: %w", strconv.Quote(t.Record.ID), err)
	}
	if marks {
		if err := ms.SetMetadata(ctx, map[string]any{collection.TreeVersionKey: t.Version()}); err != nil {
			return true, fmt.Errorf("the tree was written, but recording its version in the collection's metadata failed (readers fetch the tree record meanwhile): %w", err)
		}
	}
	return true, nil
}
