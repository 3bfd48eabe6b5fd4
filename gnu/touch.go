package gnu

import (
	"context"

	"github.com/chromafs/chromafs/internal/getopt"
)

var touchSpec = getopt.Spec{
	Short: "acd:fhmr:t:",
	Long: append([]getopt.Long{
		{Name: "no-create", Key: 'c'},
		{Name: "date", Key: 'd', HasArg: getopt.RequiredArgument},
		{Name: "no-dereference", Key: 'h'},
		{Name: "reference", Key: 'r', HasArg: getopt.RequiredArgument},
		{Name: "time", Key: 'T' + 256, HasArg: getopt.RequiredArgument},
	}, helpVersion...),
}

const touchHelp = `Usage: %s [OPTION]... FILE...
Update the access and modification times of each FILE to the current time.

A FILE argument that does not exist is created empty, unless -c or -h
is supplied.

Mandatory arguments to long options are mandatory for short options too.
  -a                     change only the access time
  -c, --no-create        do not create any files
  -d, --date=STRING      parse STRING and use it instead of current time
  -f                     (ignored)
  -h, --no-dereference   affect each symbolic link instead of any referenced
                         file
  -m                     change only the modification time
  -r, --reference=FILE   use this file's times instead of current time
  -t STAMP               use [[CC]YY]MMDDhhmm[.ss] instead of current time
      --time=WORD        change the specified time
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: touching anything fails.
`

// Touch is GNU touch 9.1 on a read-only filesystem: a file that exists
// fails with "cannot touch 'x': Read-only file system" ("setting times
// of 'x'" for a directory, or with -c or -h), one that does not with the
// same error, or its missing parent's, and not at all with -c; status 1
// if any operand fails. The values of -d, -t and --time are not checked.
func Touch(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "touch")
	opts, operands, done, status := r.parse(&touchSpec, args, 1, touchHelp)
	if done {
		return status
	}
	noCreate, reference := false, ""
	for _, o := range opts {
		switch o.Key {
		case 'c', 'h':
			noCreate = true
		case 'r':
			reference = o.Arg
		}
	}
	if len(operands) == 0 {
		return r.usage(1, "missing file operand")
	}
	if !r.open() {
		return r.finish(2)
	}
	if reference != "" {
		if _, _, text := r.lookup(reference); text != "" {
			r.warn("failed to get attributes of %s: %s", quote(reference), text)
			return r.finish(1)
		}
	}
	st := 0
	for _, a := range operands {
		if r.stopped() {
			break
		}
		if r.isDevNull(a) {
			continue
		}
		fi, name, text := r.lookup(a)
		switch {
		case fi != nil && (fi.IsDir() || noCreate):
			r.warn("setting times of %s: %s", quote(a), textROFS)
		case fi != nil:
			r.warn("cannot touch %s: %s", quote(a), textROFS)
		case noCreate && text == textNoEnt:
			continue
		case text == textNoEnt:
			r.warn("cannot touch %s: %s", quote(a), r.createText(name))
		default:
			r.warn("cannot touch %s: %s", quote(a), text)
		}
		st = 1
	}
	return r.finish(st)
}
