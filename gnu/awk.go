package gnu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/chromafs/chromafs/internal/goawk/interp"
	"github.com/chromafs/chromafs/internal/goawk/lexer"
	"github.com/chromafs/chromafs/internal/goawk/parser"
)

const awkUsage = `Usage: awk [Options] [Program] [file ...]

Program:
    The -f option value is the name of a file containing program text.
    If no -f option is given, a "--" ends option processing; the following
    parameters are the program text.

Options:
    -f program-file  Program  text is read from file instead of from the
                     command-line.  Multiple -f options are accepted.
    -F value         sets the field separator, FS, to value.
    -v var=value     assigns value to program variable var.
    --               unambiguous end of options.

    Implementation-specific options are prefixed with "-W":

    -W version       show version information and exit.
    -W help          show this message and exit.
    -W usage         show this message and exit.
`

// awkOpenError is the error of an input file awk cannot open, printed
// as mawk prints it: "awk: cannot open NAME (REASON)".
type awkOpenError struct {
	name string
	err  error
}

func (e *awkOpenError) Error() string {
	if errors.Is(e.err, errIsDir) {
		return "read error (Is a directory)"
	}
	return fmt.Sprintf("cannot open %s (%s)", e.name, errText(e.err))
}

func (e *awkOpenError) Unwrap() error { return e.err }

// Awk runs an AWK program as mawk 1.3.4 (Debian's awk) does: awk [-F
// FS] [-v VAR=VALUE]... [-f PROGFILE]... ['PROGRAM'] [FILE | VAR=VALUE]...,
// and -W version/help/usage. The language is GoAWK's (POSIX awk, byte
// semantics for length, substr, index and printf %c, as mawk's),
// sealed: system(), pipes to and from commands and writing
// redirections to any file but /dev/null, /dev/stdout, /dev/stderr and
// "-" fail; ENVIRON holds Env.Environ only; files are FS's. The status is
// the program's exit status, 2 for a usage, syntax or run-time error or
// an input file that cannot be opened (mawk's). The program runs until
// ctx ends.
func Awk(ctx context.Context, env *Env, args []string) (status int) {
	r := newRun(ctx, env, "awk")
	defer func() {
		// The parser reports errors by panicking; any panic it does not
		// turn into an error is a bug reported here, never a crash.
		if v := recover(); v != nil {
			r.warn("internal error: %v", v)
			status = r.finish(2)
		}
	}()
	var (
		progFiles []string
		vars      []string
		fsSet     bool
		fsValue   string
	)
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		switch a {
		case "--help":
			r.out.WriteString(awkUsage)
			return r.finish(0)
		case "--version":
			r.version()
			return 0
		}
		opt := a[1]
		val := a[2:]
		needArg := strings.IndexByte("fFvW", opt) >= 0
		if !needArg {
			r.warn("not an option: %s", a)
			return r.finish(2)
		}
		if val == "" {
			if i+1 >= len(args) {
				r.warn("option requires an argument -- %c", opt)
				return r.finish(2)
			}
			i++
			val = args[i]
		}
		switch opt {
		case 'f':
			progFiles = append(progFiles, val)
		case 'F':
			fsSet, fsValue = true, val
		case 'v':
			name, value, ok := strings.Cut(val, "=")
			if !ok || !isAwkName(name) {
				r.warn("improper assignment: -v %s", val)
				return r.finish(2)
			}
			vars = append(vars, name, unescapeAwk(value))
		case 'W':
			switch {
			case strings.HasPrefix("version", val):
				r.version()
				return 0
			case strings.HasPrefix("help", val), strings.HasPrefix("usage", val):
				r.out.WriteString(awkUsage)
				return r.finish(0)
			default:
				r.warn("vacuous option: -W %s", val)
			}
		}
	}
	operands := args[i:]
	if !r.open() {
		return r.finish(2)
	}
	var src []byte
	if len(progFiles) == 0 {
		if len(operands) == 0 {
			// mawk prints its usage on standard error and succeeds.
			r.out.Flush()
			io.WriteString(r.env.Stderr, awkUsage)
			return r.finish(0)
		}
		src = []byte(operands[0])
		operands = operands[1:]
	} else {
		for _, f := range progFiles {
			data, err := r.readProgram(f)
			if err != nil {
				r.warn("cannot open %s (%s)", f, errText(err))
				return r.finish(2)
			}
			src = append(src, data...)
			src = append(src, '\n')
		}
	}
	if fsSet {
		vars = append(vars, "FS", unescapeAwk(fsValue))
	}
	prog, err := parser.ParseProgram(src, nil)
	if err != nil {
		var pe *parser.ParseError
		if errors.As(err, &pe) {
			r.warn("line %d: syntax error: %s", pe.Position.Line, pe.Message)
		} else {
			r.warn("%v", err)
		}
		return r.finish(2)
	}
	stdin := r.env.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var environ []string
	for _, kv := range r.env.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			environ = append(environ, k, v)
		}
	}
	if environ == nil {
		environ = []string{}
	}
	config := &interp.Config{
		Stdin:   stdin,
		Output:  r.out,
		Error:   &flushFirst{r: r},
		Argv0:   "awk",
		Args:    operands,
		Vars:    vars,
		Environ: environ,
		Now:     r.now,
		OpenFile: func(name string) (io.ReadCloser, error) {
			if name == "/dev/stdin" {
				return io.NopCloser(stdin), nil
			}
			if r.isDevNull(name) {
				return io.NopCloser(strings.NewReader("")), nil
			}
			f, err := r.openInput(name)
			if err != nil {
				return nil, &awkOpenError{name: name, err: err}
			}
			return f, nil
		},
		CreateFile: func(name string, flag int) (io.WriteCloser, error) {
			if r.isDevNull(name) {
				return nopWriteCloser{io.Discard}, nil
			}
			fsName, ok := r.resolve(name)
			if !ok {
				return nil, strerror(textNoEnt)
			}
			if fi, err := fs.Stat(r.fsys, fsName); err == nil && fi.IsDir() {
				return nil, strerror("Is a directory")
			}
			return nil, strerror(r.createText(fsName))
		},
	}
	in, err := interp.New(prog)
	if err != nil {
		r.warn("%v", err)
		return r.finish(2)
	}
	st, err := in.ExecuteContext(r.ctx, config)
	if err != nil {
		var oe *awkOpenError
		var re *interp.RedirectError
		switch {
		case r.ctx.Err() != nil:
			return r.finish(2)
		case errors.As(err, &oe):
			r.warn("%s", oe.Error())
		case errors.As(err, &re):
			r.warn("cannot open \"%s\" for output (%s)", re.Name, re.Err)
		default:
			if werr := r.out.Flush(); werr != nil {
				return r.finish(2)
			}
			r.warn("run time error: %v", err)
		}
		return r.finish(2)
	}
	return r.finish(st)
}

// readProgram reads a -f program file of FS ("-" and /dev/stdin are
// standard input).
func (r *run) readProgram(name string) ([]byte, error) {
	if name == "/dev/stdin" {
		name = "-"
	}
	f, err := r.openInput(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readHeld(f)
}

// isAwkName reports whether s is an awk variable name.
func isAwkName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// unescapeAwk processes the escape sequences of a -v or -F value as awk
// does for string constants; a value with a bad escape stays as is.
func unescapeAwk(s string) string {
	if u, err := lexer.Unescape(s); err == nil {
		return u
	}
	return s
}

// flushFirst writes to the command's standard error after flushing what
// it has written to standard output, so that both keep their order.
type flushFirst struct{ r *run }

func (f *flushFirst) Write(p []byte) (int, error) {
	f.r.out.Flush()
	return f.r.env.Stderr.Write(p)
}

// strerror is an error whose text is the C library's.
type strerror string

func (e strerror) Error() string { return string(e) }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
