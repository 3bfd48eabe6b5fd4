package chromafs

import (
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/pointer"
)

// Errors of the collection's content that FS operations return, wrapped.
// They are the values of package collection, so errors.Is matches either
// name, and fscap.ErrContent.
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
// either name, and fscap.ErrContent.
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
