package gnu

import (
	"context"
	"path"

	"github.com/chromafs/chromafs/internal/getopt"
)

var rmdirSpec = getopt.Spec{
	Short: "pv",
	Long: append([]getopt.Long{
		{Name: "parents", Key: 'p'},
		{Name: "verbose", Key: 'v'},
		{Name: "ignore-fail-on-non-empty", Key: 'I' + 256},
	}, helpVersion...),
}

const rmdirHelp = `Usage: %s [OPTION]... DIRECTORY...
Remove the DIRECTORY(ies), if they are empty.

      --ignore-fail-on-non-empty
                    ignore each failure to remove a non-empty directory
  -p, --parents     remove DIRECTORY and its ancestors
  -v, --verbose     output a diagnostic for every directory processed
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: removing anything fails.
`

// Rmdir is GNU rmdir 9.1 on a read-only filesystem: every operand whose
// parent directory exists fails with "failed to remove 'x': Read-only
// file system" (a missing operand too, as the kernel checks the
// filesystem first), one whose parent is missing with that error;
// status 1.
func Rmdir(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "rmdir")
	_, operands, done, status := r.parse(&rmdirSpec, args, 1, rmdirHelp)
	if done {
		return status
	}
	if len(operands) == 0 {
		return r.usage(1, "missing operand")
	}
	if !r.open() {
		return r.finish(2)
	}
	for _, a := range operands {
		if r.stopped() {
			break
		}
		text := textNoEnt
		if name, ok := r.resolve(a); ok {
			text = r.createText(name)
			if name == "." || path.Base(name) == "." {
				text = textROFS
			}
		}
		if text == textExist {
			text = textROFS
		}
		r.warn("failed to remove %s: %s", quote(a), text)
	}
	return r.finish(1)
}
