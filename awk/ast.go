package awk

import "regexp"

// Expressions.
type expr interface{ isExpr() }

type (
	numExpr   struct{ n float64 }
	strExpr   struct{ s string }
	regexExpr struct {
		src string
		re  *regexp.Regexp
	}
	varExpr struct {
		local bool
		idx   int
		name  string
	}
	fieldExpr struct{ index expr }
	indexExpr struct {
		arr  *varExpr
		keys []expr
	}
	assignExpr struct {
		lhs expr // *varExpr, *fieldExpr or *indexExpr
		op  tok  // tAssign, or the binary operator of +=, -=, ...
		rhs expr
	}
	condExpr struct{ cond, yes, no expr }
	binExpr  struct {
		op   tok // arithmetic, comparison, tAnd, tOr, tConcat
		l, r expr
	}
	unaryExpr struct {
		op tok // tSub, tAdd, tNot
		x  expr
	}
	incdecExpr struct {
		lv  expr
		pre bool
		op  tok // tIncr or tDecr
	}
	matchExpr struct {
		neg bool
		l   expr
		re  expr
	}
	inExpr struct {
		keys []expr
		arr  *varExpr
	}
	builtinExpr struct {
		fn   int
		name string
		args []expr
	}
	callExpr struct {
		name string
		fn   *funcDef
		args []expr
		pos  int
		line int
	}
	getlineExpr struct {
		kind int  // getPlain, getFile, getCmd
		src  expr // file or command
		lv   expr // nil: $0
	}
	groupExpr struct{ x expr }
	multiExpr struct {
		exprs []expr
		pos   int
	}
)

const tConcat tok = 1000

const (
	getPlain = iota
	getFile
	getCmd
)

func (*numExpr) isExpr()     {}
func (*strExpr) isExpr()     {}
func (*regexExpr) isExpr()   {}
func (*varExpr) isExpr()     {}
func (*fieldExpr) isExpr()   {}
func (*indexExpr) isExpr()   {}
func (*assignExpr) isExpr()  {}
func (*condExpr) isExpr()    {}
func (*binExpr) isExpr()     {}
func (*unaryExpr) isExpr()   {}
func (*incdecExpr) isExpr()  {}
func (*matchExpr) isExpr()   {}
func (*inExpr) isExpr()      {}
func (*builtinExpr) isExpr() {}
func (*callExpr) isExpr()    {}
func (*getlineExpr) isExpr() {}
func (*groupExpr) isExpr()   {}
func (*multiExpr) isExpr()   {}

// Statements.
type stmt interface{ stmtLine() int }

type at struct{ line int }

func (a at) stmtLine() int { return a.line }

type (
	printStmt struct {
		at
		printf bool
		args   []expr
		redir  tok // 0, tGT, tAppend or tPipe
		dest   expr
	}
	exprStmt struct {
		at
		x expr
	}
	ifStmt struct {
		at
		cond      expr
		then, els []stmt
	}
	whileStmt struct {
		at
		cond expr
		body []stmt
	}
	doStmt struct {
		at
		body []stmt
		cond expr
	}
	forStmt struct {
		at
		init stmt
		cond expr
		post stmt
		body []stmt
	}
	forInStmt struct {
		at
		v    *varExpr
		arr  *varExpr
		body []stmt
	}
	blockStmt struct {
		at
		body []stmt
	}
	nextStmt     struct{ at }
	nextfileStmt struct{ at }
	breakStmt    struct{ at }
	continueStmt struct{ at }
	exitStmt     struct {
		at
		x expr
	}
	returnStmt struct {
		at
		x expr
	}
	deleteStmt struct {
		at
		arr  *varExpr
		keys []expr // nil: the whole array
	}
)

// item is a pattern-action rule.
type item struct {
	pattern, pattern2 expr // nil pattern: every record
	isRange           bool
	body              []stmt // nil: print $0
	hasBody           bool
	line              int
}

type funcDef struct {
	name   string
	params []string
	body   []stmt
	line   int
}
