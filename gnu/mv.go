package gnu

import (
	"context"

	"github.com/chromafs/chromafs/internal/getopt"
)

var mvSpec = getopt.Spec{
	Short: "bfint:TuvZ",
	Long: append([]getopt.Long{
		{Name: "force", Key: 'f'},
		{Name: "interactive", Key: 'i'},
		{Name: "no-clobber", Key: 'n'},
		{Name: "target-directory", Key: 't', HasArg: getopt.RequiredArgument},
		{Name: "no-target-directory", Key: 'T'},
		{Name: "update", Key: 'u'},
		{Name: "verbose", Key: 'v'},
	}, helpVersion...),
}

const mvHelp = `Usage: %s [OPTION]... [-T] SOURCE DEST
  or:  %[1]s [OPTION]... SOURCE... DIRECTORY
  or:  %[1]s [OPTION]... -t DIRECTORY SOURCE...
Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.

  -f, --force                  do not prompt before overwriting
  -n, --no-clobber             do not overwrite an existing file
  -t, --target-directory=DIRECTORY  move all SOURCE arguments into DIRECTORY
  -T, --no-target-directory    treat DEST as a normal file
  -v, --verbose                explain what is being done
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: moving anything fails.
`

// Mv is GNU mv 9.1 on a read-only filesystem: after checking the
// operands as mv does (missing operands, a target that must be a
// directory, "cannot stat" a missing source, "are the same file"), each
// move fails with "cannot move 'x' to 'y': Read-only file system", or
// why the destination's parent cannot hold it; status 1.
func Mv(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "mv")
	opts, operands, done, status := r.parse(&mvSpec, args, 1, mvHelp)
	if done {
		return status
	}
	targetDir, noTarget := "", false
	for _, o := range opts {
		switch o.Key {
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
	sources, target, intoDir, ok := r.target(operands, targetDir, noTarget)
	if !ok {
		return r.finish(1)
	}
	for _, s := range sources {
		if r.stopped() {
			break
		}
		_, name, text := r.lookup(s)
		if text != "" {
			r.warn("cannot stat %s: %s", quote(s), text)
			continue
		}
		dest := destination(s, target, intoDir)
		dfi, dname, dtext := r.lookup(dest)
		if dfi != nil && dname == name {
			r.warn("%s and %s are the same file", quote(s), quote(dest))
			continue
		}
		text = textROFS
		if dtext == textNoEnt {
			text = r.createText(dname)
		}
		r.warn("cannot move %s to %s: %s", quote(s), quote(dest), text)
	}
	return r.finish(1)
}
