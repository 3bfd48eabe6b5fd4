// Package fscap declares the optional capabilities of an fs.FS that
// chromafs's front ends (grepx, search, gnu, mcpserver, the adapters) use
// when a filesystem has them, as io/fs declares ReadFileFS or StatFS: a
// consumer finds a capability by type assertion on the fs.FS it is given,
// or calls the package-level helper of the same name, which uses the
// capability when the filesystem has it and otherwise falls back to plain
// io/fs. It imports the standard library only, so that any filesystem can
// implement it and any front end can use it without linking chromafs.
//
// Each capability is one file: the interface (which embeds fs.FS, as
// fs.ReadDirFS does, and is named for its method), the helper, and what an
// implementation must guarantee. Every capability is an acceleration or a
// hint: a front end gives the same results over a filesystem that has none
// of them as over one that has them all.
//
//   - [CandidatesFS]: which of some files may contain one of some literals
//     (a coarse filter before reading).
//   - [PrefetchFS], [PrefetchEachFS]: load many files in few requests.
//   - [UncachedFS]: which files would cost a request to read.
//   - [ReadFileSharedFS]: a file's content without a copy.
//   - [StatNoReadFS]: a FileInfo that reads no content.
//   - [WalkDirFS]: a walk faster than fs.WalkDir through ReadDir.
//   - [BindContextFS]: a view whose reads use a request's context.
//   - [PreloadFS]: load every file in the background.
//   - [IsLazyFS]: which files are fetched from elsewhere when read.
//   - [QueryFS]: rank chunks by an embedding vector (semantic search).
//
// *chromafs.FS and its Sub and WithContext views implement all of them.
//
// # Attributes
//
// [Attributes] are what a filesystem records of a file beyond fs.FileInfo:
// its content type, content hash, the URL of a lazy file pointer, and who
// may see it. [AttributesOf] reads them from any fs.FileInfo whose Sys
// value (or which itself) implements [Attributer]; chromafs's FileInfo.Sys
// is the page's *tree.Entry, which does.
//
// # Errors
//
// [ErrReadOnly] is the error of every write on a read-only filesystem; it
// matches fs.ErrPermission and syscall.EROFS. [IsUnavailable] classifies
// the errors that mean "the source cannot be reached now; retry later",
// and [ErrContent] is matched by the errors of content that the source
// delivered wrongly (a malformed tree, a corrupt page, a broken pointer),
// so that a server can map both to statuses without knowing the
// filesystem.
package fscap
