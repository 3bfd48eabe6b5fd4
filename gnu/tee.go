package gnu

import (
	"context"
	"io"

	"github.com/chromafs/chromafs/internal/getopt"
)

var teeSpec = getopt.Spec{
	Short: "aip",
	Long: append([]getopt.Long{
		{Name: "append", Key: 'a'},
		{Name: "ignore-interrupts", Key: 'i'},
		{Name: "output-error", Key: 'E' + 256, HasArg: getopt.OptionalArgument},
	}, helpVersion...),
}

const teeHelp = `Usage: %s [OPTION]... [FILE]...
Copy standard input to each FILE, and also to standard output.

  -a, --append              append to the given FILEs, do not overwrite
  -i, --ignore-interrupts   ignore interrupt signals
  -p                        operate in a more appropriate mode with pipes
      --output-error[=MODE]   set behavior on write error
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: each FILE but /dev/null fails.
`

// Tee copies Env.Stdin to standard output, as GNU tee 9.1 does on a
// read-only filesystem: each FILE operand but /dev/null fails first
// ("tee: x: Read-only file system", or why its parent cannot hold it, or
// "Is a directory"), then the copy goes on; status 1 if any failed.
func Tee(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "tee")
	_, operands, done, status := r.parse(&teeSpec, args, 1, teeHelp)
	if done {
		return status
	}
	if !r.open() {
		return r.finish(2)
	}
	st := 0
	for _, a := range operands {
		if r.isDevNull(a) {
			continue
		}
		fi, name, text := r.lookup(a)
		switch {
		case fi != nil && fi.IsDir():
			text = textIsDir
		case fi != nil:
			text = textROFS
		case text == textNoEnt:
			text = r.createText(name)
		}
		r.warn("%s: %s", quotef(a), text)
		st = 1
	}
	if env.Stdin != nil {
		if _, err := io.Copy(r.out, readerCtx{r.ctx, env.Stdin}); err != nil && r.ctx.Err() == nil {
			r.warn("read error: %s", ErrText(err))
			st = 1
		}
	}
	return r.finish(st)
}

// readerCtx is a reader that stops when its context ends.
type readerCtx struct {
	ctx context.Context
	r   io.Reader
}

func (c readerCtx) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
