// Package bindtest has a filesystem for the adapters' tests of request
// contexts: an fs.FS that is not a chromafs.FS and implements
// fscap.BindContextFS. It is for tests only.
package bindtest

import (
	"context"
	"io/fs"
	"sync"
	"testing/fstest"
)

// FS serves Unbound until BindContext is called; BindContext returns a
// view that serves Bound and remembers the context it was given, so that
// a test can tell which view an adapter served and with which context.
type FS struct {
	fstest.MapFS // the files of the unbound filesystem
	Bound        fstest.MapFS

	mu  sync.Mutex
	ctx []context.Context
}

// New returns an FS whose unbound files and bound files both hold name,
// with the contents "unbound" and "bound".
func New(name string) *FS {
	return &FS{
		MapFS: fstest.MapFS{name: {Data: []byte("unbound")}},
		Bound: fstest.MapFS{name: {Data: []byte("bound")}},
	}
}

// BindContext records ctx and returns the bound view.
func (f *FS) BindContext(ctx context.Context) fs.FS {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ctx = append(f.ctx, ctx)
	return f.Bound
}

// Contexts returns the contexts BindContext was called with, in order.
func (f *FS) Contexts() []context.Context {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]context.Context(nil), f.ctx...)
}
