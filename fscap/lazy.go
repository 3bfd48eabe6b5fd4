package fscap

import "io/fs"

// IsLazyFS is implemented by filesystems some of whose files are not
// stored with the rest but fetched from elsewhere when first read, such as
// chromafs's lazy file pointers; a search may leave them out (grep
// --no-pointers) rather than fetch them.
type IsLazyFS interface {
	fs.FS

	// IsLazy reports whether name is such a file. It is false for a
	// directory, a missing or hidden name and an invalid one. It must not
	// fetch anything.
	IsLazy(name string) bool
}

// IsLazy reports whether name is a file of fsys fetched from elsewhere
// when read: fsys's answer when it implements IsLazyFS, else false.
func IsLazy(fsys fs.FS, name string) bool {
	if l, ok := fsys.(IsLazyFS); ok {
		return l.IsLazy(name)
	}
	return false
}
