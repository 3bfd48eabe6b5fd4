package chromafs

import (
	"io/fs"

	"github.com/chromafs/chromafs/tree"
)

// WalkDir walks the tree rooted at root, calling fn for each file or
// directory in it, root included, exactly as fs.WalkDir(fsys, root, fn)
// does: the same names, entries and order (each directory's entries
// sorted by name), the same handling of fs.SkipDir and fs.SkipAll, and,
// for a root that does not exist, the same single call with Stat's error.
// It reads the session's in-memory tree directly, without a lookup of
// each directory by name, and passes the tree's own strings as names
// rather than joining them; it never touches the network.
//
// WalkDir implements fscap.WalkDirFS, through which grepx finds it by
// type assertion, as io/fs finds fs.ReadDirFS.
func (fsys *FS) WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := fsys.Stat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		n, _ := fsys.s.view.Lookup(fsys.full(root)) // found by Stat
		err = fsys.walk(root, n, fs.FileInfoToDirEntry(info), fn)
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

// walk is fs.WalkDir's walkDir over the node n named name.
func (fsys *FS) walk(name string, n *tree.Node, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(name, d, nil); err != nil || !d.IsDir() {
		if err == fs.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	kids, _ := fsys.s.view.ReadDir(n.Path)
	ents := fsys.dirEntries(kids)
	for i, k := range kids {
		if err := fsys.walk(fsys.rel(k.Path), k, ents[i], fn); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}
