package collection

import (
	"context"
	"errors"
)

// ScoredChunk is a chunk that a vector query ranked.
type ScoredChunk struct {
	Chunk
	// Line is the chunk's LineKey metadata: the 1-based page line of its
	// first byte, or 0 when the record has none (a foreign writer's).
	Line int
	// Distance is the store's distance between the query vector and the
	// chunk's embedding, in the collection's space (smaller is nearer).
	Distance float64
}

// ErrDimension is wrapped by the error of a vector query whose vector's
// dimension is not the collection's.
var ErrDimension = errors.New("embedding dimension mismatch")

// VectorQuerier is implemented by stores that rank records by the
// distance of their embeddings to a vector: semantic search (FS.Query in
// package chromafs).
type VectorQuerier interface {
	// QueryVector returns at most k records in scope, with their texts,
	// nearest to vector first. Only records with the layout's slug field
	// and a non-negative integer index field rank (never the tree record
	// or its shards), and never a record outside the scope, which is a
	// filter of the query itself, so that k is counted among the records
	// in scope. An including scope is never empty; an excluding one
	// (scope.IDsOnly is ignored) may return records of pages outside the
	// tree. A vector whose length is not the collection's dimension is an
	// error wrapping ErrDimension.
	QueryVector(ctx context.Context, layout Layout, scope Scope, vector []float32, k int) ([]ScoredChunk, error)
}
