package sed

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/chromafs/chromafs/internal/textio"
)

// DefaultLineWrap is the l command's line length when neither the
// command nor Config.LineWrap gives one, as in GNU sed.
const DefaultLineWrap = 70

// Config is what a Program runs with: its input and output and GNU sed's
// options that apply when it runs.
type Config struct {
	// Files are the input files in order, as Open takes them; "-" is
	// standard input. None is "-".
	Files []string
	// Stdin is the standard input; nil reads as empty.
	Stdin io.Reader
	// Open opens an input file other than "-". An error that matches
	// syscall.EISDIR (a directory) is a read error, as for GNU sed,
	// which opens a directory and fails to read it: "read error on d: Is
	// a directory" ends the run with status 4. Another error skips the
	// file ("can't read f: No such file or directory") and makes the
	// status 2. When nil, every file but "-" fails to open.
	Open func(name string) (io.ReadCloser, error)
	// ReadFile reads the file of an r or R command, each time r's text
	// is output and once for R's lines. An error reads as an empty
	// file, as GNU sed ignores a file it cannot read. When nil, every
	// such file is empty.
	ReadFile func(name string) ([]byte, error)
	// Stdout receives the output. Run flushes it before each diagnostic,
	// so that Stderr may be the same writer underneath; the last Flush,
	// and reporting its error, are the caller's.
	Stdout *bufio.Writer
	// Stderr receives the diagnostics, "Prog: message", and what w
	// /dev/stderr writes.
	Stderr io.Writer
	// Prog is the name diagnostics start with; "" is "sed".
	Prog string

	// Quiet is sed -n: the pattern space is printed only when the
	// script says so.
	Quiet bool
	// Separate is sed -s: each file is an input of its own, for line
	// numbers, $ and F.
	Separate bool
	// Null is sed -z: lines end in NUL bytes rather than newlines.
	Null bool
	// LineWrap is sed -l: the l command wraps its output at LineWrap-1
	// characters. 0 is DefaultLineWrap; a negative value never wraps
	// (sed -l 0).
	LineWrap int
	// MaxLine is the longest line, in bytes, that sed holds; a longer
	// one is a read error (textio.ErrTooLarge). 0 is 64 MiB.
	MaxLine int
}

// Run runs the program over cfg.Files and returns GNU sed's exit status:
// 0; 2 when an input file could not be read; 4 after a read error; or
// the status given to q or Q. Lines stream: sed holds the current line
// and the next one (for $), so that "yes | sed 3q" ends at once. Run
// stops between lines once ctx ends, its status then being that of the
// lines run so far; the caller reports ctx's error.
func (p *Program) Run(ctx context.Context, cfg *Config) int {
	s := &machine{
		ctx:      ctx,
		cfg:      cfg,
		out:      cfg.Stdout,
		stderr:   cfg.Stderr,
		prog:     cfg.Prog,
		quiet:    cfg.Quiet || p.quiet,
		separate: cfg.Separate,
		lineLen:  cfg.LineWrap,
		delim:    '\n',
		maxLine:  cfg.MaxLine,
		files:    cfg.Files,
		cmds:     append([]command(nil), p.cmds...),
	}
	if s.out == nil {
		s.out = bufio.NewWriter(io.Discard)
	}
	if s.stderr == nil {
		s.stderr = io.Discard
	}
	if s.prog == "" {
		s.prog = "sed"
	}
	if cfg.Null {
		s.delim = 0
	}
	switch {
	case s.lineLen == 0:
		s.lineLen = DefaultLineWrap
	case s.lineLen < 0:
		s.lineLen = 0
	}
	if s.maxLine <= 0 {
		s.maxLine = textio.HoldLimit
	}
	if len(s.files) == 0 {
		s.files = []string{"-"}
	}
	s.execute()
	return s.status
}

// machine is the state of a run.
type machine struct {
	ctx              context.Context
	cfg              *Config
	out              *bufio.Writer
	stderr           io.Writer
	prog             string
	quiet, separate  bool
	lineLen, maxLine int
	delim            byte
	cmds             []command

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
	appendQ  []appendItem
	rfiles   map[string]*rFile
	quit     bool
	exit     int
}

type appendItem struct {
	text string
	file string // r: a file to copy
	raw  bool   // R line: text already read
}

type rFile struct {
	data []byte
	pos  int
}

// warn prints a diagnostic line, "prog: " and the message, after what
// is already written to standard output.
func (s *machine) warn(format string, a ...any) {
	s.out.Flush()
	fmt.Fprintf(s.stderr, "%s: %s\n", s.prog, fmt.Sprintf(format, a...))
}

// stopped reports whether the context ended.
func (s *machine) stopped() bool { return s.ctx.Err() != nil }

// openInput opens an input file (see Config.Open).
func (s *machine) openInput(name string) (io.ReadCloser, error) {
	if name == "-" {
		if s.cfg.Stdin == nil {
			return io.NopCloser(strings.NewReader("")), nil
		}
		return io.NopCloser(s.cfg.Stdin), nil
	}
	if s.cfg.Open == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return s.cfg.Open(name)
}

// readFile reads the file of r or R (see Config.ReadFile).
func (s *machine) readFile(name string) ([]byte, error) {
	if s.cfg.ReadFile == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return s.cfg.ReadFile(name)
}

// writer is the output of a w file: standard output or error.
func (s *machine) writer(name string) io.Writer {
	if name == "/dev/stderr" {
		return stderrWriter{s}
	}
	return s.out
}

// stderrWriter writes to standard error after what is already written
// to standard output.
type stderrWriter struct{ s *machine }

func (w stderrWriter) Write(p []byte) (int, error) {
	w.s.out.Flush()
	return w.s.stderr.Write(p)
}

// nextFile opens the next input file, reporting those that cannot be
// opened; it returns false when there is none left.
func (s *machine) nextFile() bool {
	s.closeInput()
	for s.fileIdx < len(s.files) {
		a := s.files[s.fileIdx]
		s.fileIdx++
		f, err := s.openInput(a)
		if err != nil {
			if errors.Is(err, syscall.EISDIR) {
				s.warn("read error on %s: Is a directory", a)
				s.quit, s.exit, s.status = true, 4, 4
				return false
			}
			s.warn("can't read %s: %s", a, textio.ErrText(err))
			s.status = 2
			continue
		}
		s.fileName, s.in, s.inFile, s.haveData = a, textio.NewLineReader(f, s.delim, s.maxLine), f, true
		if s.separate {
			s.line = 0
		}
		return true
	}
	return false
}

// closeInput closes the current input file, if one is open.
func (s *machine) closeInput() {
	if s.inFile != nil {
		s.inFile.Close()
	}
	s.in, s.inFile, s.nextOK = nil, nil, false
}

// fill reads the next line of the current file ahead, if not done yet;
// false at the file's end (or a read error, which ends sed with status
// 4). Lines stream: only the current line and the next are held, each
// at most maxLine bytes.
func (s *machine) fill() bool {
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
			s.warn("read error on %s: %s", name, textio.ErrText(err))
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
func (s *machine) more() bool {
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
func (s *machine) readLine() ([]byte, bool) {
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
func (s *machine) isLast() bool {
	if s.haveData && s.fill() {
		return false
	}
	if s.separate {
		return true
	}
	return !s.more()
}

func (s *machine) execute() {
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
func (s *machine) cycle() {
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

func (s *machine) emit(text []byte, nl bool) {
	s.fixNewline()
	s.out.Write(text)
	if nl {
		s.out.WriteByte(s.delim)
	} else {
		s.missing = true
	}
}

func (s *machine) fixNewline() {
	if s.missing {
		s.out.WriteByte(s.delim)
		s.missing = false
	}
}

func (s *machine) flushAppends() {
	for _, a := range s.appendQ {
		switch {
		case a.file != "":
			data, err := s.readFile(a.file)
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

func (s *machine) matchAddr(a *addr) bool {
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

func (s *machine) reFor(re *regexp.Regexp) *regexp.Regexp {
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

func (s *machine) selected(c *command) bool {
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
func (s *machine) runScript() (restart, autoprint bool) {
	for i := 0; i < len(s.cmds); i++ {
		c := &s.cmds[i]
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
			s.appendQ = append(s.appendQ, appendItem{text: c.text})
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
			s.appendQ = append(s.appendQ, appendItem{file: c.text})
		case 'R':
			if line, ok := s.rline(c.text); ok {
				s.appendQ = append(s.appendQ, appendItem{text: line, raw: true})
			}
		case 'w':
			s.writer(c.wout).Write(append(append([]byte(nil), s.ps...), s.delim))
		case 'W':
			j := bytes.IndexByte(s.ps, '\n')
			if j < 0 {
				j = len(s.ps)
			}
			s.writer(c.wout).Write(append(append([]byte(nil), s.ps[:j]...), s.delim))
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
func (s *machine) rline(name string) (string, bool) {
	if s.rfiles == nil {
		s.rfiles = map[string]*rFile{}
	}
	f := s.rfiles[name]
	if f == nil {
		data, _ := s.readFile(name)
		f = &rFile{data: data}
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

func (s *machine) subst(c *command) {
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
	if c.wout != "" {
		s.writer(c.wout).Write(append(append([]byte(nil), s.ps...), s.delim))
	}
}

// expand appends the replacement for match m, applying \L \U \l \u \E.
func (s *machine) expand(out []byte, repl []replPart, m []int) []byte {
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
func (s *machine) list(width int) {
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
