package aferofs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/spf13/afero"
)

// file is an open file or directory of an Fs.
type file struct {
	f    fs.File
	name string // as the caller spelled it
}

var _ afero.File = (*file)(nil)

func (f *file) Name() string { return f.name }

func (f *file) Close() error {
	if err := f.f.Close(); err != nil {
		return pathError("close", f.name, err)
	}
	return nil
}

func (f *file) Stat() (os.FileInfo, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return nil, pathError("stat", f.name, err)
	}
	return fi, nil
}

func (f *file) Read(b []byte) (int, error) {
	n, err := f.f.Read(b)
	if err != nil && err != io.EOF {
		err = pathError("read", f.name, err)
	}
	return n, err
}

func (f *file) ReadAt(b []byte, off int64) (int, error) {
	ra, ok := f.f.(io.ReaderAt)
	if !ok {
		return 0, &os.PathError{Op: "read", Path: f.name, Err: errors.ErrUnsupported}
	}
	n, err := ra.ReadAt(b, off)
	if err != nil && err != io.EOF {
		err = pathError("read", f.name, err)
	}
	return n, err
}

func (f *file) Seek(offset int64, whence int) (int64, error) {
	s, ok := f.f.(io.Seeker)
	if !ok {
		return 0, &os.PathError{Op: "seek", Path: f.name, Err: errors.ErrUnsupported}
	}
	n, err := s.Seek(offset, whence)
	if err != nil {
		return n, pathError("seek", f.name, err)
	}
	return n, nil
}

// readDir reads directory entries with os.File's conventions.
func (f *file) readDir(n int) ([]fs.DirEntry, error) {
	d, ok := f.f.(fs.ReadDirFile)
	if !ok {
		return nil, &os.PathError{Op: "readdir", Path: f.name, Err: syscall.ENOTDIR}
	}
	ents, err := d.ReadDir(n)
	if err != nil && err != io.EOF {
		err = pathError("readdir", f.name, err)
	}
	return ents, err
}

func (f *file) Readdir(n int) ([]os.FileInfo, error) {
	ents, err := f.readDir(n)
	infos := make([]os.FileInfo, 0, len(ents))
	for _, e := range ents {
		fi, ierr := e.Info()
		if ierr != nil {
			return infos, pathError("readdir", f.name, ierr)
		}
		infos = append(infos, fi)
	}
	return infos, err
}

func (f *file) Readdirnames(n int) ([]string, error) {
	ents, err := f.readDir(n)
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names, err
}

func (f *file) Write([]byte) (int, error)          { return 0, readOnly("write", f.name) }
func (f *file) WriteAt([]byte, int64) (int, error) { return 0, readOnly("write", f.name) }
func (f *file) WriteString(string) (int, error)    { return 0, readOnly("write", f.name) }
func (f *file) Truncate(int64) error               { return readOnly("truncate", f.name) }
func (f *file) Sync() error                        { return readOnly("sync", f.name) }
