package gnu

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/getopt"
)

// Env is what a command runs with: the filesystem, its standard streams
// and its working directory.
type Env struct {
	// FS is the filesystem the command sees. Names are resolved against
	// Dir and turned into fs.FS names ("a/b"); the root is ".".
	FS fs.FS
	// Open, used when FS is nil, opens the filesystem once the arguments
	// have parsed, so that --help, --version and usage errors need no
	// connection. Its error is printed as "prog: error" and the command
	// returns 2; an error wrapping ErrReported is not printed, Open
	// having reported it.
	Open func(ctx context.Context) (fs.FS, error)
	// Stdin is read by cat and grep for "-" and when they have no
	// operand; nil means there is no standard input (cat then reports a
	// missing operand, grep that it does not read standard input).
	Stdin io.Reader
	// ReadFile, if set, reads the files that grep's -f and
	// --exclude-from name, such as the host's files for a command line
	// ("-" being its standard input). When nil, they are files of FS,
	// resolved against Dir, and "-" is Stdin.
	ReadFile func(name string) ([]byte, error)
	// Stdout and Stderr receive the output and the diagnostics. Each
	// command buffers Stdout and flushes it before every diagnostic, so
	// that both may be the same writer.
	Stdout, Stderr io.Writer
	// Environ is the environment the command sees, NAME=value: jq's env
	// and $ENV. Nil is none (a command never reads the host's).
	Environ []string
	// Dir is the working directory, a slash path from the root of FS;
	// relative operands resolve against it. "" is "/".
	Dir string
	// Prog is the program name that diagnostics start with ("ls: cannot
	// access ..."); "" means the command's own name. A CLI that nests the
	// commands may say "chromafs ls".
	Prog string
	// Version is printed by --version after the program name.
	Version string
	// HelpFooter is printed after a command's --help text, for example
	// where a CLI's own options are described.
	HelpFooter string
	// Now is the current time for ls -l's recent/old date formats; nil is
	// time.Now.
	Now func() time.Time
	// Location is the time zone dates print in; nil is time.Local.
	Location *time.Location
	// Timeout is the time limit the caller gave ctx, if any, for the
	// message of a command it stops: grep says "timed out after 1s"
	// rather than "timed out".
	Timeout time.Duration
	// Exec, if set, runs the commands of find's -exec, -execdir, -ok and
	// -okdir: args[0] is the command's name, dir its working directory (a
	// slash path from the root of FS), and it writes to Stdout and Stderr.
	// It returns the command's exit status, or an error when there is no
	// such command (wrapping fs.ErrNotExist) or it cannot be run
	// (fs.ErrPermission). Without Exec, find refuses those actions.
	Exec func(ctx context.Context, dir string, args []string) (int, error)
	// Trace, if set, is told when a phase of a command's work ends, for
	// a caller that reports where the time goes. grep calls it with
	// the phases of grepx.Query.Trace (stats nil), "match" when its
	// search ends (stats are the search's) and "output flush" once its
	// output is written (stats nil).
	Trace func(phase string, stats *grepx.Stats)
}

// ErrReported, wrapped by an error of Env.Open, says that Open has
// printed the failure itself: the command prints nothing more and
// returns 2.
var ErrReported = errors.New("gnu: error already reported")

// run is the state of one command invocation.
type run struct {
	ctx  context.Context
	env  *Env
	name string // the command's own name: "ls"
	prog string // the name in diagnostics
	out  *bufio.Writer
	fsys fs.FS // set by open
}

// open sets r.fsys from Env.FS or Env.Open, and reports whether there
// is one; if not, it has printed why.
func (r *run) open() bool {
	if r.env.FS != nil {
		r.fsys = r.env.FS
		return true
	}
	if r.env.Open == nil {
		r.warn("no filesystem to work on")
		return false
	}
	fsys, err := r.env.Open(r.ctx)
	if err != nil {
		if !errors.Is(err, ErrReported) {
			r.warn("%v", err)
		}
		return false
	}
	r.fsys = fsys
	return true
}

func newRun(ctx context.Context, env *Env, name string) *run {
	prog := env.Prog
	if prog == "" {
		prog = name
	}
	return &run{ctx: ctx, env: env, name: name, prog: prog, out: bufio.NewWriterSize(env.Stdout, 32<<10)}
}

// warn prints a diagnostic line, "prog: " and the message, after what
// is already written to standard output.
func (r *run) warn(format string, a ...any) {
	r.out.Flush()
	fmt.Fprintf(r.env.Stderr, "%s: %s\n", r.prog, fmt.Sprintf(format, a...))
}

// usage prints a usage error the GNU way, the message and a line on how
// to get help, and returns status.
func (r *run) usage(status int, format string, a ...any) int {
	r.warn(format, a...)
	r.tryHelp()
	return status
}

func (r *run) tryHelp() {
	fmt.Fprintf(r.env.Stderr, "Try '%s --help' for more information.\n", r.prog)
}

// parse parses args with spec and handles --help (key 'H'+256) and
// --version (key 'V'+256); done is true when the command should return
// status now.
func (r *run) parse(spec *getopt.Spec, args []string, badStatus int, help string) (opts []getopt.Option, operands []string, done bool, status int) {
	opts, operands, err := spec.Parse(args)
	if err != nil {
		return nil, nil, true, r.usage(badStatus, "%s", err)
	}
	for _, o := range opts {
		switch o.Key {
		case keyHelp:
			r.help(help)
			return nil, nil, true, 0
		case keyVersion:
			r.version()
			return nil, nil, true, 0
		}
	}
	return opts, operands, false, 0
}

// help prints a command's help text (with %s for the program name) and
// Env.HelpFooter.
func (r *run) help(text string) {
	fmt.Fprintf(r.out, text, r.prog)
	r.out.WriteString(r.env.HelpFooter)
	r.out.Flush()
}

func (r *run) version() {
	v := r.env.Version
	if v == "" {
		v = "(devel)"
	}
	fmt.Fprintf(r.out, "%s (chromafs) %s\n", r.prog, v)
	r.out.Flush()
}

const (
	keyHelp    = 'H' + 256
	keyVersion = 'V' + 256
)

var helpVersion = []getopt.Long{
	{Name: "help", Key: keyHelp},
	{Name: "version", Key: keyVersion},
}

// finish flushes standard output and returns status, or 1 or 2 if the
// flush fails or the context ended.
func (r *run) finish(status int) int {
	if err := r.out.Flush(); err != nil {
		fmt.Fprintf(r.env.Stderr, "%s: write error: %s\n", r.prog, ErrText(err))
		return max(status, 1)
	}
	if err := r.ctx.Err(); err != nil {
		fmt.Fprintf(r.env.Stderr, "%s: %v\n", r.prog, err)
		return max(status, 1)
	}
	return status
}

// stopped reports whether the context ended.
func (r *run) stopped() bool { return r.ctx.Err() != nil }

// now is the command's current time.
func (r *run) now() time.Time {
	if r.env.Now != nil {
		return r.env.Now()
	}
	return time.Now()
}

func (r *run) loc() *time.Location {
	if r.env.Location != nil {
		return r.env.Location
	}
	return time.Local
}
