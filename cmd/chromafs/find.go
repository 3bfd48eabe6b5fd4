package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/gobwas/glob"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// findExpr is the subset of find(1)'s expression that chromafs supports:
// tests joined by an implicit -a, each of which may be negated with ! or
// -not.
type findExpr struct {
	tests    []findTest
	minDepth int
	maxDepth int // -1: no limit
}

type findTest struct {
	negate bool
	match  func(rel string, d fs.DirEntry) bool
}

// parseFind splits find's arguments into start paths and an expression,
// as GNU find does: paths come first, the expression starts at the first
// argument that begins with "-" or is "!" or "(".
func parseFind(args []string) (paths []string, e findExpr, err error) {
	e.maxDepth = -1
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if (strings.HasPrefix(a, "-") && a != "-") || a == "!" || a == "(" {
			break
		}
		paths = append(paths, a)
	}
	negate := false
	need := func(opt string) (string, error) {
		if i+1 >= len(args) {
			return "", fmt.Errorf("missing argument to `%s'", opt)
		}
		i++
		return args[i], nil
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch a {
		case "!", "-not":
			negate = !negate
			continue
		case "-a", "-and", "-print":
			continue
		case "-name", "-iname", "-path", "-ipath", "-wholename":
			pat, err := need(a)
			if err != nil {
				return nil, e, err
			}
			fold := a == "-iname" || a == "-ipath"
			if fold {
				pat = strings.ToLower(pat)
			}
			// fnmatch(3) without FNM_PATHNAME, as find uses it: * and ?
			// match "/" too.
			g, err := glob.Compile(pat)
			if err != nil {
				return nil, e, fmt.Errorf("invalid pattern for %s: %q: %v", a, pat, err)
			}
			onName := a == "-name" || a == "-iname"
			e.tests = append(e.tests, findTest{negate: negate, match: func(rel string, d fs.DirEntry) bool {
				s := rel
				if onName {
					s = path.Base(rel)
				}
				if fold {
					s = strings.ToLower(s)
				}
				return g.Match(s)
			}})
		case "-type":
			t, err := need(a)
			if err != nil {
				return nil, e, err
			}
			var wantDir bool
			switch t {
			case "f":
			case "d":
				wantDir = true
			default:
				return nil, e, fmt.Errorf("unknown argument to -type: %s", t)
			}
			e.tests = append(e.tests, findTest{negate: negate, match: func(_ string, d fs.DirEntry) bool {
				return d.IsDir() == wantDir
			}})
		case "-maxdepth", "-mindepth":
			v, err := need(a)
			if err != nil {
				return nil, e, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, e, fmt.Errorf("expected a positive decimal integer argument to %s, but got `%s'", a, v)
			}
			if a == "-maxdepth" {
				e.maxDepth = n
			} else {
				e.minDepth = n
			}
		case "-o", "-or", "(", ")", ",":
			return nil, e, fmt.Errorf("operator %s is not supported", a)
		default:
			if strings.HasPrefix(a, "-") {
				return nil, e, fmt.Errorf("unknown predicate `%s'", a)
			}
			return nil, e, fmt.Errorf("paths must precede expression: `%s'", a)
		}
		negate = false
	}
	if negate {
		return nil, e, fmt.Errorf("expected an expression after '!'")
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	return paths, e, nil
}

// find walks each start path in name order and prints what matches, as
// GNU find with -print does. "." as a start path means the root, printed
// as ".".
func find(fsys fs.FS, w, stderr io.Writer, args []string) error {
	paths, expr, err := parseFind(args)
	if err != nil {
		fmt.Fprintf(stderr, "find: %v\n", err)
		return exitError{1}
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	status := 0
	for _, start := range paths {
		root := resolve(start)
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				bw.Flush()
				fmt.Fprintf(stderr, "find: '%s': %s\n", display(start, rel(root, p)), errText(err))
				status = 1
				return nil
			}
			depth := 0
			if r := rel(root, p); r != "." {
				depth = strings.Count(r, "/") + 1
			}
			if expr.maxDepth >= 0 && depth > expr.maxDepth {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if disp := display(start, rel(root, p)); depth >= expr.minDepth && expr.matches(disp, d) {
				fmt.Fprintln(bw, disp)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if status != 0 {
		return exitError{status}
	}
	return nil
}

// matches reports whether every test accepts the entry; disp is the path
// as find prints it, which -path matches against.
func (e findExpr) matches(disp string, d fs.DirEntry) bool {
	for _, t := range e.tests {
		if t.match(disp, d) == t.negate {
			return false
		}
	}
	return true
}

// rel returns p relative to root, both fs.FS names.
func rel(root, p string) string {
	if root == "." || root == p {
		if root == p {
			return "."
		}
		return p
	}
	return strings.TrimPrefix(p, root+"/")
}

// takeGlobals moves the global flags (and -h/--help) out of the arguments
// of a command that parses its own flags, and applies them.
func takeGlobals(cmd *cobra.Command, args []string) (rest []string, help bool, err error) {
	flags := cmd.InheritedFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" {
			return nil, true, nil
		}
		next, ok, err := takeGlobal(flags, args, i)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			rest = append(rest, a)
			continue
		}
		i = next
	}
	return rest, false, nil
}

// takeGlobal applies args[i] if it is a global flag ("--name=value",
// "--name value", or "--name" alone for a boolean) and returns the index
// of the last argument it took; ok is false when args[i] is not a global
// flag.
func takeGlobal(flags *pflag.FlagSet, args []string, i int) (last int, ok bool, err error) {
	a := args[i]
	if !strings.HasPrefix(a, "--") || a == "--" {
		return i, false, nil
	}
	name, value, hasValue := strings.Cut(a[2:], "=")
	f := flags.Lookup(name)
	if f == nil {
		return i, false, nil
	}
	if !hasValue && f.NoOptDefVal != "" {
		// A boolean flag (--cloud-limits) takes no argument.
		value, hasValue = f.NoOptDefVal, true
	}
	if !hasValue {
		if i+1 >= len(args) {
			return i, false, fmt.Errorf("flag needs an argument: --%s", name)
		}
		i++
		value = args[i]
	}
	if err := flags.Set(name, value); err != nil {
		return i, false, fmt.Errorf("invalid argument %q for --%s: %v", value, name, err)
	}
	return i, true, nil
}
