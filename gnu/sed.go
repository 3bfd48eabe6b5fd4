package gnu

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/chromafs/chromafs/internal/getopt"
	"github.com/chromafs/chromafs/internal/textio"
	"github.com/chromafs/chromafs/regex"
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

// Sed is a read-only GNU sed 4.9: it runs a script over the files named
// (or standard input) and writes the result to standard output, as
// "sed -n", "sed -e", "sed -E" and "sed -s" do, with the addresses (N, $,
// /re/ and \%re% with I, first~step, 0,/re/, addr1,addr2, addr1,+N,
// addr1,~N, !), blocks, labels and the commands { } = a b c d D F g G h H
// i l n N p P q Q r R s t T x y z and #, s/// with the flags g p I N and
// the replacement escapes & \0-\9 \n \L \U \l \u \E. Regular expressions
// are GNU BRE (ERE with -E or -r) translated by package regex, so they
// match as GNU sed's in the C.UTF-8 locale, with these differences:
// back-references inside a regex and the M flag are refused with an
// error; a regex that grep's parser reads differently from sed's in the
// corners package regex documents may match differently.
//
// Nothing is ever written: -i fails as GNU sed fails on a read-only
// filesystem ("couldn't open temporary file ./sedXXXXXX: Read-only file
// system", status 4), and so do the w and W commands and the s///w flag
// for any file but /dev/stdout and /dev/stderr. The e command and the
// s///e flag, which run processes, are refused. --posix, --debug, -u and
// --follow-symlinks are accepted and change nothing.
//
// Input streams: sed holds the current line and the next one (for $),
// each at most HoldLimit bytes (a longer one is a read error, status 4),
// so that yes | sed 3q ends at once. Files named by -f, r and R are files of the filesystem (Env.ReadFile
// for -f when set). Exit status: 0, 1 for an invalid script or usage, 2
// when an input file could not be read, 4 for an I/O error, or the
// status given to q or Q.
func Sed(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "sed")
	opts, operands, err := sedSpec.Parse(args)
	if err != nil {
		r.warn("%s", err)
		fmt.Fprintf(env.Stderr, strings.TrimSuffix(sedUsage, "E-mail bug reports to: <bug-sed@gnu.org>.\n"), r.prog)
		return 1
	}
	s := &sedRun{run: r, lineLen: 70, delim: '\n'}
	var chunks []sedChunk
	inPlace := false
	for _, o := range opts {
		switch o.Key {
		case keyHelp:
			r.help(sedUsage + "E-mail bug reports to: <bug-sed@gnu.org>.\n")
			return 0
		case keyVersion:
			r.version()
			return 0
		case 'n':
			s.quiet = true
		case 'r', 'E':
			s.ere = true
		case 's':
			s.separate = true
		case 'z':
			s.delim = 0
		case 'i':
			inPlace, s.separate = true, true
		case 'l':
			n, err := strconv.Atoi(o.Arg)
			if err != nil || n < 0 {
				r.warn("invalid line length: %s", o.Arg)
				return 1
			}
			s.lineLen = n
		case keySedSandbox:
			s.sandbox = true
		case 'e':
			chunks = append(chunks, sedChunk{text: o.Arg, expr: countExprs(chunks) + 1})
		case 'f':
			data, err := s.readScript(o.Arg)
			if err != nil {
				if !errors.Is(err, ErrReported) {
					r.warn("couldn't open file %s: %s", o.Arg, ErrText(err))
				}
				return 4
			}
			chunks = append(chunks, sedChunk{text: strings.TrimSuffix(string(data), "\n"), file: o.Arg})
		}
	}
	if len(chunks) == 0 {
		if len(operands) == 0 {
			fmt.Fprintf(env.Stderr, strings.TrimSuffix(sedUsage, "E-mail bug reports to: <bug-sed@gnu.org>.\n"), r.prog)
			return 1
		}
		chunks = append(chunks, sedChunk{text: operands[0], expr: 1})
		operands = operands[1:]
	}
	if status, ok := s.compile(chunks); !ok {
		return r.finish(status)
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
	s.files = operands
	s.execute()
	return r.finish(s.status)
}

func countExprs(chunks []sedChunk) int {
	n := 0
	for _, c := range chunks {
		if c.file == "" {
			n++
		}
	}
	return n
}

// readScript reads a -f file: Env.ReadFile's, or one of the filesystem
// ("-" being standard input).
func (s *sedRun) readScript(name string) ([]byte, error) {
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

func (s *sedRun) readFS(name string) ([]byte, error) {
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
func (s *sedRun) inPlace(operands []string) int {
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

// sedChunk is one -e expression or -f file of the script.
type sedChunk struct {
	text  string
	expr  int    // -e expression number, or 0
	file  string // -f file name
	start int    // offset in the joined script
}

type sedAddrKind int

const (
	addrLine sedAddrKind = iota
	addrLast
	addrRe
	addrStep // first~step
	addrPlus // addr1,+N
	addrMult // addr1,~N
)

type sedAddr struct {
	kind       sedAddrKind
	n, step    int
	re         *regexp.Regexp // nil with addrRe: the last regex used
	emptyRegex bool
}

type sedRepl struct {
	lit   string
	group int  // -1: a literal
	conv  byte // case conversion before it: 'L' 'U' 'l' 'u' 'E' or 0
}

type sedCmd struct {
	a1, a2 *sedAddr
	neg    bool
	cmd    byte
	text   string // a i c text, label, file name
	num    int    // q Q exit status, l width (-1 if none)
	jump   int    // index of the target for b t T {; -1: end of script

	re        *regexp.Regexp // s (nil: last regex)
	repl      []sedRepl
	global    bool
	nth       int
	print     int
	wout      io.Writer // s///w /dev/stdout, w /dev/stdout
	ymap      map[rune]rune
	active    bool // a range is open
	rangeEnd  int  // last line of a numeric range
	closedNum bool // a range whose first address is a line number ended
}

type sedRun struct {
	*run
	quiet, ere, separate, sandbox bool
	lineLen                       int
	delim                         byte

	// compilation
	src    string
	pos    int
	chunks []sedChunk
	cmds   []*sedCmd
	blocks []int
	labels map[string]int
	seenRe bool

	// execution
	status   int
	files    []string
	fileIdx  int
	fileName string
	in       *textio.LineReader // the current input file, until its end
	inFile   io.Closer
	next     []byte // the line read ahead (for $), with its delimiter
	nextOK   bool
	cur      []byte // the line readLine returned
	haveData bool
	line     int
	ps, hs   []byte
	chomped  bool // the pattern space's last line ended with the delimiter
	missing  bool // output lacks a newline that the next output adds
	lastRe   *regexp.Regexp
	replaced bool
	appendQ  []sedAppend
	rfiles   map[string]*sedRFile
	quit     bool
	exit     int
}

type sedAppend struct {
	text string
	file string // r: a file to copy
	raw  bool   // R line: text already read
}

type sedRFile struct {
	data []byte
	pos  int
}

// sedError is a script error: the message and the position it is
// reported at.
type sedError struct {
	msg string
	pos int // -1: "char 0" of the last chunk
}

func (s *sedRun) bad(msg string) { panic(sedError{msg, s.pos}) }

const sedEOF = -1

func (s *sedRun) inchar() int {
	if s.pos >= len(s.src) {
		return sedEOF
	}
	c := s.src[s.pos]
	s.pos++
	return int(c)
}

func (s *sedRun) savchar(c int) {
	if c != sedEOF {
		s.pos--
	}
}

func (s *sedRun) inNonblank() int {
	for {
		c := s.inchar()
		if c != ' ' && c != '\t' {
			return c
		}
	}
}

func (s *sedRun) inInteger(c int) int {
	n := 0
	for c >= '0' && c <= '9' {
		n = n*10 + c - '0'
		if n > 1<<40 {
			n = 1 << 40
		}
		c = s.inchar()
	}
	s.savchar(c)
	return n
}

// location is GNU sed's "-e expression #N, char C" or "file F line L"
// for an error at pos.
func (s *sedRun) location(pos int) string {
	if pos < 0 {
		c := s.chunks[len(s.chunks)-1]
		if c.file != "" {
			return fmt.Sprintf("file %s line %d", c.file, strings.Count(c.text, "\n")+1)
		}
		return fmt.Sprintf("-e expression #%d, char 0", c.expr)
	}
	c := s.chunks[0]
	for _, ch := range s.chunks[1:] {
		if ch.start < pos {
			c = ch
		}
	}
	p := min(pos, c.start+len(c.text)) - c.start
	if c.file != "" {
		return fmt.Sprintf("file %s line %d", c.file, strings.Count(c.text[:p], "\n")+1)
	}
	return fmt.Sprintf("-e expression #%d, char %d", c.expr, p)
}

// compile parses the script; on error it prints GNU's diagnostic and
// returns false with the status.
func (s *sedRun) compile(chunks []sedChunk) (status int, ok bool) {
	var b strings.Builder
	for i := range chunks {
		if i > 0 {
			b.WriteByte('\n')
		}
		chunks[i].start = b.Len()
		b.WriteString(chunks[i].text)
	}
	s.src, s.chunks, s.labels = b.String(), chunks, map[string]int{}
	defer func() {
		if e := recover(); e != nil {
			if x, isExit := e.(sedExit); isExit {
				status, ok = x.status, false
				return
			}
			se, isSed := e.(sedError)
			if !isSed {
				panic(e)
			}
			s.warn("%s: %s", s.location(se.pos), se.msg)
			status, ok = 1, false
		}
	}()
	if strings.HasPrefix(s.src, "#n") && (len(s.src) == 2 || s.src[2] == '\n') {
		s.quiet = true
	}
	s.parse()
	if len(s.blocks) > 0 {
		panic(sedError{"unmatched `{'", -1})
	}
	for _, c := range s.cmds {
		switch c.cmd {
		case 'b', 't', 'T':
			if c.text == "" {
				c.jump = -1
				continue
			}
			j, found := s.labels[c.text]
			if !found {
				s.warn("can't find label for jump to `%s'", c.text)
				return 4, false
			}
			c.jump = j
		}
	}
	return 0, true
}

func (s *sedRun) parse() {
	for {
		c := s.inchar()
		for c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			c = s.inchar()
		}
		if c == sedEOF {
			return
		}
		cmd := &sedCmd{num: -1}
		if a, isAddr := s.address(c); isAddr {
			if a.kind == addrPlus || a.kind == addrMult {
				s.bad("invalid usage of +N or ~N as first address")
			}
			cmd.a1 = a
			c = s.inNonblank()
			if c == ',' {
				a2, isAddr := s.address(s.inNonblank())
				if !isAddr {
					s.bad("unexpected `,'")
				}
				if a2.kind == addrLine && a2.n == 0 {
					s.bad("invalid usage of line address 0")
				}
				cmd.a2 = a2
				c = s.inNonblank()
			}
			if a.kind == addrLine && a.n == 0 && (cmd.a2 == nil || cmd.a2.kind != addrRe) {
				s.bad("invalid usage of line address 0")
			}
		}
		if c == '!' {
			cmd.neg = true
			c = s.inNonblank()
			for c == ' ' || c == '\t' {
				c = s.inNonblank()
			}
			if c == '!' {
				s.bad("multiple `!'s")
			}
		}
		if c == sedEOF || c == '\n' || c == ';' {
			s.bad("missing command")
		}
		cmd.cmd = byte(c)
		s.command(cmd)
	}
}

func (s *sedRun) oneAddr(cmd *sedCmd) {
	if cmd.a2 != nil {
		s.bad("command only uses one address")
	}
}

func (s *sedRun) command(cmd *sedCmd) {
	c := int(cmd.cmd)
	switch c {
	case '#':
		if cmd.a1 != nil {
			s.bad("comments don't accept any addresses")
		}
		for c != '\n' && c != sedEOF {
			c = s.inchar()
		}
		return
	case '{':
		s.blocks = append(s.blocks, len(s.cmds))
		s.cmds = append(s.cmds, cmd)
		return
	case '}':
		if len(s.blocks) == 0 {
			s.bad("unexpected `}'")
		}
		if cmd.a1 != nil {
			s.bad("} doesn't want any addresses")
		}
		open := s.blocks[len(s.blocks)-1]
		s.blocks = s.blocks[:len(s.blocks)-1]
		s.cmds[open].jump = len(s.cmds) + 1
		s.cmds = append(s.cmds, cmd)
		s.endOfCmd()
		return
	case ':':
		if cmd.a1 != nil {
			s.bad(": doesn't want any addresses")
		}
		label := s.label()
		if label == "" {
			s.bad("\":\" lacks a label")
		}
		s.labels[label] = len(s.cmds)
		return
	case 'a', 'i', 'c':
		c = s.inNonblank()
		if c == sedEOF {
			s.bad("expected \\ after `a', `c' or `i'")
		}
		skipBlanks := true
		if c == '\\' {
			skipBlanks = false
			if c = s.inchar(); c != '\n' {
				s.savchar(c)
			}
		} else {
			s.savchar(c)
		}
		cmd.text = s.readText(skipBlanks)
	case 'b', 't', 'T':
		cmd.text = s.label()
	case 'q', 'Q', 'l':
		if c == 'q' || c == 'Q' {
			s.oneAddr(cmd)
		}
		c = s.inNonblank()
		if c >= '0' && c <= '9' {
			cmd.num = s.inInteger(c)
		} else {
			s.savchar(c)
		}
		s.endOfCmd()
	case '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z':
		s.endOfCmd()
	case 'r', 'R', 'w', 'W':
		name := s.filename()
		if name == "" {
			s.bad("missing filename in r/R/w/W commands")
		}
		if s.sandbox {
			s.bad("e/r/w commands disabled in sandbox mode")
		}
		cmd.text = name
		if c == 'w' || c == 'W' {
			cmd.wout = s.writeFile(name)
		}
	case 'e':
		s.bad("`e' command not supported: no process is run")
	case 'v':
		s.label()
		return
	case 's':
		s.substitute(cmd)
	case 'y':
		s.translit(cmd)
	default:
		s.bad(fmt.Sprintf("unknown command: `%c'", c))
	}
	s.cmds = append(s.cmds, cmd)
}

// writeFile is the output of a w file: standard output or error, or an
// error as on a read-only filesystem.
func (s *sedRun) writeFile(name string) io.Writer {
	switch name {
	case "/dev/stdout":
		return s.out
	case "/dev/stderr":
		return sedStderr{s}
	}
	s.warn("couldn't open file %s: %s", name, ErrText(syscall.EROFS))
	panic(sedExit{4})
}

type sedStderr struct{ s *sedRun }

func (w sedStderr) Write(p []byte) (int, error) {
	w.s.out.Flush()
	return w.s.env.Stderr.Write(p)
}

// sedExit ends compilation with a status, its diagnostic printed.
type sedExit struct{ status int }

func (s *sedRun) endOfCmd() {
	c := s.inNonblank()
	if c == '}' || c == '#' {
		s.savchar(c)
	} else if c != sedEOF && c != '\n' && c != ';' {
		s.bad("extra characters after command")
	}
}

func (s *sedRun) label() string {
	c := s.inNonblank()
	var b strings.Builder
	for c != sedEOF && c != '\n' && c != ';' && c != ' ' && c != '\t' {
		b.WriteByte(byte(c))
		c = s.inchar()
	}
	s.savchar(c)
	if c == ';' || c == ' ' || c == '\t' {
		s.endOfCmd()
	}
	return b.String()
}

func (s *sedRun) filename() string {
	c := s.inNonblank()
	var b strings.Builder
	for c != sedEOF && c != '\n' {
		b.WriteByte(byte(c))
		c = s.inchar()
	}
	return b.String()
}

// readText reads the text of a, i or c: to the end of the line, lines
// ending in a backslash continuing it; a backslash before another
// character is removed. A one-liner skips leading blanks.
func (s *sedRun) readText(skipBlanks bool) string {
	var b strings.Builder
	c := s.inchar()
	if skipBlanks {
		for c == ' ' || c == '\t' {
			c = s.inchar()
		}
	}
	for c != sedEOF && c != '\n' {
		if c == '\\' {
			c = s.inchar()
			if c == sedEOF {
				break
			}
		}
		b.WriteByte(byte(c))
		c = s.inchar()
	}
	b.WriteByte('\n')
	return b.String()
}

// matchSlash reads up to the delimiter as GNU sed's match_slash: "\n"
// becomes a newline in a regex, a backslash before the delimiter is
// dropped (and before & in a replacement kept). ok is false at the end
// of the line or script.
func (s *sedRun) matchSlash(slash int, regex bool) (string, bool) {
	var b strings.Builder
	c := s.inchar()
	for c != sedEOF && c != '\n' {
		if c == slash {
			return b.String(), true
		}
		if c == '[' && regex {
			// The delimiter is ordinary in a bracket expression.
			b.WriteByte('[')
			if c = s.inchar(); c == '^' {
				b.WriteByte('^')
				c = s.inchar()
			}
			if c == ']' {
				b.WriteByte(']')
				c = s.inchar()
			}
			for c != ']' && c != sedEOF && c != '\n' {
				b.WriteByte(byte(c))
				if c == '[' {
					if d := s.inchar(); d == ':' || d == '.' || d == '=' {
						b.WriteByte(byte(d))
						for e := s.inchar(); ; e = s.inchar() {
							if e == sedEOF || e == '\n' {
								c = e
								break
							}
							b.WriteByte(byte(e))
							if e == d && s.pos < len(s.src) && s.src[s.pos] == ']' {
								b.WriteByte(']')
								s.pos++
								break
							}
						}
						if c == sedEOF || c == '\n' {
							break
						}
					} else {
						s.savchar(d)
					}
				}
				c = s.inchar()
			}
			if c == ']' {
				b.WriteByte(']')
				c = s.inchar()
			}
			continue
		}
		if c == '\\' {
			c = s.inchar()
			if c == sedEOF {
				break
			}
			if c == 'n' && regex {
				c = '\n'
			} else if c != '\n' && (c != slash || (!regex && c == '&')) {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(byte(c))
		c = s.inchar()
	}
	if c == '\n' {
		s.savchar(c)
	}
	return "", false
}

func (s *sedRun) address(c int) (*sedAddr, bool) {
	switch {
	case c == '/' || c == '\\':
		if c == '\\' {
			c = s.inchar()
		}
		text, ok := s.matchSlash(c, true)
		if !ok {
			s.bad("unterminated address regex")
		}
		fold := false
		for {
			c = s.inNonblank()
			if c == 'I' {
				fold = true
			} else if c == 'M' {
				s.bad("the M flag (multi-line mode) is not supported")
			} else {
				s.savchar(c)
				break
			}
		}
		a := &sedAddr{kind: addrRe}
		a.re, a.emptyRegex = s.regex(text, fold)
		return a, true
	case c >= '0' && c <= '9':
		a := &sedAddr{kind: addrLine, n: s.inInteger(c)}
		c = s.inNonblank()
		if c != '~' {
			s.savchar(c)
			return a, true
		}
		step := s.inInteger(s.inNonblank())
		if step > 0 {
			a.kind, a.step = addrStep, step
		}
		return a, true
	case c == '+' || c == '~':
		a := &sedAddr{kind: addrPlus}
		if c == '~' {
			a.kind = addrMult
		}
		a.n = s.inInteger(s.inNonblank())
		return a, true
	case c == '$':
		return &sedAddr{kind: addrLast}, true
	}
	return nil, false
}

// regex compiles a sed regex; "" is the last regex used (empty true).
func (s *sedRun) regex(text string, fold bool) (*regexp.Regexp, bool) {
	if text == "" {
		if !s.seenRe {
			panic(sedError{"no previous regular expression", -1})
		}
		return nil, true
	}
	s.seenRe = true
	syn := regex.Basic
	if s.ere {
		syn = regex.Extended
	}
	src, err := regex.TranslateGroups(sedEscapes(text), syn, fold)
	if err != nil {
		var pe *regex.Error
		if errors.As(err, &pe) {
			if errors.Is(err, regex.ErrUnsupported) {
				s.bad(pe.Msg + " (not supported)")
			}
			s.bad(pe.Msg)
		}
		s.bad(err.Error())
	}
	re, err := regexp.Compile(src)
	if err != nil {
		s.bad(fmt.Sprintf("regular expression not supported: %v", err))
	}
	re.Longest()
	return re, false
}

// sedEscapes converts GNU sed's escapes for control characters in a
// regex (\t \f \v \a \r) to the characters.
func sedEscapes(text string) string {
	if !strings.Contains(text, `\`) {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '\\' && i+1 < len(text) {
			if r, ok := map[byte]byte{'t': '\t', 'f': '\f', 'v': '\v', 'a': '\a', 'r': '\r'}[text[i+1]]; ok {
				b.WriteByte(r)
				i++
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(text[i+1])
			i++
			continue
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

func (s *sedRun) substitute(cmd *sedCmd) {
	slash := s.inchar()
	reText, ok := s.matchSlash(slash, true)
	if !ok {
		s.bad("unterminated `s' command")
	}
	replText, ok := s.matchSlash(slash, false)
	if !ok {
		s.bad("unterminated `s' command")
	}
	fold := false
	for done := false; !done; {
		c := s.inchar()
		switch c {
		case 'i', 'I':
			fold = true
		case 'm', 'M':
			s.bad("the M flag (multi-line mode) is not supported")
		case 'e':
			s.bad("the e flag of `s' is not supported: no process is run")
		case 'p':
			if cmd.print > 0 {
				s.bad("multiple `p' options to `s' command")
			}
			cmd.print = 1
		case 'g':
			if cmd.global {
				s.bad("multiple `g' options to `s' command")
			}
			cmd.global = true
		case 'w':
			name := s.filename()
			if name == "" {
				s.bad("missing filename in r/R/w/W commands")
			}
			if s.sandbox {
				s.bad("e/r/w commands disabled in sandbox mode")
			}
			cmd.wout = s.writeFile(name)
			done = true
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if cmd.nth != 0 {
				s.bad("multiple number options to `s' command")
			}
			cmd.nth = s.inInteger(c)
			if cmd.nth == 0 {
				s.bad("number option to `s' command may not be zero")
			}
		case '}', '#':
			s.savchar(c)
			done = true
		case '\n', ';', sedEOF:
			done = true
		case '\r':
			if s.inchar() == '\n' {
				done = true
				break
			}
			s.bad("unknown option to `s'")
		default:
			s.bad("unknown option to `s'")
		}
	}
	var empty bool
	cmd.re, empty = s.regex(reText, fold)
	cmd.repl = s.replacement(replText)
	groups := 9
	if !empty {
		groups = cmd.re.NumSubexp()
	}
	for _, p := range cmd.repl {
		if p.group > groups {
			s.bad(fmt.Sprintf("invalid reference \\%d on `s' command's RHS", p.group))
		}
	}
}

// replacement parses the right-hand side of s.
func (s *sedRun) replacement(text string) []sedRepl {
	var parts []sedRepl
	var lit strings.Builder
	var conv byte
	flush := func() {
		if lit.Len() > 0 || conv != 0 {
			parts = append(parts, sedRepl{lit: lit.String(), group: -1, conv: conv})
			lit.Reset()
			conv = 0
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '&':
			flush()
			parts = append(parts, sedRepl{group: 0})
		case c == '\\' && i+1 < len(text):
			i++
			c = text[i]
			switch {
			case c >= '0' && c <= '9':
				flush()
				parts = append(parts, sedRepl{group: int(c - '0')})
			case c == 'L' || c == 'U' || c == 'l' || c == 'u' || c == 'E':
				flush()
				conv = c
			case c == 'n':
				lit.WriteByte('\n')
			case c == 't':
				lit.WriteByte('\t')
			case c == 'r':
				lit.WriteByte('\r')
			case c == 'f':
				lit.WriteByte('\f')
			case c == 'v':
				lit.WriteByte('\v')
			case c == 'a':
				lit.WriteByte('\a')
			default:
				lit.WriteByte(c)
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts
}

func (s *sedRun) translit(cmd *sedCmd) {
	slash := s.inchar()
	from, ok := s.matchSlash(slash, false)
	if !ok {
		s.bad("unterminated `y' command")
	}
	to, ok := s.matchSlash(slash, false)
	if !ok {
		s.bad("unterminated `y' command")
	}
	unescape := func(t string) []rune {
		var out []rune
		for i := 0; i < len(t); {
			r, w := utf8.DecodeRuneInString(t[i:])
			if r == '\\' && i+1 < len(t) {
				switch t[i+1] {
				case '\\':
					out = append(out, '\\')
					i += 2
					continue
				case 'n':
					out = append(out, '\n')
					i += 2
					continue
				}
			}
			out = append(out, r)
			i += w
		}
		return out
	}
	f, t := unescape(from), unescape(to)
	if len(f) != len(t) {
		s.bad("strings for `y' command are different lengths")
	}
	cmd.ymap = make(map[rune]rune, len(f))
	for i, r := range f {
		if _, dup := cmd.ymap[r]; !dup {
			cmd.ymap[r] = t[i]
		}
	}
	s.endOfCmd()
}

// Execution.

// nextFile opens the next input file, reporting those that cannot be
// opened; it returns false when there is none left.
func (s *sedRun) nextFile() bool {
	s.closeInput()
	for s.fileIdx < len(s.files) {
		a := s.files[s.fileIdx]
		s.fileIdx++
		f, err := s.openInput(a)
		if err != nil {
			if errors.Is(err, errIsDir) {
				s.warn("read error on %s: %s", a, ErrText(err))
				s.quit, s.exit, s.status = true, 4, 4
				return false
			}
			s.warn("can't read %s: %s", a, ErrText(err))
			s.status = 2
			continue
		}
		s.fileName, s.in, s.inFile, s.haveData = a, newLineReader(f, s.delim), f, true
		if s.separate {
			s.line = 0
		}
		return true
	}
	return false
}

// closeInput closes the current input file, if one is open.
func (s *sedRun) closeInput() {
	if s.inFile != nil {
		s.inFile.Close()
	}
	s.in, s.inFile, s.nextOK = nil, nil, false
}

// fill reads the next line of the current file ahead, if not done yet;
// false at the file's end (or a read error, which ends sed with status
// 4). Lines stream: only the current line and the next are held, each
// at most HoldLimit bytes.
func (s *sedRun) fill() bool {
	if s.nextOK {
		return true
	}
	if s.in == nil {
		return false
	}
	line, err := s.in.Next()
	if err != nil {
		name := s.fileName
		s.closeInput()
		if err != io.EOF {
			s.warn("read error on %s: %s", name, ErrText(err))
			s.quit, s.exit, s.status = true, 4, 4
		}
		return false
	}
	s.next = append(s.next[:0], line...)
	s.nextOK = true
	return true
}

// more reports whether there is another line: in this file, or (without
// -s) in a file after it.
func (s *sedRun) more() bool {
	if s.haveData && s.fill() {
		return true
	}
	for !s.quit && s.nextFile() {
		if s.fill() {
			return true
		}
	}
	return false
}

// readLine reads the next line, without its delimiter, valid until the
// next call; false at the end of the input.
func (s *sedRun) readLine() ([]byte, bool) {
	if !(s.haveData && s.fill()) {
		if s.separate && s.haveData {
			s.haveData = false
		}
		for {
			if s.quit || !s.nextFile() {
				return nil, false
			}
			if s.fill() {
				break
			}
		}
	}
	line := s.next
	s.nextOK = false
	s.line++
	s.chomped = len(line) > 0 && line[len(line)-1] == s.delim
	if s.chomped {
		line = line[:len(line)-1]
	}
	s.cur = append(s.cur[:0], line...)
	return s.cur, true
}

// isLast reports whether the current line is the last ($).
func (s *sedRun) isLast() bool {
	if s.haveData && s.fill() {
		return false
	}
	if s.separate {
		return true
	}
	return !s.more()
}

func (s *sedRun) execute() {
	defer s.closeInput()
	for !s.quit && !s.stopped() {
		line, ok := s.readLine()
		if !ok {
			break
		}
		s.ps = append(s.ps[:0], line...)
		s.cycle()
	}
	if s.quit && s.exit != 0 {
		s.status = s.exit
	}
}

// cycle runs the script over the pattern space, possibly repeatedly
// (D), and ends it.
func (s *sedRun) cycle() {
	for {
		s.replaced = false
		restart, autoprint := s.runScript()
		if autoprint && !s.quiet {
			s.emit(s.ps, s.chomped)
		}
		s.flushAppends()
		if !restart || s.quit {
			return
		}
	}
}

func (s *sedRun) emit(text []byte, nl bool) {
	s.fixNewline()
	s.out.Write(text)
	if nl {
		s.out.WriteByte(s.delim)
	} else {
		s.missing = true
	}
}

func (s *sedRun) fixNewline() {
	if s.missing {
		s.out.WriteByte(s.delim)
		s.missing = false
	}
}

func (s *sedRun) flushAppends() {
	for _, a := range s.appendQ {
		switch {
		case a.file != "":
			data, err := s.readFS(a.file)
			if err == nil && len(data) > 0 {
				s.fixNewline()
				s.out.Write(data)
			}
		default:
			s.fixNewline()
			s.out.WriteString(a.text)
		}
	}
	s.appendQ = s.appendQ[:0]
}

func (s *sedRun) matchAddr(a *sedAddr) bool {
	switch a.kind {
	case addrLine:
		return s.line == a.n
	case addrStep:
		return s.line >= a.n && (s.line-a.n)%a.step == 0
	case addrLast:
		return s.isLast()
	case addrRe:
		return s.reFor(a.re).Match(s.ps)
	}
	return false
}

func (s *sedRun) reFor(re *regexp.Regexp) *regexp.Regexp {
	if re == nil {
		re = s.lastRe
	} else {
		s.lastRe = re
	}
	if re == nil {
		re = regexp.MustCompile(`[^\x00-\x{10FFFF}]`)
	}
	return re
}

func (s *sedRun) selected(c *sedCmd) bool {
	if c.a1 == nil {
		return true
	}
	if c.a2 == nil {
		return s.matchAddr(c.a1)
	}
	if c.active {
		switch c.a2.kind {
		case addrRe:
			if s.matchAddr(c.a2) {
				c.active = false
			}
			return true
		case addrLast:
			if s.isLast() {
				c.active = false
			}
			return true
		default:
			if s.line >= c.rangeEnd {
				c.active = false
				if s.line > c.rangeEnd {
					return s.matchAddr(c.a1)
				}
			}
			return true
		}
	}
	if c.a1.kind == addrLine && c.a1.n == 0 {
		if c.closedNum {
			return false
		}
		c.closedNum = true
		c.active = true
		if s.matchAddr(c.a2) {
			c.active = false
		}
		return true
	}
	if !s.matchAddr(c.a1) {
		return false
	}
	switch c.a2.kind {
	case addrLine:
		c.rangeEnd = c.a2.n
	case addrPlus:
		c.rangeEnd = s.line + c.a2.n
	case addrMult:
		if c.a2.n <= 0 || s.line%c.a2.n == 0 {
			return true
		}
		c.rangeEnd = (s.line/c.a2.n + 1) * c.a2.n
	case addrStep:
		c.rangeEnd = c.a2.n
	case addrLast:
		if s.isLast() {
			return true
		}
		c.active = true
		return true
	case addrRe:
		c.active = true
		return true
	}
	if c.rangeEnd > s.line {
		c.active = true
	}
	return true
}

// runScript runs the commands once; restart is true after D with a
// newline, autoprint false after d, D and c.
func (s *sedRun) runScript() (restart, autoprint bool) {
	for i := 0; i < len(s.cmds); i++ {
		c := s.cmds[i]
		sel := s.selected(c)
		if c.neg {
			sel = !sel
		}
		if !sel {
			if c.cmd == '{' {
				i = c.jump - 1
			}
			continue
		}
		switch c.cmd {
		case '{', '}':
		case '=':
			s.fixNewline()
			fmt.Fprintf(s.out, "%d\n", s.line)
		case 'a':
			s.appendQ = append(s.appendQ, sedAppend{text: c.text})
		case 'i':
			s.fixNewline()
			s.out.WriteString(c.text)
		case 'c':
			if c.a2 == nil || !c.active || c.neg {
				s.fixNewline()
				s.out.WriteString(c.text)
			}
			return false, false
		case 'b':
			if c.jump < 0 {
				return false, true
			}
			i = c.jump - 1
		case 't', 'T':
			if s.replaced == (c.cmd == 't') {
				s.replaced = false
				if c.jump < 0 {
					return false, true
				}
				i = c.jump - 1
			} else if c.cmd == 'T' {
				s.replaced = false
			}
		case 'd':
			return false, false
		case 'D':
			j := bytes.IndexByte(s.ps, '\n')
			if j < 0 {
				return false, false
			}
			s.ps = append(s.ps[:0], s.ps[j+1:]...)
			return true, false
		case 'F':
			s.fixNewline()
			name := s.fileName
			if name == "" {
				name = "-"
			}
			s.out.WriteString(name + "\n")
		case 'g':
			s.ps = append(s.ps[:0], s.hs...)
		case 'G':
			s.ps = append(append(s.ps, '\n'), s.hs...)
		case 'h':
			s.hs = append(s.hs[:0], s.ps...)
		case 'H':
			s.hs = append(append(s.hs, '\n'), s.ps...)
		case 'x':
			s.ps, s.hs = s.hs, s.ps
		case 'l':
			w := s.lineLen
			if c.num >= 0 {
				w = c.num
			}
			s.list(w)
		case 'n':
			if s.quit || !s.more() {
				if !s.quiet {
					s.emit(s.ps, s.chomped)
				}
				s.flushAppends()
				s.quit = true
				return false, false
			}
			if !s.quiet {
				s.emit(s.ps, s.chomped)
			}
			s.flushAppends()
			line, _ := s.readLine()
			s.ps = append(s.ps[:0], line...)
		case 'N':
			if s.quit || !s.more() {
				s.quit = true
				return false, true
			}
			s.flushAppends()
			line, _ := s.readLine()
			s.ps = append(append(s.ps, '\n'), line...)
		case 'p':
			s.emit(s.ps, s.chomped)
		case 'P':
			if j := bytes.IndexByte(s.ps, '\n'); j >= 0 {
				s.emit(s.ps[:j], true)
			} else {
				s.emit(s.ps, s.chomped)
			}
		case 'q':
			s.quit = true
			s.exit = max(c.num, 0)
			return false, true
		case 'Q':
			s.quit = true
			s.exit = max(c.num, 0)
			return false, false
		case 'r':
			s.appendQ = append(s.appendQ, sedAppend{file: c.text})
		case 'R':
			if line, ok := s.rline(c.text); ok {
				s.appendQ = append(s.appendQ, sedAppend{text: line, raw: true})
			}
		case 'w':
			c.wout.Write(append(append([]byte(nil), s.ps...), s.delim))
		case 'W':
			j := bytes.IndexByte(s.ps, '\n')
			if j < 0 {
				j = len(s.ps)
			}
			c.wout.Write(append(append([]byte(nil), s.ps[:j]...), s.delim))
		case 's':
			s.subst(c)
		case 'y':
			var b []byte
			for _, r := range string(s.ps) {
				if t, ok := c.ymap[r]; ok {
					r = t
				}
				b = utf8.AppendRune(b, r)
			}
			s.ps = b
		case 'z':
			s.ps = s.ps[:0]
		}
	}
	return false, true
}

// rline reads the next line of an R file.
func (s *sedRun) rline(name string) (string, bool) {
	if s.rfiles == nil {
		s.rfiles = map[string]*sedRFile{}
	}
	f := s.rfiles[name]
	if f == nil {
		data, _ := s.readFS(name)
		f = &sedRFile{data: data}
		s.rfiles[name] = f
	}
	if f.pos >= len(f.data) {
		return "", false
	}
	rest := f.data[f.pos:]
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		f.pos = len(f.data)
		return string(rest) + "\n", true
	}
	f.pos += i + 1
	return string(rest[:i+1]), true
}

func (s *sedRun) subst(c *sedCmd) {
	re := s.reFor(c.re)
	matches := re.FindAllSubmatchIndex(s.ps, -1)
	if len(matches) == 0 {
		return
	}
	var out []byte
	last, count, did := 0, 0, false
	for _, m := range matches {
		count++
		if count < max(c.nth, 1) {
			continue
		}
		if did && !c.global {
			break
		}
		out = append(out, s.ps[last:m[0]]...)
		out = s.expand(out, c.repl, m)
		last = m[1]
		did = true
	}
	if !did {
		return
	}
	out = append(out, s.ps[last:]...)
	s.ps = out
	s.replaced = true
	if c.print > 0 {
		s.emit(s.ps, s.chomped)
	}
	if c.wout != nil {
		c.wout.Write(append(append([]byte(nil), s.ps...), s.delim))
	}
}

// expand appends the replacement for match m, applying \L \U \l \u \E.
func (s *sedRun) expand(out []byte, repl []sedRepl, m []int) []byte {
	var mode, once byte
	add := func(t []byte) {
		for len(t) > 0 {
			r, w := utf8.DecodeRune(t)
			if r == utf8.RuneError && w <= 1 {
				out = append(out, t[0])
				t = t[1:]
				once = 0
				continue
			}
			switch {
			case once == 'u':
				r = unicode.ToUpper(r)
			case once == 'l':
				r = unicode.ToLower(r)
			case mode == 'U':
				r = unicode.ToUpper(r)
			case mode == 'L':
				r = unicode.ToLower(r)
			}
			once = 0
			out = utf8.AppendRune(out, r)
			t = t[w:]
		}
	}
	for _, p := range repl {
		switch p.conv {
		case 'L', 'U':
			mode, once = p.conv, 0
		case 'E':
			mode, once = 0, 0
		case 'l', 'u':
			once = p.conv
		}
		if p.group < 0 {
			add([]byte(p.lit))
			continue
		}
		if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
			add(s.ps[m[2*p.group]:m[2*p.group+1]])
		}
	}
	return out
}

// list writes the pattern space as l does: escapes, octal for bytes
// that are not printable ASCII, lines wrapped at width-1 characters
// with a backslash (no wrapping for width 0), and a final $.
func (s *sedRun) list(width int) {
	s.fixNewline()
	var line []byte
	for _, b := range s.ps {
		var esc string
		switch b {
		case '\\':
			esc = `\\`
		case '\a':
			esc = `\a`
		case '\b':
			esc = `\b`
		case '\f':
			esc = `\f`
		case '\n':
			esc = `\n`
		case '\r':
			esc = `\r`
		case '\t':
			esc = `\t`
		case '\v':
			esc = `\v`
		default:
			if b < ' ' || b >= 0x7f {
				esc = fmt.Sprintf(`\%03o`, b)
			} else {
				esc = string(b)
			}
		}
		if width > 1 && len(line)+len(esc) > width-1 || width == 1 {
			s.out.Write(line)
			s.out.WriteString("\\\n")
			line = line[:0]
		}
		line = append(line, esc...)
	}
	s.out.Write(line)
	s.out.WriteString("$\n")
}
