package chromafs

import (
	"io"
	"io/fs"
	"sync"

	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// rangeWindow is the least that a ranged read of a lazy pointer fetches:
// the bytes asked for plus read-ahead, clipped to the declared size. A
// pointer no larger than it is always fetched whole.
const rangeWindow = 256 << 10

// file is an open page. Opening does no I/O; the content is loaded on the
// first Read, ReadAt or Seek relative to the end, and kept for the life of
// the file. Its methods are safe for concurrent use.
//
// A lazy pointer larger than rangeWindow whose entry declares its size,
// read through a pointer.RangeResolver, is an exception: while its content is not
// in the page cache, ReadAt and Read at an offset other than 0 fetch
// only a window of at least rangeWindow bytes around what they read, and
// the file keeps the last window. Such bytes are checked for the
// declared total size and their length, not for the entry's hash. A Read
// at offset 0 (and ReadFile) fetches and caches the whole content.
type file struct {
	fsys *FS
	node *tree.Node
	name string

	mu     sync.Mutex
	data   []byte // nil until loaded; shared with the cache, never modified
	win    []byte // the last window of a pointer read by range, or nil
	winOff int64  // offset of win in the content
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
		return f.fsys.s.nodeInfo(f.node, int64(len(data))), nil
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
	data, err := f.fsys.s.pages.Load(f.fsys.ctx, f.node)
	if err != nil {
		return &fs.PathError{Op: op, Path: f.name, Err: err}
	}
	if data == nil {
		data = []byte{}
	}
	f.data = data
	return nil
}

// ranger returns the session's pointer.RangeResolver if reads of f are served by
// range: f is a lazy pointer larger than rangeWindow with a declared
// size, not loaded whole. f.mu must be held.
func (f *file) ranger() (pointer.RangeResolver, bool) {
	if f.data != nil {
		return nil, false
	}
	e := f.node.Entry
	if e.URL == "" || e.Size <= rangeWindow {
		return nil, false
	}
	rr, ok := f.fsys.s.pages.Resolver().(pointer.RangeResolver)
	return rr, ok
}

// readRangeLocked reads into b at off (0 <= off < the declared size)
// from the window, fetching windows as needed; with fill false it stops
// as soon as it has read something. If the page turns out to be cached,
// or the resolver answers with the whole content, f.data is set and the
// read served from it. On error, n counts the bytes read before it. f.mu
// must be held.
func (f *file) readRangeLocked(rr pointer.RangeResolver, b []byte, off int64, fill bool) (n int, err error) {
	s, ctx := f.fsys.s, f.fsys.ctx
	size := f.node.Entry.Size
	for n < len(b) {
		pos := off + int64(n)
		if f.data != nil {
			if pos < int64(len(f.data)) {
				n += copy(b[n:], f.data[pos:])
			}
			break
		}
		if pos >= size {
			break
		}
		if f.win != nil && pos >= f.winOff && pos-f.winOff < int64(len(f.win)) {
			n += copy(b[n:], f.win[pos-f.winOff:])
			if !fill {
				break
			}
			continue
		}
		if data, ok := s.pages.Cached(ctx, f.node); ok && int64(len(data)) == size {
			f.data, f.win = data, nil
			continue
		}
		want := min(max(int64(len(b)-n), rangeWindow), size-pos)
		data, full, err := s.pages.ResolveRange(ctx, rr, f.node, pos, want)
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		if full {
			f.data, f.win = data, nil
			continue
		}
		f.win, f.winOff = data, pos
	}
	return n, nil
}

func (f *file) Read(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	}
	if f.off != 0 {
		if rr, ok := f.ranger(); ok {
			if f.off >= f.node.Entry.Size {
				return 0, io.EOF
			}
			n, err := f.readRangeLocked(rr, b, f.off, false)
			f.off += int64(n)
			if n == 0 && err == nil && len(b) > 0 {
				err = io.EOF
			}
			return n, err
		}
	}
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
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrInvalid}
	}
	if rr, ok := f.ranger(); ok {
		if off >= f.node.Entry.Size {
			return 0, io.EOF
		}
		n, err := f.readRangeLocked(rr, b, off, true)
		if err == nil && n < len(b) {
			err = io.EOF
		}
		return n, err
	}
	if err := f.loadLocked("read"); err != nil {
		return 0, err
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
			size, ok = f.fsys.s.pages.KnownSize(f.node)
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
	f.data, f.win = nil, nil
	return nil
}
