package gnu

import (
	"context"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var mkdirSpec = getopt.Spec{
	Short: "m:pvZ",
	Long: append([]getopt.Long{
		{Name: "mode", Key: 'm', HasArg: getopt.RequiredArgument},
		{Name: "parents", Key: 'p'},
		{Name: "verbose", Key: 'v'},
	}, helpVersion...),
}

const mkdirHelp = `Usage: %s [OPTION]... DIRECTORY...
Create the DIRECTORY(ies), if they do not already exist.

Mandatory arguments to long options are mandatory for short options too.
  -m, --mode=MODE   set file mode (as in chmod), not a=rwx - umask
  -p, --parents     no error if existing, make parent directories as needed
  -v, --verbose     print a message for each created directory
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: creating anything fails.
`

// Mkdir is GNU mkdir 9.1 on a read-only filesystem: an existing operand
// is "File exists" (not an error with -p when it is a directory), a
// missing parent "No such file or directory" (with -p, the first missing
// directory fails instead), anything else "cannot create directory ‘x’:
// Read-only file system"; status 1 if any operand fails.
func Mkdir(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "mkdir")
	opts, operands, done, status := r.parse(&mkdirSpec, args, 1, mkdirHelp)
	if done {
		return status
	}
	parents := false
	for _, o := range opts {
		switch o.Key {
		case 'p':
			parents = true
		case 'm':
			if !validMode(o.Arg) {
				r.warn("invalid mode %s", localeQuote(o.Arg))
				return 1
			}
		}
	}
	if len(operands) == 0 {
		return r.usage(1, "missing operand")
	}
	if !r.open() {
		return r.finish(2)
	}
	st := 0
	for _, a := range operands {
		if r.stopped() {
			break
		}
		if !parents {
			fi, name, text := r.lookup(a)
			switch {
			case fi != nil:
				text = textExist
			case text == textNoEnt:
				text = r.createText(name)
			}
			r.warn("cannot create directory %s: %s", localeQuote(a), text)
			st = 1
			continue
		}
		// -p: each prefix of the operand in turn.
		parts := strings.Split(strings.TrimRight(a, "/"), "/")
		shown := ""
		for i, p := range parts {
			if i > 0 {
				shown += "/"
			}
			shown += p
			if p == "" || p == "." {
				continue
			}
			fi, name, text := r.lookup(shown)
			if fi != nil && fi.IsDir() {
				continue
			}
			switch {
			case fi != nil && i == len(parts)-1:
				text = textExist
			case fi != nil:
				text = textNotDir
			case text == textNoEnt:
				text = r.createText(name)
			}
			r.warn("cannot create directory %s: %s", localeQuote(shown), text)
			st = 1
			break
		}
	}
	return r.finish(st)
}
