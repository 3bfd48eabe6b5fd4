package fscap

import (
	"context"
	"io/fs"
)

// PrefetchFS is implemented by filesystems that can load many files in
// few requests, so that reading them afterwards is cheap.
type PrefetchFS interface {
	fs.FS

	// Prefetch loads names so that reading them afterwards costs no
	// request. Names that are not readable files (missing, hidden,
	// directories) are ignored, so that the result tells nothing about
	// them. A failed prefetch changes no later read, which fetches the
	// file again and reports its own error; Prefetch returns the first
	// error met.
	Prefetch(ctx context.Context, names []string) error
}

// Prefetch loads names in bulk when fsys implements PrefetchFS, and does
// nothing (returning nil) otherwise: reading the files then fetches each
// on its own.
func Prefetch(ctx context.Context, fsys fs.FS, names []string) error {
	if p, ok := fsys.(PrefetchFS); ok {
		return p.Prefetch(ctx, names)
	}
	return nil
}
