package fscap

import (
	"context"
	"errors"
	"io/fs"
)

// QueryFS is implemented by filesystems whose store can rank the chunks
// of their files by distance to an embedding vector: the vector query of
// semantic search (package search).
type QueryFS interface {
	fs.FS

	// Query returns at most k chunks of the visible files at or below dir
	// (a directory or a file of the filesystem; "." for all), nearest to
	// vector first. Files the caller may not see must never take part, not
	// in the results nor in how many there are: access control is the
	// query's filter, not a filter of its answer. A k of zero or less
	// returns no hits and no error. Errors for dir are Stat's
	// (*fs.PathError, op "query"); a filesystem whose store cannot rank
	// by vector returns an error that matches errors.ErrUnsupported, as
	// Query's fallback does, so that a caller can offer another search.
	Query(ctx context.Context, dir string, vector []float32, k int) ([]QueryHit, error)
}

// QueryHit is a chunk that a Query ranked, placed in its file.
type QueryHit struct {
	// Name is the file's name in the filesystem Query was called on.
	Name string
	// Index is the chunk's index within its file.
	Index int
	// Text is the chunk's text.
	Text string
	// Distance is the store's distance to the query vector (smaller is
	// nearer), in the collection's space.
	Distance float64
	// Start and End are the 1-based numbers of the first and last lines
	// of the file that the chunk covers, inclusive: a chunk that starts
	// or ends inside a line covers that line. End is Start for an empty
	// chunk.
	Start, End int
}

// Query runs fsys's vector query when it implements QueryFS. Otherwise it
// returns an *fs.PathError (op "query", path dir) wrapping
// errors.ErrUnsupported: a filesystem without a store of vectors cannot
// rank anything, and no fallback would give the same answers.
func Query(ctx context.Context, fsys fs.FS, dir string, vector []float32, k int) ([]QueryHit, error) {
	if q, ok := fsys.(QueryFS); ok {
		return q.Query(ctx, dir, vector, k)
	}
	return nil, &fs.PathError{Op: "query", Path: dir, Err: errors.ErrUnsupported}
}
