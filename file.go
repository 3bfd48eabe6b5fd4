package chromafs

import (
	"io"
	"io/fs"
	"sync"

	"github.com/chromafs/chromafs/tree"
)

// file is an open page. Opening does no I/O; the content is loaded on the
// first Read, ReadAt or Seek relative to the end, and kept for the life of
// the file. Its methods are safe for concurrent use.
type file struct {
	fsys *FS
	node *tree.Node
	name string

	mu     sync.Mutex
	data   []byte // nil until loaded; shared with the cache, never modified
	off    int64
	closed bool
}

var _ interface {
	fs.File
	io.Seeker
	io.ReaderAt
} = (*file)(nil)

func (f *file) Stat() (fs.FileInfo, error) {
	f.mu.Lock()
	closed, data := f.closed, f.data
	f.mu.Unlock()
	if closed {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: fs.ErrClosed}
	}
	if data != nil {
		return &fileInfo{node: f.node, size: int64(len(data))}, nil
	}
	fi, err := f.fsys.info(f.node)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: err}
	}
	return fi, nil
}

// loadLocked loads the content if it is not loaded yet. f.mu must be held.
func (f *file) loadLocked(op string) error {
	if f.closed {
		return &fs.PathError{Op: op, Path: f.name, Err: fs.ErrClosed}
	}
	if f.data != nil {
		return nil
	}
	data, err := f.fsys.s.load(f.fsys.ctx, f.node)
	if err != nil {
		return &fs.PathError{Op: op, Path: f.name, Err: err}
	}
	if data == nil {
		data = []byte{}
	}
	f.data = data
	return nil
}

func (f *file) Read(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.loadLocked("read"); err != nil {
		return 0, err
	}
	if f.off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(b, f.data[f.off:])
	f.off += int64(n)
	return n, nil
}

func (f *file) ReadAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.loadLocked("read"); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrInvalid}
	}
	if off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(b, f.data[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// Seek sets the offset for the next Read. Seeking relative to the start
// or the current offset does no I/O; seeking relative to the end needs
// the size, which may mean loading the page.
func (f *file) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: fs.ErrClosed}
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		size, ok := int64(len(f.data)), f.data != nil
		if !ok {
			size, ok = f.fsys.s.knownSize(f.node)
		}
		if !ok {
			if err := f.loadLocked("seek"); err != nil {
				return 0, err
			}
			size = int64(len(f.data))
		}
		offset += size
	default:
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: fs.ErrInvalid}
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: fs.ErrInvalid}
	}
	f.off = offset
	return offset, nil
}

func (f *file) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	f.closed = true
	f.data = nil
	return nil
}
