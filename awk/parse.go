package awk

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Source is one piece of program text: the text of the program operand
// (Name "" is printed as "cmd. line") or of a -f file.
type Source struct {
	Name string
	Text string
}

// SyntaxError is an error in the program text. Error gives it gawk's
// way without the program name: "cmd. line:1: syntax error"; Context
// and Caret give the line and a caret under the column, for the
// two-line form gawk prints.
type SyntaxError struct {
	Src string // the whole (joined) program text
	Pos int    // byte offset in Src
	Msg string
	// Plain errors (an invalid regex) print on one line, as gawk's
	// "error:" lines, without the source line and caret.
	Plain bool
	file  string // the source's name as printed
	line  int
	text  string // the line of the error
	col   int    // byte offset in text
}

func (e *SyntaxError) Error() string {
	e.locate()
	return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.Msg)
}

// Where returns the source's name and the line number: "cmd. line", 1.
func (e *SyntaxError) Where() (string, int) {
	e.locate()
	return e.file, e.line
}

// Context returns the line of the error and the column of its start (a
// byte offset) for a caret.
func (e *SyntaxError) Context() (line string, col int) {
	e.locate()
	return e.text, e.col
}

func (e *SyntaxError) locate() {
	if e.line != 0 {
		return
	}
	if e.file == "" {
		e.file = "cmd. line"
	}
	pos := min(max(e.Pos, 0), len(e.Src))
	start := strings.LastIndexByte(e.Src[:pos], '\n') + 1
	end := strings.IndexByte(e.Src[pos:], '\n')
	if end < 0 {
		end = len(e.Src)
	} else {
		end += pos
	}
	e.line = strings.Count(e.Src[:start], "\n") + 1
	e.text, e.col = e.Src[start:end], pos-start
}

// Program is a compiled awk program, safe to run several times (not at
// once).
type Program struct {
	begins   [][]stmt
	items    []*item
	ends     [][]stmt
	funcs    map[string]*funcDef
	globals  map[string]int
	nglobal  int
	srcs     []Source
	offs     []int // start offset of each source in the joined text
	text     string
	warnings []warning
}

// warning is a parse-time warning, printed when the program runs.
type warning struct {
	line int
	msg  string
}

// Special variables have the first global slots.
const (
	vNR = iota
	vNF
	vFNR
	vFS
	vOFS
	vORS
	vRS
	vFILENAME
	vSUBSEP
	vRSTART
	vRLENGTH
	vCONVFMT
	vOFMT
	vENVIRON
	vARGC
	vARGV
	vRT
	vIGNORECASE
	numSpecial
)

var specialNames = []string{"NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "FILENAME", "SUBSEP", "RSTART", "RLENGTH", "CONVFMT", "OFMT", "ENVIRON", "ARGC", "ARGV", "RT", "IGNORECASE"}

// Compile parses program text.
func Compile(src string) (*Program, error) {
	return CompileSources([]Source{{Text: src}})
}

// CompileSources parses a program made of several pieces (gawk's -f
// and -e, in order), joined by newlines. A syntax error is a
// *SyntaxError naming the piece ("cmd. line" for an unnamed one).
func CompileSources(srcs []Source) (*Program, error) {
	var b strings.Builder
	offs := make([]int, len(srcs))
	for i, s := range srcs {
		offs[i] = b.Len()
		b.WriteString(s.Text)
		b.WriteByte('\n')
	}
	text := b.String()
	prog := &Program{funcs: map[string]*funcDef{}, globals: map[string]int{}, srcs: srcs, offs: offs, text: text}
	for i, n := range specialNames {
		prog.globals[n] = i
	}
	prog.nglobal = numSpecial
	toks, serr := lex(text)
	if serr != nil {
		return nil, prog.fix(serr)
	}
	p := &parser{toks: toks, prog: prog}
	if err := p.program(); err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, prog.fix(se)
		}
		return nil, err
	}
	return prog, nil
}

// fix points a syntax error at the piece of source it is in.
func (prog *Program) fix(e *SyntaxError) *SyntaxError {
	i := len(prog.offs) - 1
	for i > 0 && prog.offs[i] > e.Pos {
		i--
	}
	if i < 0 {
		i = 0
	}
	if len(prog.srcs) > 0 {
		s := prog.srcs[i]
		e.Src = s.Text
		e.Pos -= prog.offs[i]
		e.file = s.Name
	}
	return e
}

type parser struct {
	toks   []token
	i      int
	prog   *Program
	locals map[string]int // the current function's parameters
	funcs  map[string]bool
	noGT   bool // in print's list: '>' is a redirection
	noIn   bool
	inLoop int
	inFunc bool
	calls  []*callExpr
	depth  int
}

func (p *parser) tok() token     { return p.toks[p.i] }
func (p *parser) peek(n int) tok { return p.toks[min(p.i+n, len(p.toks)-1)].t }
func (p *parser) advance() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) errHere() error {
	t := p.tok()
	if t.t == tNewline || t.t == tEOF {
		return &SyntaxError{Pos: t.pos, Msg: "unexpected newline or end of string"}
	}
	return &SyntaxError{Pos: t.pos, Msg: "syntax error"}
}

func (p *parser) errf(pos int, format string, a ...any) error {
	return &SyntaxError{Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) expect(t tok) (token, error) {
	if p.tok().t != t {
		return token{}, p.errHere()
	}
	return p.advance(), nil
}

func (p *parser) optNewlines() {
	for p.tok().t == tNewline {
		p.advance()
	}
}

func (p *parser) skipTerms() {
	for p.tok().t == tNewline || p.tok().t == tSemi {
		p.advance()
	}
}

func (p *parser) program() error {
	// function names first, so that calls may precede definitions
	p.funcs = map[string]bool{}
	for i := 0; i+1 < len(p.toks); i++ {
		if p.toks[i].t == tFunction && (p.toks[i+1].t == tName || p.toks[i+1].t == tFuncName) {
			p.funcs[p.toks[i+1].s] = true
		}
	}
	p.skipTerms()
	for p.tok().t != tEOF {
		if err := p.item(); err != nil {
			return err
		}
		p.skipTerms()
	}
	for _, c := range p.calls {
		// an undefined function is an error when called, as in gawk
		f := p.prog.funcs[c.name]
		if f != nil && len(c.args) > len(f.params) {
			p.prog.warnings = append(p.prog.warnings, warning{c.line, fmt.Sprintf("function `%s' called with more arguments than declared", c.name)})
		}
		c.fn = f
	}
	return nil
}

func (p *parser) item() error {
	t := p.tok()
	switch t.t {
	case tBEGIN, tEND:
		p.advance()
		if p.tok().t != tLbrace {
			return p.errf(t.pos, "%s blocks must have an action part", t.s)
		}
		body, err := p.block()
		if err != nil {
			return err
		}
		if t.t == tBEGIN {
			p.prog.begins = append(p.prog.begins, body)
		} else {
			p.prog.ends = append(p.prog.ends, body)
		}
		return nil
	case tFunction:
		return p.function()
	}
	it := &item{line: t.line}
	if t.t != tLbrace {
		pat, err := p.expr()
		if err != nil {
			return err
		}
		it.pattern = pat
		if p.tok().t == tComma {
			p.advance()
			p.optNewlines()
			pat2, err := p.expr()
			if err != nil {
				return err
			}
			it.pattern2, it.isRange = pat2, true
		}
	}
	if p.tok().t == tLbrace {
		body, err := p.block()
		if err != nil {
			return err
		}
		it.body, it.hasBody = body, true
	} else if tt := p.tok().t; tt != tNewline && tt != tSemi && tt != tEOF {
		return p.errHere()
	}
	p.prog.items = append(p.prog.items, it)
	return nil
}

func (p *parser) function() error {
	p.advance()
	nt := p.tok()
	if nt.t != tName && nt.t != tFuncName {
		return p.errHere()
	}
	p.advance()
	name := nt.s
	if _, ok := p.prog.funcs[name]; ok {
		return p.errf(nt.pos, "function name `%s' previously defined", name)
	}
	if _, ok := p.prog.globals[name]; ok && p.prog.globals[name] < numSpecial {
		return p.errf(nt.pos, "cannot use special variable `%s' as a function name", name)
	}
	if _, err := p.expect(tLparen); err != nil {
		return err
	}
	f := &funcDef{name: name, line: nt.line}
	p.locals = map[string]int{}
	p.optNewlines()
	for p.tok().t != tRparen {
		pt := p.tok()
		if pt.t != tName {
			return p.errHere()
		}
		if pt.s == name {
			return p.errf(pt.pos, "function `%s': cannot use function name as parameter name", name)
		}
		if _, dup := p.locals[pt.s]; dup {
			return p.errf(pt.pos, "function `%s': parameter #%d, `%s', duplicates parameter #%d", name, len(f.params)+1, pt.s, p.locals[pt.s]+1)
		}
		if i, ok := p.prog.globals[pt.s]; ok && i < numSpecial {
			return p.errf(pt.pos, "function `%s': cannot use special variable `%s' as a function parameter", name, pt.s)
		}
		p.locals[pt.s] = len(f.params)
		f.params = append(f.params, pt.s)
		p.advance()
		p.optNewlines()
		if p.tok().t == tComma {
			p.advance()
			p.optNewlines()
			if p.tok().t == tRparen {
				return p.errHere()
			}
		} else if p.tok().t != tRparen {
			return p.errHere()
		}
	}
	p.advance()
	p.optNewlines()
	if p.tok().t != tLbrace {
		return p.errHere()
	}
	p.prog.funcs[name] = f
	p.inFunc = true
	body, err := p.block()
	p.inFunc = false
	p.locals = nil
	if err != nil {
		return err
	}
	f.body = body
	return nil
}

// block parses { statements }.
func (p *parser) block() ([]stmt, error) {
	if _, err := p.expect(tLbrace); err != nil {
		return nil, err
	}
	var body []stmt
	for {
		p.skipTerms()
		if p.tok().t == tRbrace {
			p.advance()
			return body, nil
		}
		if p.tok().t == tEOF {
			return nil, p.errHere()
		}
		s, err := p.stmt()
		if err != nil {
			return nil, err
		}
		if s != nil {
			body = append(body, s)
		}
	}
}

// endSimple checks the end of a simple statement: ';', a newline, '}'
// (not consumed) or the end.
func (p *parser) endSimple() error {
	switch p.tok().t {
	case tSemi, tNewline:
		p.advance()
		return nil
	case tRbrace, tEOF:
		return nil
	}
	return p.errHere()
}

// body parses the statement that is the body of if, while, for: ';'
// alone is an empty body.
func (p *parser) body() ([]stmt, error) {
	if p.tok().t == tSemi {
		p.advance()
		return nil, nil
	}
	p.optNewlines()
	s, err := p.stmt()
	if err != nil || s == nil {
		return nil, err
	}
	if b, ok := s.(*blockStmt); ok {
		return b.body, nil
	}
	return []stmt{s}, nil
}

func (p *parser) stmt() (stmt, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	t := p.tok()
	a := at{t.line}
	switch t.t {
	case tLbrace:
		body, err := p.block()
		if err != nil {
			return nil, err
		}
		return &blockStmt{a, body}, nil
	case tSemi:
		p.advance()
		return nil, nil
	case tIf:
		p.advance()
		cond, err := p.parenExpr()
		if err != nil {
			return nil, err
		}
		then, err := p.body()
		if err != nil {
			return nil, err
		}
		// look past terminators for else
		save := p.i
		p.skipTerms()
		if p.tok().t == tElse {
			p.advance()
			els, err := p.body()
			if err != nil {
				return nil, err
			}
			return &ifStmt{a, cond, then, els}, nil
		}
		p.i = save
		return &ifStmt{a, cond, then, nil}, nil
	case tWhile:
		p.advance()
		cond, err := p.parenExpr()
		if err != nil {
			return nil, err
		}
		p.inLoop++
		body, err := p.body()
		p.inLoop--
		if err != nil {
			return nil, err
		}
		return &whileStmt{a, cond, body}, nil
	case tDo:
		p.advance()
		p.inLoop++
		body, err := p.body()
		p.inLoop--
		if err != nil {
			return nil, err
		}
		p.skipTerms()
		if _, err := p.expect(tWhile); err != nil {
			return nil, err
		}
		cond, err := p.parenExpr()
		if err != nil {
			return nil, err
		}
		return &doStmt{a, body, cond}, p.endSimple()
	case tFor:
		return p.forStmt()
	}
	s, err := p.simple()
	if err != nil {
		return nil, err
	}
	return s, p.endSimple()
}

func (p *parser) parenExpr() (expr, error) {
	if _, err := p.expect(tLparen); err != nil {
		return nil, err
	}
	p.optNewlines()
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.optNewlines()
	if _, err := p.expect(tRparen); err != nil {
		return nil, err
	}
	return x, nil
}

func (p *parser) forStmt() (stmt, error) {
	t := p.advance()
	a := at{t.line}
	if _, err := p.expect(tLparen); err != nil {
		return nil, err
	}
	if p.tok().t == tName && p.peek(1) == tIn && p.peek(2) == tName && p.peek(3) == tRparen {
		v := p.variable(p.advance())
		p.advance()
		arr := p.arrayRef(p.advance())
		p.advance()
		p.inLoop++
		body, err := p.body()
		p.inLoop--
		if err != nil {
			return nil, err
		}
		return &forInStmt{a, v, arr, body}, nil
	}
	var fs forStmt
	fs.at = a
	var err error
	if p.tok().t != tSemi {
		if fs.init, err = p.simple(); err != nil {
			return nil, err
		}
	}
	if _, err := p.expect(tSemi); err != nil {
		return nil, err
	}
	p.optNewlines()
	if p.tok().t != tSemi {
		if fs.cond, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if _, err := p.expect(tSemi); err != nil {
		return nil, err
	}
	p.optNewlines()
	if p.tok().t != tRparen {
		if fs.post, err = p.simple(); err != nil {
			return nil, err
		}
	}
	if _, err := p.expect(tRparen); err != nil {
		return nil, err
	}
	p.inLoop++
	fs.body, err = p.body()
	p.inLoop--
	if err != nil {
		return nil, err
	}
	return &fs, nil
}

// simple parses a simple statement, without its terminator.
func (p *parser) simple() (stmt, error) {
	t := p.tok()
	a := at{t.line}
	switch t.t {
	case tPrint, tPrintf:
		return p.print()
	case tNext, tNextfile:
		p.advance()
		if t.t == tNext {
			return &nextStmt{a}, nil
		}
		return &nextfileStmt{a}, nil
	case tBreak, tContinue:
		p.advance()
		if p.inLoop == 0 {
			return nil, p.errf(t.pos, "`%s' is not allowed outside a loop", t.s)
		}
		if t.t == tBreak {
			return &breakStmt{a}, nil
		}
		return &continueStmt{a}, nil
	case tExit, tReturn:
		p.advance()
		if t.t == tReturn && !p.inFunc {
			return nil, p.errf(t.pos, "`return' used outside function context")
		}
		var x expr
		if tt := p.tok().t; tt != tSemi && tt != tNewline && tt != tRbrace && tt != tEOF {
			var err error
			if x, err = p.expr(); err != nil {
				return nil, err
			}
		}
		if t.t == tExit {
			return &exitStmt{a, x}, nil
		}
		return &returnStmt{a, x}, nil
	case tDelete:
		p.advance()
		nt := p.tok()
		if nt.t != tName {
			return nil, p.errHere()
		}
		p.advance()
		arr := p.arrayRef(nt)
		if p.tok().t != tLbracket {
			return &deleteStmt{a, arr, nil}, nil
		}
		p.advance()
		keys, err := p.exprList(tRbracket)
		if err != nil {
			return nil, err
		}
		return &deleteStmt{a, arr, keys}, nil
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &exprStmt{a, x}, nil
}

func (p *parser) print() (stmt, error) {
	t := p.advance()
	ps := &printStmt{at: at{t.line}, printf: t.t == tPrintf}
	saveGT := p.noGT
	p.noGT = true
	defer func() { p.noGT = saveGT }()
	if tt := p.tok().t; tt != tSemi && tt != tNewline && tt != tRbrace && tt != tEOF && tt != tGT && tt != tAppend && tt != tPipe {
		for {
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			ps.args = append(ps.args, x)
			if p.tok().t != tComma {
				break
			}
			p.advance()
			p.optNewlines()
		}
	}
	if len(ps.args) == 1 {
		if m, ok := ps.args[0].(*multiExpr); ok {
			ps.args = m.exprs
		}
	}
	for _, x := range ps.args {
		if m, ok := x.(*multiExpr); ok {
			return nil, p.errf(m.pos, "syntax error")
		}
	}
	if ps.printf && len(ps.args) == 0 {
		return nil, p.errf(t.pos, "printf: no format")
	}
	switch p.tok().t {
	case tGT, tAppend, tPipe:
		ps.redir = p.advance().t
		p.noGT = false
		dest, err := p.concat()
		if err != nil {
			return nil, err
		}
		ps.dest = dest
	}
	return ps, nil
}

// exprList parses expressions separated by commas up to end.
func (p *parser) exprList(end tok) ([]expr, error) {
	saveGT, saveIn := p.noGT, p.noIn
	p.noGT, p.noIn = false, false
	defer func() { p.noGT, p.noIn = saveGT, saveIn }()
	var list []expr
	p.optNewlines()
	for {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		list = append(list, x)
		p.optNewlines()
		if p.tok().t == tComma {
			p.advance()
			p.optNewlines()
			continue
		}
		if _, err := p.expect(end); err != nil {
			return nil, err
		}
		return list, nil
	}
}

func isLvalue(x expr) bool {
	switch x.(type) {
	case *varExpr, *fieldExpr, *indexExpr:
		return true
	}
	return false
}

// maxNesting bounds how deep expressions and statements nest, and
// maxChain how many operands one chain of a binary operator has, so that
// parsing and evaluating stay far from Go's stack limit.
const (
	maxNesting = 1000
	maxChain   = 10000
)

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.errf(p.tok().pos, "program nested too deeply (more than %d levels)", maxNesting)
	}
	return nil
}

func (p *parser) chain(n int) error {
	if n > maxChain {
		return p.errf(p.tok().pos, "expression too long (more than %d operands in a chain)", maxChain)
	}
	return nil
}

func (p *parser) expr() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	lhsPos := p.tok().pos
	x, err := p.ternary()
	if err != nil {
		return nil, err
	}
	var op tok
	switch p.tok().t {
	case tAssign:
		op = tAssign
	case tAddAssign:
		op = tAdd
	case tSubAssign:
		op = tSub
	case tMulAssign:
		op = tMul
	case tDivAssign:
		op = tDiv
	case tModAssign:
		op = tMod
	case tPowAssign:
		op = tPow
	default:
		return x, nil
	}
	if !isLvalue(x) {
		if p.tok().t == tDivAssign {
			return x, nil
		}
		return nil, p.errf(lhsPos, "syntax error")
	}
	if v, ok := x.(*varExpr); ok {
		p.markScalar(v)
	}
	p.advance()
	p.optNewlines()
	rhs, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &assignExpr{x, op, rhs}, nil
}

func (p *parser) ternary() (expr, error) {
	c, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok().t != tQuestion {
		return c, nil
	}
	p.advance()
	p.optNewlines()
	yes, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.optNewlines()
	if _, err := p.expect(tColon); err != nil {
		return nil, err
	}
	p.optNewlines()
	no, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &condExpr{c, yes, no}, nil
}

func (p *parser) or() (expr, error) { return p.binaryChain(p.and, true, nil, tOr) }

func (p *parser) and() (expr, error) { return p.binaryChain(p.in, true, nil, tAnd) }

// binaryChain parses operand (op operand)..., left-associative, each op
// one of ops and its node a binExpr; newlines may follow an operator when
// nl. check, when not nil, may refuse an operation as it is parsed. A chain
// of more than maxChain operands is an error.
func (p *parser) binaryChain(operand func() (expr, error), nl bool, check func(op token, l, r expr) error, ops ...tok) (expr, error) {
	n := 0
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for slices.Contains(ops, p.tok().t) {
		op := p.advance()
		if nl {
			p.optNewlines()
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		if n++; n > maxChain {
			return nil, p.chain(n)
		}
		if check != nil {
			if err := check(op, l, r); err != nil {
				return nil, err
			}
		}
		l = &binExpr{op.t, l, r}
	}
	return l, nil
}

func (p *parser) in() (expr, error) {
	n := 0
	l, err := p.match()
	if err != nil {
		return nil, err
	}
	for p.tok().t == tIn && !p.noIn {
		p.advance()
		nt := p.tok()
		if nt.t != tName {
			return nil, p.errHere()
		}
		p.advance()
		keys := []expr{l}
		if m, ok := l.(*multiExpr); ok {
			keys = m.exprs
		}
		if n++; n > maxChain {
			return nil, p.chain(n)
		}
		l = &inExpr{keys, p.arrayRef(nt)}
	}
	return l, nil
}

func (p *parser) match() (expr, error) {
	n := 0
	l, err := p.comparison()
	if err != nil {
		return nil, err
	}
	for p.tok().t == tMatch || p.tok().t == tNoMatch {
		neg := p.advance().t == tNoMatch
		r, err := p.comparison()
		if err != nil {
			return nil, err
		}
		if n++; n > maxChain {
			return nil, p.chain(n)
		}
		l = &matchExpr{neg, l, r}
	}
	return l, nil
}

func (p *parser) comparison() (expr, error) {
	l, err := p.pipeGetline()
	if err != nil {
		return nil, err
	}
	switch op := p.tok().t; op {
	case tLT, tLE, tNE, tEQ, tGE, tGT:
		if op == tGT && p.noGT {
			return l, nil
		}
		p.advance()
		r, err := p.pipeGetline()
		if err != nil {
			return nil, err
		}
		return &binExpr{op, l, r}, nil
	}
	return l, nil
}

func (p *parser) pipeGetline() (expr, error) {
	l, err := p.concat()
	if err != nil {
		return nil, err
	}
	for p.tok().t == tPipe && p.peek(1) == tGetline {
		p.advance()
		p.advance()
		lv, err := p.optLvalue()
		if err != nil {
			return nil, err
		}
		l = &getlineExpr{getCmd, l, lv}
	}
	return l, nil
}

// optLvalue parses the optional variable of getline.
func (p *parser) optLvalue() (expr, error) {
	switch p.tok().t {
	case tDollar:
		p.advance()
		x, err := p.dollarOperand()
		if err != nil {
			return nil, err
		}
		return &fieldExpr{x}, nil
	case tName:
		return p.nameRef()
	}
	return nil, nil
}

func (p *parser) concat() (expr, error) {
	n := 0
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	for {
		switch p.tok().t {
		case tNumber, tString, tRegex, tName, tFuncName, tBuiltin, tDollar, tNot, tLparen, tIncr, tDecr:
			r, err := p.additive()
			if err != nil {
				return nil, err
			}
			if n++; n > maxChain {
				return nil, p.chain(n)
			}
			l = &binExpr{tConcat, l, r}
		default:
			return l, nil
		}
	}
}

func (p *parser) additive() (expr, error) { return p.binaryChain(p.mul, false, nil, tAdd, tSub) }

func (p *parser) mul() (expr, error) {
	return p.binaryChain(p.unary, false, divByConstZero, tMul, tDiv, tMod)
}

// divByConstZero refuses a constant divided by a constant zero, as gawk
// folds it into a parse error.
func divByConstZero(op token, l, r expr) error {
	if op.t == tMul {
		return nil
	}
	c, ok := r.(*numExpr)
	if !ok || c.n != 0 {
		return nil
	}
	if _, lc := l.(*numExpr); !lc {
		return nil
	}
	msg := "division by zero attempted"
	if op.t == tMod {
		msg += " in `%'"
	}
	return &SyntaxError{Pos: op.pos, Msg: msg, Plain: true}
}

func (p *parser) unary() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch t := p.tok().t; t {
	case tNot, tSub, tAdd:
		p.advance()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{t, x}, nil
	}
	return p.pow()
}

func (p *parser) pow() (expr, error) {
	base, err := p.postfix()
	if err != nil {
		return nil, err
	}
	if p.tok().t != tPow {
		return base, nil
	}
	p.advance()
	// The right operand may have a sign, and ^ is right-associative: it
	// is a unary expression.
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &binExpr{tPow, base, exp}, nil
}

func (p *parser) postfix() (expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	if isLvalue(x) && (p.tok().t == tIncr || p.tok().t == tDecr) {
		op := p.advance().t
		return &incdecExpr{x, false, op}, nil
	}
	return x, nil
}

// dollarOperand parses what follows '$': a primary, possibly with a
// sign or a pre-increment.
func (p *parser) dollarOperand() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch t := p.tok().t; t {
	case tIncr, tDecr:
		p.advance()
		lv, err := p.primary()
		if err != nil {
			return nil, err
		}
		if !isLvalue(lv) {
			return nil, p.errHere()
		}
		return &incdecExpr{lv, true, t}, nil
	case tSub, tAdd, tNot:
		p.advance()
		x, err := p.dollarOperand()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{t, x}, nil
	}
	return p.primary()
}

func (p *parser) variable(t token) *varExpr {
	if p.locals != nil {
		if i, ok := p.locals[t.s]; ok {
			return &varExpr{local: true, idx: i, name: t.s}
		}
	}
	i, ok := p.prog.globals[t.s]
	if !ok {
		i = p.prog.nglobal
		p.prog.globals[t.s] = i
		p.prog.nglobal++
	}
	return &varExpr{idx: i, name: t.s}
}

func (p *parser) arrayRef(t token) *varExpr { return p.variable(t) }

func (p *parser) markScalar(*varExpr) {}

// nameRef parses NAME or NAME[keys].
func (p *parser) nameRef() (expr, error) {
	t := p.advance()
	if p.funcs[t.s] {
		return nil, p.errf(t.pos, "function `%s' called with space between name and `(',\nor used as a variable or an array", t.s)
	}
	if p.tok().t == tLbracket {
		p.advance()
		keys, err := p.exprList(tRbracket)
		if err != nil {
			return nil, err
		}
		return &indexExpr{p.arrayRef(t), keys}, nil
	}
	return p.variable(t), nil
}

func (p *parser) primary() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	t := p.tok()
	switch t.t {
	case tNumber:
		p.advance()
		return &numExpr{t.n}, nil
	case tString:
		p.advance()
		return &strExpr{t.s}, nil
	case tRegex:
		p.advance()
		re, err := compileRegex(t.s, false)
		if err != nil {
			return nil, &SyntaxError{Pos: t.pos, Msg: regexMsg(err), Plain: true}
		}
		return &regexExpr{t.s, re}, nil
	case tDollar:
		p.advance()
		x, err := p.dollarOperand()
		if err != nil {
			return nil, err
		}
		return &fieldExpr{x}, nil
	case tLparen:
		p.advance()
		saveGT, saveIn := p.noGT, p.noIn
		p.noGT, p.noIn = false, false
		defer func() { p.noGT, p.noIn = saveGT, saveIn }()
		p.optNewlines()
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		p.optNewlines()
		if p.tok().t == tComma {
			list := []expr{x}
			for p.tok().t == tComma {
				p.advance()
				p.optNewlines()
				y, err := p.expr()
				if err != nil {
					return nil, err
				}
				list = append(list, y)
				p.optNewlines()
			}
			if _, err := p.expect(tRparen); err != nil {
				return nil, err
			}
			if p.tok().t != tIn && !saveGT {
				return nil, p.errf(t.pos, "syntax error")
			}
			return &multiExpr{list, t.pos}, nil
		}
		if _, err := p.expect(tRparen); err != nil {
			return nil, err
		}
		return &groupExpr{x}, nil
	case tIncr, tDecr:
		p.advance()
		lv, err := p.primary()
		if err != nil {
			return nil, err
		}
		if !isLvalue(lv) {
			return nil, p.errf(t.pos, "syntax error")
		}
		return &incdecExpr{lv, true, t.t}, nil
	case tSub, tAdd, tNot:
		p.advance()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{t.t, x}, nil
	case tName:
		return p.nameRef()
	case tFuncName:
		p.advance()
		p.advance() // '('
		var args []expr
		if p.tok().t == tRparen {
			p.advance()
		} else {
			var err error
			if args, err = p.exprList(tRparen); err != nil {
				return nil, err
			}
		}
		c := &callExpr{name: t.s, args: args, pos: t.pos, line: t.line}
		p.calls = append(p.calls, c)
		return c, nil
	case tBuiltin:
		return p.builtin()
	case tGetline:
		p.advance()
		lv, err := p.optLvalue()
		if err != nil {
			return nil, err
		}
		if p.tok().t == tLT {
			p.advance()
			src, err := p.postfix()
			if err != nil {
				return nil, err
			}
			return &getlineExpr{getFile, src, lv}, nil
		}
		return &getlineExpr{getPlain, nil, lv}, nil
	}
	return nil, p.errHere()
}

var builtinArity = map[int][2]int{
	fLength: {0, 1}, fSubstr: {2, 3}, fIndex: {2, 2}, fSplit: {2, 4}, fSub: {2, 3}, fGsub: {2, 3},
	fMatch: {2, 2}, fSprintf: {1, 1 << 20}, fTolower: {1, 1}, fToupper: {1, 1}, fInt: {1, 1},
	fSqrt: {1, 1}, fExp: {1, 1}, fLog: {1, 1}, fSin: {1, 1}, fCos: {1, 1}, fAtan2: {2, 2},
	fRand: {0, 0}, fSrand: {0, 1}, fSystem: {1, 1}, fClose: {1, 2}, fFflush: {0, 1},
	fGensub: {3, 4}, fAsort: {1, 2}, fAsorti: {1, 2},
}

func (p *parser) builtin() (expr, error) {
	t := p.advance()
	b := &builtinExpr{fn: t.fn, name: t.s}
	if p.tok().t != tLparen {
		if t.fn == fLength {
			return b, nil
		}
		return nil, p.errHere()
	}
	p.advance()
	if p.tok().t == tRparen {
		p.advance()
	} else {
		args, err := p.exprList(tRparen)
		if err != nil {
			return nil, err
		}
		b.args = args
	}
	ar := builtinArity[t.fn]
	if len(b.args) < ar[0] || len(b.args) > ar[1] {
		// gawk's caret is under the closing parenthesis
		return nil, p.errf(p.toks[max(p.i-1, 0)].pos, "%d is invalid as number of arguments for %s", len(b.args), t.s)
	}
	switch t.fn {
	case fAsort, fAsorti:
		for i, a := range b.args {
			if _, ok := a.(*varExpr); !ok {
				return nil, p.errf(t.pos, "%s: argument %d is not an array", t.s, i+1)
			}
		}
	case fSplit:
		if _, ok := b.args[1].(*varExpr); !ok {
			return nil, p.errf(t.pos, "split: second argument is not an array")
		}
		if len(b.args) == 4 {
			if _, ok := b.args[3].(*varExpr); !ok {
				return nil, p.errf(t.pos, "split: fourth argument is not an array")
			}
		}
	}
	return b, nil
}

// regexCacheLimit bounds the cache of dynamic regexes.
const regexCacheLimit = 500

var errRegexSyntax = errors.New("invalid regexp")

// regexMsg is a regex error's text without errRegexSyntax's prefix, as
// gawk words a regex in the program text: "Unmatched ( or \(: /a(/".
func regexMsg(err error) string {
	return strings.TrimPrefix(err.Error(), errRegexSyntax.Error()+": ")
}

// compileRegex compiles an awk ERE: package regex's GNU translation,
// matching leftmost-longest, '.' matching newlines too.
func compileRegex(src string, fold bool) (*regexp.Regexp, error) {
	goSrc, err := translateERE(src, fold)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(goSrc)
	if err != nil {
		return nil, fmt.Errorf("%w: /%s/: %v", errRegexSyntax, src, err)
	}
	re.Longest()
	return re, nil
}
