package fscap

import (
	"context"
	"io/fs"
)

// CandidatesFS is implemented by filesystems that can narrow a search
// before reading files: a coarse filter that rules out files which cannot
// contain any of a set of literals, without reading them.
type CandidatesFS interface {
	fs.FS

	// Candidates returns the subset of names (regular files of the
	// filesystem, as fs.ValidPath names) whose content may contain at least
	// one of literals, compared case-insensitively (Unicode simple folding)
	// when fold is set. It must return every name whose content contains
	// one of them, may return more, must never return a name that is not
	// in names, and must not query anything when names is empty. The
	// order of the result is unspecified.
	Candidates(ctx context.Context, names []string, literals []string, fold bool) ([]string, error)
}

// Candidates returns the names of files that may contain one of literals
// (see CandidatesFS.Candidates). If fsys does not implement CandidatesFS,
// every name may: Candidates returns names itself and a nil error.
//
// A consumer that behaves differently when there is no filter to ask
// (grepx plans its reads around it) asserts CandidatesFS itself.
func Candidates(ctx context.Context, fsys fs.FS, names []string, literals []string, fold bool) ([]string, error) {
	if c, ok := fsys.(CandidatesFS); ok {
		return c.Candidates(ctx, names, literals, fold)
	}
	return names, nil
}
