package awk

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Config is what a run of a program works with. Nothing else of the
// host is reached: no environment but Environ, no clock, no process.
type Config struct {
	// Stdin is the standard input ("-", "/dev/stdin", and the input
	// when there is no file operand); nil reads as empty.
	Stdin io.Reader
	// Stdout and Stderr receive print's output and the diagnostics
	// (and print > "/dev/stderr"). Stdout is buffered and flushed
	// before each diagnostic and at the end.
	Stdout, Stderr io.Writer
	// Open opens a file named by an operand or by getline < name, as
	// the program spells it. When nil, names are opened in FS (relative
	// to its root; a leading "/" is dropped). With neither, opening
	// fails.
	Open func(name string) (io.ReadCloser, error)
	FS   fs.FS
	// Argv0 is ARGV[0] ("awk" when empty) and the name warnings start
	// with; Args are the operands, ARGV[1] on: files, "-", and
	// var=value assignments done when reached.
	Argv0 string
	Args  []string
	// Vars are -v assignments, "name=value", done before BEGIN; the
	// value's escapes are processed as in a string literal.
	Vars []string
	// FieldSep, if not nil, is the -F value (escapes processed; "t" is
	// "t", as in gawk).
	FieldSep *string
	// Environ is ENVIRON's content, NAME=value; nil is empty.
	Environ []string
	// Limits; zero values pick the defaults.
	MaxDepth  int // user function call depth (default 10000)
	MaxString int // bytes of one string or record (default 64 MiB)
	MaxArray  int // elements of one array (default 4M)
}

// ErrLimit is wrapped by the errors of a run stopped by a limit of
// Config (depth, string or array size).
var ErrLimit = errors.New("limit exceeded")

// RuntimeError is a fatal error of a running program, worded as gawk's
// without the program name: "cmd. line:1: (FILENAME=- FNR=3) fatal:
// division by zero attempted".
type RuntimeError struct {
	Where string // "cmd. line:1" or "prog.awk:3"; "" when unknown
	Input string // "(FILENAME=x FNR=n) " or ""
	Msg   string
	Err   error // what it wraps, if anything (ErrLimit, the context's error, a file error)
}

func (e *RuntimeError) Error() string {
	if e.Where == "" {
		return "fatal: " + e.Msg
	}
	return e.Where + ": " + e.Input + "fatal: " + e.Msg
}

func (e *RuntimeError) Unwrap() error { return e.Err }

type slot struct {
	v   value
	a   *array
	ref *slot // an untyped argument: becomes the caller's array on use
	own bool  // a is a function's local array, dropped at its return
	// scalar: read as a scalar while untyped, so no longer an array
	// candidate (gawk fixes a variable's type at its first use)
	scalar bool
}

type array struct {
	m    map[string]*elem
	seq  uint64
	acct *int64 // the run's count of bytes held in arrays, or nil
}

type elem struct {
	v   value
	seq uint64
}

func newArray() *array { return &array{m: map[string]*elem{}} }

func (in *interp) newArray() *array {
	a := newArray()
	a.acct = &in.arrBytes
	return a
}

// elemCost is what an element is counted as: its key, its string and
// the map's overhead.
func elemCost(k string, v value) int64 { return int64(len(k) + len(v.s) + 64) }

func (a *array) account(n int64) {
	if a.acct != nil {
		*a.acct += n
	}
}

// put sets an element's value, counting the bytes.
func (a *array) put(k string, e *elem, v value) {
	a.account(int64(len(v.s) - len(e.v.s)))
	e.v = v
}

func (a *array) remove(k string) {
	if e, ok := a.m[k]; ok {
		a.account(-elemCost(k, e.v))
		delete(a.m, k)
	}
}

func (a *array) clearAll() {
	for k, e := range a.m {
		a.account(-elemCost(k, e.v))
	}
	clear(a.m)
}

// keys returns the array's keys in insertion order, the order for-in
// visits them in.
func (a *array) keys() []string {
	ks := make([]string, 0, len(a.m))
	for k := range a.m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return a.m[ks[i]].seq < a.m[ks[j]].seq })
	return ks
}

// control flow results of statements
type ctl int

const (
	ctlNone ctl = iota
	ctlBreak
	ctlContinue
	ctlNext
	ctlNextfile
	ctlExit
	ctlReturn
)

type interp struct {
	prog    *Program
	cfg     *Config
	ctx     context.Context
	globals []slot
	frame   []slot
	depth   int
	line    int
	retval  value

	out    *bufio.Writer
	outs   map[string]*outStream
	inputs map[string]*recReader

	// the record
	record      string
	fields      []value
	nf          int
	fieldsValid bool

	nr, fnr float64

	// main input
	argi     int
	cur      *recReader
	curName  string
	sawFile  bool
	inEnd    bool
	exitCode int
	exiting  bool

	fsRe       *regexp.Regexp
	rsRe       *regexp.Regexp
	reCache    map[string]*regexp.Regexp
	convfmt    string
	ofmt       string
	subsep     string
	ranges     []bool
	seed       float64
	prevSeed   float64
	rng        uint64
	ticks      int
	arrBytes   int64
	ignoreCase bool
	maxDepth   int
	maxString  int
	maxArray   int
}

type outStream struct {
	w     *bufio.Writer
	isErr bool
}

// Run runs the program with cfg and returns the exit status: the value
// given to exit, 0 at the end of the input, 2 after a fatal error, whose
// error is returned too (a *RuntimeError). When ctx ends, the run stops
// with an error wrapping ctx.Err(). Run never panics.
func (prog *Program) Run(ctx context.Context, cfg *Config) (status int, err error) {
	in := &interp{prog: prog, cfg: cfg, ctx: ctx, convfmt: "%.6g", ofmt: "%.6g", subsep: "\x1c"}
	in.maxDepth = cfg.MaxDepth
	if in.maxDepth <= 0 {
		in.maxDepth = 10000
	}
	in.maxString = cfg.MaxString
	if in.maxString <= 0 {
		in.maxString = 64 << 20
	}
	in.maxArray = cfg.MaxArray
	if in.maxArray <= 0 {
		in.maxArray = 4 << 20
	}
	stdout := cfg.Stdout
	if stdout == nil {
		stdout = io.Discard
	}
	in.out = bufio.NewWriterSize(stdout, 32<<10)
	in.outs = map[string]*outStream{}
	in.inputs = map[string]*recReader{}
	in.reCache = map[string]*regexp.Regexp{}
	in.ranges = make([]bool, len(prog.items))
	in.rng = 0
	in.seed, in.prevSeed = 0, 0
	in.srandSeed(0)
	defer func() {
		if r := recover(); r != nil {
			// a bug, not an input: report it rather than crash the caller
			err = &RuntimeError{Msg: fmt.Sprintf("internal error: %v", r)}
			status = 2
		}
		in.closeAll()
		if ferr := in.out.Flush(); ferr != nil && err == nil {
			err = &RuntimeError{Msg: "write failure: " + ferr.Error(), Err: ferr}
			status = 2
		}
	}()
	for _, w := range prog.warnings {
		in.line = w.line
		in.warn("%s", w.msg)
	}
	in.line = 0
	if err := in.setup(); err != nil {
		return 2, err
	}
	return in.main()
}

func (in *interp) setup() error {
	g := make([]slot, in.prog.nglobal)
	in.globals = g
	g[vFS].v = str(" ")
	g[vOFS].v = str(" ")
	g[vORS].v = str("\n")
	g[vRS].v = str("\n")
	g[vSUBSEP].v = str("\x1c")
	g[vCONVFMT].v = str("%.6g")
	g[vOFMT].v = str("%.6g")
	g[vRSTART].v = num(0)
	g[vRLENGTH].v = num(-1)
	g[vFILENAME].v = str("")
	env := newArray()
	for _, kv := range in.cfg.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			env.set(k, strnum(v))
		}
	}
	g[vENVIRON].a = env
	argv := newArray()
	argv0 := in.cfg.Argv0
	if argv0 == "" {
		argv0 = "awk"
	}
	argv.set("0", str(argv0))
	for i, a := range in.cfg.Args {
		argv.set(strconv.Itoa(i+1), strnum(a))
	}
	g[vARGV].a = argv
	g[vARGC].v = num(float64(len(in.cfg.Args) + 1))
	if in.cfg.FieldSep != nil {
		in.setGlobal(vFS, str(processEscapes(*in.cfg.FieldSep)))
	}
	for _, a := range in.cfg.Vars {
		name, val, ok := strings.Cut(a, "=")
		if !ok || !isName(name) {
			return &RuntimeError{Msg: fmt.Sprintf("`%s' argument to `-v' not in `var=value' form", a)}
		}
		if err := in.assignVar(name, val); err != nil {
			return err
		}
	}
	in.argi = 1
	return nil
}

func (a *array) set(k string, v value) {
	if e, ok := a.m[k]; ok {
		a.put(k, e, v)
		return
	}
	a.seq++
	a.m[k] = &elem{v, a.seq}
	a.account(elemCost(k, v))
}

func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	_, kw := keywords[s]
	_, bi := builtins[s]
	return !kw && !bi
}

// assignVar does a command-line assignment name=value.
func (in *interp) assignVar(name, val string) error {
	if _, ok := in.prog.funcs[name]; ok {
		return &RuntimeError{Msg: fmt.Sprintf("cannot use function `%s' as variable name", name)}
	}
	idx, ok := in.prog.globals[name]
	if !ok {
		// a variable the program never names: nothing to set
		return nil
	}
	if in.globals[idx].a != nil {
		return &RuntimeError{Msg: fmt.Sprintf("attempt to use array `%s' in a scalar context", name)}
	}
	return in.setVar(idx, strnum(processEscapes(val)))
}

// processEscapes decodes the escapes of a string literal in s.
func processEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i += unescape(&b, s[i+1:], false)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// runActions runs the BEGIN or END actions (which names them) in order,
// until one exits; next or nextfile in one is fatal.
func (in *interp) runActions(blocks [][]stmt, which string) error {
	for _, b := range blocks {
		c, err := in.execBlock(b)
		if err != nil {
			return err
		}
		if c == ctlExit {
			return nil
		}
		if c == ctlNext || c == ctlNextfile {
			return in.fatal("`next' used in %s action", which)
		}
	}
	return nil
}

func (in *interp) main() (int, error) {
	if err := in.runActions(in.prog.begins, "BEGIN"); err != nil {
		return 2, err
	}
	if !in.exiting && (len(in.prog.items) > 0 || len(in.prog.ends) > 0) {
		if err := in.records(); err != nil {
			return 2, err
		}
	}
	// exit in BEGIN or in a rule still runs the END actions
	in.exiting = false
	in.inEnd = true
	if err := in.runActions(in.prog.ends, "END"); err != nil {
		return 2, err
	}
	if err := in.flushAll(); err != nil {
		return 2, err
	}
	return in.exitCode, nil
}

// records runs the rules over every input record.
func (in *interp) records() error {
	for {
		ok, err := in.nextMainRecord()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		c, err := in.rules()
		if err != nil {
			return err
		}
		switch c {
		case ctlExit:
			return nil
		case ctlNextfile:
			in.closeCur()
		}
	}
}

func (in *interp) rules() (ctl, error) {
	for i, it := range in.prog.items {
		in.line = it.line
		match := false
		if it.isRange {
			if in.ranges[i] {
				match = true
				v, err := in.eval(it.pattern2)
				if err != nil {
					return 0, err
				}
				if in.truth(v) {
					in.ranges[i] = false
				}
			} else {
				v, err := in.eval(it.pattern)
				if err != nil {
					return 0, err
				}
				if in.truth(v) {
					match = true
					v, err := in.eval(it.pattern2)
					if err != nil {
						return 0, err
					}
					in.ranges[i] = !in.truth(v)
				}
			}
		} else if it.pattern == nil {
			match = true
		} else {
			v, err := in.eval(it.pattern)
			if err != nil {
				return 0, err
			}
			match = in.truth(v)
		}
		if !match {
			continue
		}
		if !it.hasBody {
			if err := in.printRecord(); err != nil {
				return 0, err
			}
			continue
		}
		c, err := in.execBlock(it.body)
		if err != nil {
			return 0, err
		}
		switch c {
		case ctlNext:
			return ctlNone, nil
		case ctlNextfile, ctlExit:
			return c, nil
		}
	}
	return ctlNone, nil
}

func (in *interp) printRecord() error {
	in.out.WriteString(in.record)
	in.out.WriteString(in.globals[vORS].v.s)
	return nil
}

// tick checks the context every so often.
func (in *interp) tick() error {
	in.ticks++
	if in.ticks&1023 == 0 {
		if err := in.ctx.Err(); err != nil {
			return in.fatalErr(err, "%v", err)
		}
	}
	return nil
}

func (in *interp) where() string {
	line := in.line
	if line == 0 {
		return ""
	}
	// map the joined text's line to a source's line
	prog := in.prog
	name, l := "cmd. line", line
	startLine := 1
	for i, s := range prog.srcs {
		n := strings.Count(s.Text, "\n") + 1
		if line < startLine+n || i == len(prog.srcs)-1 {
			name = s.Name
			if name == "" {
				name = "cmd. line"
			}
			l = line - startLine + 1
			break
		}
		startLine += n
	}
	return fmt.Sprintf("%s:%d", name, l)
}

func (in *interp) fatal(format string, a ...any) error {
	return in.fatalErr(nil, format, a...)
}

func (in *interp) fatalErr(err error, format string, a ...any) error {
	e := &RuntimeError{Where: in.where(), Msg: fmt.Sprintf(format, a...), Err: err}
	if in.fnr > 0 || in.inEnd && in.nr > 0 {
		name := in.globals[vFILENAME].v.s
		if name == "" && in.nr > 0 {
			name = "-"
		}
		e.Input = fmt.Sprintf("(FILENAME=%s FNR=%s) ", name, formatNum(in.fnr, "%.6g"))
	}
	return e
}

func (in *interp) execBlock(body []stmt) (ctl, error) {
	for _, s := range body {
		c, err := in.exec(s)
		if err != nil {
			var fl *flow
			if errors.As(err, &fl) {
				return fl.c, nil
			}
			return c, err
		}
		if c != ctlNone {
			return c, nil
		}
	}
	return ctlNone, nil
}

// loop runs body while cond (nil: always) is true, testing it before
// each pass, or after it for do-while (testFirst false), and running post
// (if not nil) after each pass; break ends it, and next, exit and return
// end it and are handed up.
func (in *interp) loop(cond expr, body []stmt, post stmt, testFirst bool) (ctl, error) {
	test := func() (bool, error) {
		if cond == nil {
			return true, nil
		}
		v, err := in.eval(cond)
		return err == nil && in.truth(v), err
	}
	for first := true; ; first = false {
		if err := in.tick(); err != nil {
			return 0, err
		}
		if testFirst || !first {
			if ok, err := test(); err != nil || !ok {
				return ctlNone, err
			}
		}
		c, err := in.execBlock(body)
		if err != nil {
			return 0, err
		}
		switch c {
		case ctlBreak:
			return ctlNone, nil
		case ctlContinue, ctlNone:
		default:
			return c, nil
		}
		if post != nil {
			if _, err := in.exec(post); err != nil {
				return 0, err
			}
		}
	}
}

func (in *interp) exec(s stmt) (ctl, error) {
	in.line = s.stmtLine()
	switch s := s.(type) {
	case *exprStmt:
		_, err := in.eval(s.x)
		return ctlNone, err
	case *printStmt:
		return ctlNone, in.print(s)
	case *ifStmt:
		v, err := in.eval(s.cond)
		if err != nil {
			return 0, err
		}
		if in.truth(v) {
			return in.execBlock(s.then)
		}
		return in.execBlock(s.els)
	case *whileStmt:
		return in.loop(s.cond, s.body, nil, true)
	case *doStmt:
		return in.loop(s.cond, s.body, nil, false)
	case *forStmt:
		if s.init != nil {
			if _, err := in.exec(s.init); err != nil {
				return 0, err
			}
		}
		return in.loop(s.cond, s.body, s.post, true)
	case *forInStmt:
		arr, err := in.arrayOf(s.arr)
		if err != nil {
			return 0, err
		}
		for _, k := range in.sortedKeys(arr) {
			if err := in.tick(); err != nil {
				return 0, err
			}
			if _, ok := arr.m[k]; !ok {
				continue
			}
			if err := in.assign(s.v, strnum(k)); err != nil {
				return 0, err
			}
			c, err := in.execBlock(s.body)
			if err != nil {
				return 0, err
			}
			switch c {
			case ctlBreak:
				return ctlNone, nil
			case ctlContinue, ctlNone:
			default:
				return c, nil
			}
		}
		return ctlNone, nil
	case *blockStmt:
		return in.execBlock(s.body)
	case *nextStmt:
		if in.inEnd {
			return 0, in.fatal("`next' used in END action")
		}
		return ctlNext, nil
	case *nextfileStmt:
		if in.inEnd {
			return 0, in.fatal("`nextfile' used in END action")
		}
		return ctlNextfile, nil
	case *breakStmt:
		return ctlBreak, nil
	case *continueStmt:
		return ctlContinue, nil
	case *exitStmt:
		if s.x != nil {
			v, err := in.eval(s.x)
			if err != nil {
				return 0, err
			}
			in.exitCode = int(int32(in.toNum(v))) & 0xff
		}
		in.exiting = true
		return ctlExit, nil
	case *returnStmt:
		in.retval = value{}
		if s.x != nil {
			v, err := in.eval(s.x)
			if err != nil {
				return 0, err
			}
			in.retval = v
		}
		return ctlReturn, nil
	case *deleteStmt:
		arr, err := in.arrayOf(s.arr)
		if err != nil {
			return 0, err
		}
		if s.keys == nil {
			arr.clearAll()
			return ctlNone, nil
		}
		k, err := in.key(s.keys)
		if err != nil {
			return 0, err
		}
		arr.remove(k)
		return ctlNone, nil
	}
	return 0, in.fatal("unknown statement %T", s)
}

// truth is a value's truth: a number or strnum that looks numeric is
// true when not zero, a string when not empty.
func (in *interp) truth(v value) bool {
	switch v.k {
	case kNum:
		return v.n != 0
	case kStr:
		return v.s != ""
	case kStrnum:
		if looksNumeric(v.s) {
			return strToNum(v.s) != 0
		}
		return v.s != ""
	}
	return false
}

func (in *interp) toNum(v value) float64 {
	switch v.k {
	case kNum:
		return v.n
	case kStr, kStrnum:
		return strToNum(v.s)
	}
	return 0
}

// toStr converts with CONVFMT.
func (in *interp) toStr(v value) string {
	switch v.k {
	case kStr, kStrnum:
		return v.s
	case kNum:
		return formatNum(v.n, in.convfmt)
	}
	return ""
}

// outStr converts with OFMT, for print.
func (in *interp) outStr(v value) string {
	if v.k == kNum {
		return formatNum(v.n, in.ofmt)
	}
	return in.toStr(v)
}

// slotOf returns the slot of a variable.
func (in *interp) slotOf(v *varExpr) *slot {
	if v.local {
		return &in.frame[v.idx]
	}
	return &in.globals[v.idx]
}

// arrayOf returns the array a variable holds, making it an array if it
// is untyped.
func (in *interp) arrayOf(v *varExpr) (*array, error) {
	s := in.slotOf(v)
	if s.a != nil {
		return s.a, nil
	}
	if s.v.k != kUninit || s.scalar || !v.local && v.idx < numSpecial {
		return nil, in.fatal("attempt to use scalar `%s' as an array", v.name)
	}
	if s.ref != nil {
		r := s.ref
		for r.ref != nil && r.a == nil {
			r = r.ref
		}
		if r.a == nil {
			if r.v.k != kUninit || r.scalar {
				return nil, in.fatal("attempt to use scalar `%s' as an array", v.name)
			}
			r.a = in.newArray()
		}
		s.a = r.a
		return s.a, nil
	}
	s.a = in.newArray()
	s.own = v.local
	return s.a, nil
}

func (in *interp) getVar(v *varExpr) (value, error) {
	if !v.local && v.idx < numSpecial {
		switch v.idx {
		case vNF:
			if err := in.splitRecord(); err != nil {
				return value{}, err
			}
			return num(float64(in.nf)), nil
		case vNR:
			return num(in.nr), nil
		case vFNR:
			return num(in.fnr), nil
		case vENVIRON, vARGV:
			return value{}, in.fatal("attempt to use array `%s' in a scalar context", v.name)
		}
	}
	s := in.slotOf(v)
	if s.a != nil {
		return value{}, in.fatal("attempt to use array `%s' in a scalar context", v.name)
	}
	if s.ref != nil {
		// an untyped argument read as a scalar makes the caller's
		// variable a scalar too, as in gawk
		r := s.ref
		for r.ref != nil && r.a == nil {
			r.scalar = true
			r = r.ref
		}
		if r.a != nil {
			return value{}, in.fatal("attempt to use array `%s' in a scalar context", v.name)
		}
		r.scalar = true
	}
	s.scalar = true
	return s.v, nil
}

// setVar sets a global by index, with the special variables' effects.
func (in *interp) setVar(idx int, val value) error {
	if idx < numSpecial {
		return in.setGlobal(idx, val)
	}
	in.globals[idx].v = val
	return nil
}

func (in *interp) setGlobal(idx int, val value) error {
	switch idx {
	case vNF:
		if err := in.splitRecord(); err != nil {
			return err
		}
		n := in.toNum(val)
		if n < 0 || n > float64(in.maxString) {
			return in.fatal("NF set to negative value")
		}
		in.setNF(int(n))
		return nil
	case vNR:
		in.nr = math.Trunc(in.toNum(val))
		return nil
	case vFNR:
		in.fnr = math.Trunc(in.toNum(val))
		return nil
	case vENVIRON, vARGV:
		return in.fatal("attempt to use array `%s' in a scalar context", specialNames[idx])
	}
	g := &in.globals[idx]
	g.v = val
	switch idx {
	case vFS:
		in.fsRe = nil
		fs := in.toStr(val)
		if len(fs) > 1 && fs != " " && !(len(fs) == 2 && fs[0] == '\\') {
			re, err := in.regex(fs)
			if err != nil {
				return err
			}
			in.fsRe = re
		}
	case vRS:
		in.rsRe = nil
		rs := in.toStr(val)
		if utf8.RuneCountInString(rs) > 1 {
			re, err := in.regex(rs)
			if err != nil {
				return err
			}
			in.rsRe = re
		}
	case vCONVFMT:
		in.convfmt = in.toStr(val)
	case vOFMT:
		in.ofmt = in.toStr(val)
	case vSUBSEP:
		in.subsep = in.toStr(val)
	case vIGNORECASE:
		in.ignoreCase = in.truth(val)
		// FS and RS regexes fold case, or stop folding
		if err := in.setGlobal(vFS, in.globals[vFS].v); err != nil {
			return err
		}
		return in.setGlobal(vRS, in.globals[vRS].v)
	}
	// keep the string form of the separators
	switch idx {
	case vFS, vOFS, vORS, vRS, vSUBSEP, vFILENAME:
		g.v = value{k: val.k, s: in.toStr(val), n: val.n}
		if val.k == kNum {
			g.v = value{k: kStrnum, s: in.toStr(val)}
		}
	}
	return nil
}

func (in *interp) key(keys []expr) (string, error) {
	if len(keys) == 1 {
		v, err := in.eval(keys[0])
		if err != nil {
			return "", err
		}
		return in.keyStr(v), nil
	}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(in.subsep)
		}
		v, err := in.eval(k)
		if err != nil {
			return "", err
		}
		b.WriteString(in.keyStr(v))
	}
	return b.String(), nil
}

// keyStr is a subscript's string: integers as integers, others with
// CONVFMT.
func (in *interp) keyStr(v value) string {
	if v.k == kNum && v.n == math.Trunc(v.n) && math.Abs(v.n) < 1e16 {
		return strconv.FormatInt(int64(v.n), 10)
	}
	return in.toStr(v)
}

func (in *interp) elemRef(x *indexExpr) (*elem, error) {
	arr, err := in.arrayOf(x.arr)
	if err != nil {
		return nil, err
	}
	_, e, err := in.elemKeyRef(arr, x)
	return e, err
}

// elemKeyRef returns an element of arr and its key, adding it if new.
func (in *interp) elemKeyRef(arr *array, x *indexExpr) (string, *elem, error) {
	k, err := in.key(x.keys)
	if err != nil {
		return "", nil, err
	}
	e, ok := arr.m[k]
	if !ok {
		if len(arr.m) >= in.maxArray {
			return "", nil, in.fatalErr(ErrLimit, "array `%s' has more than %d elements", x.arr.name, in.maxArray)
		}
		arr.seq++
		e = &elem{seq: arr.seq}
		arr.m[k] = e
		arr.account(elemCost(k, value{}))
		if err := in.checkArrays(); err != nil {
			return "", nil, err
		}
	}
	return k, e, nil
}

// checkArrays fails when the arrays hold more than four times
// MaxString bytes in all.
func (in *interp) checkArrays() error {
	if in.arrBytes > 4*int64(in.maxString) {
		return in.fatalErr(ErrLimit, "arrays hold more than %d bytes", 4*int64(in.maxString))
	}
	return nil
}

// assign stores val in an lvalue.
func (in *interp) assign(lv expr, val value) error {
	switch lv := lv.(type) {
	case *varExpr:
		if lv.local {
			s := &in.frame[lv.idx]
			if s.a != nil {
				return in.fatal("attempt to use array `%s' in a scalar context", lv.name)
			}
			s.v = val
			return nil
		}
		if in.globals[lv.idx].a != nil {
			return in.fatal("attempt to use array `%s' in a scalar context", lv.name)
		}
		return in.setVar(lv.idx, val)
	case *fieldExpr:
		iv, err := in.eval(lv.index)
		if err != nil {
			return err
		}
		return in.setField(in.toNum(iv), val)
	case *indexExpr:
		arr, err := in.arrayOf(lv.arr)
		if err != nil {
			return err
		}
		k, e, err := in.elemKeyRef(arr, lv)
		if err != nil {
			return err
		}
		arr.put(k, e, val)
		return in.checkArrays()
	case *groupExpr:
		return in.assign(lv.x, val)
	}
	return in.fatal("assignment to a non-variable")
}

func (in *interp) checkLen(s string) error {
	if len(s) > in.maxString {
		return in.fatalErr(ErrLimit, "string of %d bytes is longer than the limit, %d", len(s), in.maxString)
	}
	return nil
}

func (in *interp) eval(x expr) (value, error) {
	switch x := x.(type) {
	case *numExpr:
		return num(x.n), nil
	case *strExpr:
		return str(x.s), nil
	case *regexExpr:
		re, err := in.lit(x)
		if err != nil {
			return value{}, err
		}
		return boolean(re.MatchString(in.record)), nil
	case *varExpr:
		return in.getVar(x)
	case *fieldExpr:
		iv, err := in.eval(x.index)
		if err != nil {
			return value{}, err
		}
		return in.getField(in.toNum(iv))
	case *indexExpr:
		e, err := in.elemRef(x)
		if err != nil {
			return value{}, err
		}
		return e.v, nil
	case *groupExpr:
		return in.eval(x.x)
	case *assignExpr:
		return in.evalAssign(x)
	case *condExpr:
		c, err := in.eval(x.cond)
		if err != nil {
			return value{}, err
		}
		if in.truth(c) {
			return in.eval(x.yes)
		}
		return in.eval(x.no)
	case *binExpr:
		return in.evalBinary(x)
	case *unaryExpr:
		v, err := in.eval(x.x)
		if err != nil {
			return value{}, err
		}
		switch x.op {
		case tNot:
			return boolean(!in.truth(v)), nil
		case tSub:
			return num(-in.toNum(v)), nil
		}
		return num(in.toNum(v)), nil
	case *incdecExpr:
		if ix, ok := x.lv.(*indexExpr); ok {
			// the element found once
			arr, err := in.arrayOf(ix.arr)
			if err != nil {
				return value{}, err
			}
			k, e, err := in.elemKeyRef(arr, ix)
			if err != nil {
				return value{}, err
			}
			n := in.toNum(e.v)
			nv := n + 1
			if x.op == tDecr {
				nv = n - 1
			}
			arr.put(k, e, num(nv))
			if x.pre {
				return num(nv), nil
			}
			return num(n), nil
		}
		old, err := in.eval(x.lv)
		if err != nil {
			return value{}, err
		}
		n := in.toNum(old)
		nv := n + 1
		if x.op == tDecr {
			nv = n - 1
		}
		if err := in.assign(x.lv, num(nv)); err != nil {
			return value{}, err
		}
		if x.pre {
			return num(nv), nil
		}
		return num(n), nil
	case *matchExpr:
		l, err := in.eval(x.l)
		if err != nil {
			return value{}, err
		}
		re, err := in.regexOf(x.re)
		if err != nil {
			return value{}, err
		}
		return boolean(re.MatchString(in.toStr(l)) != x.neg), nil
	case *inExpr:
		arr, err := in.arrayOf(x.arr)
		if err != nil {
			return value{}, err
		}
		k, err := in.key(x.keys)
		if err != nil {
			return value{}, err
		}
		_, ok := arr.m[k]
		return boolean(ok), nil
	case *builtinExpr:
		return in.builtin(x)
	case *callExpr:
		return in.call(x)
	case *getlineExpr:
		return in.getline(x)
	case *multiExpr:
		return value{}, in.fatal("a parenthesized list is only valid before `in' or as print's list")
	}
	return value{}, in.fatal("unknown expression %T", x)
}

func (in *interp) evalAssign(x *assignExpr) (value, error) {
	r, err := in.eval(x.rhs)
	if err != nil {
		return value{}, err
	}
	if ix, ok := x.lhs.(*indexExpr); ok && x.op != tAssign {
		arr, err := in.arrayOf(ix.arr)
		if err != nil {
			return value{}, err
		}
		k, e, err := in.elemKeyRef(arr, ix)
		if err != nil {
			return value{}, err
		}
		n, err := in.arith(x.op, in.toNum(e.v), in.toNum(r))
		if err != nil {
			return value{}, err
		}
		arr.put(k, e, num(n))
		return num(n), nil
	}
	if x.op != tAssign {
		l, err := in.eval(x.lhs)
		if err != nil {
			return value{}, err
		}
		n, err := in.arith(x.op, in.toNum(l), in.toNum(r))
		if err != nil {
			return value{}, err
		}
		r = num(n)
	} else if r.k == kUninit {
		r = value{k: kUninit}
	}
	if err := in.assign(x.lhs, r); err != nil {
		return value{}, err
	}
	return r, nil
}

func (in *interp) arith(op tok, a, b float64) (float64, error) {
	switch op {
	case tAdd:
		return a + b, nil
	case tSub:
		return a - b, nil
	case tMul:
		return a * b, nil
	case tDiv:
		if b == 0 {
			return 0, in.fatal("division by zero attempted")
		}
		return a / b, nil
	case tMod:
		if b == 0 {
			return 0, in.fatal("division by zero attempted in `%%'")
		}
		return math.Mod(a, b), nil
	case tPow:
		return pow(a, b), nil
	}
	return 0, in.fatal("bad operator %v", op)
}

func pow(a, b float64) float64 {
	if b == math.Trunc(b) && math.Abs(b) < 1<<30 {
		// exact repeated multiplication for integer powers, as gawk
		n := int64(b)
		neg := n < 0
		if neg {
			n = -n
		}
		r, x := 1.0, a
		for n > 0 {
			if n&1 == 1 {
				r *= x
			}
			x *= x
			n >>= 1
		}
		if neg {
			return 1 / r
		}
		return r
	}
	return math.Pow(a, b)
}

func (in *interp) evalBinary(x *binExpr) (value, error) {
	switch x.op {
	case tAnd:
		l, err := in.eval(x.l)
		if err != nil || !in.truth(l) {
			return num(0), err
		}
		r, err := in.eval(x.r)
		return boolean(in.truth(r)), err
	case tOr:
		l, err := in.eval(x.l)
		if err != nil {
			return value{}, err
		}
		if in.truth(l) {
			return num(1), nil
		}
		r, err := in.eval(x.r)
		return boolean(in.truth(r)), err
	}
	l, err := in.eval(x.l)
	if err != nil {
		return value{}, err
	}
	r, err := in.eval(x.r)
	if err != nil {
		return value{}, err
	}
	switch x.op {
	case tConcat:
		ls, rs := in.toStr(l), in.toStr(r)
		if len(ls)+len(rs) > in.maxString {
			return value{}, in.checkLen(ls + rs)
		}
		return str(ls + rs), nil
	case tLT, tLE, tGT, tGE, tEQ, tNE:
		c := in.compare(l, r)
		var b bool
		switch x.op {
		case tLT:
			b = c < 0
		case tLE:
			b = c <= 0
		case tGT:
			b = c > 0
		case tGE:
			b = c >= 0
		case tEQ:
			b = c == 0
		case tNE:
			b = c != 0
		}
		return boolean(b), nil
	}
	n, err := in.arith(x.op, in.toNum(l), in.toNum(r))
	return num(n), err
}

// compare compares as numbers when both look numeric, else as strings.
// A NaN compares unequal (2) to everything.
func (in *interp) compare(l, r value) int {
	if l.isNum() && r.isNum() {
		a, b := in.toNum(l), in.toNum(r)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		case a == b:
			return 0
		}
		return 2
	}
	if in.ignoreCase {
		return strings.Compare(strings.ToLower(in.toStr(l)), strings.ToLower(in.toStr(r)))
	}
	return strings.Compare(in.toStr(l), in.toStr(r))
}

// regexOf returns the regex of a regex operand: a /re/ literal, or a
// dynamic regex from a value's string.
func (in *interp) regexOf(x expr) (*regexp.Regexp, error) {
	if r, ok := x.(*regexExpr); ok {
		return in.lit(r)
	}
	v, err := in.eval(x)
	if err != nil {
		return nil, err
	}
	return in.regex(in.toStr(v))
}

func (in *interp) regex(src string) (*regexp.Regexp, error) {
	key := src
	if in.ignoreCase {
		key = "\x00i" + src
	}
	if re, ok := in.reCache[key]; ok {
		return re, nil
	}
	re, err := compileRegex(src, in.ignoreCase)
	if err != nil {
		return nil, in.fatalErr(err, "%v", err)
	}
	if len(in.reCache) >= regexCacheLimit {
		clear(in.reCache)
	}
	in.reCache[key] = re
	return re, nil
}

// lit is a regex literal's regex, folding case when IGNORECASE is set.
func (in *interp) lit(x *regexExpr) (*regexp.Regexp, error) {
	if in.ignoreCase {
		return in.regex(x.src)
	}
	return x.re, nil
}

// call calls a user function.
func (in *interp) call(c *callExpr) (value, error) {
	f := c.fn
	if f == nil {
		in.line = c.line
		return value{}, in.fatal("function `%s' not defined", c.name)
	}
	if in.depth >= in.maxDepth {
		return value{}, in.fatalErr(ErrLimit, "function `%s': call depth exceeds %d", f.name, in.maxDepth)
	}
	if err := in.tick(); err != nil {
		return value{}, err
	}
	frame := make([]slot, len(f.params))
	for i, a := range c.args {
		if i >= len(frame) {
			// extra arguments are evaluated and dropped, as gawk does
			if _, err := in.eval(a); err != nil {
				return value{}, err
			}
			continue
		}
		if v, ok := a.(*varExpr); ok {
			s := in.slotOf(v)
			if !v.local && v.idx < numSpecial {
				val, err := in.getVar(v)
				if err != nil {
					if s.a != nil {
						frame[i].a = s.a
						continue
					}
					return value{}, err
				}
				frame[i].v = val
				continue
			}
			switch {
			case s.a != nil:
				frame[i].a = s.a
			case s.v.k == kUninit:
				frame[i].ref = s
			default:
				frame[i].v = s.v
			}
			continue
		}
		val, err := in.eval(a)
		if err != nil {
			return value{}, err
		}
		frame[i].v = val
	}
	saved, savedLine := in.frame, in.line
	in.frame = frame
	in.depth++
	c2, err := in.execBlock(f.body)
	for i := range frame {
		if frame[i].own {
			frame[i].a.clearAll() // no longer counted
		}
	}
	in.depth--
	in.frame, in.line = saved, savedLine
	if err != nil {
		return value{}, err
	}
	switch c2 {
	case ctlReturn:
		v := in.retval
		in.retval = value{}
		return v, nil
	case ctlExit, ctlNext, ctlNextfile:
		return value{}, &flow{c2}
	}
	return value{}, nil
}

// flow carries next, nextfile and exit out of a function call through
// the expression evaluator.
type flow struct{ c ctl }

func (f *flow) Error() string { return "flow" }
