package chromafs

import "io/fs"

// StatNoRead returns a FileInfo describing the named file or directory,
// like Stat, but from the tree alone: it never reads a page, so it never
// touches the network and never fails because a page cannot be read
// (a corrupt page, an unreachable store, a lazy pointer not fetched).
// Listings that must not read content (WebDAV PROPFIND) use it.
//
// sizeKnown reports whether fi.Size() is the page's size: it is true for
// directories, for pages whose tree entry records a size (chromafs ingest
// writes sizes) and for pages whose content this FS's session has read
// before. Otherwise fi.Size() is -1; Stat would read the page to learn it.
// Everything else in fi is what Stat returns. Errors are Stat's: an
// *fs.PathError wrapping fs.ErrInvalid or fs.ErrNotExist (for a hidden
// path too).
func (fsys *FS) StatNoRead(name string) (fi fs.FileInfo, sizeKnown bool, err error) {
	n, err := fsys.lookup("stat", name)
	if err != nil {
		return nil, false, err
	}
	if n.IsDir {
		return &fileInfo{node: n}, true, nil
	}
	size, ok := fsys.s.knownSize(n)
	if !ok {
		size = -1
	}
	return &fileInfo{node: n, size: size}, ok, nil
}
