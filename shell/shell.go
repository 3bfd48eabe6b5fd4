package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/chromafs/chromafs/gnu"
)

// Defaults of the options.
const (
	DefaultMaxOutput     = 30_000
	DefaultMaxCommands   = 1_000_000
	DefaultMaxIterations = 1_000_000
	DefaultMaxStages     = 64
	DefaultTimeout       = 60 * time.Second
	DefaultMaxLine       = 1 << 20
)

// ErrLimit is what every error for a command line stopped by one of the
// Session's caps wraps (a *LimitError says which).
var ErrLimit = errors.New("shell: limit exceeded")

// LimitError reports which cap stopped or refused a command line.
type LimitError struct {
	What  string // "pipeline stages", "commands", "loop iterations", "output", "command line length"
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("shell: too many %s (the limit is %s)", e.What, thousands(int64(e.Limit)))
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// Option configures a Session.
type Option func(*Session)

// noOutputCap is the cap of WithMaxOutput(-1): a terabyte.
const noOutputCap = 1 << 40

// WithMaxOutput caps the characters (UTF-8 sequences; other bytes count
// one each) of standard output and standard error together per Run.
// Past the cap, output is counted but dropped, and standard output ends
// with one line: "[output truncated: N more characters; narrow the
// command, e.g. with head, grep -m or a more specific path]". A command
// line that writes ten times the cap is stopped. 0 means the
// default, 30,000; n < 0 means no cap.
func WithMaxOutput(n int) Option { return func(s *Session) { s.maxOutput = n } }

// WithMaxCommands caps the simple commands (builtins and file commands,
// including those xargs runs) one Run executes.
func WithMaxCommands(n int) Option { return func(s *Session) { s.maxCommands = n } }

// WithMaxIterations caps the iterations of while, until and for loops one
// Run executes, all loops together.
func WithMaxIterations(n int) Option { return func(s *Session) { s.maxIterations = n } }

// WithMaxStages caps the commands of one pipeline; a longer pipeline is
// refused before the command line runs.
func WithMaxStages(n int) Option { return func(s *Session) { s.maxStages = n } }

// WithTimeout bounds each Run, in addition to its context's deadline;
// d < 0 means no bound other than the context. The default is one minute.
func WithTimeout(d time.Duration) Option { return func(s *Session) { s.timeout = d } }

// WithProg sets the name the shell's own diagnostics start with; the
// default is "bash".
func WithProg(name string) Option { return func(s *Session) { s.prog = name } }

// WithNow sets the clock of ls -l's recent/old date formats; the default
// is time.Now.
func WithNow(now func() time.Time) Option { return func(s *Session) { s.now = now } }

// WithLocation sets the time zone dates print in; the default is UTC (the
// fixed environment has no TZ).
func WithLocation(loc *time.Location) Option { return func(s *Session) { s.loc = loc } }

// WithCommand adds a file command to the session's shell: name runs f,
// as the shell runs package gnu's commands (in pipelines, under xargs and
// find -exec, with the session's working directory and output caps), and
// type, command -v and hash know it. It is how a program adds a command
// that needs more than the filesystem, such as package search's search;
// a name of package gnu's is replaced.
func WithCommand(name string, f gnu.Func) Option {
	return func(s *Session) {
		if s.extra == nil {
			s.extra = map[string]gnu.Func{}
		}
		s.extra[name] = f
	}
}

// A Session runs command lines over one fs.FS. It keeps the working
// directory (initially "/") and OLDPWD from one Run to the next;
// variables, functions, aliases and shell options start afresh in each
// Run. A Session runs one command line at a time: Run may be called from
// any goroutine, but calls are serialized.
type Session struct {
	fsys  fs.FS
	extra map[string]gnu.Func // WithCommand

	maxOutput, maxCommands, maxIterations, maxStages int
	timeout                                          time.Duration
	prog                                             string
	now                                              func() time.Time
	loc                                              *time.Location

	mu     sync.Mutex
	cwd    string
	oldpwd string
}

// New returns a Session over fsys with its working directory at the root.
func New(fsys fs.FS, opts ...Option) *Session {
	s := &Session{fsys: fsys, cwd: "/", prog: "bash", timeout: DefaultTimeout, loc: time.UTC}
	for _, o := range opts {
		o(s)
	}
	switch {
	case s.maxOutput == 0:
		s.maxOutput = DefaultMaxOutput
	case s.maxOutput < 0:
		s.maxOutput = noOutputCap
	}
	if s.maxCommands <= 0 {
		s.maxCommands = DefaultMaxCommands
	}
	if s.maxIterations <= 0 {
		s.maxIterations = DefaultMaxIterations
	}
	if s.maxStages <= 0 {
		s.maxStages = DefaultMaxStages
	}
	if s.prog == "" {
		s.prog = "bash"
	}
	if s.loc == nil {
		s.loc = time.UTC
	}
	return s
}

// clock is the current time, from WithNow's clock.
func (s *Session) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// Dir returns the working directory, an absolute slash path ("/" is the
// root of the fs.FS).
func (s *Session) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// Chdir sets the working directory to dir (absolute, or relative to the
// current one) if it is a directory of the fs.FS.
func (s *Session) Chdir(dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	abs := absolute(s.cwd, dir)
	info, err := fs.Stat(s.fsys, fsName(abs))
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return &fs.PathError{Op: "chdir", Path: dir, Err: errNotDir}
	}
	s.oldpwd, s.cwd = s.cwd, abs
	return nil
}

// Environment is the environment every Run starts with, besides PWD (the
// working directory) and OLDPWD (the previous one, once there is one).
// Nothing is taken from the host.
var Environment = []string{
	"HOME=/",
	"PATH=/usr/bin:/bin",
	"LANG=C.UTF-8",
	"SHELL=/bin/bash",
	"TERM=dumb",
	"USER=chromafs",
	"LOGNAME=chromafs",
	"HOSTNAME=chromafs",
	"SHLVL=1",
	"UID=1000",
	"EUID=1000",
	"GID=1000",
}

// Run parses and runs one command line (several lines separated by
// newlines are one command line too) with standard input empty, and
// returns its exit status. stdout and stderr may be the same writer;
// writes to them are serialized.
//
// A syntax error prints a diagnostic and returns 2, as bash does. The
// error is nil unless the line did not run to its end: it is the
// context's error when the deadline passed (errors.Is with
// context.DeadlineExceeded; status 124, as timeout(1) says) or ctx was
// canceled (context.Canceled; status 130, as after Ctrl-C), or an error
// wrapping ErrLimit (a *LimitError) when a cap stopped or refused it,
// with status 1. In each case a line saying so ends the output.
func (s *Session) Run(ctx context.Context, line string, stdout, stderr io.Writer) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	out := newCapWriter(stdout, stderr, s.maxOutput, func() {
		cancel(&LimitError{What: "output characters", Limit: s.maxOutput * outputStopFactor})
	})
	rs := &runState{s: s, ctx: ctx, cancel: cancel, out: out}
	status, err := rs.run(ctx, line)
	out.finish()
	if err != nil {
		if errors.Is(err, ErrLimit) && !out.stopped() {
			fmt.Fprintf(stderr, "%s: stopped: %v\n", s.prog, strings.TrimPrefix(err.Error(), "shell: "))
		} else if !errors.Is(err, ErrLimit) {
			fmt.Fprintf(stderr, "%s: stopped: %v\n", s.prog, err)
		}
	}
	return status, err
}

// runState is one Run.
type runState struct {
	s      *Session
	ctx    context.Context
	cancel context.CancelCauseFunc
	out    *capWriter

	commands   atomic.Int64
	iterations atomic.Int64
	depth      atomic.Int64 // shells running shells
}

func (rs *runState) run(ctx context.Context, line string) (int, error) {
	s := rs.s
	if len(line) > DefaultMaxLine {
		err := &LimitError{What: "command line bytes", Limit: DefaultMaxLine}
		return 1, err
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "bash")
	if err != nil {
		fmt.Fprintf(rs.out.stderrW(), "%s: %s\n", s.prog, syntaxErrorText(err))
		return 2, nil
	}
	if err := rs.seal(file); err != nil {
		return 1, err
	}
	env := append([]string(nil), Environment...)
	env = append(env, "PWD="+s.cwd)
	if s.oldpwd != "" {
		env = append(env, "OLDPWD="+s.oldpwd)
	}
	// Standard input is empty: a pipe with no writer.
	stdin, w, err := os.Pipe()
	if err != nil {
		return 1, err
	}
	w.Close()
	defer stdin.Close()
	r, err := rs.newRunner(s.cwd, env, stdin, rs.out.stdoutW(), rs.out.stderrW())
	if err != nil {
		return 1, err
	}
	runErr := r.Run(ctx, file)
	// The working directory survives the Run, if the line changed it.
	if r.Dir != s.cwd {
		s.oldpwd, s.cwd = s.cwd, r.Dir
	}
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, ErrLimit) {
			return 1, cause
		}
		if errors.Is(cause, context.Canceled) {
			return 130, cause
		}
		return 124, cause
	}
	return exitStatus(runErr)
}

// exitStatus is the status of a Run of the interpreter that ended with
// runErr: 0 for nil, the status of an exit, else 1 and runErr (a limit, a
// failure of the interpreter).
func exitStatus(runErr error) (int, error) {
	var es interp.ExitStatus
	switch {
	case runErr == nil:
		return 0, nil
	case errors.As(runErr, &es):
		return int(es), nil
	}
	return 1, runErr
}

// newRunner makes an interpreter with the shell's handlers, working in
// dir with the environment env.
func (rs *runState) newRunner(dir string, env []string, stdin io.Reader, stdout, stderr io.Writer, opts ...interp.RunnerOption) (*interp.Runner, error) {
	return interp.New(append([]interp.RunnerOption{
		func(r *interp.Runner) error { r.Dir = dir; return nil },
		interp.Env(hiddenEnv{expand.ListEnviron(env...)}),
		interp.StdIO(stdin, stdout, stderr),
		interp.CallHandler(rs.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return rs.exec }),
		interp.OpenHandler(rs.open),
		interp.ReadDirHandler2(rs.readDir),
		interp.StatHandler(rs.stat),
		interp.AccessHandler(rs.access),
	}, opts...)...)
}

// hiddenEnv serves the variables that stand for $$ and $PPID (see seal)
// without listing them.
type hiddenEnv struct{ expand.Environ }

const (
	pidVar  = "__chromafs_pid"
	ppidVar = "__chromafs_ppid"
)

func (e hiddenEnv) Get(name string) expand.Variable {
	switch name {
	case pidVar:
		return expand.Variable{Set: true, Kind: expand.String, Str: "1", ReadOnly: true}
	case ppidVar:
		return expand.Variable{Set: true, Kind: expand.String, Str: "0", ReadOnly: true}
	}
	return e.Environ.Get(name)
}

// syntaxErrorText renders a parse error of mvdan.cc/sh without its
// file name.
func syntaxErrorText(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: syntax error: %s", pe.Pos.Line(), pe.Text)
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return fmt.Sprintf("line %d: syntax error: %s", le.Pos.Line(), strings.TrimPrefix(le.Error(), le.Filename+":"+le.Pos.String()+": "))
	}
	return err.Error()
}
