package chromastore

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/chromafs/chromafs/collection"
)

// Body size limits of an upsert; see the package documentation.
const (
	// targetBody is the request size above which an upsert batch is split.
	targetBody = 8 << 20
	// maxBody is the largest request Upsert sends: a single record whose
	// request would be larger is refused before anything is sent.
	maxBody = 32 << 20
)

// SystemKey is the metadata key, set to true, that marks a record written
// with Record.System (the tree record): collection.SystemKey.
const SystemKey = collection.SystemKey

// dimensionProbe is embedded to learn the dimension of the embedding
// function when the collection has no vectors yet.
const dimensionProbe = "chromafs dimension probe"

// upsertRequest is the body of POST .../upsert.
type upsertRequest struct {
	IDs        []string         `json:"ids"`
	Documents  []string         `json:"documents"`
	Metadatas  []map[string]any `json:"metadatas"`
	Embeddings [][]float32      `json:"embeddings"`
}

func (r *upsertRequest) slice(i, j int) *upsertRequest {
	return &upsertRequest{r.IDs[i:j], r.Documents[i:j], r.Metadatas[i:j], r.Embeddings[i:j]}
}

// recordsOf returns "1 record" or "N records".
func recordsOf(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}

// Upsert writes records, replacing records with the same ids, in batches
// of at most PageSize records and about 8 MiB. Content records are
// embedded with the collection's embedding function (an empty document
// gets a zero vector, as many embedding functions refuse empty input);
// System records get a zero vector of the collection's dimension and
// metadata SystemKey = true. Batches are sent in order; an error leaves
// the batches before it written. With Config.CloudLimits, a document over
// CloudMaxDocumentBytes fails the call before anything is sent, and so
// does, on every server, a metadata key that Chroma 1.3 refuses (see
// [CheckMetadataKey]).
func (c *Collection) Upsert(ctx context.Context, records []collection.Record) error {
	if len(records) == 0 {
		return nil
	}
	op := fmt.Sprintf("upsert %s to %s", recordsOf(len(records)), c.where)
	seen := make(map[string]bool, len(records))
	for _, r := range records {
		if r.ID == "" {
			return fmt.Errorf("chromastore: %s: a record has an empty id", op)
		}
		if seen[r.ID] {
			return fmt.Errorf("chromastore: %s: id %q appears twice", op, r.ID)
		}
		seen[r.ID] = true
		for k := range r.Metadata {
			if err := CheckMetadataKey(k); err != nil {
				return fmt.Errorf("chromastore: %s: record %q: %w; nothing was written", op, r.ID, err)
			}
		}
		if c.cloud && len(r.Document) > CloudMaxDocumentBytes {
			return fmt.Errorf("chromastore: %s: record %q has a %d-byte document, over Chroma Cloud's limit of %d (CloudLimits); nothing was written",
				op, r.ID, len(r.Document), CloudMaxDocumentBytes)
		}
	}
	for _, batch := range batches(records, PageSize) {
		req, err := c.upsertRequest(ctx, batch)
		if err != nil {
			return c.fail(op, err)
		}
		if err := c.sendUpsert(ctx, req); err != nil {
			return c.fail(op, err)
		}
	}
	return nil
}

// upsertRequest embeds batch and builds its request.
func (c *Collection) upsertRequest(ctx context.Context, batch []collection.Record) (*upsertRequest, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	req := &upsertRequest{
		IDs:        make([]string, len(batch)),
		Documents:  make([]string, len(batch)),
		Metadatas:  make([]map[string]any, len(batch)),
		Embeddings: make([][]float32, len(batch)),
	}
	var texts []string
	var embedded []int // positions of texts in batch
	for i, r := range batch {
		req.IDs[i] = r.ID
		req.Documents[i] = r.Document
		md := r.Metadata
		if r.System {
			md = maps.Clone(md)
			if md == nil {
				md = map[string]any{}
			}
			md[SystemKey] = true
		}
		if len(md) > 0 {
			req.Metadatas[i] = md
		}
		if !r.System && r.Document != "" {
			texts = append(texts, r.Document)
			embedded = append(embedded, i)
		}
	}
	if len(texts) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		embs, err := c.ef.EmbedDocuments(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed %d documents with %s: %w", len(texts), c.ef.Name(), err)
		}
		if len(embs) != len(texts) {
			return nil, fmt.Errorf("embedding function %s returned %d vectors for %d documents", c.ef.Name(), len(embs), len(texts))
		}
		for k, v := range embs {
			if len(v) == 0 {
				return nil, fmt.Errorf("embedding function %s returned an empty vector", c.ef.Name())
			}
			req.Embeddings[embedded[k]] = v
		}
		c.dim.CompareAndSwap(0, int64(len(embs[0])))
	}
	var zero []float32
	for i := range batch {
		if req.Embeddings[i] != nil {
			continue
		}
		if zero == nil {
			dim, err := c.dimension(ctx)
			if err != nil {
				return nil, err
			}
			zero = make([]float32, dim)
		}
		req.Embeddings[i] = zero
	}
	return req, nil
}

// dimension returns the collection's embedding dimension: Chroma's, or
// learnt from an earlier upsert, or else from embedding a probe string.
func (c *Collection) dimension(ctx context.Context) (int, error) {
	if d := c.dim.Load(); d > 0 {
		return int(d), nil
	}
	e, err := c.ef.EmbedDocuments(ctx, []string{dimensionProbe})
	if err != nil {
		return 0, fmt.Errorf("learn the embedding dimension from %s: %w", c.ef.Name(), err)
	}
	if len(e) != 1 {
		return 0, fmt.Errorf("learn the embedding dimension: %s returned %d vectors for 1 document", c.ef.Name(), len(e))
	}
	d := len(e[0])
	if d == 0 {
		return 0, fmt.Errorf("learn the embedding dimension: %s returned an empty vector", c.ef.Name())
	}
	c.dim.CompareAndSwap(0, int64(d))
	return int(c.dim.Load()), nil
}

// sendUpsert sends req, in halves while its body is over targetBody.
func (c *Collection) sendUpsert(ctx context.Context, req *upsertRequest) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	if len(body) > targetBody && len(req.IDs) > 1 {
		half := len(req.IDs) / 2
		if err := c.sendUpsert(ctx, req.slice(0, half)); err != nil {
			return err
		}
		return c.sendUpsert(ctx, req.slice(half, len(req.IDs)))
	}
	if len(body) > maxBody {
		return fmt.Errorf("record %q needs a %d-byte request, over the %d-byte limit (Chroma refuses requests over 40 MiB)",
			req.IDs[0], len(body), maxBody)
	}
	if c.closed.Load() {
		return ErrClosed
	}
	return c.rest.do(ctx, "POST", c.path+"/upsert", body, nil)
}

// Delete removes the records with the given ids, PageSize ids per
// request; unknown ids are ignored.
func (c *Collection) Delete(ctx context.Context, ids []string) error {
	ids, _ = unique(ids)
	if len(ids) == 0 {
		return nil
	}
	op := fmt.Sprintf("delete %s from %s", recordsOf(len(ids)), c.where)
	for _, batch := range batches(ids, PageSize) {
		if c.closed.Load() {
			return ErrClosed
		}
		if err := c.rest.do(ctx, "POST", c.path+"/delete", map[string]any{"ids": batch}, nil); err != nil {
			return c.fail(op, err)
		}
	}
	return nil
}

// ChunkIDs returns, for each of slugs that has records, the ids of its
// records, asking for metadata only, in $in batches of at most MaxIn
// slugs paged by PageSize records.
func (c *Collection) ChunkIDs(ctx context.Context, layout collection.Layout, slugs []string) (map[string][]string, error) {
	layout = layout.WithDefaults()
	slugs, want := unique(slugs)
	out := map[string][]string{}
	if len(slugs) == 0 {
		return out, nil
	}
	op := fmt.Sprintf("get chunk ids of %s from %s", pagesOf(len(slugs)), c.where)
	parts := batches(slugs, MaxIn)
	found := make([]map[string][]string, len(parts))
	err := parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		found[i] = map[string][]string{}
		req := getRequest{
			Where:   map[string]any{layout.SlugField: map[string]any{"$in": parts[i]}},
			Include: []string{includeMetadatas},
		}
		return c.pages(ctx, req, PageSize, func(res *getResult) error {
			for j, id := range res.IDs {
				slug, ok := res.metadata(j)[layout.SlugField].(string)
				if ok && want[slug] {
					found[i][slug] = append(found[i][slug], id)
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, c.fail(op, err)
	}
	for _, m := range found {
		for slug, ids := range m {
			out[slug], _ = unique(append(out[slug], ids...))
		}
	}
	return out, nil
}
