package gnu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/getopt"
	"github.com/chromafs/chromafs/regex"
)

// Grep is grep: GNU grep 3.8's options, output, diagnostics and exit
// status (0 if a line was selected, 1 if none, 2 on error), searching
// with grepx.Search, so that a filesystem that narrows or prefetches
// (chromafs.FS) makes it fast.
//
// Operands are resolved against Env.Dir and printed as given (with
// Env.Dir "/guides", `grep -rn x .` prints "./a.md:1:x"); -r without
// operand searches Env.Dir and prints names relative to it. Without
// operand and without -r, and for the operand "-", it searches Env.Stdin
// as "(standard input)" (or --label's name); with a nil Env.Stdin that
// is an error, as it is for chromafs's command line. A search that
// includes standard input runs on a view of Env.FS that does not pass
// on grepx's accelerations.
//
// -f and --exclude-from files are read with Env.ReadFile; with a nil
// ReadFile they are files of Env.FS (relative to Env.Dir), "-" being
// Env.Stdin. Env.Open is called once the arguments have parsed, or
// earlier for such a file.
//
// -P reads patterns as PCRE2 does (see regex.Perl); constructs it
// cannot match (recursion, conditionals, \G...) are refused with
// status 2.
//
// Differences from GNU grep: -a, -I, -z, --binary-files=text
// or without-match and --color=always are refused with status 2;
// directories are searched in name order; --max-total, --max-bytes and
// --no-pointers are extensions (see grepx.Query). A deadline or
// cancellation of ctx stops the search with status 2 and says so
// ("timed out after 1s", with Env.Timeout).
func Grep(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "grep")
	opened := false
	readFile := func(name string) ([]byte, error) {
		if env.ReadFile != nil {
			return env.ReadFile(name)
		}
		if name == "-" {
			if env.Stdin == nil {
				return nil, errNoStdin
			}
			return io.ReadAll(env.Stdin)
		}
		if !opened && !r.open() {
			return nil, errReported
		}
		opened = true
		return fs.ReadFile(r.fsys, Resolve(env.Dir, name))
	}
	p := &grepParser{
		prog:     r.prog,
		readFile: readFile,
		stdin:    env.Stdin != nil,
		noDir:    env.Dir == "" || env.Dir == "/",
		hostFile: env.ReadFile != nil,
	}
	o, err := p.parse(args)
	if err != nil {
		if errors.Is(err, errReported) {
			return 2
		}
		return printGrepExit(r.prog, err, env.Stdout, env.Stderr)
	}
	if !opened && o.needsFS() && !r.open() {
		return 2
	}
	fsys := r.fsys
	if o.stdinOperands() > 0 {
		fsys = newStdinFS(fsys, env.Stdin, o)
	}
	return runGrep(ctx, env, r.prog, fsys, o)
}

// Egrep is egrep as Debian's GNU grep 3.8 installs it: grep -E, with
// grep's diagnostics and no obsolescence warning.
func Egrep(ctx context.Context, env *Env, args []string) int {
	return Grep(ctx, env, append([]string{"-E"}, args...))
}

// Fgrep is fgrep as Debian's GNU grep 3.8 installs it: grep -F.
func Fgrep(ctx context.Context, env *Env, args []string) int {
	return Grep(ctx, env, append([]string{"-F"}, args...))
}

var (
	// errReported ends grep with status 2 after Env.Open's failure was
	// printed.
	errReported = errors.New("reported")
	errNoStdin  = errors.New("no standard input")
)

// grepExit ends the command before searching: a usage error, --help,
// --version, or a status GNU grep decides without reading (-m 0).
type grepExit struct {
	stdout, stderr string
	code           int
}

func (e *grepExit) Error() string { return strings.TrimSpace(e.stderr) }

func printGrepExit(prog string, err error, stdout, stderr io.Writer) int {
	var e *grepExit
	if !errors.As(err, &e) {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 2
	}
	io.WriteString(stdout, e.stdout)
	io.WriteString(stderr, e.stderr)
	return e.code
}

// tryHelp is GNU grep's two lines after a usage error.
func grepTryHelp(prog string) string {
	return "Usage: " + prog + " [OPTION]... PATTERNS [FILE]...\n" +
		"Try '" + prog + " --help' for more information.\n"
}

// usage is GNU's diagnostic for a bad option: the message, then how to
// get help; status 2.
func (p *grepParser) usage(format string, a ...any) error {
	return &grepExit{stderr: p.prog + ": " + fmt.Sprintf(format, a...) + "\n" + grepTryHelp(p.prog), code: 2}
}

// fatal is GNU's die(): one diagnostic line, status 2.
func (p *grepParser) fatal(format string, a ...any) error {
	return &grepExit{stderr: p.prog + ": " + fmt.Sprintf(format, a...) + "\n", code: 2}
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
	syntax        regex.Syntax
	ignoreCase    bool
	word, line    bool
	invert        bool
	count         bool
	listMatching  bool // -l
	listNonMatch  bool // -L
	quiet         bool
	lineNumber    bool
	initialTab    bool     // -T
	patternSrcs   []string // where each pattern comes from: "FILE:LINE" for -f, "" for -e
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
	label         string
	operands      []string
	warnings      []string // printed before searching (-u)
	unsupported   string   // the first option chromafs does not implement
}

// stdinOperands counts the operands that are standard input: "-", or
// the implicit one without operands and -r.
func (o *grepOptions) stdinOperands() int {
	if len(o.operands) == 0 {
		if o.directories == dirRecurse {
			return 0
		}
		return 1
	}
	n := 0
	for _, op := range o.operands {
		if op == "-" {
			n++
		}
	}
	return n
}

// needsFS reports whether some operand is a file of Env.FS.
func (o *grepOptions) needsFS() bool {
	if len(o.operands) == 0 {
		return o.directories == dirRecurse
	}
	return o.stdinOperands() < len(o.operands)
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

// grepSpec is GNU grep 3.8's getopt string and long option table, in
// its order (the order of "possibilities" in an ambiguity diagnostic),
// and chromafs's extensions, which match only when spelled out so that
// GNU's abbreviations keep meaning what they mean there.
var grepSpec = getopt.Spec{
	Short: "0123456789A:B:C:D:EFGHIPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz",
	Long: []getopt.Long{
		{Name: "basic-regexp", Key: 'G'},
		{Name: "extended-regexp", Key: 'E'},
		{Name: "fixed-regexp", Key: 'F'},
		{Name: "fixed-strings", Key: 'F'},
		{Name: "perl-regexp", Key: 'P'},
		{Name: "after-context", HasArg: getopt.RequiredArgument, Key: 'A'},
		{Name: "before-context", HasArg: getopt.RequiredArgument, Key: 'B'},
		{Name: "binary-files", HasArg: getopt.RequiredArgument, Key: optBinaryFiles},
		{Name: "byte-offset", Key: 'b'},
		{Name: "context", HasArg: getopt.RequiredArgument, Key: 'C'},
		{Name: "color", HasArg: getopt.OptionalArgument, Key: optColor},
		{Name: "colour", HasArg: getopt.OptionalArgument, Key: optColor},
		{Name: "count", Key: 'c'},
		{Name: "devices", HasArg: getopt.RequiredArgument, Key: 'D'},
		{Name: "directories", HasArg: getopt.RequiredArgument, Key: 'd'},
		{Name: "dereference-recursive", Key: 'R'},
		{Name: "exclude", HasArg: getopt.RequiredArgument, Key: optExclude},
		{Name: "exclude-from", HasArg: getopt.RequiredArgument, Key: optExcludeFrom},
		{Name: "exclude-dir", HasArg: getopt.RequiredArgument, Key: optExcludeDir},
		{Name: "file", HasArg: getopt.RequiredArgument, Key: 'f'},
		{Name: "files-with-matches", Key: 'l'},
		{Name: "files-without-match", Key: 'L'},
		{Name: "group-separator", HasArg: getopt.RequiredArgument, Key: optGroupSep},
		{Name: "help", Key: optHelp},
		{Name: "include", HasArg: getopt.RequiredArgument, Key: optInclude},
		{Name: "ignore-case", Key: 'i'},
		{Name: "no-ignore-case", Key: optNoIgnoreCase},
		{Name: "initial-tab", Key: 'T'},
		{Name: "label", HasArg: getopt.RequiredArgument, Key: optLabel},
		{Name: "line-buffered", Key: optLineBuffered},
		{Name: "line-number", Key: 'n'},
		{Name: "line-regexp", Key: 'x'},
		{Name: "max-count", HasArg: getopt.RequiredArgument, Key: 'm'},
		{Name: "no-filename", Key: 'h'},
		{Name: "no-group-separator", Key: optGroupSep},
		{Name: "no-messages", Key: 's'},
		{Name: "null", Key: 'Z'},
		{Name: "null-data", Key: 'z'},
		{Name: "only-matching", Key: 'o'},
		{Name: "quiet", Key: 'q'},
		{Name: "recursive", Key: 'r'},
		{Name: "regexp", HasArg: getopt.RequiredArgument, Key: 'e'},
		{Name: "invert-match", Key: 'v'},
		{Name: "silent", Key: 'q'},
		{Name: "text", Key: 'a'},
		{Name: "binary", Key: 'U'},
		{Name: "unix-byte-offsets", Key: 'u'},
		{Name: "version", Key: 'V'},
		{Name: "with-filename", Key: 'H'},
		{Name: "word-regexp", Key: 'w'},
		{Name: "max-total", HasArg: getopt.RequiredArgument, Key: optMaxTotal, Exact: true},
		{Name: "max-bytes", HasArg: getopt.RequiredArgument, Key: optMaxBytes, Exact: true},
		{Name: "no-pointers", Key: optNoPointers, Exact: true},
	},
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
func (p *grepParser) contextArg(s string) (int, error) {
	n, ok := parseInt(s)
	if !ok || n < 0 {
		return 0, p.fatal("%s: invalid context length argument", s)
	}
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	return int(n), nil
}

// argmatch is gnulib's XARGMATCH for -d/--directories: an exact or
// unambiguous prefix of one of valid. Its failure exits with status 1, as
// grep's does.
func (p *grepParser) argmatch(option, arg string, valid []string) (int, error) {
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
	fmt.Fprintf(&b, "%s: %s argument ‘%s’ for ‘%s’\nValid arguments are:\n", p.prog, kind, arg, option)
	for _, v := range valid {
		fmt.Fprintf(&b, "  - ‘%s’\n", v)
	}
	b.WriteString(grepTryHelp(p.prog))
	return 0, &grepExit{stderr: b.String(), code: 1}
}

// grepParser holds the state of one parse, and what it depends on.
type grepParser struct {
	prog     string
	readFile func(string) ([]byte, error)
	stdin    bool // standard input may be searched
	noDir    bool // the working directory is the root (for --help)
	hostFile bool // -f files are the host's (for --help)

	o            *grepOptions
	keys         []byte
	keySrcs      []string // per line of keys: "FILE:LINE" of a -f pattern, "" of an -e one
	haveKeys     bool     // -e or -f given
	matcher      string
	context      int // -C, -NUM; -1: not given
	help         bool
	version      bool
	colorAlways  bool
	digits       []byte // the -NUM being read
	digitElement int    // index of the argument it is in
}

// parse parses grep's arguments as GNU grep 3.8 does, with the
// permutation of glibc's getopt_long. Errors are *grepExit, or the
// readFile's errReported.
func (p *grepParser) parse(args []string) (*grepOptions, error) {
	p.o = &grepOptions{maxCount: -1, before: -1, after: -1, groupSep: ptr("--")}
	p.context, p.digitElement = -1, -1
	o := p.o
	operands, err := grepSpec.Walk(args, func(opt getopt.Option) error {
		if opt.Key >= '0' && opt.Key <= '9' {
			return p.digit(byte(opt.Key), opt.Index)
		}
		if err := p.endDigits(); err != nil {
			return err
		}
		var arg *string
		if opt.HasValue {
			arg = &opt.Arg
		}
		return p.option(opt.Key, opt.Name, arg)
	})
	var ge *getopt.Error
	if errors.As(err, &ge) {
		return nil, p.usage("%s", ge.Msg)
	}
	if err != nil {
		return nil, err
	}
	if err := p.endDigits(); err != nil {
		return nil, err
	}

	if p.version {
		return nil, &grepExit{stdout: grepVersion, code: 0}
	}
	if p.help {
		return nil, &grepExit{stdout: p.helpText(), code: 0}
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
		return nil, &grepExit{stderr: grepTryHelp(p.prog), code: 2}
	}
	o.patterns = strings.Split(string(keys), "\n")
	if p.haveKeys && len(p.keySrcs) == len(o.patterns) {
		o.patternSrcs = p.keySrcs
	}
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
		return nil, p.fatal("--color=always is not supported")
	}
	if o.unsupported != "" {
		return nil, p.fatal("%s is not supported", o.unsupported)
	}
	if !p.stdin {
		if len(operands) == 0 && o.directories != dirRecurse {
			return nil, p.fatal("no FILE operand: standard input is not searched; give a path, or -r to search the root")
		}
		for _, op := range operands {
			if op == "-" {
				return nil, p.fatal("-: reading standard input is not supported")
			}
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
		return p.fatal("%s: invalid context length argument", s)
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
	n, err := p.contextArg(string(p.digits))
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
		return p.fatal("invalid matcher %s", m)
	}
	if p.matcher != "" && p.matcher != m {
		return p.fatal("conflicting matchers specified")
	}
	p.matcher = m
	switch m {
	case "egrep":
		p.o.syntax = regex.Extended
	case "fgrep":
		p.o.syntax = regex.Fixed
	case "perl":
		p.o.syntax = regex.Perl
	default:
		p.o.syntax = regex.Basic
	}
	return nil
}

func (p *grepParser) unsupported(name string) {
	if p.o.unsupported == "" {
		p.o.unsupported = name
	}
}

// readPatternFile reads a -f or --exclude-from file.
func (p *grepParser) readPatternFile(name string) ([]byte, error) {
	b, err := p.readFile(name)
	switch {
	case errors.Is(err, errReported):
		return nil, err
	case err != nil:
		return nil, p.fatal("%s: %s", name, grepErrText(err))
	}
	return b, nil
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
		o.after, err = p.contextArg(val)
	case 'B':
		o.before, err = p.contextArg(val)
	case 'C':
		p.context, err = p.contextArg(val)
	case 'D':
		if val != "read" && val != "skip" {
			return p.fatal("unknown devices method")
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
		o.initialTab = true
	case 'U', optLineBuffered:
		// No effect here: no CR stripping, no buffering.
	case optLabel:
		o.label = val
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
		o.directories, err = p.argmatch("--directories", val, []string{"read", "recurse", "skip"})
	case 'e':
		p.keys = append(append(p.keys, val...), '\n')
		for range strings.Count(val, "\n") + 1 {
			p.keySrcs = append(p.keySrcs, "")
		}
		p.haveKeys = true
	case 'f':
		b, err := p.readPatternFile(val)
		if err != nil {
			return err
		}
		p.keys = append(p.keys, b...)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			p.keys = append(p.keys, '\n')
		}
		name := val
		if name == "-" {
			name = "(standard input)"
		}
		for i := range bytes.Count(b, []byte("\n")) + btoi(len(b) > 0 && b[len(b)-1] != '\n') {
			p.keySrcs = append(p.keySrcs, fmt.Sprintf("%s:%d", name, i+1))
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
			return p.fatal("invalid max count")
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
			return p.fatal("unknown binary-files type")
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
		b, err := p.readPatternFile(val)
		if err != nil {
			return err
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
			return p.fatal("invalid %s argument: %s", name, val)
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

// grepErrText is the C library's text for an error: ErrText, capitalized
// as strerror(3) is.
func grepErrText(err error) string {
	if errors.Is(err, regex.ErrMatchLimit) {
		return err.Error()
	}
	s := ErrText(err)
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// searchErrText is the message for an error that stopped the search: a
// pattern's (GNU's words), or a deadline or an interruption said as such
// ("timed out after 1s while compiling 80660 patterns").
func searchErrText(err error, timeout time.Duration, srcPatterns, srcs []string) string {
	var pe *regex.Error
	if errors.As(err, &pe) {
		// A pattern of a -f file is named by its file and line, as
		// GNU grep names it: "grep: FILE:3: Unmatched ( or \(".
		for i, p := range srcPatterns {
			if p == pe.Pattern && i < len(srcs) && srcs[i] != "" {
				return srcs[i] + ": " + pe.Error()
			}
		}
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
	var ce *regex.CanceledError
	if errors.As(err, &ce) {
		return fmt.Sprintf("%s while compiling %d patterns", what, ce.Patterns)
	}
	return what
}

func ptr[T any](v T) *T { return &v }
