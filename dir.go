package chromafs

import (
	"io"
	"io/fs"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// dir is an open directory. Its entries are read from the in-memory tree.
type dir struct {
	fsys   *FS
	node   *tree.Node
	name   string
	offset int
	closed bool
}

var _ fs.ReadDirFile = (*dir)(nil)

func (d *dir) Stat() (fs.FileInfo, error) {
	if d.closed {
		return nil, &fs.PathError{Op: "stat", Path: d.name, Err: fs.ErrClosed}
	}
	return d.fsys.s.nodeInfo(d.node, 0), nil
}

func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errIsDir}
}

func (d *dir) Close() error {
	if d.closed {
		return &fs.PathError{Op: "close", Path: d.name, Err: fs.ErrClosed}
	}
	d.closed = true
	return nil
}

// ReadDir returns the next n entries in name order, as fs.ReadDirFile
// specifies: with n > 0 at most n entries and io.EOF at the end; with
// n <= 0 all remaining entries and a nil error.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.closed {
		return nil, &fs.PathError{Op: "readdir", Path: d.name, Err: fs.ErrClosed}
	}
	kids, _ := d.fsys.s.view.ReadDir(d.node.Path)
	rest := kids[min(d.offset, len(kids)):]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	d.offset += len(rest)
	return d.fsys.dirEntries(rest), nil
}

// modTime returns the modification time of a node: a page's modTime from
// the tree (zero if it has none); for a directory, the newest modTime of
// the pages below it that this session's view shows (tree.View.ModTime:
// a hidden page never counts), else the tree record's collection.TreeModTimeKey,
// else the zero time. Every view of a session (Sub views included) gives
// a node the same value.
func (s *session) modTime(n *tree.Node) time.Time {
	t := s.view.ModTime(n)
	if t.IsZero() && n.IsDir {
		t = s.treeTime
	}
	return t
}
