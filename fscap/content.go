package fscap

import "errors"

// ErrContent is matched, with errors.Is, by the errors of a filesystem
// whose source answered but did not deliver content it can serve: a
// missing or malformed tree of paths, a page whose chunks do not
// assemble into what the tree records, a lazy file pointer that is not
// fetched or whose target does not hold what the tree promises. The same
// request fails the same way until the source changes, so a server
// answers 502 Bad Gateway rather than 503 (IsUnavailable) or 500.
//
// The packages that define such errors (chromafs's collection, tree and
// pointer) make them with NewContentError, which keeps their own names
// and texts: errors.Is(err, collection.ErrCorruptPage) still holds, and
// so does errors.Is(err, fscap.ErrContent), so that a server need not
// import them.
var ErrContent = errors.New("content not delivered")

// NewContentError returns a new error with the given text that matches
// ErrContent with errors.Is. Each call returns a distinct error, as
// errors.New does.
func NewContentError(text string) error {
	return &contentError{text}
}

type contentError struct{ s string }

func (e *contentError) Error() string { return e.s }

// Is reports whether target is ErrContent.
func (e *contentError) Is(target error) bool { return target == ErrContent }
