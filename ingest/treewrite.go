package ingest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
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

	// IndexDoc is the document of the compact tree index (package
	// treeindex) of the same entries, stamped with Version() and
	// carrying the tree record's metadata. Readers that know it
	// (chromafs.New) read it instead of Doc when the collection's tree
	// version marker names its stamp; every other reader keeps reading
	// Doc.
	IndexDoc []byte

	// IndexShards are the shard records of IndexDoc under the same
	// limit, nil when it fits in IndexRecord. They are written before
	// IndexRecord.
	IndexShards []collection.Record

	// IndexRecord is the index record (id treeindex.RecordID(treeID)),
	// System set, with metadata collection.SystemKey true and
	// treeindex.StampKey Version(). Its document is IndexDoc, or the
	// manifest naming IndexShards.
	IndexRecord collection.Record
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
// tree record's manifest names; and the same for the compact index of the
// tree (IndexDoc). maxBytes must be 0 (no limit) or at least
// collection.MinShardBytes. The result depends on its arguments only.
func BuildTree(treeID string, entries []tree.Entry, compressed bool, maxBytes int) (*TreeRecords, error) {
	return BuildTreeWith(treeID, entries, compressed, maxBytes, TreeMetadata())
}

// BuildTreeWith is BuildTree with the tree record's metadata given (the
// compact index carries it too, and its record names meta's MetaWriter):
// chromafs adopt writes a tree whose chunks are not in ingest's layout,
// and says so in its metadata.
func BuildTreeWith(treeID string, entries []tree.Entry, compressed bool, maxBytes int, meta map[string]any) (*TreeRecords, error) {
	doc, err := tree.Encode(entries, compressed)
	if err != nil {
		return nil, fmt.Errorf("encode tree: %w", err)
	}
	manifest, shards, err := collection.ShardTree(treeID, doc, maxBytes)
	if err != nil {
		return nil, err
	}
	// The index holds the entries as tree.Parse reads them from doc:
	// isPublic always there, no groups nil.
	read := slices.Clone(entries)
	for i := range read {
		read[i].HasIsPublic = true
		if len(read[i].Groups) == 0 {
			read[i].Groups = nil
		}
	}
	version := collection.TreeVersionOf(doc)
	payload, err := treeindex.Encode(read, version, meta)
	if err != nil {
		return nil, fmt.Errorf("encode tree index: %w", err)
	}
	indexDoc := treeindex.EncodeDocument(payload)
	indexID := treeindex.RecordID(treeID)
	indexManifest, indexShards, err := collection.ShardTree(indexID, indexDoc, maxBytes)
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
			Metadata: maps.Clone(meta),
		},
		IndexDoc:    indexDoc,
		IndexShards: indexShards,
		IndexRecord: collection.Record{
			ID:       indexID,
			Document: string(indexManifest),
			System:   true,
			Metadata: map[string]any{MetaSystem: true, MetaWriter: meta[MetaWriter], treeindex.StampKey: version},
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
//  2. the shards of the tree and of its index, batchSize records per
//     Upsert (all at once when batchSize <= 0); their ids carry the
//     documents' digests, so the previous tree's shards stay intact;
//  3. the index record (which readers use only once the marker names
//     its stamp);
//  4. the tree record, which from then on names the new tree;
//  5. TreeVersionKey set to Version().
//
// Write deletes nothing: the caller deletes the previous tree's (and
// index's) shards that Shards and IndexShards do not reuse, after Write.
// written reports whether the
// tree record was written (step 4), so whether the collection names the
// new tree; an error says which step failed. An error after step 4 leaves
// a correct collection whose readers fetch the tree record until the
// marker is set again.
func (t *TreeRecords) Write(ctx context.Context, dst collection.Writer, batchSize int) (written bool, err error) {
	ms, marks := dst.(metadataSetter)
	if marks {
		if err := ms.SetMetadata(ctx, map[string]any{collection.TreeVersionKey: ""}); err != nil {
			return false, fmt.Errorf("clear the collection's tree version: %w", err)
		}
	}
	all := slices.Concat(t.Shards, t.IndexShards)
	if batchSize <= 0 {
		batchSize = max(len(all), 1)
	}
	for b := range slices.Chunk(all, batchSize) {
		if err := dst.Upsert(ctx, b); err != nil {
			return false, fmt.Errorf("write tree shards: %w", err)
		}
	}
	if t.IndexRecord.ID != "" {
		if err := dst.Upsert(ctx, []collection.Record{t.IndexRecord}); err != nil {
			return false, fmt.Errorf("write tree index record %s: %w", strconv.Quote(t.IndexRecord.ID), err)
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

// StaleShards returns the ids of the shards of a previous tree and of
// its index (their manifests; either may be nil) that t does not reuse:
// a writer deletes them once Write has written t.
func (t *TreeRecords) StaleShards(oldTree, oldIndex *collection.Manifest) []string {
	keep := make(map[string]bool, len(t.Shards)+len(t.IndexShards))
	for _, s := range slices.Concat(t.Shards, t.IndexShards) {
		keep[s.ID] = true
	}
	var stale []string
	for _, m := range []*collection.Manifest{oldTree, oldIndex} {
		if m == nil {
			continue
		}
		for _, id := range m.ShardIDs() {
			if !keep[id] {
				stale = append(stale, id)
			}
		}
	}
	return stale
}

// IndexManifest returns the manifest of the sharded compact index of the
// tree record treeID in store, or nil when there is none (or it cannot
// be read: its shards are then left to ingest's --prune).
func IndexManifest(ctx context.Context, store collection.Store, treeID string) *collection.Manifest {
	rec, err := store.Tree(ctx, treeindex.RecordID(treeID))
	if err != nil {
		return nil
	}
	m, _, _ := collection.ParseManifest(rec.Document)
	return m
}
