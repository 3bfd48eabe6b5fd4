package chromastore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromafs/chromafs/collection"
)

// EmbeddingKey is the collection metadata key under which chromastore
// records the name of the embedding function ([Embedder.Name]) that
// embedded the collection's records: Open records it when it creates a
// collection, and [Collection.RecordEmbedding] when a writer switches
// functions. The configuration's embedding_function, which Chroma's
// clients read, cannot name the consistent-hash function (Chroma's
// Python client refuses to open a collection whose configuration names a
// function it does not know), so the metadata is what tells a
// consistent-hash collection from one whose writer recorded nothing.
const EmbeddingKey = "chromafs_embedding"

// HashName is the [Embedder.Name] of the consistent-hash function
// ([HashEmbedding]).
const HashName = hashName

// WrittenWith returns the name of the embedding function that the
// collection's records were embedded with, as of Open: the function that
// its configuration records (as Chroma's clients record theirs), else
// the one its [EmbeddingKey] metadata names, else, for a collection that
// chromafs ingest wrote before it recorded either (it has a
// collection.TreeVersionKey and no configured function) with
// 384-dimensional vectors, [HashName]. It returns "" when none of these
// tells, as for a collection of another writer that recorded nothing.
func (c *Collection) WrittenWith() string {
	c.mu.Lock()
	if n := c.embedding.Name; n != "" {
		c.mu.Unlock()
		return n
	}
	name, _ := c.meta[EmbeddingKey].(string)
	_, chromafsTree := c.meta[collection.TreeVersionKey]
	c.mu.Unlock()
	if name != "" {
		return name
	}
	if chromafsTree && c.dim.Load() == hashDim {
		return hashName
	}
	return ""
}

// RecordEmbedding records ef as the function that embedded the
// collection's records, after a writer re-embedded every record with it:
// in the configuration's embedding_function, as Chroma's clients record
// it, so that they and chromafs search embed queries with it (the
// consistent-hash function, which Chroma's clients cannot load, is
// recorded there as "legacy", Chroma's word for none), and under
// [EmbeddingKey] in the metadata. It makes three requests (the metadata
// is read before it is written; see SetMetadata). It does not change the
// function that the collection's Upsert embeds with: that is
// Config.Embedding.
func (c *Collection) RecordEmbedding(ctx context.Context, ef Embedder) error {
	if c.closed.Load() {
		return ErrClosed
	}
	op := "record the embedding function of collection " + c.where
	fn := map[string]any{"type": "legacy"}
	if ef.Name() != hashName {
		fn = map[string]any{"type": "known", "name": ef.Name(), "config": ef.GetConfig()}
	}
	body, err := json.Marshal(map[string]any{"new_configuration": map[string]any{"embedding_function": fn}})
	if err != nil {
		return fmt.Errorf("chromastore: %s: %w", op, err)
	}
	if err := c.rest.do(ctx, "PUT", c.path, body, nil); err != nil {
		return c.fail(op, err)
	}
	if err := c.SetMetadata(ctx, map[string]any{EmbeddingKey: ef.Name()}); err != nil {
		return err
	}
	c.mu.Lock()
	c.embedding.Name, c.embedding.Config = "", nil
	if ef.Name() != hashName {
		c.embedding.Name, c.embedding.Config = ef.Name(), ef.GetConfig()
	}
	c.mu.Unlock()
	return nil
}
