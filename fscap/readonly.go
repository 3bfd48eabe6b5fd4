package fscap

import (
	"io/fs"
	"syscall"
)

// ErrReadOnly is returned (wrapped in an *fs.PathError, *os.PathError or
// *os.LinkError where a path is involved) by every operation of a
// read-only filesystem that would change it: the adapters' writes,
// OpenFile with a write flag, Mkdir, Remove, Rename. It matches both
// fs.ErrPermission and syscall.EROFS with errors.Is:
//
//	errors.Is(err, fscap.ErrReadOnly)  // true
//	errors.Is(err, fs.ErrPermission)   // true
//	errors.Is(err, syscall.EROFS)      // true
var ErrReadOnly error = readOnlyError{}

type readOnlyError struct{}

func (readOnlyError) Error() string { return "read-only file system" }

// Is reports whether target is fs.ErrPermission or syscall.EROFS.
func (readOnlyError) Is(target error) bool {
	return target == fs.ErrPermission || target == syscall.EROFS
}

// Unwrap returns syscall.EROFS, so that code that type-asserts the
// innermost error to syscall.Errno (as os and some WebDAV clients do)
// sees the errno.
func (readOnlyError) Unwrap() error { return syscall.EROFS }
