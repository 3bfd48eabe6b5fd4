package fscap

import "io/fs"

// WalkDirFS is implemented by filesystems that walk their own tree faster
// than fs.WalkDir does through ReadDir.
type WalkDirFS interface {
	fs.FS

	// WalkDir is fs.WalkDir(fsys, root, fn): the same calls of fn, with
	// the same names and entries, in the same order (each directory's
	// entries sorted by name), the same handling of fs.SkipDir and
	// fs.SkipAll, and, for a root that does not exist, the same single
	// call of fn with Stat's error.
	WalkDir(root string, fn fs.WalkDirFunc) error
}

// WalkDir walks the tree rooted at root as fs.WalkDir does, through fsys's
// own walk when it implements WalkDirFS.
func WalkDir(fsys fs.FS, root string, fn fs.WalkDirFunc) error {
	if w, ok := fsys.(WalkDirFS); ok {
		return w.WalkDir(root, fn)
	}
	return fs.WalkDir(fsys, root, fn)
}
