package tree

import "fmt"

// Limits bound the work of [ParseLimited] on a document: how many bytes
// its decoded (for a compressed document, inflated) JSON text may hold.
// A compressed document is inflated as it is parsed, never whole, so the
// limits bound time; memory is bounded by the entries kept.
//
// A document may hold at most MaxBytes, and at any point of its reading
// at most BaseBytes plus BytesPerEntry for each valid entry read so far:
// a small compressed record that inflates to gigabytes of white space or
// of ignored values fails after about BaseBytes, while a tree of n
// entries of any realistic size (chromafs writes 60 to 250 bytes an
// entry) is read whole. Exceeding either is an error wrapping
// [ErrTooLarge].
type Limits struct {
	// MaxBytes is the most bytes the decoded document may hold; 0 means
	// DefaultMaxBytes. Raise it for a tree of more than about four
	// million entries.
	MaxBytes int64
	// BytesPerEntry is how many decoded bytes each valid entry allows
	// beyond BaseBytes; 0 means DefaultBytesPerEntry.
	BytesPerEntry int64
}

// Defaults of [Limits], and the bytes that a document may hold before
// its first valid entry.
const (
	DefaultMaxBytes      = 1 << 30
	DefaultBytesPerEntry = 16 << 10
	BaseBytes            = 1 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.BytesPerEntry <= 0 {
		l.BytesPerEntry = DefaultBytesPerEntry
	}
	return l
}

// ErrTooLarge is wrapped by the error Parse returns for a document that
// decodes to more bytes than its [Limits] allow. It wraps ErrMalformed.
var ErrTooLarge = fmt.Errorf("%w: decoded document too large", ErrMalformed)

// ErrNoEntries is wrapped by the error Parse returns for a document that
// has entries none of which is valid: serving it would show an empty tree
// as if nothing were wrong. (A document that is an empty object is an
// empty tree, not an error.) It wraps ErrMalformed.
var ErrNoEntries = fmt.Errorf("%w: no valid entry", ErrMalformed)
