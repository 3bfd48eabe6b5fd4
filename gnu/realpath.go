package gnu

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/chromafs/chromafs/internal/getopt"
)

const (
	keyRelTo   = 'R' + 256
	keyRelBase = 'B' + 256
)

var realpathSpec = getopt.Spec{
	Short: "eLmPqsz",
	Long: append([]getopt.Long{
		{Name: "canonicalize-existing", Key: 'e'},
		{Name: "canonicalize-missing", Key: 'm'},
		{Name: "logical", Key: 'L'},
		{Name: "physical", Key: 'P'},
		{Name: "quiet", Key: 'q'},
		{Name: "strip", Key: 's'},
		{Name: "no-symlinks", Key: 's'},
		{Name: "zero", Key: 'z'},
		{Name: "relative-to", Key: keyRelTo, HasArg: getopt.RequiredArgument},
		{Name: "relative-base", Key: keyRelBase, HasArg: getopt.RequiredArgument},
	}, helpVersion...),
}

const realpathHelp = `Usage: %s [OPTION]... FILE...
Print the resolved absolute file name;
all but the last component must exist

  -e, --canonicalize-existing  all components of the path must exist
  -m, --canonicalize-missing   no path components need exist or be a directory
  -L, --logical                resolve '..' components before symlinks
  -P, --physical               resolve symlinks as encountered (default)
  -q, --quiet                  suppress most error messages
      --relative-to=DIR        print the resolved path relative to DIR
      --relative-base=DIR      print absolute paths unless paths below DIR
  -s, --strip, --no-symlinks   don't expand symlinks
  -z, --zero                   end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
`

var readlinkSpec = getopt.Spec{
	Short: "efmnqsvz",
	Long: append([]getopt.Long{
		{Name: "canonicalize", Key: 'f'},
		{Name: "canonicalize-existing", Key: 'e'},
		{Name: "canonicalize-missing", Key: 'm'},
		{Name: "no-newline", Key: 'n'},
		{Name: "quiet", Key: 'q'},
		{Name: "silent", Key: 's'},
		{Name: "verbose", Key: 'v'},
		{Name: "zero", Key: 'z'},
	}, helpVersion...),
}

const readlinkHelp = `Usage: %s [OPTION]... FILE...
Print value of a symbolic link or canonical file name

  -f, --canonicalize            canonicalize by following every symlink in
                                every component of the given name recursively;
                                all but the last component must exist
  -e, --canonicalize-existing   canonicalize by following every symlink in
                                every component of the given name recursively,
                                all components must exist
  -m, --canonicalize-missing    canonicalize by following every symlink in
                                every component of the given name recursively,
                                without requirements on components existence
  -n, --no-newline              do not output the trailing delimiter
  -q, --quiet
  -s, --silent                  suppress most error messages (on by default)
  -v, --verbose                 report error messages
  -z, --zero                    end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
`

// cText is an error whose text is the C library's strerror text.
type cText string

func (e cText) Error() string { return string(e) }

var (
	errNotADir    = cText(textNotDir)
	errInvalidArg = cText("Invalid argument")
)

// canonMode is how much of a name must exist: all but the last
// component (realpath's default, readlink -f), all (-e), none (-m).
type canonMode int

const (
	canonAllButLast canonMode = iota
	canonExisting
	canonMissing
)

// canonicalize returns the absolute canonical name of operand a (the
// filesystem has no symbolic links), or why it cannot.
func (r *run) canonicalize(a string, mode canonMode) (string, error) {
	if a == "" {
		return "", fs.ErrNotExist
	}
	name := Resolve(r.env.Dir, a)
	abs := "/"
	if name != "." {
		abs = "/" + name
	}
	if mode == canonMissing || name == "." {
		return abs, nil
	}
	parts := strings.Split(name, "/")
	for i := range parts {
		last := i == len(parts)-1
		p := strings.Join(parts[:i+1], "/")
		fi, err := fs.Stat(r.fsys, p)
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				return "", errNotADir
			}
			if last && mode == canonAllButLast && errors.Is(err, fs.ErrNotExist) {
				return abs, nil
			}
			return "", err
		}
		if !last && !fi.IsDir() {
			return "", errNotADir
		}
	}
	// A trailing slash on a file is an error, as for the kernel.
	if strings.HasSuffix(a, "/") {
		if fi, err := fs.Stat(r.fsys, name); err == nil && !fi.IsDir() {
			return "", errNotADir
		}
	}
	return abs, nil
}

// relative returns target relative to base, both clean absolute names.
func relative(base, target string) string {
	if base == target {
		return "."
	}
	bp := strings.Split(strings.TrimPrefix(base, "/"), "/")
	tp := strings.Split(strings.TrimPrefix(target, "/"), "/")
	if base == "/" {
		bp = nil
	}
	if target == "/" {
		tp = nil
	}
	i := 0
	for i < len(bp) && i < len(tp) && bp[i] == tp[i] {
		i++
	}
	var out []string
	for range bp[i:] {
		out = append(out, "..")
	}
	out = append(out, tp[i:]...)
	return path.Join(out...)
}

// Realpath prints the canonical absolute names of files as GNU realpath
// 9.1 does, with -e -m -q -z -s (-L and -P change nothing: the
// filesystem has no symbolic links), --relative-to and --relative-base.
func Realpath(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "realpath")
	opts, operands, done, status := r.parse(&realpathSpec, args, 1, realpathHelp)
	if done {
		return status
	}
	mode, quiet, eol := canonAllButLast, false, byte('\n')
	relTo, relBase := "", ""
	for _, o := range opts {
		switch o.Key {
		case 'e':
			mode = canonExisting
		case 'm':
			mode = canonMissing
		case 'q':
			quiet = true
		case 'z':
			eol = 0
		case keyRelTo:
			relTo = o.Arg
		case keyRelBase:
			relBase = o.Arg
		}
	}
	if len(operands) == 0 {
		return r.usage(1, "missing operand")
	}
	if !r.open() {
		return r.finish(1)
	}
	for _, p := range []*string{&relTo, &relBase} {
		if *p == "" {
			continue
		}
		c, err := r.canonicalize(*p, mode)
		if err != nil {
			r.warn("%s: %s", *p, ErrText(err))
			return r.finish(1)
		}
		*p = c
	}
	if relTo == "" && relBase != "" {
		relTo = relBase
	}
	st := 0
	for _, a := range operands {
		c, err := r.canonicalize(a, mode)
		if err != nil {
			if !quiet {
				r.warn("%s: %s", quotef(a), ErrText(err))
			}
			st = 1
			continue
		}
		if relTo != "" && (relBase == "" || c == relBase || strings.HasPrefix(c, strings.TrimSuffix(relBase, "/")+"/")) {
			c = relative(relTo, c)
		}
		r.out.WriteString(c)
		r.out.WriteByte(eol)
	}
	return r.finish(st)
}

// Readlink prints canonical names as GNU readlink 9.1 does with -f, -e
// or -m (-n -q -s -v -z too). Without them it prints the target of a
// symbolic link, and as the filesystem has none, it prints nothing and
// fails (status 1; with -v, "Invalid argument").
func Readlink(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "readlink")
	opts, operands, done, status := r.parse(&readlinkSpec, args, 1, readlinkHelp)
	if done {
		return status
	}
	canon, mode, verbose, noNL, eol := false, canonAllButLast, false, false, byte('\n')
	for _, o := range opts {
		switch o.Key {
		case 'f':
			canon, mode = true, canonAllButLast
		case 'e':
			canon, mode = true, canonExisting
		case 'm':
			canon, mode = true, canonMissing
		case 'n':
			noNL = true
		case 'q', 's':
			verbose = false
		case 'v':
			verbose = true
		case 'z':
			eol = 0
		}
	}
	if len(operands) == 0 {
		return r.usage(1, "missing operand")
	}
	if noNL && len(operands) > 1 {
		r.warn("ignoring --no-newline with multiple arguments")
		noNL = false
	}
	if !r.open() {
		return r.finish(1)
	}
	st := 0
	for _, a := range operands {
		var c string
		err := error(errInvalidArg)
		if canon {
			c, err = r.canonicalize(a, mode)
		} else if name, ok := r.resolve(a); ok {
			if _, serr := fs.Stat(r.fsys, name); serr != nil {
				err = serr
			}
		}
		if err != nil {
			if verbose {
				r.warn("%s: %s", quotef(a), ErrText(err))
			}
			st = 1
			continue
		}
		r.out.WriteString(c)
		if !noNL {
			r.out.WriteByte(eol)
		}
	}
	return r.finish(st)
}
