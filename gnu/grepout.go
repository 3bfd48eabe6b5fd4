package gnu

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/regex"
)

// grepRun is one search: what it has printed so far and its state.
type grepRun struct {
	o        *grepOptions
	prog     string
	w        *bufio.Writer
	stderr   io.Writer
	operands []string // as the user spelled them; "" for the implicit "."
	roots    []string // their fs names

	// names: whether output lines carry file names; nameIfBelow means
	// only for files found below a directory operand (-r, one operand).
	names, nameIfBelow bool

	used bool // a line was selected before (GNU's "used")

	fsys     fs.FS // for the sizes -T aligns numbers to
	numWidth int   // -T: the width of line numbers and offsets in this file
	selected bool  // a line was selected: status 0
	errSeen  bool
}

// errQuiet stops the search at the first selected line under -q.
var errQuiet = errors.New("quiet match")

func runGrep(ctx context.Context, env *Env, prog string, fsys fs.FS, o *grepOptions) int {
	r, q := newGrepRun(fsys, env.Dir, prog, o, env.Stdout, env.Stderr)
	defer r.w.Flush()
	if env.Trace != nil {
		q.Trace = func(phase string) { env.Trace(phase, nil) }
	}
	if len(q.Paths) == 0 {
		return r.status()
	}
	stats, err := grepx.Search(ctx, fsys, q, r.file)
	if env.Trace != nil {
		env.Trace("match", &stats)
	}
	r.w.Flush()
	if env.Trace != nil {
		env.Trace("output flush", nil)
	}
	if errors.Is(err, errQuiet) {
		return 0
	}
	if err != nil {
		var pe *regex.Error
		if errors.As(err, &pe) && o.syntax == regex.Perl {
			// GNU grep -P names no pattern file.
			fmt.Fprintf(env.Stderr, "%s: %s\n", prog, pe.Error())
			return 2
		}
		if errors.As(err, &pe) && pe.Err == nil {
			// GNU grep reports every pattern that does not compile, a
			// -f file's with its name and line.
			if msgs := patternErrors(o); len(msgs) > 0 {
				for _, m := range msgs {
					fmt.Fprintf(env.Stderr, "%s: %s\n", prog, m)
				}
				return 2
			}
		}
		fmt.Fprintf(env.Stderr, "%s: %s\n", prog, searchErrText(err, env.Timeout, o.patterns, o.patternSrcs))
		return 2
	}
	if stats.Truncated {
		fmt.Fprintf(env.Stderr, "%s: output truncated at the --max-total/--max-bytes limit\n", prog)
	}
	return r.status()
}

// stdinName is the fs name of the i-th standard input operand in the
// view newStdinFS makes: no filesystem that chromafs serves has a NUL
// in a name.
func stdinName(i int) string { return "\x00stdin" + strconv.Itoa(i) }

// stdinFS is a filesystem with standard input added: the first "-"
// operand reads it all, later ones find it empty (read), as GNU grep
// does.
type stdinFS struct {
	base  fs.FS // nil when every operand is standard input
	files fstest.MapFS
	err   error // reading standard input failed
}

func newStdinFS(base fs.FS, stdin io.Reader, o *grepOptions) fs.FS {
	s := &stdinFS{base: base, files: fstest.MapFS{}}
	data, err := io.ReadAll(stdin)
	s.err = err
	for i := range o.stdinOperands() {
		f := &fstest.MapFile{Mode: 0o444}
		if i == 0 {
			f.Data = data
		}
		s.files[stdinName(i)] = f
	}
	return s
}

func (s *stdinFS) Open(name string) (fs.File, error) {
	if _, ok := s.files[name]; ok {
		if s.err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: s.err}
		}
		return s.files.Open(name)
	}
	if s.base == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return s.base.Open(name)
}

// newGrepRun prepares the search for o: the query, and how names are
// printed. Operands that are not searched (a trailing slash on a file,
// a directory under -d skip) are dealt with here, so q.Paths may be
// empty.
func newGrepRun(fsys fs.FS, dir, prog string, o *grepOptions, stdout, stderr io.Writer) (*grepRun, grepx.Query) {
	r := &grepRun{o: o, prog: prog, w: bufio.NewWriterSize(stdout, 32<<10), stderr: stderr, fsys: fsys}
	for _, w := range o.warnings {
		fmt.Fprintf(stderr, "%s: %s\n", prog, w)
	}
	q := grepx.Query{
		Patterns:     o.patterns,
		Syntax:       o.syntax,
		IgnoreCase:   o.ignoreCase,
		Word:         o.word,
		Line:         o.line,
		Invert:       o.invert,
		Before:       max(o.before, 0),
		After:        max(o.after, 0),
		Recursive:    o.directories == dirRecurse,
		Globs:        o.globs,
		ExcludeDir:   o.excludeDir,
		OnlyMatching: o.onlyMatching,
		MaxMatches:   o.maxTotal,
		MaxBytes:     o.maxBytes,
		SkipLazy:     o.noPointers,
	}
	if o.maxCount > 0 {
		q.MaxCount = int(min(o.maxCount, math.MaxInt32))
	}
	switch {
	case o.quiet, o.listMatching:
		q.Mode = grepx.FilesWithMatches
	case o.listNonMatch:
		// Count mode reports every file, so that the status can tell
		// whether a line was selected anywhere; one line is enough.
		q.Mode = grepx.Count
		q.MaxCount = 1
	case o.count:
		q.Mode = grepx.Count
	}

	label := o.label
	if label == "" {
		label = "(standard input)"
	}
	operands := o.operands
	stdin := 0
	if len(operands) == 0 {
		if o.directories == dirRecurse {
			// grep -r without operand: the working directory, named
			// without "./".
			r.operands = []string{""}
			r.roots = []string{Resolve(dir, ".")}
		} else {
			operands = []string{"-"}
		}
	}
	for _, op := range operands {
		if op == "-" {
			r.operands = append(r.operands, label)
			r.roots = append(r.roots, stdinName(stdin))
			stdin++
			continue
		}
		root := Resolve(dir, op)
		if strings.HasSuffix(op, "/") || o.directories == dirSkip {
			fi, err := fs.Stat(fsys, root)
			switch {
			case err != nil:
				r.error(op, err)
				continue
			case !fi.IsDir() && strings.HasSuffix(op, "/"):
				r.error(op, errors.New("not a directory"))
				continue
			case fi.IsDir() && o.directories == dirSkip:
				continue
			}
		}
		r.operands = append(r.operands, op)
		r.roots = append(r.roots, root)
	}
	switch {
	case o.filenames != 0:
		r.names = o.filenames > 0
	case len(o.operands) > 1:
		r.names = true
	default:
		r.nameIfBelow = o.directories == dirRecurse
	}
	q.Paths = r.roots
	return r, q
}

func (r *grepRun) status() int {
	switch {
	case r.errSeen:
		return 2
	case r.selected:
		return 0
	}
	return 1
}

// error reports a file error as GNU grep does, unless -s.
func (r *grepRun) error(name string, err error) {
	r.errSeen = true
	if r.o.noMessages {
		return
	}
	r.w.Flush()
	fmt.Fprintf(r.stderr, "%s: %s: %s\n", r.prog, name, grepErrText(err))
}

// display is the name GNU grep prints for fs name p found under operand
// i: the operand as spelled, and the path below it joined as fts(3) joins
// it.
func (r *grepRun) display(i int, p string) string {
	if i < 0 || i >= len(r.roots) {
		return p
	}
	op, root := r.operands[i], r.roots[i]
	if p == root {
		if op == "" {
			return "."
		}
		return op
	}
	rel := p
	if root != "." {
		rel = strings.TrimPrefix(p, root+"/")
	}
	if op == "" {
		return rel // grep -r without operand omits "./"
	}
	// fts trims a run of trailing slashes to one, and adds none after it.
	for len(op) > 2 && strings.HasSuffix(op, "//") {
		op = op[:len(op)-1]
	}
	return strings.TrimSuffix(op, "/") + "/" + rel
}

// isDirError reports a directory read as a file (an operand without -r):
// GNU grep reads it as empty after reporting the error.
func isDirError(err error) bool {
	return err != nil && grepErrText(err) == "Is a directory"
}

// file prints one result of the search.
func (r *grepRun) file(f *grepx.File) error {
	o := r.o
	name := r.display(f.Operand, f.Path)
	if o.initialTab {
		// GNU grep -T pads numbers to the digits of the file's size;
		// of a pipe, to 19.
		r.numWidth = 19
		if !strings.HasPrefix(f.Path, "\x00stdin") {
			if fi, err := fs.Stat(r.fsys, f.Path); err == nil {
				r.numWidth = len(strconv.FormatInt(fi.Size(), 10))
			}
		}
	}
	withName := r.names || (r.nameIfBelow && f.Operand < len(r.roots) && f.Path != r.roots[f.Operand])
	if errors.Is(f.Err, regex.ErrMatchLimit) {
		// GNU grep -P prints what it found before the line PCRE2 gave
		// up on, then the error, and stops.
		err := f.Err
		f.Err = nil
		defer r.error(name, err)
	} else if f.Err != nil {
		r.error(name, f.Err)
		if !isDirError(f.Err) {
			return nil
		}
		f.Count, f.Lines = 0, nil
	}
	sep := byte(':')
	nameEnd := func() {
		if o.null {
			r.w.WriteByte(0)
		} else {
			r.w.WriteByte(sep)
		}
	}
	switch {
	case o.quiet:
		// FilesWithMatches reports files with a selected line (and
		// errors).
		if f.Err == nil {
			r.selected = true
			return errQuiet
		}
	case o.listMatching:
		if f.Err == nil {
			r.selected = true
			r.w.WriteString(name)
			r.w.WriteByte(nul(o.null, '\n'))
		}
	case o.listNonMatch:
		if f.Count > 0 && o.maxCount != 0 {
			r.selected = true
			return nil
		}
		r.w.WriteString(name)
		r.w.WriteByte(nul(o.null, '\n'))
	case o.count:
		if withName {
			r.w.WriteString(name)
			nameEnd()
		}
		r.w.WriteString(strconv.Itoa(f.Count))
		r.w.WriteByte('\n')
		if f.Count > 0 {
			r.selected = true
		}
	default:
		r.lines(f, name, withName)
	}
	return nil
}

func nul(null bool, c byte) byte {
	if null {
		return 0
	}
	return c
}

// lines prints the selected and context lines of f, with group
// separators, and the binary file notice.
func (r *grepRun) lines(f *grepx.File, name string, withName bool) {
	o := r.o
	contextOn := o.before >= 0 || o.after >= 0
	sepStr := o.groupSep
	prev := 0
	for i := range f.Lines {
		l := &f.Lines[i]
		if contextOn && sepStr != nil && r.used && (prev == 0 || l.Number != prev+1) {
			r.w.WriteString(*sepStr)
			r.w.WriteByte('\n')
		}
		prev = l.Number
		sep := byte(':')
		if l.Context {
			sep = '-'
		}
		switch {
		case !o.onlyMatching:
			r.head(name, withName, l.Number, l.Offset, sep)
			r.w.Write(l.Text)
			r.w.WriteByte('\n')
		case l.Context != o.invert:
			// -o prints nothing for context lines, except under -v,
			// where they are the matching lines.
		default:
			matches := l.Matches
			if o.invert {
				sep = '-'
			}
			for _, m := range matches {
				if m[1] <= m[0] || m[0] < 0 || m[1] > len(l.Text) {
					continue
				}
				r.head(name, withName, l.Number, l.Offset+int64(m[0]), sep)
				r.w.Write(l.Text[m[0]:m[1]])
				r.w.WriteByte('\n')
			}
		}
		if !l.Context {
			r.used = true
			r.selected = true
		}
	}
	if f.Count > 0 {
		r.used = true
		r.selected = true
		if f.Binary {
			r.w.Flush()
			fmt.Fprintf(r.stderr, "%s: %s: binary file matches\n", r.prog, name)
		}
	}
}

// head prints the prefix of an output line: file name, line number, byte
// offset, each followed by sep (a NUL after the name with -Z).
func (r *grepRun) head(name string, withName bool, num int, off int64, sep byte) {
	if withName {
		r.w.WriteString(name)
		r.w.WriteByte(nul(r.o.null, sep))
	}
	pad := func(n string) {
		for i := len(n); i < r.numWidth && r.o.initialTab; i++ {
			r.w.WriteByte(' ')
		}
		r.w.WriteString(n)
	}
	if r.o.lineNumber {
		pad(strconv.Itoa(num))
		r.w.WriteByte(sep)
	}
	if r.o.byteOffset {
		pad(strconv.FormatInt(off, 10))
		r.w.WriteByte(sep)
	}
	if r.o.initialTab && (withName || r.o.lineNumber || r.o.byteOffset) {
		r.w.WriteByte('\t')
	}
}

const grepVersion = `grep (chromafs) 3.8
chromafs grep follows GNU grep 3.8 (options, output and exit status) over a
chromafs collection.
`

// helpText is grep's --help: GNU's, less what is not supported, with the
// lines that depend on the Env (where FILEs and -f files are, whether
// standard input is searched).
func (p *grepParser) helpText() string {
	files := `FILEs are paths from the collection root ("/" is the root).`
	if !p.noDir {
		files = `FILEs are paths from the working directory ("/" is the root).`
	}
	fileOpt := "take PATTERNS from FILE"
	if p.hostFile {
		fileOpt += " (a local file)"
	}
	root := "the root"
	if !p.noDir {
		root = "the working directory"
	}
	stdin, label := ",\n--color=always, and standard input.\n", ""
	if p.stdin {
		stdin = ",\nand --color=always.\n"
		label = "      --label=LABEL         use LABEL as the standard input file name prefix\n"
	}
	return strings.NewReplacer("PROG", p.prog, "FILES_LINE", files, "FILE_OPT", fileOpt,
		"STDIN\n", stdin, "LABEL_LINE", label, "ROOT_DIR", root).Replace(grepHelp)
}

const grepHelp = `Usage: PROG [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE of the collection.
Example: PROG -ri 'hello world' /guides
PATTERNS can contain multiple patterns separated by newlines.
FILES_LINE

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -P, --perl-regexp         PATTERNS are Perl regular expressions
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           FILE_OPT
  -i, --ignore-case         ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines
  -V, --version             display version information and exit
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
LABEL_LINE  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
  -d, --directories=ACTION  how to handle directories;
                            ACTION is 'read', 'recurse', or 'skip'
  -r, --recursive           like --directories=recurse
  -R, --dereference-recursive  likewise
      --include=GLOB        search only files that match GLOB (a file pattern)
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any file pattern from FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -Z, --null                print 0 byte after FILE name
      --max-total=NUM       stop the whole search after NUM selected lines
      --max-bytes=NUM       stop the whole search after NUM bytes of lines
      --no-pointers         skip lazy file pointers (content kept elsewhere)

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN]        WHEN is 'never' or 'auto' (no colors are used)

With -r and no FILE, search ROOT_DIR. With fewer than two FILEs, assume -h.
Not supported: -a, -I, -T, -z, --binary-files=text|without-matchSTDIN
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.
`

// patternErrors are GNU grep's diagnostics for each pattern of o that
// does not compile, "FILE:LINE: " before those of -f files.
func patternErrors(o *grepOptions) []string {
	var msgs []string
	for i, p := range o.patterns {
		_, err := regex.Translate(p, o.syntax)
		var pe *regex.Error
		if !errors.As(err, &pe) || pe.Err != nil {
			continue
		}
		m := pe.Error()
		if i < len(o.patternSrcs) && o.patternSrcs[i] != "" {
			m = o.patternSrcs[i] + ": " + m
		}
		msgs = append(msgs, m)
	}
	return msgs
}
