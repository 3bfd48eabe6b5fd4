package pageload

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// Pages of a collection that another tool wrote (chromafs adopt) have
// parts in the tree (tree.Entry.Parts, a collection.Recipe): the ids of
// their chunks, in page order, and how to put the chunks' texts together.
// Their chunks carry no slug or index of chromafs's layout: the loader
// gets their documents by id (collection.DocumentReader) and builds the
// page with collection.AssembleRecipe, which checks it against the size
// and hash that adopt recorded.

// errNoDocumentReader is the error for an adopted page of a store that
// cannot fetch documents by id.
var errNoDocumentReader = errors.New("the store cannot fetch chunks by id, which the pages of an adopted collection need")

// adopted reports whether n is a page of an adopted collection.
func adopted(n *tree.Node) bool { return n.Entry.Parts != "" }

// fetchAdopted adds to out the chunks (ID and Text, Slug the page's) of
// the adopted pages, read by id in one request. A page whose parts do
// not decode gets no chunks: assembling it reports why.
func (l *Loader) fetchAdopted(ctx context.Context, pages []*tree.Node, out map[string][]collection.Chunk) error {
	var ids []string
	recipes := make([]*collection.Recipe, len(pages))
	for i, n := range pages {
		if r, err := collection.ParseRecipe(n.Entry.Parts); err == nil {
			recipes[i] = r
			ids = append(ids, r.IDs()...)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	dr, ok := l.c.Store.(collection.DocumentReader)
	if !ok {
		return errNoDocumentReader
	}
	docs, err := dr.DocumentsByID(ctx, ids)
	if err != nil {
		return fmt.Errorf("fetch chunks by id: %w", err)
	}
	for i, n := range pages {
		if recipes[i] == nil {
			continue
		}
		chunks := make([]collection.Chunk, 0, len(recipes[i].Parts))
		for _, p := range recipes[i].Parts {
			if text, ok := docs[p.ID]; ok {
				chunks = append(chunks, collection.Chunk{ID: p.ID, Slug: n.Path, Index: collection.NoIndex, Text: text})
			}
		}
		out[n.Path] = chunks
	}
	return nil
}

// assembleAdopted builds an adopted page from its chunks.
func assembleAdopted(n *tree.Node, chunks []collection.Chunk) ([]byte, error) {
	r, err := collection.ParseRecipe(n.Entry.Parts)
	if err != nil {
		return nil, fmt.Errorf("page %q: %w", n.Path, err)
	}
	docs := make(map[string]string, len(chunks))
	for _, c := range chunks {
		docs[c.ID] = c.Text
	}
	return collection.AssembleRecipe(n.Entry, r, docs)
}

// loadAdopted is loadMany for adopted pages: one read by id of every
// page's chunks, each page built and checked, handed to loaded and put
// into the cache. It returns the bytes put and the first error.
func (l *Loader) loadAdopted(ctx context.Context, pages []*tree.Node, keys []string, loaded func(i int, data []byte)) (int64, error) {
	byPage := make(map[string][]collection.Chunk, len(pages))
	if err := l.fetchAdopted(ctx, pages, byPage); err != nil {
		return 0, fmt.Errorf("chromafs: prefetch %d pages: %w", len(pages), err)
	}
	values := make(map[string][]byte, len(pages))
	var size int64
	var first error
	for i, n := range pages {
		data, err := assembleAdopted(n, byPage[n.Path])
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		l.learnSize(n, len(data))
		values[keys[i]] = data
		size += int64(len(data))
		if loaded != nil {
			loaded(i, data)
		}
	}
	if len(values) > 0 && ctx.Err() == nil {
		if err := l.c.Cache.PutMany(ctx, values); err != nil {
			l.c.Log.Warn("chromafs: page cache write failed", "err", err)
		}
	}
	return size, first
}
