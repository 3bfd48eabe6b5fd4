package awk

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"
)

// ---- fields ----

// splitRecord splits $0 into fields if not done yet.
func (in *interp) splitRecord() error {
	if in.fieldsValid {
		return nil
	}
	in.fieldsValid = true
	fs := in.globals[vFS].v.s
	if fs == " " {
		// the common case, without an intermediate slice
		in.fields = in.fields[:0]
		s := in.record
		for i, j := blankField(s, 0); i < len(s); i, j = blankField(s, j) {
			in.fields = append(in.fields, strnum(s[i:j]))
		}
		in.nf = len(in.fields)
		return nil
	}
	parts, err := in.splitWith(in.record, fs, in.fsRe, in.paragraphMode())
	if err != nil {
		return err
	}
	in.fields = in.fields[:0]
	for _, p := range parts {
		in.fields = append(in.fields, strnum(p))
	}
	in.nf = len(in.fields)
	return nil
}

func (in *interp) paragraphMode() bool { return in.globals[vRS].v.s == "" }

// splitWith splits s by a field separator: " " on runs of blanks
// (space, tab, newline) ignoring them at the ends, "" into characters,
// one other character literally ("\\t" too), else as a regex. In
// paragraph mode, newlines separate fields as well.
func (in *interp) splitWith(s, fs string, re *regexp.Regexp, para bool) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	switch {
	case fs == " ":
		return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }), nil
	case fs == "":
		var out []string
		for _, r := range s {
			out = append(out, string(r))
		}
		return out, nil
	case utf8.RuneCountInString(fs) == 1 && fs != "\\":
		if para && fs != "\n" {
			return strings.FieldsFunc(s, func(r rune) bool { return string(r) == fs || r == '\n' }), nil
		}
		return strings.Split(s, fs), nil
	}
	if re == nil {
		var err error
		if re, err = in.regex(fs); err != nil {
			return nil, err
		}
	}
	if para {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			out = append(out, splitRegex(line, re)...)
		}
		return out, nil
	}
	return splitRegex(s, re), nil
}

// splitRegex splits s at the non-empty matches of re.
func splitRegex(s string, re *regexp.Regexp) []string {
	var out []string
	start := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[1] == m[0] {
			continue
		}
		out = append(out, s[start:m[0]])
		start = m[1]
	}
	return append(out, s[start:])
}

func (in *interp) getField(f float64) (value, error) {
	if math.IsNaN(f) || f < 0 {
		return value{}, in.fatal("attempt to access field %s", formatNum(f, "%.6g"))
	}
	if f < 1 {
		return strnum(in.record), nil
	}
	if err := in.splitRecord(); err != nil {
		return value{}, err
	}
	if f >= float64(in.nf)+1 {
		return value{}, nil
	}
	i := int(f)
	return in.fields[i-1], nil
}

func (in *interp) setField(f float64, v value) error {
	if math.IsNaN(f) || f < 0 {
		return in.fatal("attempt to access field %s", formatNum(f, "%.6g"))
	}
	if f > float64(in.maxString) {
		return in.fatalErr(ErrLimit, "field index %s is too large", formatNum(f, "%.6g"))
	}
	i := int(f)
	if i == 0 {
		s := in.toStr(v)
		if err := in.checkLen(s); err != nil {
			return err
		}
		in.setRecord(s)
		return nil
	}
	if err := in.splitRecord(); err != nil {
		return err
	}
	if i > in.nf {
		in.setNF(i)
	}
	if v.k == kUninit {
		v = value{}
	}
	in.fields[i-1] = v
	return in.rebuild()
}

func (in *interp) setNF(n int) {
	for len(in.fields) < n {
		in.fields = append(in.fields, value{})
	}
	in.fields = in.fields[:n]
	in.nf = n
	in.rebuild()
}

// rebuild makes $0 from the fields joined by OFS.
func (in *interp) rebuild() error {
	ofs := in.toStr(in.globals[vOFS].v)
	var b strings.Builder
	for i, f := range in.fields[:in.nf] {
		if i > 0 {
			b.WriteString(ofs)
		}
		b.WriteString(in.toStr(f))
		if b.Len() > in.maxString {
			return in.checkLen(b.String())
		}
	}
	in.record = b.String()
	return nil
}

func (in *interp) setRecord(s string) {
	in.record = s
	in.fieldsValid = false
}

// ---- records ----

// recReader reads records from one input.
type recReader struct {
	r    *bufio.Reader
	c    io.Closer
	eof  bool
	buf  []byte // regex mode: read but not yet returned
	name string
}

func newRecReader(r io.Reader, c io.Closer, name string) *recReader {
	return &recReader{r: bufio.NewReaderSize(r, 64<<10), c: c, name: name}
}

func (rr *recReader) close() error {
	if rr.c != nil {
		err := rr.c.Close()
		rr.c = nil
		return err
	}
	return nil
}

// read returns the next record and its terminator (RT), or ok false at
// the end.
func (in *interp) read(rr *recReader) (rec, rt string, ok bool, err error) {
	rs := in.globals[vRS].v.s
	switch {
	case rs == "":
		return in.readParagraph(rr)
	case in.rsRe != nil:
		return in.readRegex(rr, in.rsRe)
	}
	sep := rs[0]
	if utf8.RuneCountInString(rs) == 1 && len(rs) > 1 {
		// a multibyte character: as a regex of itself
		re, err := in.regex(regexp.QuoteMeta(rs))
		if err != nil {
			return "", "", false, err
		}
		return in.readRegex(rr, re)
	}
	var acc []byte
	for {
		chunk, err := rr.r.ReadSlice(sep)
		if len(acc)+len(chunk) > in.maxString {
			return "", "", false, in.fatalErr(ErrLimit, "record longer than %d bytes", in.maxString)
		}
		switch {
		case err == nil:
			if acc == nil {
				return string(chunk[:len(chunk)-1]), rs, true, nil
			}
			acc = append(acc, chunk[:len(chunk)-1]...)
			return string(acc), rs, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			acc = append(acc, chunk...)
			if err := in.tick(); err != nil {
				return "", "", false, err
			}
		case errors.Is(err, io.EOF):
			acc = append(acc, chunk...)
			if len(acc) == 0 {
				return "", "", false, nil
			}
			return string(acc), "", true, nil
		default:
			return "", "", false, err
		}
	}
}

func (in *interp) readLine(rr *recReader) (string, bool, error) {
	var acc []byte
	for {
		chunk, err := rr.r.ReadSlice('\n')
		if len(acc)+len(chunk) > in.maxString {
			return "", false, in.fatalErr(ErrLimit, "record longer than %d bytes", in.maxString)
		}
		acc = append(acc, chunk...)
		switch {
		case err == nil:
			return string(acc), true, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return string(acc), len(acc) > 0, nil
		default:
			return "", false, err
		}
	}
}

// readParagraph reads a record of RS="": lines up to a blank line,
// leading newlines skipped; RT is the run of newlines after it.
func (in *interp) readParagraph(rr *recReader) (string, string, bool, error) {
	var b strings.Builder
	// skip leading newlines
	for {
		c, err := rr.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", "", false, nil
			}
			return "", "", false, err
		}
		if c != '\n' {
			rr.r.UnreadByte()
			break
		}
	}
	for {
		line, ok, err := in.readLine(rr)
		if err != nil {
			return "", "", false, err
		}
		if !ok {
			break
		}
		if line == "\n" {
			// the end of the paragraph: take the following newlines too
			rt := "\n\n"
			for {
				c, err := rr.r.ReadByte()
				if err != nil {
					break
				}
				if c != '\n' {
					rr.r.UnreadByte()
					break
				}
				rt += "\n"
			}
			s := b.String()
			return strings.TrimSuffix(s, "\n"), rt, true, nil
		}
		b.WriteString(line)
		if b.Len() > in.maxString {
			return "", "", false, in.fatalErr(ErrLimit, "record longer than %d bytes", in.maxString)
		}
		if !strings.HasSuffix(line, "\n") {
			break
		}
	}
	s := b.String()
	if s == "" {
		return "", "", false, nil
	}
	if strings.HasSuffix(s, "\n") {
		return s[:len(s)-1], "\n", true, nil
	}
	return s, "", true, nil
}

// readRegex reads a record ended by a match of re.
func (in *interp) readRegex(rr *recReader, re *regexp.Regexp) (string, string, bool, error) {
	for {
		if loc := firstNonEmpty(re, rr.buf); loc != nil && (loc[1] < len(rr.buf) || rr.eof) {
			rec, rt := string(rr.buf[:loc[0]]), string(rr.buf[loc[0]:loc[1]])
			rr.buf = rr.buf[loc[1]:]
			return rec, rt, true, nil
		}
		if rr.eof {
			if len(rr.buf) == 0 {
				return "", "", false, nil
			}
			rec := string(rr.buf)
			rr.buf = nil
			return rec, "", true, nil
		}
		if len(rr.buf) > in.maxString {
			return "", "", false, in.fatalErr(ErrLimit, "record longer than %d bytes", in.maxString)
		}
		if err := in.tick(); err != nil {
			return "", "", false, err
		}
		var chunk [32 << 10]byte
		n, err := rr.r.Read(chunk[:])
		rr.buf = append(rr.buf, chunk[:n]...)
		if errors.Is(err, io.EOF) {
			rr.eof = true
		} else if err != nil {
			return "", "", false, err
		}
	}
}

func firstNonEmpty(re *regexp.Regexp, b []byte) []int {
	off := 0
	for off <= len(b) {
		loc := re.FindIndex(b[off:])
		if loc == nil {
			return nil
		}
		if loc[1] > loc[0] {
			return []int{loc[0] + off, loc[1] + off}
		}
		off += loc[0] + 1
	}
	return nil
}

// open opens a named input file.
func (in *interp) open(name string) (io.ReadCloser, error) {
	if name == "/dev/null" {
		return io.NopCloser(strings.NewReader("")), nil
	}
	if name == "-" || name == "/dev/stdin" {
		if in.cfg.Stdin == nil {
			return io.NopCloser(strings.NewReader("")), nil
		}
		return io.NopCloser(in.cfg.Stdin), nil
	}
	if in.cfg.Open != nil {
		return in.cfg.Open(name)
	}
	if in.cfg.FS != nil {
		p := path.Clean("/" + name)[1:]
		if p == "" {
			p = "."
		}
		return OpenFile(in.cfg.FS, p, name)
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// OpenFile opens the file at path p of fsys for reading as an input or
// a getline source: a directory is an error wrapping syscall.EISDIR
// ("Is a directory"), as reading one is on Linux. name is the file as the
// program spelled it, for the error.
func OpenFile(fsys fs.FS, p, name string) (io.ReadCloser, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	return f, nil
}

// errText renders a file error as strerror does.
func errText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.Is(err, syscall.EISDIR):
		return "Is a directory"
	case errors.Is(err, syscall.EROFS):
		return "Read-only file system"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch pe.Err.Error() {
		case "is a directory":
			return "Is a directory"
		}
		return pe.Err.Error()
	}
	return err.Error()
}

// nextMainRecord reads the next record of the main input into $0,
// moving through ARGV; ok is false at the end of the input.
func (in *interp) nextMainRecord() (bool, error) {
	for {
		if in.cur == nil {
			ok, err := in.nextFile()
			if err != nil || !ok {
				return false, err
			}
		}
		if err := in.tick(); err != nil {
			return false, err
		}
		if err := in.ctx.Err(); err != nil && in.ticks&63 == 0 {
			return false, in.fatalErr(err, "%v", err)
		}
		rec, rt, ok, err := in.read(in.cur)
		if err != nil {
			var re *RuntimeError
			if errors.As(err, &re) {
				return false, err
			}
			return false, in.fatalErr(err, "error reading input file `%s': %s", in.curName, errText(err))
		}
		if !ok {
			in.closeCur()
			continue
		}
		in.nr++
		in.fnr++
		in.setRecord(rec)
		in.globals[vRT].v = str(rt)
		return true, nil
	}
}

func (in *interp) closeCur() {
	if in.cur != nil {
		in.cur.close()
		in.cur = nil
	}
}

// nextFile opens the next file of ARGV, doing the assignments before
// it; false when there is none left.
func (in *interp) nextFile() (bool, error) {
	for {
		argc := int(in.toNum(in.globals[vARGC].v))
		if in.argi >= argc {
			if in.sawFile {
				return false, nil
			}
			in.sawFile = true
			in.cur = newRecReader(orEmpty(in.cfg.Stdin), nil, "-")
			in.curName = "-"
			in.globals[vFILENAME].v = str("-") // as gawk
			in.fnr = 0
			return true, nil
		}
		i := in.argi
		in.argi++
		arg := ""
		if argv := in.globals[vARGV].a; argv != nil {
			e, ok := argv.m[fmt.Sprint(i)]
			if !ok {
				continue
			}
			arg = in.toStr(e.v)
		}
		if arg == "" {
			continue
		}
		if name, val, ok := strings.Cut(arg, "="); ok && isName(name) {
			if err := in.assignVar(name, val); err != nil {
				return false, err
			}
			continue
		}
		in.sawFile = true
		f, err := in.open(arg)
		if err != nil && errors.Is(err, syscall.EISDIR) {
			// named after the statement that ran last, as gawk does
			in.warn("command line argument `%s' is a directory: skipped", arg)
			continue
		}
		if err != nil {
			return false, in.fatalErr(err, "cannot open file `%s' for reading: %s", arg, errText(err))
		}
		in.cur = newRecReader(f, f, arg)
		in.curName = arg
		in.globals[vFILENAME].v = str(arg)
		in.fnr = 0
		return true, nil
	}
}

func orEmpty(r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}

// getline runs the three forms of getline.
func (in *interp) getline(g *getlineExpr) (value, error) {
	switch g.kind {
	case getCmd:
		cv, err := in.eval(g.src)
		if err != nil {
			return value{}, err
		}
		in.warn("cannot run command `%s' for getline: running commands is not supported", in.toStr(cv))
		return num(-1), nil
	case getFile:
		fv, err := in.eval(g.src)
		if err != nil {
			return value{}, err
		}
		name := in.toStr(fv)
		rr, ok := in.inputs[name]
		if !ok {
			f, err := in.open(name)
			if err != nil {
				return num(-1), nil
			}
			rr = newRecReader(f, f, name)
			in.inputs[name] = rr
		}
		rec, _, ok, err := in.read(rr)
		if err != nil {
			var re *RuntimeError
			if errors.As(err, &re) {
				return value{}, err
			}
			return num(-1), nil
		}
		if !ok {
			return num(0), nil
		}
		if g.lv == nil {
			in.setRecord(rec)
			return num(1), nil
		}
		return num(1), in.assign(g.lv, strnum(rec))
	}
	if in.inEnd && in.cur == nil && in.sawFile {
		return num(0), nil
	}
	if g.lv == nil {
		ok, err := in.nextMainRecord()
		if err != nil || !ok {
			return num(0), err
		}
		return num(1), nil
	}
	// read into a variable without touching $0
	saved, savedValid, savedFields, savedNF := in.record, in.fieldsValid, in.fields, in.nf
	in.fields = nil
	ok, err := in.nextMainRecord()
	if err != nil || !ok {
		in.record, in.fieldsValid, in.fields, in.nf = saved, savedValid, savedFields, savedNF
		return num(0), err
	}
	rec := in.record
	in.record, in.fieldsValid, in.fields, in.nf = saved, savedValid, savedFields, savedNF
	return num(1), in.assign(g.lv, strnum(rec))
}

// warn prints a warning after the output so far.
func (in *interp) warn(format string, a ...any) {
	in.out.Flush()
	if in.cfg.Stderr == nil {
		return
	}
	prog := in.argv0()
	w := in.where()
	if w != "" {
		w += ": "
	}
	fmt.Fprintf(in.cfg.Stderr, "%s: %swarning: %s\n", prog, w, fmt.Sprintf(format, a...))
}

// ---- output ----

func (in *interp) print(s *printStmt) error {
	var line string
	if s.printf {
		vals := make([]value, 0, len(s.args))
		for _, a := range s.args {
			v, err := in.eval(a)
			if err != nil {
				return err
			}
			vals = append(vals, v)
		}
		out, err := sprintf(in.toStr(vals[0]), vals[1:], in)
		if err != nil {
			return err
		}
		line = out
	} else if len(s.args) == 0 {
		line = in.record + in.toStr(in.globals[vORS].v)
	} else {
		ofs := in.toStr(in.globals[vOFS].v)
		var b strings.Builder
		for i, a := range s.args {
			v, err := in.eval(a)
			if err != nil {
				return err
			}
			if i > 0 {
				b.WriteString(ofs)
			}
			b.WriteString(in.outStr(v))
			if b.Len() > in.maxString {
				return in.checkLen(b.String())
			}
		}
		b.WriteString(in.toStr(in.globals[vORS].v))
		line = b.String()
	}
	if s.redir == 0 {
		_, err := in.out.WriteString(line)
		if err != nil {
			return in.fatalErr(err, "write failure: %s", errText(err))
		}
		return nil
	}
	dv, err := in.eval(s.dest)
	if err != nil {
		return err
	}
	dest := in.toStr(dv)
	w, err := in.output(dest, s.redir)
	if err != nil {
		return err
	}
	w.WriteString(line)
	if w != in.out {
		// stderr is unbuffered in gawk
		if o := in.outs[dest]; o != nil && o.isErr {
			w.Flush()
		}
	}
	return nil
}

// output returns the writer of a redirection: /dev/stdout, /dev/stderr
// and their /dev/fd names; any other file or command fails as on a
// read-only system without processes.
func (in *interp) output(dest string, redir tok) (*bufio.Writer, error) {
	if redir == tPipe {
		return nil, in.fatal("cannot open pipe `%s': running commands is not supported", dest)
	}
	switch dest {
	case "/dev/stdout", "/dev/fd/1", "-":
		if dest == "-" {
			break
		}
		return in.out, nil
	case "/dev/null":
		o, ok := in.outs[dest]
		if !ok {
			o = &outStream{w: bufio.NewWriter(io.Discard)}
			in.outs[dest] = o
		}
		return o.w, nil
	case "/dev/stderr", "/dev/fd/2":
		o, ok := in.outs[dest]
		if !ok {
			w := in.cfg.Stderr
			if w == nil {
				w = io.Discard
			}
			o = &outStream{w: bufio.NewWriter(&flushFirst{in.out, w}), isErr: true}
			in.outs[dest] = o
		}
		return o.w, nil
	}
	return nil, in.fatalErr(syscall.EROFS, "cannot redirect to `%s': Read-only file system", dest)
}

// flushFirst flushes standard output before writing to standard error,
// so that the two keep their order on one terminal.
type flushFirst struct {
	first *bufio.Writer
	w     io.Writer
}

func (f *flushFirst) Write(p []byte) (int, error) {
	f.first.Flush()
	return f.w.Write(p)
}

func (in *interp) flushAll() error {
	for _, o := range in.outs {
		o.w.Flush()
	}
	if err := in.out.Flush(); err != nil {
		return in.fatalErr(err, "write failure: %s", errText(err))
	}
	return nil
}

func (in *interp) closeAll() {
	for _, o := range in.outs {
		o.w.Flush()
	}
	for _, rr := range in.inputs {
		rr.close()
	}
	in.closeCur()
}

// closeStream is close(name): 0 when it was open, -1 if not.
func (in *interp) closeStream(name string) float64 {
	if rr, ok := in.inputs[name]; ok {
		rr.close()
		delete(in.inputs, name)
		return 0
	}
	if o, ok := in.outs[name]; ok {
		o.w.Flush()
		delete(in.outs, name)
		return 0
	}
	if name == "/dev/stdout" {
		in.out.Flush()
		return 0
	}
	return -1
}

func (in *interp) argv0() string {
	if in.cfg.Argv0 == "" {
		return "awk"
	}
	return in.cfg.Argv0
}
