package chromafs

import (
	"io/fs"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// StatNoRead returns a FileInfo describing the named file or directory,
// like Stat, but from the tree alone: it never reads a page, so it never
// touches the network and never fails because a page cannot be read
// (a corrupt page, an unreachable store, a lazy pointer not fetched).
// Listings that must not read content (WebDAV PROPFIND) use it.
//
// sizeKnown reports whether fi.Size() is the page's size: it is true for
// directories, for pages whose tree entry records a size (chromafs ingest
// writes sizes), for pages whose content this FS's session has read
// before, and for pages held in the memory part of the page cache (a
// cachepkg.Local cache: any session of the process may have read them).
// Otherwise fi.Size() is -1; Stat would read the page to learn it.
// Everything else in fi is what Stat returns. Errors are Stat's: an
// *fs.PathError wrapping fs.ErrInvalid or fs.ErrNotExist (for a hidden
// path too).
func (fsys *FS) StatNoRead(name string) (fi fs.FileInfo, sizeKnown bool, err error) {
	n, err := fsys.lookup("stat", name)
	if err != nil {
		return nil, false, err
	}
	if !n.IsDir {
		if _, ok := fsys.s.pages.KnownSize(n); !ok && !fsys.s.pages.LocalSize(fsys.ctx, n) {
			return unsizedInfo{n}, false, nil
		}
	}
	// A directory, or a page whose size is known: info reads nothing.
	info, err := fsys.info(n)
	if err != nil {
		return nil, false, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return info, true, nil
}

// unsizedInfo is the FileInfo of a page whose size is not known without
// a read: Stat's, with a size of -1.
type unsizedInfo struct{ node *tree.Node }

func (fi unsizedInfo) Name() string       { return fi.node.Name }
func (fi unsizedInfo) Size() int64        { return -1 }
func (fi unsizedInfo) Mode() fs.FileMode  { return 0o444 }
func (fi unsizedInfo) ModTime() time.Time { return fi.node.Entry.ModTime }
func (fi unsizedInfo) IsDir() bool        { return false }
func (fi unsizedInfo) Sys() any           { return fi.node.Entry }
func (fi unsizedInfo) String() string     { return fs.FormatFileInfo(fi) }
