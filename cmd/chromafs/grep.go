package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/grepx/pattern"
)

// grepProg is the program name in grep's diagnostics, where GNU grep
// says "grep".
const grepProg = "chromafs grep"

// grepCommand is `chromafs grep`: GNU grep 3.8 over the collection. It
// parses its own arguments, as GNU getopt_long does, after taking out the
// global flags that come first.
func grepCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "grep [OPTION]... PATTERNS [PATH]...",
		Short: "Search files for patterns, as GNU grep 3.8 does (try 'chromafs grep --help')",
		// grep's options are GNU's, parsed by grepMain.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			rest, err := takeLeadingGlobals(cmd, args)
			if err != nil {
				return err
			}
			signalExit.Store(true)
			ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout)
			defer cancel()
			// Parse (once: -f files and standard input are read once)
			// before connecting, so that usage errors, --help and
			// --version need no server.
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			o, err := parseGrep(rest, osReadFile)
			if err != nil {
				return exitError{printGrepExit(err, stdout, stderr)}
			}
			o.timeout = g.timeout
			trace.phase("parse arguments (cobra and grep's)")
			cfs, err := g.openFS(ctx)
			if err != nil {
				return err
			}
			var fsys fs.FS = cfs
			if trace != nil {
				fsys = &traceFS{FS: cfs, t: trace}
			}
			if code := runGrep(ctx, fsys, o, stdout, stderr); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}

// takeLeadingGlobals applies the global flags (--name=value or --name
// value) at the start of args, where cobra leaves them for a command that
// parses its own flags, and returns the rest: grep's own arguments.
func takeLeadingGlobals(cmd *cobra.Command, args []string) ([]string, error) {
	flags := cmd.InheritedFlags()
	for i := 0; i < len(args); i++ {
		last, ok, err := takeGlobal(flags, args, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			return args[i:], nil
		}
		i = last
	}
	return nil, nil
}

// osReadFile reads a -f or --exclude-from file from the local filesystem;
// "-" is standard input.
func osReadFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

// grepMain runs grep with GNU grep 3.8's arguments over fsys and returns
// the exit status: 0 if a line was selected, 1 if none, 2 on error.
// Operands are paths from the root of fsys ("/" or "." is the root).
func grepMain(ctx context.Context, fsys fs.FS, args []string, stdout, stderr io.Writer) int {
	o, err := parseGrep(args, osReadFile)
	if err != nil {
		return printGrepExit(err, stdout, stderr)
	}
	return runGrep(ctx, fsys, o, stdout, stderr)
}

// grepExit ends the command before searching: a usage error, --help,
// --version, or a status GNU grep decides without reading (-m 0).
type grepExit struct {
	stdout, stderr string
	code           int
}

func (e *grepExit) Error() string { return strings.TrimSpace(e.stderr) }

func printGrepExit(err error, stdout, stderr io.Writer) int {
	var e *grepExit
	if !errors.As(err, &e) {
		fmt.Fprintf(stderr, "%s: %v\n", grepProg, err)
		return 2
	}
	io.WriteString(stdout, e.stdout)
	io.WriteString(stderr, e.stderr)
	return e.code
}

const grepTryHelp = "Usage: " + grepProg + " [OPTION]... PATTERNS [FILE]...\n" +
	"Try '" + grepProg + " --help' for more information.\n"

// usageError is GNU's diagnostic for a bad option: the message, then how
// to get help; status 2.
func usageError(format string, a ...any) error {
	return &grepExit{stderr: grepProg + ": " + fmt.Sprintf(format, a...) + "\n" + grepTryHelp, code: 2}
}

// fatal is GNU's die(): one diagnostic line, status 2.
func fatal(format string, a ...any) error {
	return &grepExit{stderr: grepProg + ": " + fmt.Sprintf(format, a...) + "\n", code: 2}
}

// Directory handling (-d ACTION, -r).
const (
	dirRead = iota
	dirRecurse
	dirSkip
)

// grepOptions is a parsed grep command line.
type grepOptions struct {
	patterns      []string // one per line of the -e/-f/operand pattern list
	syntax        pattern.Syntax
	ignoreCase    bool
	word, line    bool
	invert        bool
	count         bool
	listMatching  bool // -l
	listNonMatch  bool // -L
	quiet         bool
	lineNumber    bool
	byteOffset    bool
	onlyMatching  bool
	maxCount      int64 // -1: no limit
	before, after int   // -1: no context given
	filenames     int   // -1 for -h, 1 for -H, 0 for neither
	directories   int
	noMessages    bool
	null          bool
	groupSep      *string          // nil: --no-group-separator
	globs         []grepx.FileGlob // --include and --exclude, in order
	excludeDir    []string
	maxTotal      int  // --max-total: grepx.Query.MaxMatches
	maxBytes      int  // --max-bytes: grepx.Query.MaxBytes
	noPointers    bool // --no-pointers: grepx.Query.SkipLazy
	operands      []string
	warnings      []string      // printed before searching (-u)
	timeout       time.Duration // --timeout, for messages; 0 if unknown
	unsupported   string        // the first option chromafs does not implement
}

// Long-only options, as GNU grep's option codes past the chars.
const (
	optBinaryFiles = 256 + iota
	optColor
	optExclude
	optExcludeFrom
	optExcludeDir
	optGroupSep
	optHelp
	optInclude
	optNoIgnoreCase
	optLabel
	optLineBuffered
	optMaxTotal
	optMaxBytes
	optNoPointers
)

type argKind int

const (
	noArg argKind = iota
	requiredArg
	optionalArg
)

type longOption struct {
	name string
	has  argKind
	code int
	// exact options are chromafs extensions: they match only when spelled
	// out, so that GNU's abbreviations keep meaning what they mean there.
	exact bool
}

// grepLongOptions is GNU grep 3.8's long option table, in its order (the
// order of "possibilities" in an ambiguity diagnostic), and chromafs's
// extensions.
var grepLongOptions = []longOption{
	{name: "basic-regexp", code: 'G'},
	{name: "extended-regexp", code: 'E'},
	{name: "fixed-regexp", code: 'F'},
	{name: "fixed-strings", code: 'F'},
	{name: "perl-regexp", code: 'P'},
	{name: "after-context", has: requiredArg, code: 'A'},
	{name: "before-context", has: requiredArg, code: 'B'},
	{name: "binary-files", has: requiredArg, code: optBinaryFiles},
	{name: "byte-offset", code: 'b'},
	{name: "context", has: requiredArg, code: 'C'},
	{name: "color", has: optionalArg, code: optColor},
	{name: "colour", has: optionalArg, code: optColor},
	{name: "count", code: 'c'},
	{name: "devices", has: requiredArg, code: 'D'},
	{name: "directories", has: requiredArg, code: 'd'},
	{name: "dereference-recursive", code: 'R'},
	{name: "exclude", has: requiredArg, code: optExclude},
	{name: "exclude-from", has: requiredArg, code: optExcludeFrom},
	{name: "exclude-dir", has: requiredArg, code: optExcludeDir},
	{name: "file", has: requiredArg, code: 'f'},
	{name: "files-with-matches", code: 'l'},
	{name: "files-without-match", code: 'L'},
	{name: "group-separator", has: requiredArg, code: optGroupSep},
	{name: "help", code: optHelp},
	{name: "include", has: requiredArg, code: optInclude},
	{name: "ignore-case", code: 'i'},
	{name: "no-ignore-case", code: optNoIgnoreCase},
	{name: "initial-tab", code: 'T'},
	{name: "label", has: requiredArg, code: optLabel},
	{name: "line-buffered", code: optLineBuffered},
	{name: "line-number", code: 'n'},
	{name: "line-regexp", code: 'x'},
	{name: "max-count", has: requiredArg, code: 'm'},
	{name: "no-filename", code: 'h'},
	{name: "no-group-separator", code: optGroupSep},
	{name: "no-messages", code: 's'},
	{name: "null", code: 'Z'},
	{name: "null-data", code: 'z'},
	{name: "only-matching", code: 'o'},
	{name: "quiet", code: 'q'},
	{name: "recursive", code: 'r'},
	{name: "regexp", has: requiredArg, code: 'e'},
	{name: "invert-match", code: 'v'},
	{name: "silent", code: 'q'},
	{name: "text", code: 'a'},
	{name: "binary", code: 'U'},
	{name: "unix-byte-offsets", code: 'u'},
	{name: "version", code: 'V'},
	{name: "with-filename", code: 'H'},
	{name: "word-regexp", code: 'w'},
	{name: "max-total", has: requiredArg, code: optMaxTotal, exact: true},
	{name: "max-bytes", has: requiredArg, code: optMaxBytes, exact: true},
	{name: "no-pointers", code: optNoPointers, exact: true},
}

// grepShortOptions is GNU grep 3.8's getopt string.
const grepShortOptions = "0123456789A:B:C:D:EFGHIPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz"

// shortOption reports whether c is an option and whether it takes an
// argument.
func shortOption(c byte) (ok, hasArg bool) {
	if c == ':' {
		return false, false
	}
	i := strings.IndexByte(grepShortOptions, c)
	if i < 0 {
		return false, false
	}
	return true, i+1 < len(grepShortOptions) && grepShortOptions[i+1] == ':'
}

// matchLong finds the long option named by name (the text after "--", up
// to any "="), as glibc's getopt_long does: an exact name wins; otherwise
// a unique prefix, or several prefixes of options that do the same thing.
func matchLong(arg, name string) (*longOption, error) {
	var found *longOption
	var ambiguous []int
	for i := range grepLongOptions {
		lo := &grepLongOptions[i]
		if lo.name == name {
			return lo, nil
		}
		if lo.exact || !strings.HasPrefix(lo.name, name) {
			continue
		}
		switch {
		case found == nil:
			found = lo
			ambiguous = []int{i}
		case found.has != lo.has || found.code != lo.code:
			ambiguous = append(ambiguous, i)
		}
	}
	if found == nil {
		return nil, usageError("unrecognized option '%s'", arg)
	}
	if len(ambiguous) > 1 {
		var b strings.Builder
		for _, i := range ambiguous {
			fmt.Fprintf(&b, " '--%s'", grepLongOptions[i].name)
		}
		return nil, usageError("option '%s' is ambiguous; possibilities:%s", arg, b.String())
	}
	return found, nil
}

// parseInt is gnulib's xstrtoimax with base 10 and no suffixes: leading
// white space, an optional sign, digits, nothing after. Out-of-range
// values saturate (overflow is reported but accepted by grep).
func parseInt(s string) (n int64, ok bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" {
		return 0, false
	}
	overflow := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			overflow = true
			continue
		}
		n = n*10 + d
	}
	if overflow {
		n = math.MaxInt64
	}
	if neg {
		n = -n
	}
	return n, true
}

// contextArg is GNU's context_length_arg: a non-negative number,
// saturated.
func contextArg(s string) (int, error) {
	n, ok := parseInt(s)
	if !ok || n < 0 {
		return 0, fatal("%s: invalid context length argument", s)
	}
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	return int(n), nil
}

// argmatch is gnulib's XARGMATCH for -d/--directories: an exact or
// unambiguous prefix of one of valid. Its failure exits with status 1, as
// grep's does.
func argmatch(option, arg string, valid []string) (int, error) {
	match := -1
	ambiguous := false
	for i, v := range valid {
		if v == arg {
			return i, nil
		}
		if strings.HasPrefix(v, arg) {
			if match >= 0 {
				ambiguous = true
			}
			match = i
		}
	}
	if match >= 0 && !ambiguous {
		return match, nil
	}
	kind := "invalid"
	if ambiguous {
		kind = "ambiguous"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s argument ‘%s’ for ‘%s’\nValid arguments are:\n", grepProg, kind, arg, option)
	for _, v := range valid {
		fmt.Fprintf(&b, "  - ‘%s’\n", v)
	}
	b.WriteString(grepTryHelp)
	return 0, &grepExit{stderr: b.String(), code: 1}
}

// grepParser holds the state of one parse.
type grepParser struct {
	o            *grepOptions
	readFile     func(string) ([]byte, error)
	keys         []byte
	haveKeys     bool // -e or -f given
	matcher      string
	context      int // -C, -NUM; -1: not given
	help         bool
	version      bool
	colorAlways  bool
	digits       []byte // the -NUM being read
	digitElement int    // index of the argument it is in
}

// parseGrep parses grep's arguments as GNU grep 3.8 does, with the
// permutation of glibc's getopt_long. Errors are *grepExit.
func parseGrep(args []string, readFile func(string) ([]byte, error)) (*grepOptions, error) {
	p := &grepParser{
		o:            &grepOptions{maxCount: -1, before: -1, after: -1, groupSep: ptr("--")},
		readFile:     readFile,
		context:      -1,
		digitElement: -1,
	}
	o := p.o
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			lo, err := matchLong(a, name)
			if err != nil {
				return nil, err
			}
			var arg *string
			switch lo.has {
			case noArg:
				if hasValue {
					return nil, usageError("option '--%s' doesn't allow an argument", lo.name)
				}
			case requiredArg:
				if !hasValue {
					if i+1 >= len(args) {
						return nil, usageError("option '--%s' requires an argument", lo.name)
					}
					i++
					value = args[i]
				}
				arg = &value
			case optionalArg:
				if hasValue {
					arg = &value
				}
			}
			if err := p.endDigits(); err != nil {
				return nil, err
			}
			if err := p.option(lo.code, "--"+lo.name, arg); err != nil {
				return nil, err
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				ok, hasArg := shortOption(c)
				if !ok {
					return nil, usageError("invalid option -- '%s'", a[j:j+1])
				}
				if c >= '0' && c <= '9' {
					if err := p.digit(c, i); err != nil {
						return nil, err
					}
					continue
				}
				if err := p.endDigits(); err != nil {
					return nil, err
				}
				var arg *string
				if hasArg {
					var v string
					switch {
					case j+1 < len(a):
						v = a[j+1:]
					case i+1 < len(args):
						i++
						v = args[i]
					default:
						return nil, usageError("option requires an argument -- '%s'", a[j:j+1])
					}
					arg = &v
					j = len(a)
				}
				if err := p.option(int(c), "-"+string(c), arg); err != nil {
					return nil, err
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if err := p.endDigits(); err != nil {
		return nil, err
	}

	if p.version {
		return nil, &grepExit{stdout: grepVersion, code: 0}
	}
	if p.help {
		return nil, &grepExit{stdout: grepHelp, code: 0}
	}
	keys := p.keys
	if p.haveKeys {
		if len(keys) == 0 {
			// No patterns (-f /dev/null): match nothing.
			o.invert = !o.invert
			o.word, o.line = false, false
		} else {
			keys = keys[:len(keys)-1]
		}
	} else if len(operands) > 0 {
		keys = []byte(operands[0])
		operands = operands[1:]
	} else {
		return nil, &grepExit{stderr: grepTryHelp, code: 2}
	}
	o.patterns = strings.Split(string(keys), "\n")
	if len(operands) > 0 {
		o.operands = operands
	}

	// -q overrides -l and -L, which override -c.
	if o.quiet {
		o.listMatching, o.listNonMatch = false, false
	}
	if o.quiet || o.listMatching || o.listNonMatch {
		o.count = false
	}
	if o.after < 0 {
		o.after = p.context
	}
	if o.before < 0 {
		o.before = p.context
	}
	// When matching cannot succeed, GNU grep fails without reading.
	if (o.maxCount == 0 || (len(keys) == 0 && o.invert && !o.line && !o.word)) && !o.listNonMatch {
		return nil, &grepExit{code: 1}
	}
	if p.colorAlways {
		return nil, fatal("--color=always is not supported")
	}
	if p.matcher == "perl" {
		return nil, fatal("-P (Perl regular expressions) is not supported")
	}
	if o.unsupported != "" {
		return nil, fatal("%s is not supported", o.unsupported)
	}
	if len(operands) == 0 && o.directories != dirRecurse {
		return nil, fatal("no FILE operand: standard input is not searched; give a path, or -r to search the root")
	}
	for _, op := range operands {
		if op == "-" {
			return nil, fatal("-: reading standard input is not supported")
		}
	}
	return o, nil
}

// digit reads one digit of a -NUM option. Digits accumulate within one
// argument, as in GNU grep's get_nondigit_option.
func (p *grepParser) digit(c byte, element int) error {
	switch {
	case p.digits == nil || p.digitElement != element:
		p.digits = []byte{}
	case len(p.digits) == 1 && p.digits[0] == '0':
		p.digits = p.digits[:0] // suppress leading zeros
	}
	if len(p.digits) == 21 {
		s := string(p.digits) + "..."
		return fatal("%s: invalid context length argument", s)
	}
	p.digits = append(p.digits, c)
	p.digitElement = element
	return nil
}

// endDigits applies a -NUM that was being read, before the next option.
func (p *grepParser) endDigits() error {
	if p.digits == nil {
		return nil
	}
	n, err := contextArg(string(p.digits))
	p.digits = nil
	p.digitElement = -1
	if err != nil {
		return err
	}
	p.context = n
	return nil
}

// setMatcher is GNU's setmatcher: -E, -F, -G, -P and -X may be repeated
// but not mixed.
func (p *grepParser) setMatcher(m string) error {
	switch m {
	case "grep", "egrep", "fgrep", "perl":
	default:
		return fatal("invalid matcher %s", m)
	}
	if p.matcher != "" && p.matcher != m {
		return fatal("conflicting matchers specified")
	}
	p.matcher = m
	switch m {
	case "egrep":
		p.o.syntax = pattern.Extended
	case "fgrep":
		p.o.syntax = pattern.Fixed
	default:
		p.o.syntax = pattern.Basic
	}
	return nil
}

func (p *grepParser) unsupported(name string) {
	if p.o.unsupported == "" {
		p.o.unsupported = name
	}
}

// option applies one option; arg is its argument, if it has one.
func (p *grepParser) option(code int, name string, arg *string) error {
	o := p.o
	val := ""
	if arg != nil {
		val = *arg
	}
	var err error
	switch code {
	case 'A':
		o.after, err = contextArg(val)
	case 'B':
		o.before, err = contextArg(val)
	case 'C':
		p.context, err = contextArg(val)
	case 'D':
		if val != "read" && val != "skip" {
			return fatal("unknown devices method")
		}
	case 'E':
		return p.setMatcher("egrep")
	case 'F':
		return p.setMatcher("fgrep")
	case 'G':
		return p.setMatcher("grep")
	case 'P':
		return p.setMatcher("perl")
	case 'X':
		return p.setMatcher(val)
	case 'H':
		o.filenames = 1
	case 'h':
		o.filenames = -1
	case 'I':
		p.unsupported("-I")
	case 'T':
		p.unsupported("-T (--initial-tab)")
	case 'U', optLineBuffered, optLabel:
		// No effect here: no CR stripping, no buffering, no stdin.
	case 'u':
		o.warnings = append(o.warnings, "warning: --unix-byte-offsets (-u) is obsolete")
	case 'V':
		p.version = true
	case 'a':
		p.unsupported("-a (--text)")
	case 'b':
		o.byteOffset = true
	case 'c':
		o.count = true
	case 'd':
		o.directories, err = argmatch("--directories", val, []string{"read", "recurse", "skip"})
	case 'e':
		p.keys = append(append(p.keys, val...), '\n')
		p.haveKeys = true
	case 'f':
		b, err := p.readFile(val)
		if err != nil {
			return fatal("%s: %s", val, grepErrText(err))
		}
		p.keys = append(p.keys, b...)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			p.keys = append(p.keys, '\n')
		}
		p.haveKeys = true
	case 'i', 'y':
		o.ignoreCase = true
	case optNoIgnoreCase:
		o.ignoreCase = false
	case 'L':
		o.listNonMatch, o.listMatching = true, false
	case 'l':
		o.listMatching, o.listNonMatch = true, false
	case 'm':
		n, ok := parseInt(val)
		if !ok {
			return fatal("invalid max count")
		}
		o.maxCount = n
		if n < 0 {
			o.maxCount = -1
		}
	case 'n':
		o.lineNumber = true
	case 'o':
		o.onlyMatching = true
	case 'q':
		o.quiet = true
	case 'R', 'r':
		o.directories = dirRecurse
	case 's':
		o.noMessages = true
	case 'v':
		o.invert = true
	case 'w':
		o.word = true
	case 'x':
		o.line = true
	case 'Z':
		o.null = true
	case 'z':
		p.unsupported("-z (--null-data)")
	case optBinaryFiles:
		switch val {
		case "binary":
		case "text", "without-match":
			p.unsupported("--binary-files=" + val)
		default:
			return fatal("unknown binary-files type")
		}
	case optColor:
		switch strings.ToLower(val) {
		case "always", "yes", "force":
			p.colorAlways = true
		case "", "never", "no", "none", "auto", "tty", "if-tty":
			// Without a terminal, auto is never.
			p.colorAlways = false
		default:
			p.help = true
		}
	case optExclude, optInclude:
		o.globs = append(o.globs, grepx.FileGlob{Glob: val, Include: code == optInclude})
	case optExcludeFrom:
		b, err := p.readFile(val)
		if err != nil {
			return fatal("%s: %s", val, grepErrText(err))
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimRight(l, " \t\v\f\r"); l != "" {
				o.globs = append(o.globs, grepx.FileGlob{Glob: l})
			}
		}
	case optExcludeDir:
		o.excludeDir = append(o.excludeDir, stripTrailingSlashes(val))
	case optGroupSep:
		o.groupSep = arg
	case optHelp:
		p.help = true
	case optNoPointers:
		o.noPointers = true
	case optMaxTotal, optMaxBytes:
		n, ok := parseInt(val)
		if !ok || n < 0 || n > math.MaxInt32 {
			return fatal("invalid %s argument: %s", name, val)
		}
		if code == optMaxTotal {
			o.maxTotal = int(n)
		} else {
			o.maxBytes = int(n)
		}
	}
	return err
}

// stripTrailingSlashes is gnulib's strip_trailing_slashes: "a//" is "a",
// "/" stays "/".
func stripTrailingSlashes(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" && s != "" {
		return "/"
	}
	return t
}

// grepErrText is the C library's text for an error: errText, capitalized
// as strerror(3) is.
func grepErrText(err error) string {
	s := errText(err)
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// grepRun is one search: what it has printed so far and its state.
type grepRun struct {
	o        *grepOptions
	w        *bufio.Writer
	stderr   io.Writer
	operands []string // as the user spelled them; "" for the implicit "."
	roots    []string // their fs names

	// names: whether output lines carry file names; nameIfBelow means
	// only for files found below a directory operand (-r, one operand).
	names, nameIfBelow bool

	used     bool // a line was selected before (GNU's "used")
	selected bool // a line was selected: status 0
	errSeen  bool
}

// errQuiet stops the search at the first selected line under -q.
var errQuiet = errors.New("quiet match")

func runGrep(ctx context.Context, fsys fs.FS, o *grepOptions, stdout, stderr io.Writer) int {
	r, q := newGrepRun(fsys, o, stdout, stderr)
	defer r.w.Flush()
	if len(q.Paths) == 0 {
		return r.status()
	}
	stats, err := grepx.Search(ctx, fsys, q, r.file)
	if tf, ok := fsys.(*traceFS); ok {
		tf.t.phase(fmt.Sprintf("match (%d files in scope, %d read, the first at %.2f ms; output buffered)",
			stats.Files, tf.reads.Load(), ms(time.Duration(tf.firstRead.Load()))))
	}
	r.w.Flush()
	trace.phase("output flush")
	if errors.Is(err, errQuiet) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", grepProg, searchErrText(err, o.timeout))
		return 2
	}
	if stats.Truncated {
		fmt.Fprintf(stderr, "%s: output truncated at the --max-total/--max-bytes limit\n", grepProg)
	}
	return r.status()
}

// searchErrText is the message for an error that stopped the search: a
// pattern's (GNU's words), or a deadline or an interruption said as such
// ("timed out after 1s while compiling 80660 patterns").
func searchErrText(err error, timeout time.Duration) string {
	var pe *pattern.Error
	if errors.As(err, &pe) {
		return pe.Error()
	}
	var what string
	switch {
	case errors.Is(err, context.DeadlineExceeded) && timeout > 0:
		what = fmt.Sprintf("timed out after %v", timeout)
	case errors.Is(err, context.DeadlineExceeded):
		what = "timed out"
	case errors.Is(err, context.Canceled):
		what = "interrupted"
	default:
		return err.Error()
	}
	var ce *pattern.CanceledError
	if errors.As(err, &ce) {
		return fmt.Sprintf("%s while compiling %d patterns", what, ce.Patterns)
	}
	return what
}

// newGrepRun prepares the search for o: the query, and how names are
// printed. Operands that are not searched (a trailing slash on a file,
// a directory under -d skip) are dealt with here, so q.Paths may be
// empty.
func newGrepRun(fsys fs.FS, o *grepOptions, stdout, stderr io.Writer) (*grepRun, grepx.Query) {
	r := &grepRun{o: o, w: bufio.NewWriter(stdout), stderr: stderr}
	for _, w := range o.warnings {
		fmt.Fprintf(stderr, "%s: %s\n", grepProg, w)
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

	if len(o.operands) == 0 {
		// grep -r without operand: the root, named without "./".
		r.operands = []string{""}
		r.roots = []string{"."}
	}
	for _, op := range o.operands {
		root := resolve(op)
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
	fmt.Fprintf(r.stderr, "%s: %s: %s\n", grepProg, name, grepErrText(err))
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
	withName := r.names || (r.nameIfBelow && f.Operand < len(r.roots) && f.Path != r.roots[f.Operand])
	if f.Err != nil {
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

func ptr[T any](v T) *T { return &v }

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
			fmt.Fprintf(r.stderr, "%s: %s: binary file matches\n", grepProg, name)
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
	if r.o.lineNumber {
		r.w.WriteString(strconv.Itoa(num))
		r.w.WriteByte(sep)
	}
	if r.o.byteOffset {
		r.w.WriteString(strconv.FormatInt(off, 10))
		r.w.WriteByte(sep)
	}
}

const grepVersion = `grep (chromafs) 3.8
chromafs grep follows GNU grep 3.8 (options, output and exit status) over a
chromafs collection.
`

const grepHelp = `Usage: ` + grepProg + ` [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE of the collection.
Example: ` + grepProg + ` -ri 'hello world' /guides
PATTERNS can contain multiple patterns separated by newlines.
FILEs are paths from the collection root ("/" is the root).

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE (a local file)
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
  -o, --only-matching       show only nonempty parts of lines that match
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
      --no-pointers         leave out lazy file pointers (content kept elsewhere)

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN]        WHEN is 'never' or 'auto' (no colors are used)

With -r and no FILE, search the root. With fewer than two FILEs, assume -h.
Not supported: -P, -a, -I, -T, -z, --binary-files=text|without-match,
--color=always, and standard input.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.
`
