package aferofs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/chromafs/chromafs/fscap"
)

// Fs is a read-only afero.Fs over an fs.FS. Create one with New; it is
// safe for concurrent use when the fs.FS is.
type Fs struct {
	fsys fs.FS
}

var (
	_ afero.Fs        = (*Fs)(nil)
	_ afero.Symlinker = (*Fs)(nil)
)

// New returns a read-only afero.Fs over fsys. It panics if fsys is nil.
func New(fsys fs.FS) afero.Fs {
	if fsys == nil {
		panic("aferofs: nil fs.FS")
	}
	return &Fs{fsys: fsys}
}

// writeFlags are the OpenFile flags that would change the filesystem.
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREATE | os.O_TRUNC | os.O_EXCL

// readOnly returns the error of a refused write on name.
func readOnly(op, name string) error {
	return &os.PathError{Op: op, Path: name, Err: fscap.ErrReadOnly}
}

// fsName maps an afero (OS-style) path to an fs.FS name. ok is false for a
// relative path that climbs out of the root.
func fsName(name string) (string, bool) {
	p := filepath.ToSlash(name)
	rooted := strings.HasPrefix(p, "/")
	p = path.Clean("/" + p)
	if !rooted {
		// Clean without the root, to see whether the path climbs out.
		if c := path.Clean(filepath.ToSlash(name)); c == ".." || strings.HasPrefix(c, "../") {
			return "", false
		}
	}
	if p == "/" {
		return ".", true
	}
	return p[1:], true
}

// pathError re-wraps err (usually an *fs.PathError naming the fs.FS name)
// as an *os.PathError naming the caller's path.
func pathError(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return &os.PathError{Op: op, Path: name, Err: err}
}

// Name returns "aferofs".
func (a *Fs) Name() string { return "aferofs" }

// Open opens the named file or directory for reading.
func (a *Fs) Open(name string) (afero.File, error) {
	p, ok := fsName(name)
	if !ok {
		return nil, &os.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f, err := a.fsys.Open(p)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	return &file{f: f, name: name}, nil
}

// OpenFile opens the named file for reading; any write flag (O_WRONLY,
// O_RDWR, O_APPEND, O_CREATE, O_TRUNC, O_EXCL) makes it fail with the
// read-only error. perm is ignored.
func (a *Fs) OpenFile(name string, flag int, _ os.FileMode) (afero.File, error) {
	if flag&writeFlags != 0 {
		return nil, readOnly("open", name)
	}
	return a.Open(name)
}

// Stat returns the FileInfo of the named file or directory.
func (a *Fs) Stat(name string) (os.FileInfo, error) {
	p, ok := fsName(name)
	if !ok {
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	fi, err := fs.Stat(a.fsys, p)
	if err != nil {
		return nil, pathError("stat", name, err)
	}
	return fi, nil
}

// LstatIfPossible is Stat: an fs.FS has no symbolic links. The boolean is
// always false.
func (a *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	fi, err := a.Stat(name)
	return fi, false, err
}

// ReadlinkIfPossible fails: an fs.FS has no symbolic links. It reports a
// missing path as missing, and any other as not a link (fs.ErrInvalid, as
// readlink(2) does with EINVAL).
func (a *Fs) ReadlinkIfPossible(name string) (string, error) {
	if _, err := a.Stat(name); err != nil {
		return "", pathError("readlink", name, err)
	}
	return "", &os.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
}

// Create fails: the filesystem is read-only.
func (a *Fs) Create(name string) (afero.File, error) { return nil, readOnly("open", name) }

// Mkdir fails: the filesystem is read-only.
func (a *Fs) Mkdir(name string, _ os.FileMode) error { return readOnly("mkdir", name) }

// MkdirAll fails: the filesystem is read-only.
func (a *Fs) MkdirAll(name string, _ os.FileMode) error { return readOnly("mkdir", name) }

// Remove fails: the filesystem is read-only.
func (a *Fs) Remove(name string) error { return readOnly("remove", name) }

// RemoveAll fails: the filesystem is read-only.
func (a *Fs) RemoveAll(name string) error { return readOnly("remove", name) }

// Rename fails: the filesystem is read-only. The error names oldname.
func (a *Fs) Rename(oldname, _ string) error { return readOnly("rename", oldname) }

// Chmod fails: the filesystem is read-only.
func (a *Fs) Chmod(name string, _ os.FileMode) error { return readOnly("chmod", name) }

// Chown fails: the filesystem is read-only.
func (a *Fs) Chown(name string, _, _ int) error { return readOnly("chown", name) }

// Chtimes fails: the filesystem is read-only.
func (a *Fs) Chtimes(name string, _, _ time.Time) error { return readOnly("chtimes", name) }

// SymlinkIfPossible fails: the filesystem is read-only. The error names
// newname, the link that would have been created.
func (a *Fs) SymlinkIfPossible(_, newname string) error { return readOnly("symlink", newname) }
