package fscap

import (
	"context"
	"io/fs"
)

// BindContextFS is implemented by filesystems whose reads can be bound to
// a context, so that a server stops the reads of a request whose client
// went away or whose deadline passed.
type BindContextFS interface {
	fs.FS

	// BindContext returns the view to serve one request with: normally
	// one whose reads use ctx. A filesystem that its creator bound to a
	// context already (chromafs.FS.WithContext) returns itself, so that
	// the creator's binding stands. It must not return nil for a non-nil
	// ctx; a nil ctx returns the filesystem itself.
	BindContext(ctx context.Context) fs.FS
}

// Bind returns the filesystem to serve a request whose context is ctx:
// fsys.BindContext(ctx) when fsys implements BindContextFS and ctx and the
// result are not nil, else fsys itself. It is the one way the servers
// (httpfs, webdavfs, mcpserver) bind a request's context to any fs.FS.
func Bind(ctx context.Context, fsys fs.FS) fs.FS {
	b, ok := fsys.(BindContextFS)
	if !ok || ctx == nil {
		return fsys
	}
	if v := b.BindContext(ctx); v != nil {
		return v
	}
	return fsys
}
