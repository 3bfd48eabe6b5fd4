package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/chromafs/chromafs/gnu"
)

// xargsBuiltins are the shell builtins xargs can run, as GNU xargs runs
// the programs of the same names.
var xargsBuiltins = map[string]bool{"echo": true, "printf": true, "true": true, "false": true, "test": true, "[": true}

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
}

// xargs builds command lines from standard input and runs them, as GNU
// xargs 4.9 does, with -0, -a, -d, -E, -I, -i, -L, -n, -r, -t (and -P,
// -s, -x accepted): the commands it can run are the file commands and
// echo, printf, true, false, test and [. Commands run one after another.
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
			warn("invalid number %q for %s option", v, opt)
			return 0, false
		}
		if n < min {
			warn("value %s for %s option should be >= %d", v, opt, min)
			return 0, false
		}
		return n, true
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
			case "replace":
				o.hasRepl, o.replace = true, "{}"
				if hasVal {
					o.replace = val
				}
				o.maxLines = 1
			case "eof":
				o.eof = val
			case "delimiter":
				if val, ok = need(); !ok {
					return 1
				}
				d, err := parseDelim(val)
				if err != nil {
					warn("%v", err)
					return 1
				}
				o.delim = d
			case "max-args", "max-lines", "max-procs", "max-chars", "arg-file":
				if val, ok = need(); !ok {
					return 1
				}
				switch name {
				case "max-args":
					if o.maxArgs, ok = atoi("-n", val, 1); !ok {
						return 1
					}
				case "max-lines":
					if o.maxLines, ok = atoi("-L", val, 1); !ok {
						return 1
					}
				case "arg-file":
					o.argFile = val
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
				switch c {
				case 'I':
					o.hasRepl, o.replace, o.maxLines = true, v, 1
				case 'n':
					if o.maxArgs, ok = atoi("-n", v, 1); !ok {
						return 1
					}
				case 'L':
					if o.maxLines, ok = atoi("-L", v, 1); !ok {
						return 1
					}
				case 'd':
					d, err := parseDelim(v)
					if err != nil {
						warn("%v", err)
						return 1
					}
					o.delim = d
				case 'a':
					o.argFile = v
				case 'E':
					o.eof = v
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
	items, err := readXargsItems(bufio.NewReader(in), o)
	if err != nil {
		warn("%v", err)
	}
	// Group the items into command lines.
	var groups [][]string
	switch {
	case o.hasRepl:
		for _, it := range items {
			line := make([]string, len(command))
			for k, a := range command {
				line[k] = strings.ReplaceAll(a, o.replace, it.text)
			}
			groups = append(groups, line)
		}
	default:
		var cur []string
		lines := 0
		flush := func() {
			groups = append(groups, append(append([]string(nil), command...), cur...))
			cur, lines = nil, 0
		}
		for _, it := range items {
			cur = append(cur, it.text)
			if it.endsLine {
				lines++
			}
			if (o.maxArgs > 0 && len(cur) >= o.maxArgs) || (o.maxLines > 0 && lines >= o.maxLines) {
				flush()
			}
		}
		if len(cur) > 0 || (len(groups) == 0 && !o.noRunEmpt && len(items) == 0) {
			flush()
		}
	}
	code := 0
	if err != nil {
		code = 1
	}
	for _, line := range groups {
		if ctx.Err() != nil {
			return 1
		}
		if o.verbose {
			fmt.Fprintln(hc.Stderr, strings.Join(line, " "))
		}
		st, stop := rs.xargsRun(ctx, hc, line)
		switch {
		case stop:
			return st
		case st == 255:
			warn("%s: exited with status 255; aborting", line[0])
			return 124
		case st >= 128 && st <= 128+64:
			warn("%s: terminated by signal %d", line[0], st-128)
			return 125
		case st != 0:
			code = 123
		}
	}
	return code
}

// xargsRun runs one command line; stop is true when xargs must end with
// status st (a command that cannot be run).
func (rs *runState) xargsRun(ctx context.Context, hc interp.HandlerContext, line []string) (st int, stop bool) {
	if n := rs.commands.Add(1); n > int64(rs.s.maxCommands) {
		rs.cancel(&LimitError{What: "commands", Limit: rs.s.maxCommands})
		return 1, true
	}
	name := line[0]
	switch {
	case name == "xargs":
		return rs.xargs(ctx, hc, line[1:]), false
	case xargsBuiltins[name]:
		err := hc.Builtin(ctx, line)
		var es interp.ExitStatus
		if errors.As(err, &es) {
			return int(es), false
		}
		if err != nil {
			return 1, false
		}
		return 0, false
	}
	if _, ok := gnu.Commands[name]; ok {
		return rs.runCommand(ctx, hc, line), false
	}
	if strings.Contains(name, "/") {
		if _, err := fs.Stat(rs.s.fsys, fsName(absolute(hc.Dir, name))); err == nil {
			fmt.Fprintf(hc.Stderr, "xargs: %s: Permission denied\n", name)
			return 126, true
		}
	}
	fmt.Fprintf(hc.Stderr, "xargs: %s: No such file or directory\n", name)
	return 127, true
}

type xargsItem struct {
	text     string
	endsLine bool // the item ends an input line (for -L)
}

// readXargsItems splits xargs' input into items.
func readXargsItems(r *bufio.Reader, o xargsOptions) ([]xargsItem, error) {
	var items []xargsItem
	if o.null || o.delim >= 0 {
		sep := byte(0)
		if !o.null {
			sep = byte(o.delim)
		}
		for {
			s, err := r.ReadString(sep)
			if err != nil && err != io.EOF {
				return items, err
			}
			if strings.HasSuffix(s, string(sep)) {
				s = s[:len(s)-1]
			} else if s == "" {
				return items, nil
			}
			if o.eof != "" && s == o.eof {
				return items, nil
			}
			items = append(items, xargsItem{text: s, endsLine: true})
			if err == io.EOF {
				return items, nil
			}
		}
	}
	var cur strings.Builder
	inItem := false
	quote := byte(0)
	emit := func(endsLine bool) bool {
		if !inItem {
			if endsLine && len(items) > 0 {
				items[len(items)-1].endsLine = true
			}
			return true
		}
		text := cur.String()
		cur.Reset()
		inItem = false
		if o.eof != "" && text == o.eof {
			return false
		}
		items = append(items, xargsItem{text: text, endsLine: endsLine})
		return true
	}
	lineStart := true
	for {
		c, err := r.ReadByte()
		if err != nil {
			if quote != 0 {
				kind := "single"
				if quote == '"' {
					kind = "double"
				}
				return items, fmt.Errorf("unmatched %s quote; by default quotes are special to xargs unless you use the -0 option", kind)
			}
			emit(true)
			return items, nil
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\n' {
				kind := "single"
				if quote == '"' {
					kind = "double"
				}
				return items, fmt.Errorf("unmatched %s quote; by default quotes are special to xargs unless you use the -0 option", kind)
			} else {
				cur.WriteByte(c)
			}
		case c == '\n':
			if !emit(true) {
				return items, nil
			}
			lineStart = true
			continue
		case (c == ' ' || c == '\t') && !(o.hasRepl && !lineStart):
			if !o.hasRepl {
				if !emit(false) {
					return items, nil
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
  -r, --no-run-if-empty        if there are no arguments, then do not run COMMAND
  -t, --verbose                print commands before executing them
      --help                   display this help and exit
      --version                output version information and exit

COMMAND is one of the shell's commands (ls, cat, grep, find, ..., echo,
printf, true, false, test); commands run one after another (-P, -s and -x
are accepted and ignored).
`
