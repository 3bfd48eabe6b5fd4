package fscap

import "io/fs"

// Attributes are what a filesystem records of a file beyond fs.FileInfo.
// Empty strings mean "not recorded".
type Attributes struct {
	// ContentType is the content's MIME type.
	ContentType string
	// Hash is a hash of the content, such as "sha256:<hex>".
	Hash string
	// URL is where the content is fetched from when the file is read, for
	// a file stored outside the filesystem's store (a lazy file pointer).
	URL string
	// Public reports that every user may see the file; otherwise the
	// members of Groups may. Groups may be shared with the filesystem and
	// must not be modified.
	Public bool
	Groups []string
	// Reassembly says, for a file of a collection that another tool
	// wrote in overlapping, trimmed chunks (chromafs adopt), how exactly
	// it was put together from them: "exact", or "edges-assumed: " or
	// "inexact: " and which bytes were guessed. It is "" for a file
	// stored as it was written.
	Reassembly string
}

// Attributer is implemented by the Sys value of an fs.FileInfo (or by the
// FileInfo itself) that records Attributes. chromafs's FileInfo.Sys is the
// page's *tree.Entry, which implements it.
//
// The Sys value is where AttributesOf looks second, so that a wrapper of a
// FileInfo that embeds the fs.FileInfo interface (and so forwards Sys but
// hides the wrapped value's other methods) keeps the attributes.
type Attributer interface {
	// Attributes returns the file's attributes; ok is false when nothing
	// is recorded of it (a directory, a nil pointer), which consumers show
	// as no attributes at all rather than empty ones. It must not do I/O.
	Attributes() (a Attributes, ok bool)
}

// AttributesOf returns the attributes of the file that fi describes: those
// of fi when it implements Attributer, else those of fi.Sys() when that
// does; ok is false when neither does or the one that does records
// nothing.
func AttributesOf(fi fs.FileInfo) (a Attributes, ok bool) {
	if at, isAt := fi.(Attributer); isAt {
		return at.Attributes()
	}
	if at, isAt := fi.Sys().(Attributer); isAt {
		return at.Attributes()
	}
	return Attributes{}, false
}
