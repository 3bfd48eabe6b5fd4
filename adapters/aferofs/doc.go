// Package aferofs exposes any io/fs.FS — typically a *chromafs.FS — as a
// read-only afero.Fs, for code written against github.com/spf13/afero.
//
//	afs := aferofs.New(fsys)
//	data, err := afero.ReadFile(afs, "/guides/quickstart.md")
//
// It does not use afero.FromIOFS, which accepts write flags in OpenFile.
//
// # Paths
//
// afero passes OS-style paths. "/a/b", "a/b", "./a/b" and "a//b" all name
// the fs.FS file "a/b"; "", ".", "/" and ".." at the root name the root
// (an absolute path is cleaned as the OS cleans it, so "/../a" is "a").
// A relative path that climbs out of the root, such as "../x", does not
// exist. Backslashes are separators only where the OS says so.
//
// # Read-only
//
// Create, Mkdir, MkdirAll, Remove, RemoveAll, Rename, Chmod, Chown,
// Chtimes and SymlinkIfPossible, and OpenFile with any of O_WRONLY,
// O_RDWR, O_APPEND, O_CREATE, O_TRUNC or O_EXCL, fail without looking the
// path up (so a hidden page and a missing one answer alike), with an
// *os.PathError wrapping fscap.ErrReadOnly: errors.Is(err,
// fs.ErrPermission) and errors.Is(err, syscall.EROFS) both hold. (Rename
// reports the old name as the path.) On an open file, Write, WriteAt,
// WriteString, Truncate and Sync fail the same way.
//
// # Errors
//
// Other errors come from the fs.FS, re-wrapped in an *os.PathError that
// names the path as the caller spelled it: a missing or hidden page
// wraps fs.ErrNotExist (os.IsNotExist and afero.Exists see it), an
// invalid name fs.ErrInvalid, a failed read the underlying error.
//
// # Files
//
// Open is as cheap as the fs.FS's Open (metadata only on chromafs). Read,
// Stat, Readdir, Readdirnames, Name and Close always work; ReadAt and
// Seek work when the fs.FS's files implement io.ReaderAt and io.Seeker
// (chromafs's do) and otherwise fail with errors.ErrUnsupported.
// Readdir and Readdirnames follow os.File: n > 0 returns at most n entries
// and io.EOF at the end, n <= 0 returns all that remain.
package aferofs
