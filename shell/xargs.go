package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/chromafs/chromafs/gnu"
)

// xargsLongValue maps xargs's long options that take a value to their
// short letters.
var xargsLongValue = map[string]byte{"delimiter": 'd', "max-args": 'n', "max-lines": 'L', "max-chars": 's', "max-procs": 'P', "arg-file": 'a'}

type xargsOptions struct {
	null      bool
	delim     int // -1: blanks and quotes
	maxArgs   int
	maxLines  int
	replace   string
	hasRepl   bool
	noRunEmpt bool
	verbose   bool
	argFile   string
	eof       string
	maxChars  int  // -s; 0: the default
	exitSize  bool // -x
}

// Command line sizes as GNU xargs computes them on Linux: the kernel's
// limit on arguments and environment (a quarter of an 8 MiB stack), less
// POSIX's 2048 bytes of headroom and the environment; by default at most
// 128 KiB.
const (
	xargsArgMax      = 2 * 1024 * 1024
	xargsHeadroom    = 2048
	xargsDefaultSize = 128 * 1024
)

// xargs builds command lines from standard input and runs them, as GNU
// xargs 4.9 does, with -0, -a, -d, -E, -I, -i, -L, -n, -P, -r, -s, -t
// and -x: the commands it can run are the file commands and echo,
// printf, true, false, test and [. -s sizes command lines as GNU does on
// Linux (each argument its length plus one; by default 128 KiB, at most
// 2 MiB less 2048 and the exported environment), with its errors and
// status 1 for what does not fit. Commands run one after another, also
// with -P: the output is the one GNU xargs gives when each command ends
// before the next starts.
func (rs *runState) xargs(ctx context.Context, hc interp.HandlerContext, args []string) int {
	o := xargsOptions{delim: -1}
	warn := func(format string, a ...any) {
		fmt.Fprintf(hc.Stderr, "xargs: %s\n", fmt.Sprintf(format, a...))
	}
	usage := func(format string, a ...any) int {
		warn(format, a...)
		fmt.Fprintln(hc.Stderr, "Try 'xargs --help' for more information.")
		return 1
	}
	atoi := func(opt, v string, min int) (int, bool) {
		n, err := strconv.Atoi(v)
		if err != nil {
			usage("invalid number %q for %s option", v, opt)
			return 0, false
		}
		if n < min {
			usage("value %s for %s option should be >= %d", v, opt, min)
			return 0, false
		}
		return n, true
	}
	// The largest -s: what the environment leaves of the kernel's limit.
	sizeMax := xargsArgMax - xargsHeadroom - xargsEnvSize(hc)
	maxChars := func(v string) bool {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			usage("invalid number %q for -s option", v)
			return false
		case n < 1:
			warn("value %s for -s option should be >= 1", v)
			n = 1
		case n > int64(sizeMax):
			warn("value %s for -s option should be <= %d", v, sizeMax)
			n = int64(sizeMax)
		}
		o.maxChars = int(n)
		return true
	}
	// setValue applies the option of short letter c that takes the value
	// v; it is false when v is bad (and reported).
	setValue := func(c byte, v string) bool {
		var ok bool
		switch c {
		case 'I':
			o.hasRepl, o.replace, o.maxLines = true, v, 1
		case 'n':
			o.maxArgs, ok = atoi("-n", v, 1)
			return ok
		case 'L':
			o.maxLines, ok = atoi("-L", v, 1)
			return ok
		case 'd':
			d, err := parseDelim(v)
			if err != nil {
				warn("%v", err)
				return false
			}
			o.delim = d
		case 's':
			return maxChars(v)
		case 'P':
			_, ok = atoi("-P", v, 0)
			return ok
		case 'a':
			o.argFile = v
		case 'E':
			o.eof = v
		}
		return true
	}
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		i++
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			need := func() (string, bool) {
				if hasVal {
					return val, true
				}
				if i < len(args) {
					i++
					return args[i-1], true
				}
				usage("option '--%s' requires an argument", name)
				return "", false
			}
			var ok bool
			switch name {
			case "null":
				o.null = true
			case "no-run-if-empty":
				o.noRunEmpt = true
			case "verbose":
				o.verbose = true
			case "exit":
				o.exitSize = true
			case "replace":
				o.hasRepl, o.replace = true, "{}"
				if hasVal {
					o.replace = val
				}
				o.maxLines = 1
			case "eof":
				o.eof = val
			case "delimiter", "max-args", "max-lines", "max-procs", "max-chars", "arg-file":
				if val, ok = need(); !ok {
					return 1
				}
				if !setValue(xargsLongValue[name], val) {
					return 1
				}
			case "help":
				fmt.Fprint(hc.Stdout, xargsHelp)
				return 0
			case "version":
				fmt.Fprintln(hc.Stdout, "xargs (chromafs)")
				return 0
			default:
				return usage("unrecognized option '%s'", a)
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			rest := a[j+1:]
			value := func() (string, bool) {
				if rest != "" {
					j = len(a)
					return rest, true
				}
				if i < len(args) {
					i++
					return args[i-1], true
				}
				usage("option requires an argument -- '%c'", c)
				return "", false
			}
			var ok bool
			var v string
			switch c {
			case '0':
				o.null = true
			case 'r':
				o.noRunEmpt = true
			case 't':
				o.verbose = true
			case 'x':
				o.exitSize = true
			case 'i':
				o.hasRepl, o.replace, o.maxLines = true, "{}", 1
				if rest != "" {
					o.replace, j = rest, len(a)
				}
			case 'e':
				o.eof, j = rest, len(a)
			case 'l':
				o.maxLines = 1
				if rest != "" {
					if o.maxLines, ok = atoi("-l", rest, 1); !ok {
						return 1
					}
					j = len(a)
				}
			case 'I', 'n', 'L', 'd', 'P', 's', 'a', 'E':
				if v, ok = value(); !ok {
					return 1
				}
				if !setValue(c, v) {
					return 1
				}
			default:
				return usage("invalid option -- '%c'", c)
			}
		}
	}
	command := args[i:]
	if len(command) == 0 {
		command = []string{"echo"}
	}
	if o.hasRepl {
		o.maxArgs = 0
	}

	var in io.Reader = hc.Stdin
	if o.argFile != "" {
		f, err := rs.s.fsys.Open(fsName(absolute(hc.Dir, o.argFile)))
		if err != nil {
			warn("%s: %s", o.argFile, gnu.ErrText(err))
			return 1
		}
		defer f.Close()
		in = f
	}
	if in == nil {
		in = strings.NewReader("")
	}
	if o.maxChars == 0 {
		o.maxChars = min(xargsDefaultSize, sizeMax)
	}
	x := &xargsExec{rs: rs, ctx: ctx, hc: hc, o: o, command: command, warn: warn}
	code := x.run(bufio.NewReader(in))
	switch {
	case code >= 0:
		return code
	case x.failed:
		return 123
	}
	return 0
}

// xargsEnvSize is the size of the environment xargs would pass to its
// commands, as GNU xargs counts it: the shell's exported variables and
// the "_" bash adds, each NAME=VALUE and its terminating null.
func xargsEnvSize(hc interp.HandlerContext) int {
	n := len("_=/usr/bin/xargs") + 1
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			n += len(name) + len(vr.String()) + 2
		}
		return true
	})
	return n
}

// xargsExec builds command lines from xargs' items as GNU xargs does
// (its buildcmd): each argument counts its length plus a terminating
// null against -s, and runs them.
type xargsExec struct {
	rs      *runState
	ctx     context.Context
	hc      interp.HandlerContext
	o       xargsOptions
	command []string
	warn    func(format string, a ...any)

	pending []string // arguments after the command
	chars   int      // characters of the command and pending
	lines   int      // input lines in pending (for -L)
	ran     bool     // a command line has run
	failed  bool     // a command exited with a status from 1 to 125
}

// run reads the items of in and runs their command lines as they come,
// then reports the error that ended the input, if any; it returns the
// status xargs must end with at once, or -1 when it ends with the
// commands' statuses.
func (x *xargsExec) run(in *bufio.Reader) int {
	o := x.o
	initChars := 0
	for _, a := range x.command {
		initChars += len(a) + 1
	}
	if !o.hasRepl && initChars > o.maxChars {
		x.warn("cannot fit single argument within argument list size limit")
		return 1
	}
	x.chars = initChars
	code := -1
	add := x.add
	if o.hasRepl {
		add = x.addReplace
	}
	err := readXargsItems(in, o, func(it xargsItem) bool {
		code = add(it)
		return code < 0
	})
	switch {
	case code >= 0:
		return code
	case err != nil:
		if st := x.flush(); st >= 0 {
			return st
		}
		x.warn("%v", err)
		return 1
	case o.hasRepl:
		return -1
	case len(x.pending) > 0 || (!o.noRunEmpt && !x.ran):
		return x.exec(append(slices.Clone(x.command), x.pending...))
	}
	return -1
}

// add adds one item to the command line being built, running it when
// it is full; it returns the status xargs must end with at once, or -1.
func (x *xargsExec) add(it xargsItem) int {
	o := x.o
	initChars := 0
	for _, a := range x.command {
		initChars += len(a) + 1
	}
	n := len(it.text) + 1
	if n > o.maxChars-initChars {
		if st := x.flush(); st >= 0 {
			return st
		}
		x.warn("argument line too long")
		return 1
	}
	if x.chars+n > o.maxChars {
		if (o.exitSize || o.maxLines > 0) && (o.maxLines > 0 || o.maxArgs > 0) {
			x.warn("argument list too long")
			return 1
		}
		if st := x.flush(); st >= 0 {
			return st
		}
	}
	x.pending = append(x.pending, it.text)
	x.chars += n
	if it.endsLine {
		x.lines++
	}
	if (o.maxArgs > 0 && len(x.pending) >= o.maxArgs) || (o.maxLines > 0 && x.lines >= o.maxLines) {
		return x.flush()
	}
	return -1
}

// addReplace runs the command for one item, with the replace string in
// its arguments replaced by the item (-I). As GNU xargs does, it checks
// the first item against -s alone, later ones against -s less the
// command name.
func (x *xargsExec) addReplace(it xargsItem) int {
	o := x.o
	initChars := 0
	if x.ran {
		initChars = len(x.command[0]) + 1
	}
	if len(it.text) >= o.maxChars-initChars {
		x.warn("argument line too long")
		return 1
	}
	if len(x.command[0])+1 > o.maxChars {
		x.warn("cannot fit single argument within argument list size limit")
		return 1
	}
	line := []string{x.command[0]}
	chars := len(x.command[0]) + 1
	for _, a := range x.command[1:] {
		a = strings.ReplaceAll(a, o.replace, it.text)
		if len(a) >= o.maxChars-1 {
			x.warn("command too long")
			return 1
		}
		if chars+len(a)+1 > o.maxChars {
			x.warn("argument list too long")
			return 1
		}
		chars += len(a) + 1
		line = append(line, a)
	}
	return x.exec(line)
}

// flush runs the pending arguments, if any; it returns what exec
// returns, or -1.
func (x *xargsExec) flush() int {
	if len(x.pending) == 0 {
		return -1
	}
	line := append(slices.Clone(x.command), x.pending...)
	x.pending, x.lines = x.pending[:0], 0
	x.chars = 0
	for _, a := range x.command {
		x.chars += len(a) + 1
	}
	return x.exec(line)
}

// exec runs one command line; it returns the status xargs must end
// with at once, or -1 to go on.
func (x *xargsExec) exec(line []string) int {
	x.ran = true
	if x.ctx.Err() != nil {
		return 1
	}
	if x.o.verbose {
		fmt.Fprintln(x.hc.Stderr, strings.Join(line, " "))
	}
	st, stop := x.rs.xargsRun(x.ctx, x.hc, line)
	switch {
	case stop:
		return st
	case st == 255:
		x.warn("%s: exited with status 255; aborting", line[0])
		return 124
	case st >= 128 && st <= 128+64:
		x.warn("%s: terminated by signal %d", line[0], st-128)
		return 125
	case st != 0:
		x.failed = true
	}
	return -1
}

// xargsRun runs one command line; stop is true when xargs must end with
// status st (a command that cannot be run).
func (rs *runState) xargsRun(ctx context.Context, hc interp.HandlerContext, line []string) (st int, stop bool) {
	st, err := rs.runProgram(ctx, hc, line)
	switch {
	case errors.Is(err, ErrLimit):
		return 1, true
	case errors.Is(err, fs.ErrPermission):
		fmt.Fprintf(hc.Stderr, "xargs: %s: Permission denied\n", line[0])
		return 126, true
	case err != nil:
		fmt.Fprintf(hc.Stderr, "xargs: %s: No such file or directory\n", line[0])
		return 127, true
	}
	return st, false
}

// runProgram runs line as a program run by another command (xargs,
// find -exec) with the working directory hc.Dir: a file command, xargs,
// or one of the builtins that exist as programs. The error wraps
// fs.ErrNotExist when there is no such program, fs.ErrPermission when
// line[0] names a file of the filesystem (nothing can be run), and
// ErrLimit when the commands cap stopped the line.
func (rs *runState) runProgram(ctx context.Context, hc interp.HandlerContext, line []string) (int, error) {
	if n := rs.commands.Add(1); n > int64(rs.s.maxCommands) {
		err := &LimitError{What: "commands", Limit: rs.s.maxCommands}
		rs.cancel(err)
		return 1, err
	}
	name := line[0]
	switch {
	case name == "xargs":
		return rs.xargs(ctx, hc, line[1:]), nil
	case name == "bash" || name == "sh":
		return rs.shellCmd(ctx, hc, line)
	case name == "pwd":
		// The program prints the directory it runs in.
		if brokenPipe(hc.Stdout) {
			return 141, nil
		}
		fmt.Fprintln(hc.Stdout, hc.Dir)
		return 0, nil
	case isBuiltin(name, programBuiltin):
		if isBuiltin(name, stdoutBuiltin) && brokenPipe(hc.Stdout) {
			// The program would be killed by SIGPIPE writing its output.
			return 141, nil
		}
		if name == "printf" && len(line) > 1 {
			return bashPrintf(hc.Stdout, hc.Stderr, rs.s.prog, line[1], line[2:], rs.s.clock(), rs.s.loc), nil
		}
		err := hc.Builtin(ctx, line)
		var es interp.ExitStatus
		if errors.As(err, &es) {
			return int(es), nil
		}
		if err != nil {
			return 1, nil
		}
		return 0, nil
	}
	if rs.s.command(name) != nil {
		return rs.runCommand(ctx, hc, line), nil
	}
	if strings.Contains(name, "/") {
		if _, err := fs.Stat(rs.s.fsys, fsName(absolute(hc.Dir, name))); err == nil {
			return 126, fs.ErrPermission
		}
	}
	return 127, fs.ErrNotExist
}

type xargsItem struct {
	text     string
	endsLine bool // the item ends an input line (for -L)
}

// errXargsStop ends the reading of xargs' input when a command line
// ended xargs.
var errXargsStop = errors.New("xargs: stop")

// readXargsItems splits xargs' input into items and passes each to
// yield as soon as it is known whether it ends an input line (for -L);
// when yield returns false, it returns errXargsStop. A read error or an
// unmatched quote is returned after the items before it were yielded.
func readXargsItems(r *bufio.Reader, o xargsOptions, yield func(xargsItem) bool) error {
	var held *xargsItem // the last item, which a blank line may yet end
	push := func(it xargsItem) bool {
		if held != nil && !yield(*held) {
			return false
		}
		held = &it
		return true
	}
	finish := func(err error) error {
		if held != nil && !yield(*held) {
			return errXargsStop
		}
		return err
	}
	if o.null || o.delim >= 0 {
		sep := byte(0)
		if !o.null {
			sep = byte(o.delim)
		}
		for {
			s, err := r.ReadString(sep)
			if err != nil && err != io.EOF {
				return finish(err)
			}
			if strings.HasSuffix(s, string(sep)) {
				s = s[:len(s)-1]
			} else if s == "" {
				return finish(nil)
			}
			if o.eof != "" && s == o.eof {
				return finish(nil)
			}
			if !push(xargsItem{text: s, endsLine: true}) {
				return errXargsStop
			}
			if err == io.EOF {
				return finish(nil)
			}
		}
	}
	var cur strings.Builder
	inItem := false
	quote := byte(0)
	eof := false
	// emit ends the current item; false means stop reading (the logical
	// EOF string, or a command line ended xargs).
	emit := func(endsLine bool) bool {
		if !inItem {
			if endsLine && held != nil {
				held.endsLine = true
			}
			return true
		}
		text := cur.String()
		cur.Reset()
		inItem = false
		if o.eof != "" && text == o.eof {
			eof = true
			return false
		}
		return push(xargsItem{text: text, endsLine: endsLine})
	}
	stopped := func() error {
		if eof {
			return finish(nil)
		}
		return errXargsStop
	}
	unmatched := func() error {
		kind := "single"
		if quote == '"' {
			kind = "double"
		}
		return finish(fmt.Errorf("unmatched %s quote; by default quotes are special to xargs unless you use the -0 option", kind))
	}
	lineStart := true
	for {
		c, err := r.ReadByte()
		if err != nil {
			if quote != 0 {
				return unmatched()
			}
			if !emit(true) {
				return stopped()
			}
			return finish(nil)
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\n' {
				return unmatched()
			} else {
				cur.WriteByte(c)
			}
		case c == '\n':
			if !emit(true) {
				return stopped()
			}
			lineStart = true
			continue
		case (c == ' ' || c == '\t') && !(o.hasRepl && !lineStart):
			if !o.hasRepl {
				if !emit(false) {
					return stopped()
				}
			}
			continue
		case c == '\'' || c == '"':
			quote = c
			inItem = true
		case c == '\\':
			n, err := r.ReadByte()
			if err == nil {
				cur.WriteByte(n)
			}
			inItem = true
		default:
			cur.WriteByte(c)
			inItem = true
		}
		lineStart = false
	}
}

// parseDelim parses -d's argument: a character or an escape.
func parseDelim(s string) (int, error) {
	if len(s) == 1 {
		return int(s[0]), nil
	}
	if len(s) == 2 && s[0] == '\\' {
		switch s[1] {
		case 'n':
			return '\n', nil
		case 't':
			return '\t', nil
		case '0':
			return 0, nil
		case '\\':
			return '\\', nil
		case 'a':
			return '\a', nil
		case 'b':
			return '\b', nil
		case 'f':
			return '\f', nil
		case 'r':
			return '\r', nil
		case 'v':
			return '\v', nil
		}
	}
	if strings.HasPrefix(s, "\\x") || strings.HasPrefix(s, "\\0") {
		base := 16
		digits := s[2:]
		if s[1] == '0' {
			base = 8
			digits = s[1:]
		}
		if n, err := strconv.ParseUint(digits, base, 8); err == nil {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("invalid input delimiter specification %s: the delimiter must be either a single character or an escape sequence starting with \\", s)
}

const xargsHelp = `Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...
Run COMMAND with arguments INITIAL-ARGS and more arguments read from input.

  -0, --null                   items are separated by a null, not whitespace;
                                 disables quote and backslash processing and
                                 logical EOF processing
  -a, --arg-file=FILE          read arguments from FILE, not standard input
  -d, --delimiter=CHARACTER    items in input stream are separated by CHARACTER,
                                 not by whitespace; disables quote and backslash
                                 processing and logical EOF processing
  -E END                       set logical EOF string; if END occurs as a line
                                 of input, the rest of the input is ignored
  -I R                         same as --replace=R
  -i, --replace[=R]            replace R in INITIAL-ARGS with names read
                                 from standard input, split at newlines;
                                 if R is unspecified, assume {}
  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank input lines per
                                 command line
  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per command line
  -P, --max-procs=MAX-PROCS    accepted; commands run one at a time
  -r, --no-run-if-empty        if there are no arguments, then do not run COMMAND
  -s, --max-chars=MAX-CHARS    limit length of command line to MAX-CHARS
  -t, --verbose                print commands before executing them
  -x, --exit                   exit if the size (see -s) is exceeded
      --help                   display this help and exit
      --version                output version information and exit

COMMAND is one of the shell's commands (ls, cat, grep, find, ..., echo,
printf, true, false, test); commands run one after another.
`
