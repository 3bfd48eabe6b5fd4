package gnu

import (
	"context"
	"path"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var lnSpec = getopt.Spec{
	Short: "bdfFiLnPrst:Tv",
	Long: append([]getopt.Long{
		{Name: "force", Key: 'f'},
		{Name: "interactive", Key: 'i'},
		{Name: "no-dereference", Key: 'n'},
		{Name: "relative", Key: 'r'},
		{Name: "symbolic", Key: 's'},
		{Name: "target-directory", Key: 't', HasArg: getopt.RequiredArgument},
		{Name: "no-target-directory", Key: 'T'},
		{Name: "verbose", Key: 'v'},
	}, helpVersion...),
}

const lnHelp = `Usage: %s [OPTION]... [-T] TARGET LINK_NAME
  or:  %[1]s [OPTION]... TARGET
  or:  %[1]s [OPTION]... TARGET... DIRECTORY
  or:  %[1]s [OPTION]... -t DIRECTORY TARGET...
Create hard links by default, symbolic links with --symbolic.

  -f, --force                 remove existing destination files
  -n, --no-dereference        treat LINK_NAME as a normal file
  -s, --symbolic              make symbolic links instead of hard links
  -t, --target-directory=DIRECTORY  specify the DIRECTORY in which to create
                                the links
  -T, --no-target-directory   treat LINK_NAME as a normal file always
  -v, --verbose               print name of each linked file
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: linking fails.
`

// Ln is GNU ln 9.1 on a read-only filesystem: after checking the
// operands as ln does (a hard link's target must exist and not be a
// directory; with one operand the link goes in the working directory),
// each link fails with "failed to create hard link 'x': Read-only file
// system" (or "symbolic link"), "File exists" for an existing link name
// without -f, or why its parent cannot hold it; status 1.
func Ln(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "ln")
	opts, operands, done, status := r.parse(&lnSpec, args, 1, lnHelp)
	if done {
		return status
	}
	symbolic, force, targetDir, noTarget := false, false, "", false
	for _, o := range opts {
		switch o.Key {
		case 's':
			symbolic = true
		case 'f':
			force = true
		case 't':
			targetDir = o.Arg
		case 'T':
			noTarget = true
		}
	}
	if len(operands) == 0 {
		return r.usage(1, "missing file operand")
	}
	if !r.open() {
		return r.finish(2)
	}
	var sources []string
	target, intoDir := ".", true
	if len(operands) == 1 && targetDir == "" {
		sources = operands
	} else {
		var ok bool
		sources, target, intoDir, ok = r.target(operands, targetDir, noTarget)
		if !ok {
			return r.finish(1)
		}
	}
	kind := "hard link"
	if symbolic {
		kind = "symbolic link"
	}
	for _, s := range sources {
		if r.stopped() {
			break
		}
		if !symbolic {
			fi, _, text := r.lookup(s)
			if text != "" {
				r.warn("failed to access %s: %s", quote(s), text)
				continue
			}
			if fi.IsDir() {
				r.warn("%s: hard link not allowed for directory", s)
				continue
			}
		}
		dest := destination(s, target, intoDir)
		if target == "." && intoDir && len(operands) == 1 {
			dest = "./" + path.Base(strings.TrimRight(s, "/"))
		}
		dfi, dname, dtext := r.lookup(dest)
		switch {
		case dfi != nil && !force:
			r.warn("failed to create %s %s: %s", kind, quote(dest), textExist)
		case dfi != nil:
			r.warn("failed to create %s %s: %s", kind, quote(dest), textROFS)
		case dtext == textNoEnt && r.createText(dname) != textROFS:
			r.warn("failed to create %s %s => %s: %s", kind, quote(dest), quote(s), r.createText(dname))
		default:
			r.warn("failed to create %s %s: %s", kind, quote(dest), textROFS)
		}
	}
	return r.finish(1)
}
