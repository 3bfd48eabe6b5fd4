package gnu

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

const findHelp = `Usage: %s [starting-point...] [expression]

Default path is the current directory; default expression is -print.
Expression may consist of: operators, options, tests, and actions.

Operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2
      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2

Positional options (always true):
      -daystart -follow -nowarn -regextype -warn
Normal options (always true, specified before other expressions):
      -depth -maxdepth LEVELS -mindepth LEVELS -mount -noleaf -xdev
      -ignore_readdir_race -noignore_readdir_race

Tests (N can be +N or -N or N):
      -empty -false -iname PATTERN -ipath PATTERN -iregex PATTERN
      -iwholename PATTERN -mmin N -mtime N -name PATTERN -newer FILE
      -path PATTERN -readable -regex PATTERN -size N[bcwkMG] -true
      -type [bcdpflsD] -wholename PATTERN

Actions: -delete -exec COMMAND ; -exec COMMAND {} + -execdir COMMAND ;
      -execdir COMMAND {} + -ok COMMAND ; -okdir COMMAND ; -print -print0
      -printf FORMAT -prune -quit

Entries come in name order (GNU find uses the directory's order).
`

// Find walks each starting point (the current directory by default) and
// evaluates the expression on every file, as GNU find 4.9 does:
// operators ( ) ! -not -a -and -o -or ",", tests -name -iname -path
// -ipath -wholename -iwholename -regex -iregex (the whole path, in the
// syntax -regextype names: Emacs's by default, or POSIX basic or
// extended) -type (a comma list) -size (units b c w k
// M G, +/-, sizes rounded up to whole units) -newer -empty -mtime -mmin
// -readable -true -false, actions -print -print0 -printf -prune -quit
// -delete (which fails as on a read-only filesystem) and -exec -execdir
// -ok -okdir (which run commands through Env.Exec; find refuses them
// without it), and the
// options -maxdepth -mindepth -depth (and the no-ops -xdev -mount
// -noleaf -follow -nowarn -warn -daystart -ignore_readdir_race). Without
// an action, -print applies to the whole expression. -printf knows the
// directives %p %f %h %H %P %s %d %y %Y %m %M %k %b %n %u %g %U %G %t %a
// %c and %T %A %C with strftime's fields (all three times are the
// modification time; owner and group are "chromafs", as ls -l says; %k
// and %b count blocks as ls -l's total does). Entries come in name
// order rather than directory order. Exit status: 0, or 1 when a
// starting point is missing, a directory cannot be read, or the
// expression is bad (with GNU's messages).
func Find(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "find")
	for _, a := range args {
		switch a {
		case "--help", "-help":
			r.help(findHelp)
			return r.finish(0)
		case "--version", "-version":
			r.version()
			return 0
		}
	}
	f := &finder{run: r, maxDepth: -1}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if (strings.HasPrefix(a, "-") && a != "-") || a == "!" || a == "(" {
			break
		}
		f.starts = append(f.starts, a)
	}
	p := &findParser{f: f, args: args, i: i}
	expr, err := p.parse()
	if err != nil {
		r.warn("%s", err)
		return r.finish(1)
	}
	if expr == nil {
		expr = &action{kind: "-print"}
	} else if !p.hasAction {
		expr = &and{expr, &action{kind: "-print"}}
	}
	f.expr = expr
	if !r.open() {
		return r.finish(2)
	}
	for _, n := range p.newer {
		name, ok := r.resolve(n.file)
		var fi fs.FileInfo
		err := fs.ErrNotExist
		if ok {
			fi, err = fs.Stat(r.fsys, name)
		}
		if err != nil {
			r.warn("%s: %s", localeQuote(n.file), ErrText(err))
			return r.finish(1)
		}
		n.ref = fi.ModTime()
	}
	if len(f.starts) == 0 {
		f.starts = []string{"."}
	}
	for _, s := range f.starts {
		if f.quit || r.stopped() {
			break
		}
		f.start(s)
	}
	f.flushBatches()
	return r.finish(f.status)
}

type finder struct {
	*run
	starts             []string
	expr               node
	maxDepth, minDepth int
	depthFirst         bool
	quit               bool
	status             int
	batches            []*execAction // the "-exec ... {} +" actions
	stdin              *bufio.Reader // -ok's answers
}

// visit is one file being evaluated.
type visit struct {
	start string // the starting point it is under, as given
	path  string // as printed
	name  string // fs.FS name
	depth int
	d     fs.DirEntry
	info  fs.FileInfo // loaded on demand
	prune bool
}

func (f *finder) infoOf(v *visit) (fs.FileInfo, bool) {
	if v.info == nil {
		fi, err := v.d.Info()
		if err != nil {
			f.warn("%s: %s", localeQuote(v.path), ErrText(err))
			f.status = 1
			return nil, false
		}
		v.info = fi
	}
	return v.info, true
}

func (f *finder) start(s string) {
	name, ok := f.resolve(s)
	var fi fs.FileInfo
	err := fs.ErrNotExist
	if ok {
		fi, err = fs.Stat(f.fsys, name)
	}
	if err != nil {
		f.warn("%s: %s", localeQuote(s), ErrText(err))
		f.status = 1
		return
	}
	f.walk(&visit{start: s, path: s, name: name, depth: 0, d: fs.FileInfoToDirEntry(fi), info: fi})
}

func (f *finder) walk(v *visit) {
	if f.quit || f.stopped() {
		return
	}
	inRange := v.depth >= f.minDepth && (f.maxDepth < 0 || v.depth <= f.maxDepth)
	if inRange && !f.depthFirst {
		f.expr.eval(f, v)
	}
	if v.d.IsDir() && !v.prune && !f.quit && (f.maxDepth < 0 || v.depth < f.maxDepth) {
		entries, err := fs.ReadDir(f.fsys, v.name)
		if err != nil {
			f.warn("%s: %s", localeQuote(v.path), ErrText(err))
			f.status = 1
		}
		for _, e := range entries {
			if f.quit {
				break
			}
			f.walk(&visit{start: v.start, path: join(v.path, e.Name()), name: joinName(v.name, e.Name()), depth: v.depth + 1, d: e})
		}
	}
	if inRange && f.depthFirst && !f.quit {
		f.expr.eval(f, v)
	}
}

// node is a compiled expression.
type node interface {
	eval(f *finder, v *visit) bool
}

type and struct{ a, b node }

// Operators stop evaluating once -quit has run, as GNU find exits there.

func (n *and) eval(f *finder, v *visit) bool { return n.a.eval(f, v) && !f.quit && n.b.eval(f, v) }

type or struct{ a, b node }

func (n *or) eval(f *finder, v *visit) bool { return n.a.eval(f, v) || (!f.quit && n.b.eval(f, v)) }

type comma struct{ a, b node }

func (n *comma) eval(f *finder, v *visit) bool {
	a := n.a.eval(f, v)
	if f.quit {
		return a
	}
	return n.b.eval(f, v)
}

type not struct{ a node }

func (n *not) eval(f *finder, v *visit) bool { return !n.a.eval(f, v) }

type test func(f *finder, v *visit) bool

func (t test) eval(f *finder, v *visit) bool { return t(f, v) }

type action struct{ kind string }

func (a *action) eval(f *finder, v *visit) bool {
	switch a.kind {
	case "-print":
		f.out.WriteString(v.path)
		f.out.WriteByte('\n')
	case "-print0":
		f.out.WriteString(v.path)
		f.out.WriteByte(0)
	case "-prune":
		if !f.depthFirst {
			v.prune = true
		}
	case "-quit":
		f.quit = true
	}
	return true
}

// findParser parses find's expression by recursive descent, with GNU's
// precedence: ( ) and !, then -a (also implicit), then -o, then ",".
type findParser struct {
	f         *finder
	args      []string
	i         int
	hasAction bool
	newer     []*newer // -newer tests, whose reference files are looked up after parsing

	regexSyntax string // -regextype's: "emacs" (the default), "basic" or "extended"
}

// newer is -newer FILE: modified after FILE was.
type newer struct {
	file string
	ref  time.Time
}

func (n *newer) eval(f *finder, v *visit) bool {
	fi, ok := f.infoOf(v)
	return ok && fi.ModTime().After(n.ref)
}

type findError string

func (e findError) Error() string { return string(e) }

func errf(format string, a ...any) error { return findError(fmt.Sprintf(format, a...)) }

func (p *findParser) peek() (string, bool) {
	if p.i < len(p.args) {
		return p.args[p.i], true
	}
	return "", false
}

func (p *findParser) parse() (node, error) {
	if p.i >= len(p.args) {
		return nil, nil
	}
	n, err := p.list()
	if err != nil {
		return nil, err
	}
	if a, ok := p.peek(); ok {
		if a == ")" {
			return nil, errf("you have too many ')'")
		}
		return nil, errf("paths must precede expression: `%s'", a)
	}
	return n, nil
}

func (p *findParser) list() (node, error) {
	n, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	for {
		a, ok := p.peek()
		if !ok || a != "," {
			return n, nil
		}
		p.i++
		m, err := p.operand(",")
		if err != nil {
			return nil, err
		}
		if m, err = p.orRest(m); err != nil {
			return nil, err
		}
		n = &comma{n, m}
	}
}

func (p *findParser) orExpr() (node, error) {
	n, err := p.andExpr()
	if err != nil {
		return nil, err
	}
	return p.orRest(n)
}

func (p *findParser) orRest(n node) (node, error) {
	n, err := p.andRest(n)
	if err != nil {
		return nil, err
	}
	for {
		a, ok := p.peek()
		if !ok || (a != "-o" && a != "-or") {
			return n, nil
		}
		p.i++
		m, err := p.operand(a)
		if err != nil {
			return nil, err
		}
		if m, err = p.andRest(m); err != nil {
			return nil, err
		}
		n = &or{n, m}
	}
}

func (p *findParser) andExpr() (node, error) {
	a, _ := p.peek()
	if isBinary(a) {
		return nil, errf("invalid expression; you have used a binary operator '%s' with nothing before it.", a)
	}
	n, err := p.unary()
	if err != nil {
		return nil, err
	}
	return p.andRest(n)
}

func (p *findParser) andRest(n node) (node, error) {
	for {
		a, ok := p.peek()
		if !ok || a == ")" || a == "," || a == "-o" || a == "-or" {
			return n, nil
		}
		if a == "-a" || a == "-and" {
			p.i++
			m, err := p.operand(a)
			if err != nil {
				return nil, err
			}
			n = &and{n, m}
			continue
		}
		m, err := p.unary()
		if err != nil {
			return nil, err
		}
		n = &and{n, m}
	}
}

func isBinary(a string) bool {
	switch a {
	case "-a", "-and", "-o", "-or", ",":
		return true
	}
	return false
}

// operand parses what must follow the operator op.
func (p *findParser) operand(op string) (node, error) {
	a, ok := p.peek()
	if !ok || a == ")" {
		return nil, errf("expected an expression after '%s'", op)
	}
	if isBinary(a) {
		return nil, errf("invalid expression; you have used a binary operator '%s' with nothing before it.", a)
	}
	return p.unary()
}

func (p *findParser) unary() (node, error) {
	a, _ := p.peek()
	switch a {
	case "!", "-not":
		p.i++
		m, err := p.operand(a)
		if err != nil {
			return nil, err
		}
		return &not{m}, nil
	case "(":
		p.i++
		if b, ok := p.peek(); ok && b == ")" {
			return nil, errf("invalid expression; empty parentheses are not allowed.")
		}
		if _, ok := p.peek(); !ok {
			return nil, errf("invalid expression; expected to find a ')' but didn't see one. Perhaps you need an extra predicate after '('")
		}
		n, err := p.list()
		if err != nil {
			return nil, err
		}
		if b, ok := p.peek(); !ok || b != ")" {
			return nil, errf("invalid expression; expected to find a ')' but didn't see one. Perhaps you need an extra predicate after '('")
		}
		p.i++
		return n, nil
	}
	return p.primary()
}

// arg takes the argument of the predicate pred.
func (p *findParser) arg(pred string) (string, error) {
	if p.i >= len(p.args) {
		return "", errf("missing argument to `%s'", pred)
	}
	a := p.args[p.i]
	p.i++
	return a, nil
}

func (p *findParser) primary() (node, error) {
	a := p.args[p.i]
	p.i++
	if !strings.HasPrefix(a, "-") || a == "-" {
		return nil, errf("paths must precede expression: `%s'", a)
	}
	if n, ok := p.noArg(a); ok {
		return n, nil
	}
	switch a {
	case "-exec", "-execdir", "-ok", "-okdir":
		return p.execPredicate(a)
	case "-printf":
		format, err := p.arg(a)
		if err != nil {
			return nil, err
		}
		return p.parsePrintf(format), nil
	}
	withArg, ok := argPredicates()[a]
	if !ok {
		return nil, errf("unknown predicate `%s'", a)
	}
	v, err := p.arg(a)
	if err != nil {
		return nil, err
	}
	return withArg(p, a, v)
}

var (
	yes = test(func(*finder, *visit) bool { return true })
	no  = test(func(*finder, *visit) bool { return false })
)

// noArg parses the predicates without an argument.
func (p *findParser) noArg(a string) (node, bool) {
	switch a {
	case "-print", "-print0":
		p.hasAction = true
		return &action{kind: a}, true
	case "-prune", "-quit":
		return &action{kind: a}, true
	case "-true", "-readable":
		return yes, true
	case "-false":
		return no, true
	case "-xdev", "-mount", "-noleaf", "-follow", "-nowarn", "-warn", "-daystart", "-ignore_readdir_race", "-noignore_readdir_race":
		return yes, true
	case "-depth", "-d":
		p.f.depthFirst = true
		return yes, true
	case "-empty":
		return test(empty), true
	case "-delete":
		p.hasAction = true
		p.f.depthFirst = true
		return test(deleteAction), true
	}
	return nil, false
}

// argPredicates parse the predicates that take an argument.
// (Built on first use, not at start.)
var argPredicates = sync.OnceValue(func() map[string]func(p *findParser, pred, v string) (node, error) {
	return map[string]func(p *findParser, pred, v string) (node, error){
		"-maxdepth": depthOption, "-mindepth": depthOption,
		"-name": nameTest, "-iname": nameTest, "-path": nameTest, "-ipath": nameTest, "-wholename": nameTest, "-iwholename": nameTest,
		"-type": func(_ *findParser, _, v string) (node, error) { return typeTest(v) },
		"-size": func(_ *findParser, _, v string) (node, error) { return sizeTest(v) },
		"-newer": func(p *findParser, _, v string) (node, error) {
			n := &newer{file: v}
			p.newer = append(p.newer, n)
			return n, nil
		},
		"-mtime": (*findParser).timeTest, "-mmin": (*findParser).timeTest,
		"-regex": regexTest, "-iregex": regexTest, "-regextype": regexType,
	}
})

func depthOption(p *findParser, pred, v string) (node, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || strings.HasPrefix(v, "+") {
		return nil, errf("Expected a positive decimal integer argument to %s, but got %s", pred, localeQuote(v))
	}
	if pred == "-maxdepth" {
		p.f.maxDepth = n
	} else {
		p.f.minDepth = n
	}
	return yes, nil
}

// empty is -empty: an empty regular file or a directory without entries.
func empty(f *finder, v *visit) bool {
	if v.d.IsDir() {
		entries, err := fs.ReadDir(f.fsys, v.name)
		return err == nil && len(entries) == 0
	}
	fi, ok := f.infoOf(v)
	return ok && fi.Mode().IsRegular() && fi.Size() == 0
}

func nameTest(_ *findParser, pred, pat string) (node, error) {
	fold := pred[1] == 'i'
	onName := strings.HasSuffix(pred, "name") && !strings.HasSuffix(pred, "wholename")
	return test(func(_ *finder, v *visit) bool {
		s := v.path
		if onName {
			s = baseName(v.path)
		}
		return fnmatch(pat, s, fold)
	}), nil
}

// baseName is the name -name matches: the last element, trailing
// slashes removed; "/" for the root.
func baseName(p string) string {
	t := strings.TrimRight(p, "/")
	if t == "" {
		return "/"
	}
	return path.Base(t)
}

func typeTest(v string) (node, error) {
	var want []byte
	for i, part := range strings.Split(v, ",") {
		if part == "" {
			if i == len(strings.Split(v, ","))-1 {
				return nil, errf("Last file type in list argument to -type is missing, i.e., list is ending on: ','")
			}
			return nil, errf("Unknown argument to -type: %s", v)
		}
		if len(part) != 1 || !strings.Contains("bcdpflsD", part) {
			return nil, errf("Unknown argument to -type: %s", part)
		}
		want = append(want, part[0])
	}
	return test(func(f *finder, vi *visit) bool {
		t := vi.d.Type()
		var c byte
		switch {
		case t.IsDir():
			c = 'd'
		case t&fs.ModeSymlink != 0:
			c = 'l'
		case t&fs.ModeNamedPipe != 0:
			c = 'p'
		case t&fs.ModeSocket != 0:
			c = 's'
		case t&fs.ModeCharDevice != 0:
			c = 'c'
		case t&fs.ModeDevice != 0:
			c = 'b'
		case t&fs.ModeIrregular != 0:
			return false
		default:
			c = 'f'
		}
		return strings.IndexByte(string(want), c) >= 0
	}), nil
}

// sizeTest is -size [+-]N[bcwkMG]: the size rounded up to whole units
// (512-byte blocks by default) is more than, less than, or exactly N.
func sizeTest(v string) (node, error) {
	if v == "" {
		return nil, errf("invalid null argument to -size")
	}
	s := v
	cmp := 0
	if s != "" && (s[0] == '+' || s[0] == '-') {
		cmp = map[byte]int{'+': 1, '-': -1}[s[0]]
		s = s[1:]
	}
	unit := int64(512)
	if s != "" {
		if c := s[len(s)-1]; c < '0' || c > '9' {
			u, ok := map[byte]int64{'b': 512, 'c': 1, 'w': 2, 'k': 1024, 'M': 1 << 20, 'G': 1 << 30}[c]
			if !ok {
				return nil, errf("invalid -size type `%c'", c)
			}
			unit = u
			s = s[:len(s)-1]
		}
	}
	if s == "" && unit == 512 && !strings.HasSuffix(v, "b") {
		// "+" or "-" alone: find reads the sign as the unit.
		return nil, errf("invalid -size type `%s'", v[len(v)-1:])
	}
	// strtoumax: leading blanks, then digits only.
	digits := strings.TrimLeft(s, " \t\n\v\f\r")
	n, err := strconv.ParseUint(digits, 10, 63)
	if err != nil || digits == "" || strings.ContainsAny(digits[:1], "+-") {
		return nil, errf("Invalid argument `%s' to -size", v)
	}
	want := int64(n)
	return test(func(f *finder, vi *visit) bool {
		fi, ok := f.infoOf(vi)
		if !ok {
			return false
		}
		size := max(fi.Size(), 0)
		units := size / unit
		if size%unit != 0 {
			units++
		}
		switch cmp {
		case 1:
			return units > want
		case -1:
			return units < want
		}
		return units == want
	}), nil
}

// timeTest is -mtime N (days) and -mmin N (minutes) with GNU find's
// reference times, counted from when the command started: -mtime -N
// matches a modification after start-1s-N days, +N one before
// start-(N+1) days, N one in the day-long window ending at start-N days;
// -mmin -N after start-N minutes, +N before it, N in the minute before
// it. N may have a fraction.
func (p *findParser) timeTest(pred, v string) (node, error) {
	s := v
	cmp := 0
	if s != "" && (s[0] == '+' || s[0] == '-') {
		cmp = map[byte]int{'+': 1, '-': -1}[s[0]]
		s = s[1:]
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || s == "" || strings.ContainsAny(s[:1], "+- ") || math.IsInf(n, 0) || math.IsNaN(n) {
		return nil, errf("invalid argument `%s' to `%s'", v, pred)
	}
	start := seconds(p.f.now())
	window, origin := 86400.0, start-86400
	if pred == "-mmin" {
		window, origin = 60, start
	} else if cmp < 0 {
		origin += 86400 - 1
	}
	ref := origin - n*window
	return test(func(f *finder, vi *visit) bool {
		fi, ok := f.infoOf(vi)
		if !ok {
			return false
		}
		t := seconds(fi.ModTime())
		switch cmp {
		case 1:
			return t < ref
		case -1:
			return t > ref
		}
		d := t - ref
		return d > 0 && d <= window
	}), nil
}

// seconds is t in seconds since the epoch, with its fraction.
func seconds(t time.Time) float64 { return float64(t.Unix()) + float64(t.Nanosecond())/1e9 }
