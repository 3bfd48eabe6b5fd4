package fscap

import (
	"context"
	"io/fs"
)

// PreloadFS is implemented by filesystems that can load their content into
// memory in the background, so that later reads and searches send no
// request.
type PreloadFS interface {
	fs.FS

	// Preload loads the content of the files visible through the
	// filesystem, within a budget of its own, and returns when they are
	// loaded, nothing is to be loaded, or ctx ends. It is meant to run in
	// its own goroutine for as long as a session lasts (go
	// fsys.Preload(ctx)). It must never change what reads return: a file
	// it failed to load is read as usual. It returns its first failure, or
	// ctx's error when ctx ended first.
	Preload(ctx context.Context) error
}

// Preload loads fsys's content in the background when it implements
// PreloadFS (see PreloadFS.Preload), and returns nil at once otherwise.
func Preload(ctx context.Context, fsys fs.FS) error {
	if p, ok := fsys.(PreloadFS); ok {
		return p.Preload(ctx)
	}
	return nil
}
