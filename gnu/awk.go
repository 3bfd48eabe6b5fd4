package gnu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/chromafs/chromafs/awk"
)

const awkUsage = `Usage: %[1]s [POSIX or GNU style options] -f progfile [--] file ...
Usage: %[1]s [POSIX or GNU style options] [--] 'program' file ...
POSIX options:		GNU long options: (standard)
	-f progfile		--file=progfile
	-F fs			--field-separator=fs
	-v var=val		--assign=var=val
Short options:		GNU long options: (extensions)
	-e 'program-text'	--source='program-text'
	-h			--help
	-V			--version

Other gawk options are accepted where they change nothing here
(-b -c -n -N -O -P -r -s -S -t, --posix, --traditional, --sandbox,
--re-interval, --characters-as-bytes); the others are refused.

This awk is chromafs's own, a POSIX awk with gawk's extensions that
agents use; it reads the filesystem and never writes to it nor runs
commands.

Examples:
	%[1]s '{ sum += $1 }; END { print sum }' file
	%[1]s -F: '{ print $1 }' /etc/passwd
`

// Awk runs an awk program (package awk) as gawk 5.2's command line
// does: "awk [-F fs] [-v var=val]... [-f progfile | -e text]... ['program']
// [file | var=value]...". Options end at the first operand (gawk does
// not permute). -F's and -v's values have their escapes processed
// ("\t"); -F t is "t", as in gawk. Program files (-f) are files of the
// filesystem (Env.ReadFile when set). ENVIRON is Env.Environ.
//
// Exit status: the program's exit value; 0 at the end; 1 for a usage
// error or a syntax error (as gawk); 2 for a fatal run-time error
// (unreadable input file, division by zero, a write redirected to a
// file, the context's end). Diagnostics are gawk's:
// "awk: cmd. line:1: ..." with the source line and a caret for syntax
// errors.
func Awk(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "awk")
	var (
		srcs     []awk.Source
		vars     []string
		fsep     *string
		operands []string
	)
	usageErr := func(format string, a ...any) int {
		r.warn(format, a...)
		fmt.Fprintf(env.Stderr, strings.SplitAfter(awkUsage, "\n")[0]+strings.SplitAfter(awkUsage, "\n")[1], r.prog)
		return 1
	}
	i := 0
	readProg := func(name string) (string, bool) {
		b, err := r.readProgFile(name)
		if err != nil {
			r.warn("fatal: cannot open source file `%s' for reading: %s", name, ErrText(err))
			return "", false
		}
		return string(b), true
	}
args:
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		// value of an option: attached or the next argument
		value := func(attached string, name string) (string, bool) {
			if attached != "" {
				return attached, true
			}
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			long := map[string]string{"file": "f", "field-separator": "F", "assign": "v", "source": "e", "help": "h", "version": "V",
				"posix": "", "traditional": "", "sandbox": "", "re-interval": "", "characters-as-bytes": "", "non-decimal-data": "!",
				"use-lc-numeric": "", "optimize": "", "no-optimize": "", "lint-old": ""}
			var short string
			var found []string
			for full, s := range long {
				if full == name {
					found, short = []string{full}, s
					break
				}
				if strings.HasPrefix(full, name) {
					found = append(found, full)
					short = s
				}
			}
			if len(found) != 1 {
				if len(found) > 1 {
					return usageErr("option '--%s' is ambiguous", name)
				}
				return usageErr("unrecognized option '--%s'", name)
			}
			switch short {
			case "h":
				fmt.Fprintf(r.out, awkUsage, r.prog)
				return r.finish(0)
			case "V":
				r.version()
				return 0
			case "", "!":
				continue
			}
			v := val
			if !hasVal {
				if i+1 >= len(args) {
					return usageErr("option '--%s' requires an argument", found[0])
				}
				i++
				v = args[i]
			}
			switch short {
			case "f":
				text, ok := readProg(v)
				if !ok {
					return 2
				}
				srcs = append(srcs, awk.Source{Name: v, Text: text})
			case "F":
				fsep = &v
			case "v":
				vars = append(vars, v)
			case "e":
				srcs = append(srcs, awk.Source{Text: v})
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			rest := a[j+1:]
			switch c {
			case 'F', 'v', 'f', 'e':
				v, ok := value(rest, string(c))
				if !ok {
					return usageErr("option requires an argument -- %c", c)
				}
				switch c {
				case 'F':
					fsep = &v
				case 'v':
					vars = append(vars, v)
				case 'f':
					text, ok := readProg(v)
					if !ok {
						return 2
					}
					srcs = append(srcs, awk.Source{Name: v, Text: text})
				case 'e':
					srcs = append(srcs, awk.Source{Text: v})
				}
				continue args
			case 'h':
				fmt.Fprintf(r.out, awkUsage, r.prog)
				return r.finish(0)
			case 'V':
				r.version()
				return 0
			case 'b', 'c', 'n', 'N', 'O', 'P', 'r', 's', 'S', 't':
			default:
				return usageErr("invalid option -- '%c'", c)
			}
		}
	}
	operands = args[i:]
	if len(srcs) == 0 {
		if len(operands) == 0 {
			fmt.Fprintf(env.Stderr, awkUsage, r.prog)
			return 1
		}
		srcs = []awk.Source{{Text: operands[0]}}
		operands = operands[1:]
	}
	for _, v := range vars {
		if name, _, ok := strings.Cut(v, "="); !ok || !validAwkName(name) {
			r.warn("`%s' argument to `-v' not in `var=value' form", v)
			fmt.Fprintf(env.Stderr, "\n"+awkUsage, r.prog)
			return 1
		}
	}
	prog, err := awk.CompileSources(srcs)
	if err != nil {
		var se *awk.SyntaxError
		if errors.As(err, &se) {
			file, line := se.Where()
			text, col := se.Context()
			r.out.Flush()
			if se.Plain {
				fmt.Fprintf(env.Stderr, "%s: %s:%d: error: %s\n", r.prog, file, line, se.Msg)
				return 1
			}
			fmt.Fprintf(env.Stderr, "%s: %s:%d: %s\n", r.prog, file, line, text)
			fmt.Fprintf(env.Stderr, "%s: %s:%d: %s^ %s\n", r.prog, file, line, caretPad(text, col), se.Msg)
			return 1
		}
		r.warn("%v", err)
		return 1
	}
	if !r.open() {
		return 2
	}
	cfg := &awk.Config{
		Stdin:    env.Stdin,
		Stdout:   r.out,
		Stderr:   &flushingWriter{r},
		Argv0:    r.prog,
		Args:     operands,
		Vars:     vars,
		FieldSep: fsep,
		Environ:  env.Environ,
		Open: func(name string) (io.ReadCloser, error) {
			p, ok := r.resolve(name)
			if !ok {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
			}
			return awk.OpenFile(r.fsys, p, name)
		},
	}
	status, err := prog.Run(ctx, cfg)
	if err != nil {
		r.out.Flush()
		var re *awk.RuntimeError
		if errors.As(err, &re) && errors.Is(err, context.DeadlineExceeded) && env.Timeout > 0 {
			re.Msg = fmt.Sprintf("timed out after %v", env.Timeout)
		}
		fmt.Fprintf(env.Stderr, "%s: %v\n", r.prog, err)
		if err := r.out.Flush(); err != nil {
			return 2
		}
		return 2
	}
	if err := r.out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "%s: write error: %s\n", r.prog, ErrText(err))
		return 2
	}
	return status
}

// flushingWriter writes diagnostics after the command's buffered
// output.
type flushingWriter struct{ r *run }

func (w *flushingWriter) Write(p []byte) (int, error) {
	w.r.out.Flush()
	return w.r.env.Stderr.Write(p)
}

// caretPad is the text before a caret under column col of line: tabs
// are kept so that the caret lines up.
func caretPad(line string, col int) string {
	col = min(col, len(line))
	var b strings.Builder
	for _, c := range []byte(line[:col]) {
		if c == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func validAwkName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// readProgFile reads a -f program: Env.ReadFile's, or a file of the
// filesystem ("-" is standard input).
func (r *run) readProgFile(name string) ([]byte, error) {
	if r.env.ReadFile != nil {
		return r.env.ReadFile(name)
	}
	if name == "-" || name == "/dev/stdin" {
		if r.env.Stdin == nil {
			return nil, nil
		}
		return io.ReadAll(r.env.Stdin)
	}
	if !r.open() {
		return nil, ErrReported
	}
	p, ok := r.resolve(name)
	if !ok {
		return nil, fs.ErrNotExist
	}
	return fs.ReadFile(r.fsys, p)
}
