package fscap

import (
	"context"
	"io/fs"
)

// UncachedFS is implemented by filesystems that can tell which files
// would cost a request to read, so that a caller can weigh a coarse query
// (CandidatesFS) or a prefetch against reading what is in memory.
type UncachedFS interface {
	fs.FS

	// Uncached returns those of names whose content is not in memory.
	// Names that are not readable files are returned as they are. It
	// must not fetch content; it may ask a cache which names it holds.
	Uncached(ctx context.Context, names []string) []string
}

// Uncached returns the names whose content reading would fetch: fsys's
// answer when it implements UncachedFS, else names itself (every file may
// cost a request).
func Uncached(ctx context.Context, fsys fs.FS, names []string) []string {
	if u, ok := fsys.(UncachedFS); ok {
		return u.Uncached(ctx, names)
	}
	return names
}
