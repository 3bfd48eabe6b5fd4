// Package reqctx is the one way the adapters (httpfs, webdavfs) bind a
// request's context to the reads of the filesystem they serve, whatever
// the filesystem: through the Binder interface, never through a type
// assertion to a concrete filesystem.
package reqctx

import (
	"context"
	"io/fs"
)

// Binder is implemented by a filesystem whose reads can be bound to a
// context (*chromafs.FS is one). BindContext returns the view to serve
// one request with: normally one whose reads use ctx, so that a client
// that goes away, or the request's deadline, stops them; a filesystem
// that its creator bound to a context already (chromafs.FS.WithContext)
// returns itself, so that the creator's binding stands.
type Binder interface {
	BindContext(ctx context.Context) fs.FS
}

// Bind returns the filesystem to serve a request whose context is ctx
// with: fsys.BindContext(ctx) when fsys implements Binder (and ctx and
// the result are not nil), else fsys itself.
func Bind(fsys fs.FS, ctx context.Context) fs.FS {
	b, ok := fsys.(Binder)
	if !ok || ctx == nil {
		return fsys
	}
	if v := b.BindContext(ctx); v != nil {
		return v
	}
	return fsys
}
