package tree

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/chromafs/chromafs/fscap"
)

// ErrMalformed is wrapped by the error Parse returns for a document that
// cannot be read at all: not JSON, a top level that is not an object, broken
// base64 or gzip, truncated input. It matches fscap.ErrContent.
var ErrMalformed = fscap.NewContentError("malformed tree document")

// Entry is one page of the tree.
type Entry struct {
	// Slug is the page's path: slash-separated, relative, clean.
	Slug string
	// IsPublic reports whether every user may see the page.
	IsPublic bool
	// HasIsPublic reports whether the document had an isPublic field; a
	// missing one counts as false.
	HasIsPublic bool
	// Groups are the groups whose members may see the page. It may be nil.
	Groups []string
	// Size is the content's length in bytes, or -1 when unknown.
	Size int64
	// ModTime is the content's modification time (UTC, no monotonic clock
	// reading), or the zero Time when unknown.
	ModTime time.Time
	// Hash is a content hash such as "sha256:<hex>", or "".
	Hash string
	// ContentType is the content's MIME type, or "".
	ContentType string
	// URL points at content stored outside the collection (a lazy file
	// pointer), or is "".
	URL string
	// Chunks is the number of chunks of the page, or 0 when unknown.
	Chunks int
	// SplitLines reports that the page's chunks may be cut mid-line.
	SplitLines bool
	// Parts, for a page of a collection that another tool wrote
	// (chromafs adopt), says how to reassemble the page from its chunks:
	// their ids in page order, the bytes each repeats of the one before,
	// the whitespace put between them, and how exact the result is, in
	// package adopt's encoding. It is "" for a page in chromafs's layout,
	// whose chunks are found by slug and index.
	Parts string
}

// Attributes returns the entry's content type, hash, pointer URL and
// access, for fscap.AttributesOf: chromafs's FileInfo.Sys is the page's
// *Entry (a nil one for a directory, for which ok is false). Groups is the
// entry's own slice.
func (e *Entry) Attributes() (a fscap.Attributes, ok bool) {
	if e == nil {
		return fscap.Attributes{}, false
	}
	return fscap.Attributes{
		ContentType: e.ContentType,
		Hash:        e.Hash,
		URL:         e.URL,
		Public:      e.IsPublic,
		Groups:      e.Groups,
		Reassembly:  reassembly(e.Parts),
	}, true
}

// reassembly returns fscap.Attributes.Reassembly for an entry's parts:
// their exactness ("x") and why ("w"), or "" without parts. Parts that
// do not decode say so (reading the page fails with the reason).
func reassembly(parts string) string {
	if parts == "" {
		return ""
	}
	var r struct {
		X string `json:"x"`
		W string `json:"w"`
	}
	if err := json.Unmarshal([]byte(parts), &r); err != nil || r.X == "" {
		return "unknown: the tree's parts of the page do not decode"
	}
	if r.W == "" {
		return r.X
	}
	return r.X + ": " + r.W
}

// Visible reports whether the entry is visible to a user with the given
// groups: IsPublic, or Groups intersects groups. Empty group names never
// match.
func (e *Entry) Visible(groups []string) bool {
	if e.IsPublic {
		return true
	}
	for _, g := range e.Groups {
		if g == "" {
			continue
		}
		for _, u := range groups {
			if g == u {
				return true
			}
		}
	}
	return false
}

// Problem is an entry of the document that was skipped, and why.
type Problem struct {
	Slug   string
	Reason string
}

// String returns the quoted slug and the reason, for example
// `"../x": unsafe slug: .. element`.
func (p Problem) String() string {
	return strconv.Quote(p.Slug) + ": " + p.Reason
}
