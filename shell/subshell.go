package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/chromafs/chromafs/gnu"
)

// maxShellDepth caps shells started by shells (bash -c 'bash -c ...').
const maxShellDepth = 64

// shellCmd runs bash and sh as commands: a new shell, in process, over
// the same filesystem and within the same caps, as bash runs
//
//	bash [-eux] [-o option] -c COMMAND [NAME [ARG...]]
//	bash [-eux] [-o option] FILE [ARG...]
//	bash [-eux] [-o option] [-s] [ARG...]   (the script is standard input)
//
// It starts with the exported variables of its caller, and its working
// directory; what it changes stays in it. sh is the same shell (not
// dash). The error is a *LimitError when a cap stopped the line.
func (rs *runState) shellCmd(ctx context.Context, hc interp.HandlerContext, args []string) (int, error) {
	prog := rs.s.prog
	name := args[0]
	var opts []string
	fromC, fromStdin := false, false
	i := 1
options:
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			i++
			break options
		case len(a) < 2 || (a[0] != '-' && a[0] != '+'):
			break options
		case strings.HasPrefix(a, "--"):
			switch a {
			case "--login", "--norc", "--noprofile", "--posix", "--noediting", "--restricted":
				i++
				continue
			}
			fmt.Fprintf(hc.Stderr, "%s: %s: invalid option\n%s", name, a, fmt.Sprintf(bashUsage, name))
			return 2, nil
		}
		i++
		for _, c := range a[1:] {
			switch c {
			case 'c':
				fromC = true
			case 's':
				fromStdin = true
			case 'e', 'u', 'x', 'f', 'n':
				opts = append(opts, string([]rune{rune(a[0]), c}))
			case 'o':
				if i == len(args) {
					fmt.Fprintf(hc.Stderr, "%s: -o: option requires an argument\n", name)
					return 2, nil
				}
				opts = append(opts, string(a[0])+"o", args[i])
				i++
			case 'l', 'i', 'v', 'h', 'B', 'H', 'P', 'p', 'r', 'a', 'b', 'k', 'm', 'T', 'E', 't', 'C':
			default:
				fmt.Fprintf(hc.Stderr, "%s: -%c: invalid option\n%s", name, c, fmt.Sprintf(bashUsage, name))
				return 2, nil
			}
		}
	}
	var script, arg0 string
	var params []string
	switch {
	case fromC:
		if i == len(args) {
			fmt.Fprintf(hc.Stderr, "%s: -c: option requires an argument\n", name)
			return 2, nil
		}
		script, arg0 = args[i], name
		if i+1 < len(args) {
			arg0, params = args[i+1], args[i+2:]
		}
	case i < len(args) && !fromStdin:
		arg0, params = args[i], args[i+1:]
		fname := fsName(absolute(hc.Dir, arg0))
		info, err := fs.Stat(rs.s.fsys, fname)
		if err == nil && info.IsDir() {
			fmt.Fprintf(hc.Stderr, "%s: %s: Is a directory\n", arg0, arg0)
			return 126, nil
		}
		var b []byte
		if err == nil {
			b, err = fs.ReadFile(rs.s.fsys, fname)
		}
		if err != nil {
			fmt.Fprintf(hc.Stderr, "%s: %s: %s\n", name, arg0, gnu.ErrText(err))
			return 127, nil
		}
		script = string(b)
	default:
		arg0, params = name, args[i:]
		if hc.Stdin != nil {
			b, err := io.ReadAll(io.LimitReader(hc.Stdin, DefaultMaxLine+1))
			if err != nil {
				return 1, nil
			}
			script = string(b)
		}
	}
	if len(script) > DefaultMaxLine {
		err := &LimitError{What: "command line bytes", Limit: DefaultMaxLine}
		rs.cancel(err)
		return 1, err
	}
	if n := rs.depth.Add(1); n > maxShellDepth {
		rs.depth.Add(-1)
		err := &LimitError{What: "nested shells", Limit: maxShellDepth}
		rs.cancel(err)
		return 1, err
	}
	defer rs.depth.Add(-1)

	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), arg0)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %s\n", prog, syntaxErrorText(err))
		return 2, nil
	}
	if err := rs.seal(file); err != nil {
		rs.cancel(err)
		return 1, err
	}
	var env []string
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			env = append(env, name+"="+vr.String())
		}
		return true
	})
	r, err := rs.newRunner(hc.Dir, env, hc.Stdin, hc.Stdout, hc.Stderr, interp.Params(append(opts, append([]string{"--"}, params...)...)...))
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %v\n", name, err)
		return 2, nil
	}
	status, err := exitStatus(r.Run(ctx, file))
	if err != nil && !errors.Is(err, ErrLimit) {
		if cause := context.Cause(ctx); cause != nil {
			return 1, cause
		}
	}
	return status, err
}

// bashUsage is what bash prints after an invalid option.
const bashUsage = `Usage:	%[1]s [GNU long option] [option] ...
	%[1]s [GNU long option] [option] script-file ...
GNU long options:
	--debug
	--debugger
	--dump-po-strings
	--dump-strings
	--help
	--init-file
	--login
	--noediting
	--noprofile
	--norc
	--posix
	--pretty-print
	--rcfile
	--restricted
	--verbose
	--version
Shell options:
	-ilrsD or -c command or -O shopt_option		(invocation only)
	-abefhkmnptuvxBCEHPT or -o option
`
