package fscap

import "io/fs"

// StatNoReadFS is implemented by filesystems that can describe a file from
// their listing alone, without reading its content, so that a listing
// (WebDAV PROPFIND, an HTTP directory, ls) never fetches content.
type StatNoReadFS interface {
	fs.FS

	// StatNoRead returns what Stat returns, but never reads a file's
	// content, and so never fails because content cannot be read.
	// sizeKnown reports whether fi.Size() is the file's size; when it is
	// false (the size would need a read), fi.Size() is -1. Directories
	// always have a known size. Errors are Stat's.
	StatNoRead(name string) (fi fs.FileInfo, sizeKnown bool, err error)
}

// StatNoRead describes the named file without reading content when fsys
// implements StatNoReadFS. Otherwise it returns fs.Stat's answer, whose
// size is known (sizeKnown is true unless err is not nil).
func StatNoRead(fsys fs.FS, name string) (fi fs.FileInfo, sizeKnown bool, err error) {
	if s, ok := fsys.(StatNoReadFS); ok {
		return s.StatNoRead(name)
	}
	fi, err = fs.Stat(fsys, name)
	return fi, err == nil, err
}
