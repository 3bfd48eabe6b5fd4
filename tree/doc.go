// Package tree parses, validates, prunes and indexes the path tree of a
// chromafs collection: the one record whose document maps every page slug
// to its access rules and metadata.
//
// The package is pure: it uses the standard library only and does no I/O.
// [Parse] (or [New]) gives an immutable [Tree]; [Tree.View] derives the
// directory index that one user may see, and caches it per group set.
//
// # Format
//
// The document is a JSON object that maps a slug to an entry:
//
//	{
//	  "auth/oauth.md":       {"isPublic": true,  "groups": []},
//	  "internal/billing.md": {"isPublic": false, "groups": ["admin", "billing"]}
//	}
//
// It is stored either as plain JSON or gzip-compressed and then base64
// encoded. Parse detects which: when the first byte that is not white space
// (after an optional UTF-8 byte order mark) is '{' (or '[' or '"', which can
// only be a malformed plain document) the document is JSON; otherwise it is
// base64 (standard or URL alphabet, padded or not, line breaks allowed)
// that decodes to a gzip stream that decompresses to JSON. A raw gzip stream
// (starting with the gzip magic bytes) is accepted too.
//
// An entry is an object with these fields; every other field is ignored,
// and field names are matched exactly (case-sensitively):
//
//	isPublic     boolean            missing or null counts as false (see Access control)
//	groups       array of strings   may be missing or null
//	size         integer >= 0       content length in bytes
//	modTime      string or number   RFC 3339 time, or Unix seconds (may have a fraction)
//	hash         string             content hash, for example "sha256:<hex>"
//	contentType  string             MIME type
//	url          string             lazy pointer: the content is stored elsewhere
//	chunks       integer >= 0       number of chunks of the page
//	splitLines   boolean            the page's chunks may be cut mid-line
//	parts        string             how to reassemble a page another tool wrote (chromafs adopt)
//
// Only isPublic and groups are written by older writers; every other field
// is optional, and null (or "" for modTime) counts as absent. [Encode] writes
// the format deterministically, keys in path order (see Index), which Parse
// reads fastest; it always writes isPublic and groups, and the optional
// fields only when they are set.
//
// A plain document is parsed in place: the strings of the entries are
// slices of one copy of it. A compressed document is never inflated whole:
// it is decoded (base64, then gzip) and parsed as a stream, a window of
// 64 KiB at a time, and the strings of the entries are copied out of the
// window, so a parse holds the entries and one window.
//
// # Limits
//
// A small compressed record can inflate to gigabytes (a "zip bomb": JSON
// padded with white space, or a huge ignored value). Parse bounds the
// decoded document by [Limits]: at most Limits.MaxBytes in all (default
// 1 GiB, [DefaultMaxBytes]), and at any point of the reading at most
// [BaseBytes] (1 MiB) plus Limits.BytesPerEntry (default 16 KiB,
// [DefaultBytesPerEntry]) for each valid entry read so far. chromafs
// writes 60 to 250 bytes an entry, so real trees are far within these
// bounds, while a record that inflates to white space or ignored values
// fails after about 1 MiB of inflating, in milliseconds. Exceeding a limit
// is an error wrapping [ErrTooLarge] that names the limit; [ParseLimited]
// raises them. The same limits apply to plain documents.
//
// A document that has entries but none that is valid is an error wrapping
// [ErrNoEntries] that names the first problems: serving it would show an
// empty tree as if all were well. A document that is an empty object
// ("{}") is an empty tree.
//
// # Validation
//
// Parse never rewrites a slug and never serves a doubtful entry: an entry
// that fails a check is skipped and reported by [Tree.Problems], and the
// rest of the tree is served. An entry is skipped when
//
//   - its slug is empty, absolute ("/x"), has an empty element ("a//b", a
//     trailing "/"), a "." or ".." element, a backslash, a control
//     character (C0, DEL or C1, including NUL) or invalid UTF-8 (including
//     a lone UTF-16 surrogate escape): the slug must be a valid [io/fs.ValidPath]
//     other than "." and pass those extra checks;
//   - its value is not an object, a known field has the wrong type ("isPublic":
//     "yes", a non-string group, a negative or fractional size, an unparsable
//     modTime), or a known field appears twice in the entry;
//   - its slug appears again later in the document: the last occurrence
//     decides (even when it is itself skipped) and every earlier one is
//     reported (see Duplicate slugs);
//   - it clashes (see Clashes).
//
// The document as a whole is rejected, with an error that wraps
// [ErrMalformed] and says what is wrong, when it is not valid JSON (including
// truncation and trailing data), its top level is not an object, its base64
// or gzip encoding is broken (including its checksum), it exceeds its
// [Limits], or it has entries and none of them is valid.
//
// # Duplicate slugs
//
// JSON allows a name twice in an object, and the tools that writers use to
// make and review trees keep the last occurrence (JavaScript's JSON.parse,
// Python's json, Go's encoding/json, jq). chromafs keeps the last one too,
// so that the access rule a writer or reviewer sees with those tools is
// the rule chromafs enforces: with "first wins", a tree whose last "a" is
// private (as every such tool shows it) would serve the first, public "a"
// to everyone. When the last occurrence is itself invalid, the slug is
// skipped altogether (fail closed) rather than served by an earlier
// occurrence. Every overridden occurrence is reported by [Tree.Problems]
// as "duplicate slug", and validation tools flag it: a tree should not
// have duplicates.
//
// # Access control
//
// A page is visible to a user iff its isPublic is true or its groups
// intersect the user's groups ([Entry.Visible]). A missing isPublic counts as
// false, so a page without it is visible only through its groups (fail
// closed); [Entry.HasIsPublic] records the omission so that validation tools
// can warn. Empty group names never match.
//
// [Tree.View] prunes hidden pages before it adds the directories that the
// visible slugs imply, so a directory that holds no visible page does not
// exist in that view: a hidden page and a hidden directory are
// indistinguishable from missing ones. An empty set of groups sees the public
// pages only; a view with no visible page is an empty root directory.
//
// # Clashes
//
// A slug that names a file and is also a directory prefix of other slugs
// ("a" and "a/b") cannot be both. The clash is decided on the unpruned tree,
// so that every user sees the same shape whatever their groups: the
// directory wins, and the file slug is skipped and reported. The decision
// depends only on the set of valid slugs, not on their order in the
// document.
//
// # Index
//
// A [View] holds every node (root, implied directories, files) in one slice,
// in path order (the order of [io/fs.WalkDir]: depth first, children sorted by
// name), and the children of each directory as one contiguous, name-sorted
// range of a second slice, as archive/zip's reader does; names are slices
// of the paths. Lookup finds a node by binary search in path order for the
// first 64 lookups of a tree's views, then through a hash index from path
// to node (open addressing, built in one allocation on the 65th, O(1)), so
// that a process that looks up a few paths never builds it; ReadDir
// returns a sub-slice and allocates nothing.
//
// A pruned view shares the nodes, children and index of the unpruned one
// ([Tree.All], built once per tree) and adds a visibility mask over its
// nodes: the files whose access rule the groups satisfy (the entries'
// rules are interned once per tree, so a view evaluates each distinct rule
// once) and the directories above them, marked in one pass in reverse path
// order. Lookup and Walk skip hidden nodes; ReadDir filters a directory's
// children on its first listing and keeps the result (the shared range
// itself when nothing in it is hidden). Building a view for a new set of
// groups thus costs one pass over the node array, not a new index.
//
// # Lazy trees
//
// [NewLazy] makes a tree from a summary ([Source]: the access rules with
// their counts, the blocks of entries with their first slugs, and the
// directory table of [Summarize]: each directory's range of entries and
// the rules below it with their newest times) and a decoder that gives a
// block's entries. It checks the summary at once and decodes a block when
// an operation first needs it: Lookup of a file decodes one block, ReadDir
// the blocks of the directory's own files (its subdirectories come from
// the table), Walk and Entries all of them (in parallel). A view of a lazy
// tree is a table of the rules its groups allow: a directory is visible
// when one of the rules below it is, Files sums the rules' counts, and a
// directory's time is the newest of its allowed rules' times, so a view
// costs a pass over the table, not over the entries. Its answers are
// those of the tree New makes of the same entries. Package treeindex reads
// its index this way.
//
// # Directory times
//
// Directories have no entries, so no times of their own: [View.ModTime]
// gives a directory the newest ModTime of the view's files below it
// (hidden files never count, so a directory's time reveals nothing about
// hidden pages), computed for every directory of the view in one more
// pass on first use, or the zero Time when none of them has one.
package tree
