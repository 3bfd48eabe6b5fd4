package webdavfs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"golang.org/x/net/webdav"

	"github.com/chromafs/chromafs/adapters/internal/attr"
	"github.com/chromafs/chromafs/fscap"
)

// writeFlags are the OpenFile flags that would change the filesystem.
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREATE | os.O_TRUNC

// NewFileSystem returns a read-only webdav.FileSystem over fsys.
//
// OpenFile with a read-only flag and Stat are metadata-only when fsys's
// Open and Stat are (chromafs's are): content is fetched on the first Read
// of a returned file. OpenFile with any write flag, Mkdir, RemoveAll,
// Rename and File.Write return an *fs.PathError wrapping
// fscap.ErrReadOnly. Missing and invalid names give errors for which
// os.IsNotExist is true; other failures (an unreachable store) are
// returned as errors that are not *fs.PathError, so that webdav.Handler
// aborts a PROPFIND instead of silently leaving the entry out.
//
// When fsys implements fscap.BindContextFS (*chromafs.FS does), every call
// binds the context it is given (the request's, under
// webdav.Handler) to the reads it starts, through the view BindContext
// returns (see the package documentation, "Request contexts").
func NewFileSystem(fsys fs.FS) webdav.FileSystem {
	return &fileSystem{fsys: fsys}
}

type fileSystem struct {
	fsys fs.FS

	// pin, when not nil, is returned once by OpenFile for pinName instead
	// of opening it: the handler loads a page before GET so that a failed
	// read becomes an error status, not a truncated 200.
	pinName string
	pin     webdav.File
}

var _ webdav.FileSystem = (*fileSystem)(nil)

// view returns fsys bound to ctx when it can be (see fscap.Bind).
func (w *fileSystem) view(ctx context.Context) fs.FS {
	return fscap.Bind(ctx, w.fsys)
}

// fsName maps a WebDAV name ("/a/b", "/") to an io/fs name ("a/b", ".").
func fsName(name string) string {
	if name == "" || name[0] != '/' {
		name = "/" + name
	}
	name = path.Clean(name)
	if name == "/" {
		return "."
	}
	return name[1:]
}

// readOnly is the error of every write.
func readOnly(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: fscap.ErrReadOnly}
}

// storeError is a failure other than a missing file: not an *fs.PathError,
// so that webdav.Handler does not mistake it for "skip this entry".
type storeError struct {
	op, name string
	err      error
}

func (e *storeError) Error() string { return "webdavfs: " + e.op + " " + e.name + ": " + e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// mapError normalises an error of fsys for webdav.Handler.
func mapError(op, name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid):
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	case errors.Is(err, fs.ErrPermission):
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrPermission}
	}
	return &storeError{op: op, name: name, err: err}
}

func (w *fileSystem) Mkdir(ctx context.Context, name string, perm os.FileMode) error {
	return readOnly("mkdir", name)
}

func (w *fileSystem) RemoveAll(ctx context.Context, name string) error {
	return readOnly("remove", name)
}

func (w *fileSystem) Rename(ctx context.Context, oldName, newName string) error {
	return &os.LinkError{Op: "rename", Old: oldName, New: newName, Err: fscap.ErrReadOnly}
}

func (w *fileSystem) OpenFile(ctx context.Context, name string, flag int, perm os.FileMode) (webdav.File, error) {
	if flag&writeFlags != 0 {
		return nil, readOnly("open", name)
	}
	if w.pin != nil && name == w.pinName {
		f := w.pin
		w.pin = nil
		return f, nil
	}
	n := fsName(name)
	f, err := w.view(ctx).Open(n)
	if err != nil {
		return nil, mapError("open", name, err)
	}
	return &file{f: f, name: name, base: path.Base(n)}, nil
}

func (w *fileSystem) Stat(ctx context.Context, name string) (os.FileInfo, error) {
	n := fsName(name)
	fi, err := fs.Stat(w.view(ctx), n)
	if err != nil {
		return nil, mapError("stat", name, err)
	}
	return &fileInfo{FileInfo: fi, name: path.Base(n)}, nil
}

// sizedInfo is a FileInfo from fscap.StatNoRead whose size became known by a
// read.
type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (fi sizedInfo) Size() int64 { return fi.size }

// fileInfo adds webdav.ETager and webdav.ContentTyper to a FileInfo, so
// that PROPFIND takes both from the tree instead of opening and sniffing
// the file. Sys() is the wrapped FileInfo's (chromafs: the *tree.Entry).
type fileInfo struct {
	fs.FileInfo
	name string // base name of the path, for the content type by extension
}

var _ interface {
	webdav.ETager
	webdav.ContentTyper
} = (*fileInfo)(nil)

// ETag returns attr.ETag of the file; directories have none.
func (fi *fileInfo) ETag(ctx context.Context) (string, error) {
	if fi.IsDir() {
		return "", webdav.ErrNotImplemented
	}
	return attr.ETag(fi.FileInfo), nil
}

// ContentType returns attr.ServedType of the file (active content such as
// HTML as text/plain); directories have none.
func (fi *fileInfo) ContentType(ctx context.Context) (string, error) {
	if fi.IsDir() {
		return "", webdav.ErrNotImplemented
	}
	return attr.ServedType(fi.name, fi.FileInfo, false), nil
}

// file is a webdav.File over an open fs.File.
type file struct {
	f    fs.File
	name string // WebDAV name, for errors
	base string // base name, for the content type
}

var _ interface {
	webdav.File
	webdav.ETager
	webdav.ContentTyper
} = (*file)(nil)

func (f *file) Read(b []byte) (int, error) {
	n, err := f.f.Read(b)
	if err != nil && err != io.EOF {
		err = mapError("read", f.name, err)
	}
	return n, err
}

func (f *file) Seek(offset int64, whence int) (int64, error) {
	s, ok := f.f.(io.Seeker)
	if !ok {
		return 0, &storeError{op: "seek", name: f.name, err: errors.ErrUnsupported}
	}
	off, err := s.Seek(offset, whence)
	if err != nil {
		err = mapError("seek", f.name, err)
	}
	return off, err
}

// Readdir returns the directory's entries (all of them, with a nil error
// at the end, for count <= 0; at most count, with io.EOF at the end,
// otherwise).
func (f *file) Readdir(count int) ([]os.FileInfo, error) {
	d, ok := f.f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: errors.New("not a directory")}
	}
	ents, err := d.ReadDir(count)
	if err != nil && err != io.EOF {
		return nil, mapError("readdir", f.name, err)
	}
	infos := make([]os.FileInfo, 0, len(ents))
	for _, e := range ents {
		fi, ierr := e.Info()
		if ierr != nil {
			return nil, mapError("readdir", f.name, ierr)
		}
		infos = append(infos, &fileInfo{FileInfo: fi, name: e.Name()})
	}
	return infos, err
}

func (f *file) Stat() (os.FileInfo, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return nil, mapError("stat", f.name, err)
	}
	return &fileInfo{FileInfo: fi, name: f.base}, nil
}

// ETag returns the entity tag of the open file (see fileInfo.ETag).
func (f *file) ETag(ctx context.Context) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	return fi.(*fileInfo).ETag(ctx)
}

// ContentType returns the content type of the open file (see
// fileInfo.ContentType).
func (f *file) ContentType(ctx context.Context) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	return fi.(*fileInfo).ContentType(ctx)
}

func (f *file) Write(b []byte) (int, error) { return 0, readOnly("write", f.name) }

func (f *file) Close() error { return f.f.Close() }

// memFile is a page loaded before webdav.Handler serves it (see
// fileSystem.pin).
type memFile struct {
	*bytes.Reader
	info *fileInfo
	name string
}

func (f *memFile) Stat() (os.FileInfo, error) { return f.info, nil }
func (f *memFile) Readdir(int) ([]os.FileInfo, error) {
	return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: errors.New("not a directory")}
}
func (f *memFile) Write([]byte) (int, error) { return 0, readOnly("write", f.name) }
func (f *memFile) Close() error              { return nil }

// noLocks is a webdav.LockSystem that grants no lock: the handler is
// DAV class 1 and never lets LOCK, UNLOCK or a write reach webdav.Handler,
// so it is never called; if it were, it would refuse.
type noLocks struct{}

func (noLocks) Confirm(time.Time, string, string, ...webdav.Condition) (func(), error) {
	return nil, webdav.ErrConfirmationFailed
}

func (noLocks) Create(time.Time, webdav.LockDetails) (string, error) {
	return "", webdav.ErrForbidden
}

func (noLocks) Refresh(time.Time, string, time.Duration) (webdav.LockDetails, error) {
	return webdav.LockDetails{}, webdav.ErrNoSuchLock
}

func (noLocks) Unlock(time.Time, string) error { return webdav.ErrNoSuchLock }
