package fscap

import (
	"context"
	"io/fs"
)

// PrefetchEachFS is a PrefetchFS that hands over each file as soon as it
// is loaded, so that a caller works on one file while the rest of the
// batch loads.
type PrefetchEachFS interface {
	PrefetchFS

	// PrefetchEach is Prefetch that calls loaded, when not nil, with the
	// name (as given in names) and content of each file it loads, as soon
	// as that file is loaded, possibly from several goroutines at once;
	// loaded must not keep it waiting long. The content is what
	// ReadFileShared would return: shared, never to be modified. Files
	// that are not handed over (already in memory, not readable files,
	// failed) are read with the filesystem's usual read.
	PrefetchEach(ctx context.Context, names []string, loaded func(name string, data []byte)) error
}

// PrefetchEach loads names, handing over each loaded file to loaded, when
// fsys implements PrefetchEachFS; when it implements only PrefetchFS it
// calls Prefetch, which hands over nothing; otherwise it does nothing and
// returns nil.
func PrefetchEach(ctx context.Context, fsys fs.FS, names []string, loaded func(name string, data []byte)) error {
	if p, ok := fsys.(PrefetchEachFS); ok {
		return p.PrefetchEach(ctx, names, loaded)
	}
	return Prefetch(ctx, fsys, names)
}
