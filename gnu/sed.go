package gnu

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/chromafs/chromafs/internal/getopt"
	"github.com/chromafs/chromafs/sed"
)

const (
	keySedPosix = 'P' + 256 + iota
	keySedSandbox
	keySedFollow
	keySedDebug
)

var sedSpec = getopt.Spec{
	Short: "nrsuzEe:f:l:i::",
	Long: append([]getopt.Long{
		{Name: "quiet", Key: 'n'},
		{Name: "silent", Key: 'n'},
		{Name: "expression", HasArg: getopt.RequiredArgument, Key: 'e'},
		{Name: "file", HasArg: getopt.RequiredArgument, Key: 'f'},
		{Name: "in-place", HasArg: getopt.OptionalArgument, Key: 'i'},
		{Name: "line-length", HasArg: getopt.RequiredArgument, Key: 'l'},
		{Name: "null-data", Key: 'z'},
		{Name: "zero-terminated", Key: 'z'},
		{Name: "regexp-extended", Key: 'E'},
		{Name: "separate", Key: 's'},
		{Name: "unbuffered", Key: 'u'},
		{Name: "posix", Key: keySedPosix},
		{Name: "sandbox", Key: keySedSandbox},
		{Name: "follow-symlinks", Key: keySedFollow},
		{Name: "debug", Key: keySedDebug},
	}, helpVersion...),
}

const sedUsage = `Usage: %s [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the ` + "`l'" + ` command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
`

// Sed is GNU sed 4.9's command line over the sed engine (package sed):
// "sed [-nsEz] [-l N] [-e script]... [-f file]... [script] [file]...",
// with sed's diagnostics and exit statuses. See package sed for the
// language and what differs from GNU sed.
//
// Nothing is ever written: -i fails as GNU sed fails on a read-only
// filesystem ("couldn't open temporary file ./sedXXXXXX: Read-only file
// system", status 4), and so do the w and W commands and the s///w flag
// for any file but /dev/stdout and /dev/stderr. --posix, --debug, -u and
// --follow-symlinks are accepted and change nothing.
//
// Files named by -f, r and R are files of the filesystem (Env.ReadFile
// for -f when set); each input line is at most HoldLimit bytes (a longer
// one is a read error, status 4). Exit status: 0, 1 for an invalid
// script or usage, 2 when an input file could not be read, 4 for an I/O
// error, or the status given to q or Q.
func Sed(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "sed")
	opts, operands, err := sedSpec.Parse(args)
	if err != nil {
		r.warn("%s", err)
		fmt.Fprintf(env.Stderr, strings.TrimSuffix(sedUsage, "E-mail bug reports to: <bug-sed@gnu.org>.\n"), r.prog)
		return 1
	}
	s := &sedFront{run: r}
	var (
		srcs    []sed.Source
		o       sed.Options
		cfg     = sed.Config{Stdin: env.Stdin, Stdout: r.out, Stderr: env.Stderr, Prog: r.prog, MaxLine: holdLimit}
		inPlace bool
	)
	for _, opt := range opts {
		switch opt.Key {
		case keyHelp:
			r.help(sedUsage + "E-mail bug reports to: <bug-sed@gnu.org>.\n")
			return 0
		case keyVersion:
			r.version()
			return 0
		case 'n':
			cfg.Quiet = true
		case 'r', 'E':
			o.Extended = true
		case 's':
			cfg.Separate = true
		case 'z':
			cfg.Null = true
		case 'i':
			inPlace, cfg.Separate = true, true
		case 'l':
			n, err := strconv.Atoi(opt.Arg)
			if err != nil || n < 0 {
				r.warn("invalid line length: %s", opt.Arg)
				return 1
			}
			cfg.LineWrap = n
			if n == 0 {
				cfg.LineWrap = -1
			}
		case keySedSandbox:
			o.Sandbox = true
		case 'e':
			srcs = append(srcs, sed.Source{Text: opt.Arg})
		case 'f':
			data, err := s.readScript(opt.Arg)
			if err != nil {
				if !errors.Is(err, ErrReported) {
					r.warn("couldn't open file %s: %s", opt.Arg, ErrText(err))
				}
				return 4
			}
			srcs = append(srcs, sed.Source{Text: string(data), File: opt.Arg})
		}
	}
	if len(srcs) == 0 {
		if len(operands) == 0 {
			fmt.Fprintf(env.Stderr, strings.TrimSuffix(sedUsage, "E-mail bug reports to: <bug-sed@gnu.org>.\n"), r.prog)
			return 1
		}
		srcs = append(srcs, sed.Source{Text: operands[0]})
		operands = operands[1:]
	}
	prog, err := sed.Compile(srcs, o)
	if err != nil {
		r.warn("%v", err)
		var se *sed.SyntaxError
		if errors.As(err, &se) {
			return r.finish(1)
		}
		return r.finish(4)
	}
	if inPlace && env.FS == nil && env.Open == nil {
		return r.finish(4)
	}
	if !r.open() {
		return r.finish(4)
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if inPlace {
		return s.inPlace(operands)
	}
	cfg.Files, cfg.Open, cfg.ReadFile = operands, s.openInput, s.readFS
	return r.finish(prog.Run(ctx, &cfg))
}

// sedFront is the state of the sed command line around the engine.
type sedFront struct {
	*run
	status int
}

// openInput opens an input file for the engine: a directory is an error
// matching syscall.EISDIR, as sed.Config.Open asks.
func (s *sedFront) openInput(name string) (io.ReadCloser, error) {
	f, err := s.run.openInput(name)
	if errors.Is(err, errIsDir) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	return f, err
}

// readScript reads a -f file: Env.ReadFile's, or one of the filesystem
// ("-" being standard input).
func (s *sedFront) readScript(name string) ([]byte, error) {
	if s.env.ReadFile != nil {
		return s.env.ReadFile(name)
	}
	if name == "-" && s.env.Stdin != nil {
		return io.ReadAll(s.env.Stdin)
	}
	if !s.open() {
		return nil, ErrReported
	}
	return s.readFS(name)
}

func (s *sedFront) readFS(name string) ([]byte, error) {
	p, ok := s.resolve(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if fi, err := fs.Stat(s.fsys, p); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	return fs.ReadFile(s.fsys, p)
}

// inPlace fails as GNU sed -i fails on a read-only filesystem: for each
// readable file, creating the temporary file next to it fails.
func (s *sedFront) inPlace(operands []string) int {
	for _, a := range operands {
		if a == "-" {
			s.warn("couldn't edit -: not a regular file")
			return s.finish(4)
		}
		if _, err := s.readFS(a); err != nil {
			if errors.Is(err, errIsDir) {
				s.warn("couldn't edit %s: not a regular file", a)
				return s.finish(4)
			}
			s.warn("can't read %s: %s", a, ErrText(err))
			s.status = 2
			continue
		}
		dir := path.Dir(a)
		var rnd [6]byte
		rand.Read(rnd[:])
		const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		for i := range rnd {
			rnd[i] = letters[int(rnd[i])%len(letters)]
		}
		s.warn("couldn't open temporary file %s/sed%s: %s", dir, rnd[:], ErrText(syscall.EROFS))
		return s.finish(4)
	}
	return s.finish(s.status)
}
