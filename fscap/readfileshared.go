package fscap

import "io/fs"

// ReadFileSharedFS is implemented by filesystems that can hand out a
// file's content without copying it.
type ReadFileSharedFS interface {
	fs.FS

	// ReadFileShared is fs.ReadFile without the copy: the returned slice
	// may be shared (with a cache, with other callers) and must not be
	// modified by anyone. Errors are ReadFile's.
	ReadFileShared(name string) ([]byte, error)
}

// ReadFileShared reads the named file without a copy when fsys implements
// ReadFileSharedFS, and with fs.ReadFile otherwise. The caller must not
// modify the result.
func ReadFileShared(fsys fs.FS, name string) ([]byte, error) {
	if s, ok := fsys.(ReadFileSharedFS); ok {
		return s.ReadFileShared(name)
	}
	return fs.ReadFile(fsys, name)
}
