package chromastore

import (
	"context"
	"fmt"

	"github.com/chromafs/chromafs/collection"
)

var _ collection.RecordReader = (*Collection)(nil)

// RecordsByID returns those of the records with the given ids that exist, by
// id, with their documents and metadata, whatever their metadata holds
// (FS reads the shards of a sharded tree with it). It asks for at most
// PageSize ids a request, up to four requests at a time.
func (c *Collection) RecordsByID(ctx context.Context, ids []string) (map[string]collection.TreeRecord, error) {
	ids, want := unique(ids)
	if len(ids) == 0 {
		return map[string]collection.TreeRecord{}, nil
	}
	if c.closed.Load() {
		return nil, ErrClosed
	}
	op := fmt.Sprintf("get %s by id from %s", recordsOf(len(ids)), c.where)
	parts := batches(ids, PageSize)
	found := make([]map[string]collection.TreeRecord, len(parts))
	err := parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		m, err := c.getRecords(ctx, parts[i], want)
		found[i] = m
		return err
	})
	if err != nil {
		return nil, c.fail(op, err)
	}
	out := make(map[string]collection.TreeRecord, len(ids))
	for _, m := range found {
		for id, rec := range m {
			out[id] = rec
		}
	}
	return out, nil
}

// getRecords sends one get of ids and returns the records it answers
// whose ids are in want, with their documents (never nil) and metadata.
func (c *Collection) getRecords(ctx context.Context, ids []string, want map[string]bool) (map[string]collection.TreeRecord, error) {
	var res treeResult
	req := &getRequest{IDs: ids, Include: []string{includeDocuments, includeMetadatas}}
	if err := c.rest.do(ctx, "POST", c.path+"/get", req, &res); err != nil {
		return nil, err
	}
	if err := checkLengths(len(res.IDs), len(res.Documents), len(res.Metadatas)); err != nil {
		return nil, err
	}
	m := make(map[string]collection.TreeRecord, len(res.IDs))
	for j, id := range res.IDs {
		if !want[id] {
			continue
		}
		rec := collection.TreeRecord{Document: []byte{}}
		if j < len(res.Documents) && res.Documents[j] != nil {
			rec.Document = res.Documents[j]
		}
		if j < len(res.Metadatas) {
			rec.Metadata = plainMetadata(res.Metadatas[j])
		}
		m[id] = rec
	}
	return m, nil
}

// CloudMaxDocumentBytes is Chroma Cloud's limit on the size of a
// document. A tree larger than this must be sharded
// (ingest.Options.TreeMaxBytes, collection.ShardTree) to be written there.
const CloudMaxDocumentBytes = 16 << 10

// MaxDocumentBytes returns the largest document Upsert accepts:
// CloudMaxDocumentBytes under Config.CloudLimits, else 0 (no limit).
// Package ingest shards the path tree to fit it.
func (c *Collection) MaxDocumentBytes() int {
	if c.cloud {
		return CloudMaxDocumentBytes
	}
	return 0
}

// DocumentsByID returns the documents of the records with the given ids
// that exist, in gets of PageSize ids, several in flight, asking Chroma
// for documents only.
func (c *Collection) DocumentsByID(ctx context.Context, ids []string) (map[string]string, error) {
	ids, want := unique(ids)
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	if c.closed.Load() {
		return nil, ErrClosed
	}
	op := fmt.Sprintf("get the documents of %s by id from %s", recordsOf(len(ids)), c.where)
	parts := batches(ids, PageSize)
	found := make([]*treeResult, len(parts))
	err := parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		var res treeResult
		req := &getRequest{IDs: parts[i], Include: []string{includeDocuments}}
		if err := c.rest.do(ctx, "POST", c.path+"/get", req, &res); err != nil {
			return err
		}
		found[i] = &res
		return checkLengths(len(res.IDs), len(res.Documents), 0)
	})
	if err != nil {
		return nil, c.fail(op, err)
	}
	out := make(map[string]string, len(ids))
	for _, res := range found {
		for j, id := range res.IDs {
			if !want[id] {
				continue
			}
			doc := ""
			if j < len(res.Documents) && res.Documents[j] != nil {
				doc = string(res.Documents[j])
			}
			out[id] = doc
		}
	}
	return out, nil
}
