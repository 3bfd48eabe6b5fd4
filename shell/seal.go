package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Names of the internal commands that seal plants in a command line.
// They are ordinary command names; running them by hand does no harm.
const (
	tickCmd      = "__chromafs_tick"      // counts a loop iteration; keeps $?
	procSubstCmd = "__chromafs_procsubst" // prints procSubstMark
	timeCmd      = "__chromafs_time"      // prints time's report; keeps $?
	timePCmd     = "__chromafs_time_p"    // the same, for time -p
	evalCmd      = "__chromafs_eval"
	sourceCmd    = "__chromafs_source"
	typeCmd      = "__chromafs_type"
	commandVCmd  = "__chromafs_command_v"
	hashCmd      = "__chromafs_hash"
	failCmd      = "__chromafs_fail"     // returns the status in its first argument
	readFileCmd  = "__chromafs_readfile" // $(<file)
	printfCmd    = "__chromafs_printf"   // bash's printf, without -v

	// procSubstMark is what a process substitution expands to; a command
	// or redirection that receives it fails as bash fails without a way to
	// make the pipe.
	procSubstMark = "__chromafs_procsubst__"
)

// seal checks a parsed command line against the caps that apply before
// it runs, and rewrites what would otherwise reach the host or escape
// the caps:
//   - loops get a tick command (the iteration cap);
//   - process substitutions become procSubstMark;
//   - time becomes the command plus a fixed report;
//   - $$, $PPID and $BASHPID read fixed hidden variables;
//   - ~user is not expanded;
//   - background statements run in the foreground.
func (rs *runState) seal(file *syntax.File) error {
	var err error
	syntax.Walk(file, func(node syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := node.(type) {
		case *syntax.Stmt:
			n.Background = false
			n.Disown = false
			n.Coprocess = false
			if tc, ok := n.Cmd.(*syntax.TimeClause); ok {
				name := timeCmd
				if tc.PosixFormat {
					name = timePCmd
				}
				block := &syntax.Block{}
				if tc.Stmt != nil {
					block.Stmts = append(block.Stmts, tc.Stmt)
				}
				block.Stmts = append(block.Stmts, callStmt(name))
				n.Cmd = block
			}
		case *syntax.CmdSubst:
			// $(<file) prints its diagnostic once and expands to nothing.
			if len(n.Stmts) == 1 {
				st := n.Stmts[0]
				if st.Cmd == nil && !st.Negated && len(st.Redirs) == 1 && st.Redirs[0].Op == syntax.RdrIn && st.Redirs[0].N == nil {
					call := callStmt(readFileCmd)
					call.Cmd.(*syntax.CallExpr).Args = append(call.Cmd.(*syntax.CallExpr).Args, st.Redirs[0].Word)
					n.Stmts[0] = call
				}
			}
		case *syntax.BinaryCmd:
			if isPipe(n) {
				if k := stages(n); k > rs.s.maxStages {
					err = &LimitError{What: "pipeline stages", Limit: rs.s.maxStages}
					return false
				}
			}
		case *syntax.WhileClause:
			n.Cond = append([]*syntax.Stmt{callStmt(tickCmd)}, n.Cond...)
		case *syntax.ForClause:
			n.Do = append([]*syntax.Stmt{callStmt(tickCmd)}, n.Do...)
		case *syntax.Word:
			for i, part := range n.Parts {
				if ps, ok := part.(*syntax.ProcSubst); ok {
					n.Parts[i] = &syntax.CmdSubst{Left: ps.OpPos, Right: ps.Rparen, Stmts: []*syntax.Stmt{callStmt(procSubstCmd)}}
				}
			}
			if len(n.Parts) > 0 {
				if lit, ok := n.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
					name, rest := lit.Value[1:], ""
					if i := strings.IndexByte(name, '/'); i >= 0 {
						name, rest = name[:i], name[i:]
					}
					if name != "" {
						parts := []syntax.WordPart{&syntax.SglQuoted{Value: "~" + name}}
						if rest != "" {
							parts = append(parts, &syntax.Lit{Value: rest})
						}
						n.Parts = append(parts, n.Parts[1:]...)
					}
				}
			}
		case *syntax.UnaryTest:
			// -O and -G would ask the host's user database; no file of
			// the filesystem is owned by the shell's user.
			if n.Op == syntax.TsUsrOwn || n.Op == syntax.TsGrpOwn {
				n.X = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{}}}
			}
		case *syntax.ParamExp:
			if n.Param != nil {
				switch n.Param.Value {
				case "$", "BASHPID":
					n.Param = &syntax.Lit{Value: pidVar}
				case "PPID":
					n.Param = &syntax.Lit{Value: ppidVar}
				}
			}
		case *syntax.DblQuoted:
			for i, part := range n.Parts {
				if ps, ok := part.(*syntax.ProcSubst); ok {
					n.Parts[i] = &syntax.CmdSubst{Left: ps.OpPos, Right: ps.Rparen, Stmts: []*syntax.Stmt{callStmt(procSubstCmd)}}
				}
			}
		}
		return true
	})
	return err
}

func isPipe(n *syntax.BinaryCmd) bool { return n.Op == syntax.Pipe || n.Op == syntax.PipeAll }

// stages counts the commands of the pipeline n heads.
func stages(n *syntax.BinaryCmd) int {
	k := 0
	for _, side := range []*syntax.Stmt{n.X, n.Y} {
		if b, ok := side.Cmd.(*syntax.BinaryCmd); ok && isPipe(b) && !side.Negated && len(side.Redirs) == 0 {
			k += stages(b)
		} else {
			k++
		}
	}
	return k
}

// callStmt is a statement that runs the command name without arguments.
func callStmt(name string) *syntax.Stmt {
	return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: name}}}}}}
}
