package grepx

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/gobwas/glob"

	"github.com/chromafs/chromafs/fscap"
)

// item is one file in scope, or an operand that could not be searched.
type item struct {
	operand int
	path    string
	err     error
}

// errIsDir is reported for a directory operand without Recursive, as GNU
// grep does ("Is a directory").
var errIsDir = errors.New("is a directory")

// ErrIsDir is wrapped by the File.Err of a directory operand when
// Query.Recursive is not set.
var ErrIsDir = errIsDir

// filter holds the compiled --include/--exclude/--exclude-dir globs.
//
// GNU grep keeps --include and --exclude in one ordered list: the last
// option whose glob matches decides, and a name that no glob matches is
// excluded exactly when the first option given was --include. Globs are
// fnmatch(3) patterns without flags ('*' also matches '/'). Files found
// while recursing are matched by base name; command-line operands by
// their whole name or any suffix that starts after a '/'.
type filter struct {
	files []fileGlob
	dirs  []glob.Glob
}

type fileGlob struct {
	g       glob.Glob
	include bool
}

// FileGlob is one --include (Include true) or --exclude glob, in command
// line order.
type FileGlob struct {
	Glob    string
	Include bool
}

func compileFilter(q *Query) (*filter, error) {
	f := &filter{}
	for _, fg := range q.files() {
		g, err := compileFnmatch(fg.Glob)
		if err != nil {
			return nil, err
		}
		f.files = append(f.files, fileGlob{g, fg.Include})
	}
	for _, d := range q.ExcludeDir {
		g, err := compileFnmatch(d)
		if err != nil {
			return nil, err
		}
		f.dirs = append(f.dirs, g)
	}
	return f, nil
}

// compileFnmatch compiles an fnmatch(3) pattern (no flags) with gobwas/glob,
// whose syntax is a superset: braces are escaped so they stay literal.
func compileFnmatch(p string) (glob.Glob, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
			continue
		case c == '[' && !inClass:
			// A '[' without a closing ']' is literal in fnmatch.
			if j := classEnd(p, i); j < 0 {
				b.WriteString(`\[`)
				continue
			}
			inClass = true
		case c == ']' && inClass:
			inClass = false
		case (c == '{' || c == '}' || c == ',') && !inClass:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	g, err := glob.Compile(b.String())
	if err != nil {
		return nil, &fs.PathError{Op: "glob", Path: p, Err: fs.ErrInvalid}
	}
	return g, nil
}

// classEnd returns the index of the ']' closing the bracket expression
// that starts at p[i], or -1.
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		if p[j] == ']' {
			return j
		}
	}
	return -1
}

// excludedFile applies --include/--exclude to a file; commandLine selects
// the operand rule (whole name or any suffix after a '/').
func (f *filter) excludedFile(name string, commandLine bool) bool {
	if len(f.files) == 0 {
		return false
	}
	for i := len(f.files) - 1; i >= 0; i-- {
		if matchName(f.files[i].g, name, commandLine) {
			return !f.files[i].include
		}
	}
	return f.files[0].include
}

func (f *filter) excludedDir(name string, commandLine bool) bool {
	for _, g := range f.dirs {
		if matchName(g, name, commandLine) {
			return true
		}
	}
	return false
}

func matchName(g glob.Glob, name string, commandLine bool) bool {
	if !commandLine {
		return g.Match(path.Base(name))
	}
	if g.Match(name) {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' && i+1 < len(name) && name[i+1] != '/' && g.Match(name[i+1:]) {
			return true
		}
	}
	return false
}

// scope lists the files a query searches, in GNU grep's order for one
// directory listing order (lexical here): operands in order, each
// directory depth first.
func scope(fsys fs.FS, q *Query, f *filter) []item {
	paths := q.Paths
	implicit := len(paths) == 0
	if implicit {
		paths = []string{"."}
	}
	var lazy fscap.IsLazyFS
	if q.SkipLazy {
		lazy, _ = fsys.(fscap.IsLazyFS)
	}
	skip := func(name string) bool { return lazy != nil && lazy.IsLazy(name) }
	var items []item
	for i, p := range paths {
		if !fs.ValidPath(p) {
			items = append(items, item{operand: i, path: p, err: &fs.PathError{Op: "open", Path: p, Err: fs.ErrInvalid}})
			continue
		}
		info, err := fs.Stat(fsys, p)
		if err != nil {
			items = append(items, item{operand: i, path: p, err: err})
			continue
		}
		if !info.IsDir() {
			if !f.excludedFile(p, true) && !skip(p) {
				items = append(items, item{operand: i, path: p})
			}
			continue
		}
		if !q.Recursive {
			items = append(items, item{operand: i, path: p, err: &fs.PathError{Op: "read", Path: p, Err: errIsDir}})
			continue
		}
		if !implicit && f.excludedDir(p, true) {
			continue
		}
		op := i
		visit := func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				items = append(items, item{operand: op, path: name, err: err})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if name != p && (f.excludedDir(name, false) || q.Skip != nil && q.Skip(name, true)) {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || f.excludedFile(name, false) || skip(name) || q.Skip != nil && q.Skip(name, false) {
				return nil
			}
			items = append(items, item{operand: op, path: name})
			return nil
		}
		if w, ok := fsys.(fscap.WalkDirFS); ok {
			err = w.WalkDir(p, visit)
		} else {
			err = walkDir(fsys, p, info, visit)
		}
		if err != nil {
			items = append(items, item{operand: op, path: p, err: err})
		}
	}
	return items
}

// walkDir is fs.WalkDir from root, whose FileInfo the caller has, with the
// same order, SkipDir and SkipAll handling and error reports, but without
// path.Join's Clean for each name: a directory entry's name is one path
// element, so joining is a concatenation (path.Join was a large part of
// a walk's time). A name that is not a single valid element is joined by
// path.Join, as fs.WalkDir would.
func walkDir(fsys fs.FS, root string, info fs.FileInfo, fn fs.WalkDirFunc) error {
	err := walk(fsys, root, fs.FileInfoToDirEntry(info), fn)
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

func walk(fsys fs.FS, name string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(name, d, nil); err != nil || !d.IsDir() {
		if err == fs.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	entries, err := fs.ReadDir(fsys, name)
	if err != nil {
		// Second call, to report the ReadDir error.
		err = fn(name, d, err)
		if err != nil {
			if err == fs.SkipDir && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	for _, e := range entries {
		if err := walk(fsys, joinElem(name, e.Name()), e, fn); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// joinElem is path.Join(dir, elem) for a valid dir.
func joinElem(dir, elem string) string {
	if elem == "" || elem == "." || elem == ".." || strings.IndexByte(elem, '/') >= 0 {
		return path.Join(dir, elem)
	}
	if dir == "." {
		return elem
	}
	return dir + "/" + elem
}
