package chromastore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/chromafs/chromafs/collection"
)

var _ collection.VectorQuerier = (*Collection)(nil)

// EmbeddingSpec is what a collection's configuration says about its
// embeddings: the embedding function that its writer recorded (as Chroma's
// clients record it) and the distance space of its index.
type EmbeddingSpec struct {
	// Name is the embedding function's name in chroma-go's registry (and
	// Chroma's other clients), such as "openai" or "default"; "" when the
	// configuration records none (as for chroma-go's consistent-hash
	// function, which chromastore does not record).
	Name string
	// Config is the function's recorded configuration (model name, the
	// name of the environment variable holding the API key...), never a
	// secret.
	Config map[string]any
	// Space is the index's distance space: "l2" (Chroma's default),
	// "cosine" or "ip".
	Space string
}

// collectionConfig is the part of a collection's configuration_json that
// EmbeddingSpec reads.
type collectionConfig struct {
	HNSW  *struct{ Space string } `json:"hnsw"`
	SPANN *struct{ Space string } `json:"spann"`
	EF    *struct {
		Type   string         `json:"type"`
		Name   string         `json:"name"`
		Config map[string]any `json:"config"`
	} `json:"embedding_function"`
}

// embeddingSpec reads a configuration_json; what it cannot read is left
// at its default.
func embeddingSpec(raw jsontext.Value) EmbeddingSpec {
	spec := EmbeddingSpec{Space: "l2"}
	if len(raw) == 0 {
		return spec
	}
	var cfg collectionConfig
	if err := jsonv2.Unmarshal(raw, &cfg, jsonv2.MatchCaseInsensitiveNames(true)); err != nil {
		return spec
	}
	switch {
	case cfg.HNSW != nil && cfg.HNSW.Space != "":
		spec.Space = cfg.HNSW.Space
	case cfg.SPANN != nil && cfg.SPANN.Space != "":
		spec.Space = cfg.SPANN.Space
	}
	if cfg.EF != nil && cfg.EF.Type == "known" {
		spec.Name, spec.Config = cfg.EF.Name, cfg.EF.Config
	}
	return spec
}

// Embedding returns what the collection's configuration, as of Open or
// the last RecordEmbedding, says about its embedding function and
// distance space.
func (c *Collection) Embedding() EmbeddingSpec {
	c.mu.Lock()
	spec := c.embedding
	c.mu.Unlock()
	if spec.Space == "" {
		spec.Space = "l2"
	}
	return spec
}

// Dimension returns the collection's embedding dimension as of Open, or 0
// when the collection had no embedding then.
func (c *Collection) Dimension() int { return int(c.dim.Load()) }

// queryRequest is the body of POST .../query.
type queryRequest struct {
	Embeddings [][]float32    `json:"query_embeddings"`
	N          int            `json:"n_results"`
	IDs        []string       `json:"ids,omitempty"`
	Where      map[string]any `json:"where,omitempty"`
	Include    []string       `json:"include"`
}

// queryResult is the answer to a query of one vector.
type queryResult struct {
	IDs       [][]string   `json:"ids"`
	Documents [][]*string  `json:"documents"`
	Metadatas [][]metadata `json:"metadatas"`
	Distances [][]*float64 `json:"distances"`
}

// QueryVector implements collection.VectorQuerier with Chroma's query: one
// request per $in batch of an including scope (at most SearchMaxIn slugs,
// MaxIn under CloudLimits; up to four at a time, their answers merged by
// distance, which gives the k nearest of the whole scope), or one request
// with a $nin list for an excluding scope. Every request also asks for a
// non-negative index field, which no tree record or shard has. A vector
// of a dimension other than the collection's (as of Open) is refused
// before anything is sent; Chroma's own refusal is reported the same way.
func (c *Collection) QueryVector(ctx context.Context, layout collection.Layout, scope collection.Scope, vector []float32, k int) ([]collection.ScoredChunk, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	layout = layout.WithDefaults()
	if k <= 0 {
		return nil, nil
	}
	if d := c.dim.Load(); d > 0 && int64(len(vector)) != d {
		return nil, fmt.Errorf("chromastore: query %s: %w: the query's embedding has %d dimensions, the collection's %d (embed the query with the function that wrote the collection)", c.where, collection.ErrDimension, len(vector), d)
	}
	if len(scope.IDs) > 0 {
		return c.queryIDs(ctx, scope.IDs, vector, k)
	}
	slugs, listed := unique(scope.Slugs)
	var parts [][]string
	switch {
	case !scope.Exclude && len(slugs) == 0:
		return nil, nil
	case !scope.Exclude:
		parts = batches(slugs, c.searchMaxIn())
	case len(slugs) > c.searchMaxIn():
		return nil, fmt.Errorf("chromastore: query all pages but %d of %s: more than %d pages to leave out", len(slugs), c.where, c.searchMaxIn())
	default:
		parts = [][]string{slugs}
	}
	op := fmt.Sprintf("query %s", c.where)
	inScope := func(slug string) bool { return listed[slug] != scope.Exclude }
	hasIndex := map[string]any{layout.IndexField: map[string]any{"$gte": 0}}
	found := make([][]collection.ScoredChunk, len(parts))
	err := parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		req := queryRequest{
			Embeddings: [][]float32{vector},
			N:          k,
			Where:      hasIndex,
			Include:    []string{includeDocuments, includeMetadatas, "distances"},
		}
		switch {
		case !scope.Exclude:
			req.Where = map[string]any{"$and": []any{map[string]any{layout.SlugField: map[string]any{"$in": parts[i]}}, hasIndex}}
		case len(parts[i]) > 0:
			req.Where = map[string]any{"$and": []any{map[string]any{layout.SlugField: map[string]any{"$nin": parts[i]}}, hasIndex}}
		}
		res, err := c.query(ctx, &req)
		if err != nil || len(res.IDs) == 0 {
			return err
		}
		ids := res.IDs[0]
		var docs []*string
		var metas []metadata
		var dists []*float64
		if len(res.Documents) > 0 {
			docs = res.Documents[0]
		}
		if len(res.Metadatas) > 0 {
			metas = res.Metadatas[0]
		}
		if len(res.Distances) > 0 {
			dists = res.Distances[0]
		}
		if err := checkLengths(len(ids), len(docs), len(metas)); err != nil {
			return err
		}
		if len(dists) != len(ids) {
			return fmt.Errorf("malformed answer: %d ids, %d distances", len(ids), len(dists))
		}
		g := getResult{IDs: ids, Documents: docs, Metadatas: metas}
		for j := range ids {
			ch, ok := g.chunk(layout, j)
			// Never hand out a page that was not asked for.
			if !ok || !inScope(ch.Slug) || dists[j] == nil {
				continue
			}
			found[i] = append(found[i], collection.ScoredChunk{Chunk: ch, Line: lineOf(g.metadata(j)[collection.LineKey]), Distance: *dists[j]})
		}
		return nil
	})
	if err != nil {
		return nil, c.fail(op, err)
	}
	return nearest(slices.Concat(found...), k), nil
}

// query sends one query; an answer about the vector's dimension wraps
// collection.ErrDimension.
func (c *Collection) query(ctx context.Context, req *queryRequest) (*queryResult, error) {
	var res queryResult
	if err := c.rest.do(ctx, "POST", c.path+"/query", req, &res); err != nil {
		if strings.Contains(err.Error(), "dimension") {
			return nil, fmt.Errorf("%w: %w", collection.ErrDimension, err)
		}
		return nil, err
	}
	return &res, nil
}

// nearest sorts chunks nearest first (ties by id) and keeps k.
func nearest(all []collection.ScoredChunk, k int) []collection.ScoredChunk {
	slices.SortStableFunc(all, func(a, b collection.ScoredChunk) int {
		switch {
		case a.Distance < b.Distance:
			return -1
		case a.Distance > b.Distance:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(all) > k {
		all = all[:k]
	}
	return all
}

// queryIDs is QueryVector restricted to the records with the given ids
// (Scope.IDs), in batches of searchMaxIn ids, several in flight. Chroma
// fails a query whose ids name a record that does not exist (500 "Error
// finding id"); a batch so answered asks which of its ids exist and
// queries those alone. When none of the ids exists, the error says so.
func (c *Collection) queryIDs(ctx context.Context, ids []string, vector []float32, k int) ([]collection.ScoredChunk, error) {
	ids, want := unique(ids)
	parts := batches(ids, c.searchMaxIn())
	found := make([][]collection.ScoredChunk, len(parts))
	present := make([]int, len(parts)) // ids of each batch that exist
	err := parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		batch := parts[i]
		res, err := c.queryBatch(ctx, batch, vector, k)
		if missingID(err) {
			if batch, err = c.existing(ctx, batch); err != nil || len(batch) == 0 {
				return err
			}
			res, err = c.queryBatch(ctx, batch, vector, k)
		}
		if err != nil {
			return err
		}
		present[i] = len(batch)
		if len(res.IDs) == 0 {
			return nil
		}
		var docs []*string
		var dists []*float64
		if len(res.Documents) > 0 {
			docs = res.Documents[0]
		}
		if len(res.Distances) > 0 {
			dists = res.Distances[0]
		}
		if len(docs) != len(res.IDs[0]) || len(dists) != len(res.IDs[0]) {
			return fmt.Errorf("malformed answer: %d ids, %d documents, %d distances", len(res.IDs[0]), len(docs), len(dists))
		}
		for j, id := range res.IDs[0] {
			if !want[id] || dists[j] == nil {
				continue // never hand out a record that was not asked for
			}
			text := ""
			if docs[j] != nil {
				text = *docs[j]
			}
			found[i] = append(found[i], collection.ScoredChunk{Chunk: collection.Chunk{ID: id, Index: collection.NoIndex, Text: text}, Distance: *dists[j]})
		}
		return nil
	})
	op := fmt.Sprintf("query %s of %s by id", recordsOf(len(ids)), c.where)
	if err != nil {
		return nil, c.fail(op, err)
	}
	total := 0
	for _, n := range present {
		total += n
	}
	if total == 0 {
		return nil, fmt.Errorf("chromastore: %s: none of the %s exists in the collection (they were deleted since their ids were listed; for an adopted collection, run chromafs adopt again)", op, recordsOf(len(ids)))
	}
	return nearest(slices.Concat(found...), k), nil
}

// queryBatch sends the query of vector restricted to ids (at most
// searchMaxIn, distinct) for the k nearest, with documents and distances.
func (c *Collection) queryBatch(ctx context.Context, ids []string, vector []float32, k int) (*queryResult, error) {
	return c.query(ctx, &queryRequest{
		Embeddings: [][]float32{vector},
		N:          min(k, len(ids)),
		IDs:        ids,
		Include:    []string{includeDocuments, "distances"},
	})
}

// existing returns those of ids (distinct) that name records of the
// collection, in their order, asking for ids only in gets of PageSize.
func (c *Collection) existing(ctx context.Context, ids []string) ([]string, error) {
	has := make(map[string]bool, len(ids))
	for _, part := range batches(ids, PageSize) {
		res, err := c.get(ctx, &getRequest{IDs: part, Include: []string{}})
		if err != nil {
			return nil, err
		}
		for _, id := range res.IDs {
			has[id] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !has[id] }), nil
}

// lineOf reads a collection.LineKey value: a positive integer, else 0.
func lineOf(v any) int {
	n := chunkIndex(v)
	if n <= 0 {
		return 0
	}
	return n
}
