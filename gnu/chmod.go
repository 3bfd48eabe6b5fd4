package gnu

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

const keyReference = 'F' + 256

var chmodSpec = getopt.Spec{
	Short: "fR",
	Long: append([]getopt.Long{
		{Name: "silent", Key: 'f'},
		{Name: "quiet", Key: 'f'},
		{Name: "recursive", Key: 'R'},
		{Name: "reference", Key: keyReference, HasArg: getopt.RequiredArgument},
		{Name: "preserve-root", Key: 'P' + 256},
		{Name: "no-preserve-root", Key: 'N' + 256},
	}, helpVersion...),
}

const chmodHelp = `Usage: %s [OPTION]... MODE[,MODE]... FILE...
  or:  %[1]s [OPTION]... OCTAL-MODE FILE...
  or:  %[1]s [OPTION]... --reference=RFILE FILE...
Change the mode of each FILE to MODE.
With --reference, change the mode of each FILE to that of RFILE.

  -f, --silent, --quiet  suppress most error messages
      --reference=RFILE  use RFILE's mode instead of MODE values
  -R, --recursive        change files and directories recursively
      --help        display this help and exit
      --version     output version information and exit

Each MODE is of the form '[ugoa]*([-+=]([rwxXst]*|[ugo]))+|[-+=][0-7]+'.

The filesystem is read-only: changing a mode fails.
`

// Chmod is GNU chmod 9.1 on a read-only filesystem: it checks the mode
// as chmod does ("invalid mode: ‘x’"), then reports each operand,
// "changing permissions of 'x': Read-only file system" (with -R, each
// file below a directory after it, in name order) or "cannot access 'x':
// No such file or directory"; status 1. -f silences the first message,
// not the status. -c and -v are not supported.
func Chmod(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "chmod")
	// A mode such as -w looks like an option: take it out first, as
	// chmod does.
	mode, modeAt := "", -1
	for i, a := range args {
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXstugoa,+-=01234567") == "" {
			mode, modeAt = a, i
			break
		}
	}
	rest := args
	if modeAt >= 0 {
		rest = append(append([]string(nil), args[:modeAt]...), args[modeAt+1:]...)
	}
	opts, operands, done, status := r.parse(&chmodSpec, rest, 1, chmodHelp)
	if done {
		return status
	}
	silent, recursive, reference := false, false, ""
	for _, o := range opts {
		switch o.Key {
		case 'f':
			silent = true
		case 'R':
			recursive = true
		case keyReference:
			reference = o.Arg
		}
	}
	if mode == "" && reference == "" {
		if len(operands) == 0 {
			return r.usage(1, "missing operand")
		}
		mode, operands = operands[0], operands[1:]
	}
	if len(operands) == 0 {
		if reference != "" || mode == "" {
			return r.usage(1, "missing operand")
		}
		return r.usage(1, "missing operand after %s", localeQuote(mode))
	}
	if reference == "" && !validMode(mode) {
		return r.usage(1, "invalid mode: %s", localeQuote(mode))
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
	var walk func(shown, name string, fi fs.FileInfo)
	walk = func(shown, name string, fi fs.FileInfo) {
		if !silent {
			r.warn("changing permissions of %s: %s", quote(shown), textROFS)
		}
		if !recursive || !fi.IsDir() {
			return
		}
		entries, err := fs.ReadDir(r.fsys, name)
		if err != nil {
			return
		}
		for _, e := range entries {
			if r.stopped() {
				return
			}
			if info, err := e.Info(); err == nil {
				walk(join(shown, e.Name()), path.Join(name, e.Name()), info)
			}
		}
	}
	for _, a := range operands {
		if r.stopped() {
			break
		}
		fi, name, text := r.lookup(a)
		if text != "" {
			if !silent {
				r.warn("cannot access %s: %s", quote(a), text)
			}
			continue
		}
		walk(a, name, fi)
	}
	return r.finish(1)
}

// validMode reports whether chmod and mkdir -m accept mode: an octal
// number up to 07777, or symbolic clauses [ugoa]*([-+=]([rwxXst]*|[ugo]))+
// separated by commas (an operator may also take an octal number).
func validMode(mode string) bool {
	if mode != "" && strings.Trim(mode, "01234567") == "" {
		return len(strings.TrimLeft(mode, "0")) <= 4
	}
	for _, clause := range strings.Split(mode, ",") {
		c := strings.TrimLeft(clause, "ugoa")
		if c == "" {
			return false
		}
		for c != "" {
			if strings.IndexByte("-+=", c[0]) < 0 {
				return false
			}
			c = c[1:]
			switch {
			case c != "" && isDigit(c[0]):
				n := len(c) - len(strings.TrimLeft(c, "01234567"))
				if n > 4 {
					return false
				}
				c = c[n:]
			case c != "" && strings.IndexByte("ugo", c[0]) >= 0:
				c = c[1:]
			default:
				c = strings.TrimLeft(c, "rwxXst")
			}
		}
	}
	return true
}
