package chromafs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"syscall"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/pointer"
)

// ErrReadOnly is returned (wrapped in an *fs.PathError where a path is
// involved) by every operation that would change the filesystem. It
// matches both fs.ErrPermission and syscall.EROFS with errors.Is:
//
//	errors.Is(err, chromafs.ErrReadOnly)  // true
//	errors.Is(err, fs.ErrPermission)      // true
//	errors.Is(err, syscall.EROFS)         // true
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

// IsUnavailable reports whether err means that an upstream (the store,
// typically) could not be reached or did not answer in time, so that the
// same request may succeed later: a refused, reset or aborted connection,
// an unreachable host or network, a DNS failure or any other net.Error, a
// connection that closed in mid-answer (io.ErrUnexpectedEOF), or a
// timeout (context.DeadlineExceeded, ETIMEDOUT). An error in the chain
// with a method Unavailable() bool decides by itself (a store may say so
// of its server's 502, 503 and 504 answers). It is false for nil, for
// context.Canceled (the caller gave up) and for errors of content, such
// as ErrNoTree, tree.ErrMalformed, ErrCorruptPage or fs.ErrNotExist.
//
// A server maps such errors to 503 Service Unavailable and its readiness
// probe to "not ready". It does not tell which upstream failed: a lazy
// pointer whose URL cannot be reached is unavailable too (its Entry.URL is
// set; see FileInfo.Sys).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var u interface{ Unavailable() bool }
	if errors.As(err, &u) {
		return u.Unavailable()
	}
	if errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	for _, errno := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ETIMEDOUT, syscall.EPIPE} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// Errors of the collection's content that FS operations return, wrapped.
// They are the values of package collection, so errors.Is matches either
// name.
var (
	// ErrNoTree is wrapped by New's error when the collection has no path
	// tree record: collection.ErrNoTree.
	ErrNoTree = collection.ErrNoTree

	// ErrCorruptPage is wrapped by errors about a page whose chunks cannot
	// be reassembled (see collection.Assemble): a missing, duplicate or
	// invalid chunk index, no chunks at all, or content that disagrees with
	// the size or hash the tree records. Such a page is never served
	// partially. It is collection.ErrCorruptPage.
	ErrCorruptPage = collection.ErrCorruptPage
)

// Errors of lazy file pointers (see package pointer) that reads return,
// wrapped. They are the values of package pointer, so errors.Is matches
// either name.
var (
	// ErrLazyPointer is wrapped by errors from reading a page whose tree
	// entry points at content stored outside the collection (a lazy file
	// pointer) when no resolver fetches it: there is none
	// (WithResolver(nil)), the resolver does not handle the pointer's
	// scheme, or its policy refused the URL (then with pointer.ErrBlocked).
	// It is pointer.ErrLazy.
	ErrLazyPointer = pointer.ErrLazy

	// ErrBrokenPointer is wrapped by errors from reading a lazy file
	// pointer whose target does not hold the content the tree promises: a
	// status other than 2xx (a 404 included), a size or sha256 hash other
	// than the entry declares, or more than the resolver's limit. Such
	// content is never served, not even in part. It is pointer.ErrBroken.
	ErrBrokenPointer = pointer.ErrBroken
)
