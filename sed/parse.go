package sed

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/chromafs/chromafs/internal/textio"
	"github.com/chromafs/chromafs/regex"
)

// Source is one part of a script: an -e expression, or the text of an
// -f file. Parts are joined with newlines, as GNU sed joins them.
type Source struct {
	Text string
	// File is the -f file's name, for error locations; "" for an -e
	// expression (or the script given as an operand). A file's final
	// newline is not part of the script.
	File string
}

// Options are GNU sed's options that change how a script reads.
type Options struct {
	// Extended reads regular expressions as POSIX EREs (sed -E, -r)
	// rather than BREs.
	Extended bool
	// Sandbox refuses the r, R, w and W commands and the s///w flag
	// (sed --sandbox).
	Sandbox bool
}

// SyntaxError is an error in a script, worded as GNU sed's without the
// program name. GNU sed exits with status 1 for it.
type SyntaxError struct {
	// Where is "-e expression #N, char C" or "file F line L".
	Where string
	// Msg is GNU sed's message: "unknown command: `k'".
	Msg string
}

func (e *SyntaxError) Error() string { return e.Where + ": " + e.Msg }

// Compile parses a script made of srcs. Its error is a *SyntaxError for
// a script that GNU sed rejects as such (exit status 1), or, worded as
// GNU sed's without the program name, one of those that GNU sed reports
// as fatal (exit status 4): a jump to a label that the script does not
// define ("can't find label for jump to `x'"), or a w file, W file or
// s///w flag naming another file than /dev/stdout and /dev/stderr,
// which sed cannot open as it never writes ("couldn't open file out:
// Read-only file system", wrapping syscall.EROFS). A script whose first
// line is "#n" runs as with Config.Quiet.
func Compile(srcs []Source, o Options) (*Program, error) {
	chunks := make([]chunk, len(srcs))
	exprs := 0
	for i, src := range srcs {
		chunks[i] = chunk{text: src.Text, file: src.File}
		if src.File != "" {
			chunks[i].text = strings.TrimSuffix(src.Text, "\n")
		} else {
			exprs++
			chunks[i].expr = exprs
		}
	}
	s := &parser{ere: o.Extended, sandbox: o.Sandbox}
	if err := s.compile(chunks); err != nil {
		return nil, err
	}
	prog := &Program{quiet: s.quiet, cmds: make([]command, len(s.cmds))}
	for i, c := range s.cmds {
		prog.cmds[i] = *c
	}
	return prog, nil
}

// chunk is one Source of the script.
type chunk struct {
	text  string
	expr  int    // -e expression number, or 0
	file  string // -f file name
	start int    // offset in the joined script
}

// parser is the state of a script's compilation.
type parser struct {
	ere, sandbox bool
	quiet        bool // the script starts with "#n"

	src    string
	pos    int
	chunks []chunk
	cmds   []*command
	blocks []int
	labels map[string]int
	seenRe bool
}

// scriptError is a script error: the message and the position it is
// reported at.
type scriptError struct {
	msg string
	pos int // -1: "char 0" of the last chunk
}

// fatalError ends compilation with an error that GNU sed reports as
// fatal.
type fatalError struct{ err error }

func (s *parser) bad(msg string) { panic(scriptError{msg, s.pos}) }

const eof = -1

func (s *parser) inchar() int {
	if s.pos >= len(s.src) {
		return eof
	}
	c := s.src[s.pos]
	s.pos++
	return int(c)
}

func (s *parser) savchar(c int) {
	if c != eof {
		s.pos--
	}
}

func (s *parser) inNonblank() int {
	for {
		c := s.inchar()
		if c != ' ' && c != '\t' {
			return c
		}
	}
}

func (s *parser) inInteger(c int) int {
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
func (s *parser) location(pos int) string {
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

// compile parses the script made of chunks.
func (s *parser) compile(chunks []chunk) (err error) {
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
			if f, isFatal := e.(fatalError); isFatal {
				err = f.err
				return
			}
			se, isSed := e.(scriptError)
			if !isSed {
				panic(e)
			}
			err = &SyntaxError{Where: s.location(se.pos), Msg: se.msg}
		}
	}()
	if strings.HasPrefix(s.src, "#n") && (len(s.src) == 2 || s.src[2] == '\n') {
		s.quiet = true
	}
	s.parse()
	if len(s.blocks) > 0 {
		panic(scriptError{"unmatched `{'", -1})
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
				return fmt.Errorf("can't find label for jump to `%s'", c.text)
			}
			c.jump = j
		}
	}
	return nil
}

func (s *parser) parse() {
	for {
		c := s.inchar()
		for c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			c = s.inchar()
		}
		if c == eof {
			return
		}
		cmd := &command{num: -1}
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
		if c == eof || c == '\n' || c == ';' {
			s.bad("missing command")
		}
		cmd.cmd = byte(c)
		s.command(cmd)
	}
}

func (s *parser) oneAddr(cmd *command) {
	if cmd.a2 != nil {
		s.bad("command only uses one address")
	}
}

func (s *parser) command(cmd *command) {
	c := int(cmd.cmd)
	switch c {
	case '#':
		if cmd.a1 != nil {
			s.bad("comments don't accept any addresses")
		}
		for c != '\n' && c != eof {
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
		if c == eof {
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

// writeFile checks the file of w, W or s///w: standard output or
// error, or an error as on a read-only filesystem.
func (s *parser) writeFile(name string) string {
	switch name {
	case "/dev/stdout", "/dev/stderr":
		return name
	}
	panic(fatalError{fmt.Errorf("couldn't open file %s: %w", name, readOnly{})})
}

// readOnly is syscall.EROFS, with the C library's text.
type readOnly struct{}

func (readOnly) Error() string        { return textio.ErrText(syscall.EROFS) }
func (readOnly) Is(target error) bool { return target == syscall.EROFS }

func (s *parser) endOfCmd() {
	c := s.inNonblank()
	if c == '}' || c == '#' {
		s.savchar(c)
	} else if c != eof && c != '\n' && c != ';' {
		s.bad("extra characters after command")
	}
}

func (s *parser) label() string {
	c := s.inNonblank()
	var b strings.Builder
	for c != eof && c != '\n' && c != ';' && c != ' ' && c != '\t' {
		b.WriteByte(byte(c))
		c = s.inchar()
	}
	s.savchar(c)
	if c == ';' || c == ' ' || c == '\t' {
		s.endOfCmd()
	}
	return b.String()
}

func (s *parser) filename() string {
	c := s.inNonblank()
	var b strings.Builder
	for c != eof && c != '\n' {
		b.WriteByte(byte(c))
		c = s.inchar()
	}
	return b.String()
}

// readText reads the text of a, i or c: to the end of the line, lines
// ending in a backslash continuing it; a backslash before another
// character is removed. A one-liner skips leading blanks.
func (s *parser) readText(skipBlanks bool) string {
	var b strings.Builder
	c := s.inchar()
	if skipBlanks {
		for c == ' ' || c == '\t' {
			c = s.inchar()
		}
	}
	for c != eof && c != '\n' {
		if c == '\\' {
			c = s.inchar()
			if c == eof {
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
func (s *parser) matchSlash(slash int, regex bool) (string, bool) {
	var b strings.Builder
	c := s.inchar()
	for c != eof && c != '\n' {
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
			for c != ']' && c != eof && c != '\n' {
				b.WriteByte(byte(c))
				if c == '[' {
					if d := s.inchar(); d == ':' || d == '.' || d == '=' {
						b.WriteByte(byte(d))
						for e := s.inchar(); ; e = s.inchar() {
							if e == eof || e == '\n' {
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
						if c == eof || c == '\n' {
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
			if c == eof {
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

func (s *parser) address(c int) (*addr, bool) {
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
		a := &addr{kind: addrRe}
		a.re, a.emptyRegex = s.regex(text, fold)
		return a, true
	case c >= '0' && c <= '9':
		a := &addr{kind: addrLine, n: s.inInteger(c)}
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
		a := &addr{kind: addrPlus}
		if c == '~' {
			a.kind = addrMult
		}
		a.n = s.inInteger(s.inNonblank())
		return a, true
	case c == '$':
		return &addr{kind: addrLast}, true
	}
	return nil, false
}

// regex compiles a sed regex; "" is the last regex used (empty true).
func (s *parser) regex(text string, fold bool) (*regexp.Regexp, bool) {
	if text == "" {
		if !s.seenRe {
			panic(scriptError{"no previous regular expression", -1})
		}
		return nil, true
	}
	s.seenRe = true
	syn := regex.Basic
	if s.ere {
		syn = regex.Extended
	}
	src, err := regex.TranslateGroups(controlEscapes(text), syn, fold)
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

// controlEscapes converts GNU sed's escapes for control characters in a
// regex (\t \f \v \a \r) to the characters.
func controlEscapes(text string) string {
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

func (s *parser) substitute(cmd *command) {
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
		case '\n', ';', eof:
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
func (s *parser) replacement(text string) []replPart {
	var parts []replPart
	var lit strings.Builder
	var conv byte
	flush := func() {
		if lit.Len() > 0 || conv != 0 {
			parts = append(parts, replPart{lit: lit.String(), group: -1, conv: conv})
			lit.Reset()
			conv = 0
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '&':
			flush()
			parts = append(parts, replPart{group: 0})
		case c == '\\' && i+1 < len(text):
			i++
			c = text[i]
			switch {
			case c >= '0' && c <= '9':
				flush()
				parts = append(parts, replPart{group: int(c - '0')})
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

func (s *parser) translit(cmd *command) {
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
