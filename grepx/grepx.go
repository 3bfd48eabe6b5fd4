// Package grepx is grep over any fs.FS: the file selection, matching and
// output rules of GNU grep 3.8, as a library that streams structured
// results.
//
// Search walks the filesystem and reads files through io/fs. When the
// filesystem also implements fscap.CandidatesFS (chromafs.FS does), Search
// first asks it which files may contain a match, using literals that every
// match must contain, and reads only those; when it implements
// fscap.PrefetchFS, the candidates are loaded in bulk before matching.
// Both are accelerations only: results are the same as a plain walk and
// read. Package fscap lists the other capabilities it uses (UncachedFS,
// PrefetchEachFS, ReadFileSharedFS, WalkDirFS, IsLazyFS).
package grepx

import "github.com/chromafs/chromafs/regex"

// Query is one grep invocation.
type Query struct {
	// Patterns, Syntax, IgnoreCase, Word and Line are grep's -e/-f,
	// -G/-E/-F, -i, -w and -x; see package regex.
	Patterns   []string
	Syntax     regex.Syntax
	IgnoreCase bool
	Word       bool
	Line       bool

	// Invert selects non-matching lines (-v).
	Invert bool
	// Before and After are the context lines around each selected line
	// (-B, -A; -C sets both).
	Before, After int
	// MaxCount stops reading a file after that many selected lines (-m),
	// after printing the trailing context (whose lines are then context
	// lines even if they match, as in GNU grep). Zero means no limit; a
	// negative value selects nothing and reads nothing (grep -m 0).
	MaxCount int

	// Paths are the operands, as fs.ValidPath names ("." for the root).
	// Empty means ".".
	Paths []string
	// Recursive descends into directories (-r). Without it a directory
	// operand is reported as an error, as GNU grep does.
	Recursive bool
	// Globs are GNU grep's --include and --exclude options, in command
	// line order (the order matters: see FileGlob); ExcludeDir are its
	// --exclude-dir globs.
	Globs      []FileGlob
	ExcludeDir []string
	// Skip, if set, is asked about each directory and file that
	// Recursive finds below an operand (never about an operand itself),
	// by fs name, after Globs and ExcludeDir; what it returns true for is
	// left out, a directory with all below it. Front-ends with their own
	// file selection rules (ripgrep's hidden files and globs) use it.
	Skip func(name string, isDir bool) bool

	// Mode selects what is computed per file.
	Mode Mode

	// OnlyMatching fills Line.Matches (-o).
	OnlyMatching bool

	// MaxMatches, when positive, stops the search after that many selected
	// lines in total, and MaxBytes after that many bytes of line text;
	// Stats.Truncated then says so. They bound output for agents.
	MaxMatches int
	MaxBytes   int

	// SkipLazy leaves out the files that the filesystem reports as lazy
	// (fscap.IsLazyFS), operands and files found by recursion alike, so that a
	// search never fetches remote content. The results are then exact for
	// the other files only. It has no effect on other filesystems.
	SkipLazy bool

	// Trace, if set, is called as phases of the search end, for a caller
	// that reports where the time goes: "compile (N patterns)" once the
	// patterns are compiled, and, when the coarse filter is not used
	// although some files are uncached, a line that says why.
	Trace func(phase string)
}

// Mode is what Search computes per file.
type Mode int

const (
	// Lines reports selected lines (and context lines).
	Lines Mode = iota
	// Count reports only the number of selected lines (-c).
	Count
	// FilesWithMatches stops at the first selected line (-l, -q).
	FilesWithMatches
	// FilesWithoutMatch reports files with no selected line (-L).
	FilesWithoutMatch
)

// Line is a selected or context line.
type Line struct {
	// Number is the 1-based line number.
	Number int
	// Offset is the byte offset of the line in the file.
	Offset int64
	// Text is the line without its '\n'.
	Text []byte
	// Context is true for a context line (printed with '-' by grep).
	Context bool
	// Matches are the [start, end) byte ranges within Text that grep -o
	// prints, when Query.OnlyMatching is set: the matches of the pattern
	// in the line (context lines have some only with Invert, or after
	// MaxCount is reached). Matches that are not valid UTF-8 are left out
	// and mark the file Binary, as GNU grep does.
	Matches [][2]int
}

// File is the result for one file. Search delivers Files in walk order
// (operands in order, each directory in lexical order).
type File struct {
	// Operand is the index in Query.Paths of the operand the file was
	// found under; Path is its fs name.
	Operand int
	Path    string
	// Lines are the selected and context lines, in order (Mode Lines).
	Lines []Line
	// Count is the number of selected lines (up to MaxCount).
	Count int
	// Binary is true when the file holds binary data (a NUL byte) or a
	// selected line is not valid UTF-8; GNU grep then prints "binary file
	// matches" instead of lines. Lines holds what grep prints before that
	// message.
	Binary bool
	// Err is the error reading the file or directory, if any (GNU grep
	// prints it and goes on, and exits 2).
	Err error
}

// Stats describe a finished search.
type Stats struct {
	Files      int  // files in scope
	Candidates int  // files read (after the coarse filter)
	Coarse     bool // whether the coarse filter was used
	Truncated  bool // stopped by MaxMatches or MaxBytes
}

// files returns the query's --include and --exclude globs.
func (q *Query) files() []FileGlob { return q.Globs }
