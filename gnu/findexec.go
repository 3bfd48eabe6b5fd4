package gnu

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// findBatchMax is the most characters of paths one "-exec ... {} +"
// command line gets, about what GNU find fits in the kernel's limit.
const findBatchMax = 2*1024*1024 - 4096

// execPredicate parses -exec, -execdir, -ok and -okdir: the command up
// to ";", or for -exec and -execdir up to "{} +", which runs the command
// with many paths at once.
func (p *findParser) execPredicate(pred string) (node, error) {
	if p.f.env.Exec == nil {
		return nil, errf("%s: no command can be run here", pred)
	}
	ask := strings.HasPrefix(pred, "-ok")
	start := p.i
	for j := start; j < len(p.args); j++ {
		a := p.args[j]
		batch := a == "+" && !ask && j > start+1 && p.args[j-1] == "{}"
		if a != ";" && !batch {
			continue
		}
		cmd := p.args[start:j]
		if batch {
			cmd = p.args[start : j-1]
		}
		if len(cmd) == 0 {
			break
		}
		p.i = j + 1
		p.hasAction = true
		e := &execAction{cmd: cmd, batch: batch, inDir: strings.HasSuffix(pred, "dir"), ask: ask}
		if batch {
			p.f.batches = append(p.f.batches, e)
		}
		return e, nil
	}
	return nil, errf("missing argument to `%s'", pred)
}

// execAction is -exec COMMAND ; (true when the command exits with 0),
// -exec COMMAND {} + (always true; the paths are collected and the
// command runs when enough are, and at the end), their -execdir forms
// (run in the file's directory, with ./NAME for {}) and -ok, -okdir
// (which ask first on standard error and run on an answer starting with
// y or Y from standard input).
type execAction struct {
	cmd   []string
	batch bool
	inDir bool
	ask   bool

	pending      []string // the paths of a batch
	pendingChars int
	pendingDir   string
}

// where is the path {} stands for and the directory the command runs in.
func (e *execAction) where(f *finder, v *visit) (p, dir string) {
	if !e.inDir {
		dir = f.env.Dir
		if dir == "" {
			dir = "/"
		}
		return v.path, dir
	}
	return "./" + baseName(v.path), "/" + strings.TrimPrefix(path.Dir("/"+v.name), "/")
}

func (e *execAction) eval(f *finder, v *visit) bool {
	p, dir := e.where(f, v)
	if e.batch {
		if len(e.pending) > 0 && (dir != e.pendingDir || e.pendingChars+len(p)+1 > findBatchMax) {
			e.flush(f)
		}
		e.pending = append(e.pending, p)
		e.pendingChars += len(p) + 1
		e.pendingDir = dir
		return true
	}
	args := make([]string, len(e.cmd))
	for i, a := range e.cmd {
		args[i] = strings.ReplaceAll(a, "{}", p)
	}
	if e.ask {
		f.out.Flush()
		fmt.Fprintf(f.env.Stderr, "< %s ... %s > ? ", args[0], p)
		if !f.answer() {
			return false
		}
	}
	st, ok := f.exec(dir, args)
	return ok && st == 0
}

// flush runs a batch's command on the paths collected; a failure makes
// find's status 1.
func (e *execAction) flush(f *finder) {
	if len(e.pending) == 0 {
		return
	}
	args := append(append([]string(nil), e.cmd...), e.pending...)
	e.pending, e.pendingChars = nil, 0
	if st, ok := f.exec(e.pendingDir, args); !ok || st != 0 {
		f.status = 1
	}
}

// exec runs a command line; ok is false when it could not be run (said
// as GNU find says it).
func (f *finder) exec(dir string, args []string) (status int, ok bool) {
	if f.stopped() {
		return 1, false
	}
	f.out.Flush()
	st, err := f.env.Exec(f.ctx, dir, args)
	if err != nil {
		f.warn("%s: %s", localeQuote(args[0]), ErrText(err))
		return 127, false
	}
	return st, true
}

// answer reads -ok's answer, a line of standard input.
func (f *finder) answer() bool {
	if f.env.Stdin == nil {
		return false
	}
	if f.stdin == nil {
		f.stdin = bufio.NewReader(f.env.Stdin)
	}
	line, err := f.stdin.ReadString('\n')
	if err != nil && line == "" {
		return false
	}
	return strings.HasPrefix(line, "y") || strings.HasPrefix(line, "Y")
}

// flushBatches runs what "-exec ... {} +" actions have collected.
func (f *finder) flushBatches() {
	for _, e := range f.batches {
		e.flush(f)
	}
}

// deleteAction is -delete: nothing can be deleted from a read-only
// filesystem.
func deleteAction(f *finder, v *visit) bool {
	f.warn("cannot delete %s: %s", localeQuote(v.path), ErrText(syscall.EROFS))
	f.status = 1
	return false
}

// printfAction is -printf FORMAT.
type printfAction struct{ segs []printfSeg }

// printfSeg is literal text, or a directive (verb, its time field for
// %T, %A and %C, and its flags, width and precision as "-10.3"), or the
// end of the output (\c).
type printfSeg struct {
	lit       string
	verb, sub byte
	spec      string
	stop      bool
}

// parsePrintf parses -printf's format as GNU find does, warning about
// what it does not know (and printing it as it is).
func (p *findParser) parsePrintf(format string) *printfAction {
	var segs []printfSeg
	var lit strings.Builder
	flushLit := func() {
		if lit.Len() > 0 {
			segs = append(segs, printfSeg{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '\\' && i+1 < len(format):
			i++
			e := format[i]
			switch e {
			case 'a':
				lit.WriteByte('\a')
			case 'b':
				lit.WriteByte('\b')
			case 'f':
				lit.WriteByte('\f')
			case 'n':
				lit.WriteByte('\n')
			case 'r':
				lit.WriteByte('\r')
			case 't':
				lit.WriteByte('\t')
			case 'v':
				lit.WriteByte('\v')
			case '\\':
				lit.WriteByte('\\')
			case 'c':
				flushLit()
				segs = append(segs, printfSeg{stop: true})
			default:
				if e >= '0' && e <= '7' {
					n, k := 0, 0
					for ; k < 3 && i+k < len(format) && format[i+k] >= '0' && format[i+k] <= '7'; k++ {
						n = n*8 + int(format[i+k]-'0')
					}
					lit.WriteByte(byte(n))
					i += k - 1
					break
				}
				p.f.warn("warning: unrecognized escape `\\%c'", e)
				lit.WriteByte('\\')
				lit.WriteByte(e)
			}
		case c == '%' && i+1 < len(format):
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
				j++
			}
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			if j < len(format) && format[j] == '.' {
				j++
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
			}
			if j >= len(format) {
				lit.WriteString(format[i:])
				i = len(format)
				break
			}
			verb := format[j]
			if verb == '%' {
				lit.WriteByte('%')
				i = j
				break
			}
			seg := printfSeg{verb: verb, spec: format[i+1 : j]}
			switch {
			case strings.IndexByte("TAC", verb) >= 0 && j+1 < len(format) && strings.IndexByte("+@aAbBcdDFhHIjklmMpsStTuUwWxXyYZ", format[j+1]) >= 0:
				seg.sub = format[j+1]
				j++
			case strings.IndexByte("pfhHPsdyYmMkbugUGntac", verb) < 0:
				p.f.warn("warning: unrecognized format directive `%%%c'", verb)
				lit.WriteString(format[i : j+1])
				i = j
				continue
			}
			flushLit()
			segs = append(segs, seg)
			i = j
		default:
			lit.WriteByte(c)
		}
	}
	flushLit()
	p.hasAction = true
	return &printfAction{segs: segs}
}

func (a *printfAction) eval(f *finder, v *visit) bool {
	for _, s := range a.segs {
		switch {
		case s.stop:
			return true
		case s.verb == 0:
			f.out.WriteString(s.lit)
			continue
		}
		val, ok := f.directive(s, v)
		if !ok {
			return true
		}
		spec := s.spec
		if s.verb == 'm' && strings.Contains(spec, "#") && val != "0" {
			val = "0" + val
		}
		spec = strings.Map(func(r rune) rune {
			if strings.ContainsRune("+ #0", r) {
				return -1
			}
			return r
		}, spec)
		if spec != "" {
			val = fmt.Sprintf("%"+spec+"s", val)
		}
		f.out.WriteString(val)
	}
	return true
}

// directive is the text of one -printf directive for v.
func (f *finder) directive(s printfSeg, v *visit) (string, bool) {
	switch s.verb {
	case 'p':
		return v.path, true
	case 'f':
		return baseName(v.path), true
	case 'h', 'H':
		if s.verb == 'H' {
			return v.start, true
		}
		p := v.path
		if v.depth == 0 {
			// A starting point's trailing slashes are not a directory.
			if t := strings.TrimRight(p, "/"); t != "" {
				p = t
			}
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return ".", true
		}
		return p[:i], true
	case 'P':
		rest := strings.TrimPrefix(v.path, v.start)
		return strings.TrimPrefix(rest, "/"), true
	case 'd':
		return strconv.Itoa(v.depth), true
	case 'y', 'Y':
		if v.d.IsDir() {
			return "d", true
		}
		return "f", true
	case 'u', 'g':
		return owner, true
	case 'U', 'G':
		return "0", true
	}
	fi, ok := f.infoOf(v)
	if !ok {
		return "", false
	}
	size := max(fi.Size(), 0)
	switch s.verb {
	case 's':
		return strconv.FormatInt(size, 10), true
	case 'k':
		return strconv.FormatInt((size+1023)/1024, 10), true
	case 'b':
		return strconv.FormatInt((size+1023)/1024*2, 10), true
	case 'm':
		return strconv.FormatUint(uint64(fi.Mode().Perm()), 8), true
	case 'M':
		return modeString(fi.Mode()), true
	case 'n':
		if fi.IsDir() {
			entries, _ := fs.ReadDir(f.fsys, v.name)
			n := 2
			for _, e := range entries {
				if e.IsDir() {
					n++
				}
			}
			return strconv.Itoa(n), true
		}
		return "1", true
	}
	t := fi.ModTime().In(f.loc())
	if s.sub == 0 { // %t %a %c
		return t.Format("Mon Jan _2 15:04:05.0000000000 2006"), true
	}
	return timeField(t, s.sub), true
}

// timeField is one field of %T, %A and %C (strftime's, with GNU find's
// additions: + @ and seconds with a fraction).
func timeField(t time.Time, c byte) string {
	frac := fmt.Sprintf("%010d", t.Nanosecond())
	switch c {
	case '+':
		return t.Format("2006-01-02+15:04:05.") + frac
	case '@':
		return strconv.FormatInt(t.Unix(), 10) + "." + frac
	case 'a':
		return t.Format("Mon")
	case 'A':
		return t.Format("Monday")
	case 'b', 'h':
		return t.Format("Jan")
	case 'B':
		return t.Format("January")
	case 'c':
		return t.Format("Mon Jan _2 15:04:05 2006")
	case 'd':
		return t.Format("02")
	case 'D':
		return t.Format("01/02/06")
	case 'F':
		return t.Format("2006-01-02")
	case 'H':
		return t.Format("15")
	case 'I':
		return t.Format("03")
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay())
	case 'k':
		return fmt.Sprintf("%2d", t.Hour())
	case 'l':
		return fmt.Sprintf("%2d", (t.Hour()+11)%12+1)
	case 'm':
		return t.Format("01")
	case 'M':
		return t.Format("04")
	case 'p':
		return t.Format("PM")
	case 's':
		return strconv.FormatInt(t.Unix(), 10)
	case 'S':
		return t.Format("05.") + frac
	case 't':
		return "\t"
	case 'T':
		return t.Format("15:04:05.") + frac
	case 'u':
		return strconv.Itoa((int(t.Weekday())+6)%7 + 1)
	case 'w':
		return strconv.Itoa(int(t.Weekday()))
	case 'x':
		return t.Format("01/02/06")
	case 'X':
		return t.Format("15:04:05")
	case 'y':
		return t.Format("06")
	case 'Y':
		return t.Format("2006")
	case 'Z':
		return t.Format("MST")
	}
	_, w := t.ISOWeek()
	return fmt.Sprintf("%02d", w) // U W: the week of the year
}
