package gnu

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var rmSpec = getopt.Spec{
	Short: "dfirRv",
	Long: append([]getopt.Long{
		{Name: "dir", Key: 'd'},
		{Name: "force", Key: 'f'},
		{Name: "interactive", Key: 'i'},
		{Name: "recursive", Key: 'r'},
		{Name: "verbose", Key: 'v'},
		{Name: "preserve-root", Key: 'P' + 256},
		{Name: "one-file-system", Key: 'O' + 256},
	}, helpVersion...),
}

const rmHelp = `Usage: %s [OPTION]... [FILE]...
Remove (unlink) the FILE(s).

  -f, --force           ignore nonexistent files and arguments, never prompt
  -i                    prompt before every removal
  -r, -R, --recursive   remove directories and their contents recursively
  -d, --dir             remove empty directories
  -v, --verbose         explain what is being done
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: removing anything fails.
`

// Rm is GNU rm 9.1 on a read-only filesystem: it removes nothing and
// prints what rm prints there ("rm: cannot remove 'x': Read-only file
// system", status 1): a missing operand is reported unless -f, a
// directory needs -r or -d, and -r reports every file below a directory
// and every empty directory, in name order (GNU rm goes in directory
// order). -i asks on standard error before each file that is not a
// directory and reads the answer from Env.Stdin (y or Y is yes); it does
// not ask for directories. -I is not supported.
func Rm(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "rm")
	opts, operands, done, status := r.parse(&rmSpec, args, 1, rmHelp)
	if done {
		return status
	}
	force, recursive, dirs, interactive := false, false, false, false
	for _, o := range opts {
		switch o.Key {
		case 'f':
			force, interactive = true, false
		case 'i':
			interactive, force = true, false
		case 'r', 'R':
			recursive = true
		case 'd':
			dirs = true
		}
	}
	if len(operands) == 0 {
		if force {
			return 0
		}
		return r.usage(1, "missing operand")
	}
	if !r.open() {
		return r.finish(2)
	}
	var answers *bufio.Reader
	if interactive && env.Stdin != nil {
		answers = bufio.NewReader(env.Stdin)
	}
	st := 0
	for _, a := range operands {
		if r.stopped() {
			break
		}
		if recursive && strings.Trim(a, "/") == "" {
			r.warn("it is dangerous to operate recursively on %s", quote(a))
			r.warn("use --no-preserve-root to override this failsafe")
			st = 1
			continue
		}
		if base := path.Base(strings.TrimRight(a, "/")); recursive && (base == "." || base == "..") {
			r.warn("refusing to remove '.' or '..' directory: skipping %s", quote(a))
			st = 1
			continue
		}
		fi, name, text := r.lookup(a)
		switch {
		case (text == textNoEnt || text == textNotDir) && force:
			continue
		case text != "":
			r.warn("cannot remove %s: %s", quote(a), text)
		case fi.IsDir() && recursive && name == ".":
			r.warn("it is dangerous to operate recursively on %s", quote(a))
			r.warn("use --no-preserve-root to override this failsafe")
		case fi.IsDir() && recursive:
			r.removeTree(a, name)
		case fi.IsDir() && !dirs:
			r.warn("cannot remove %s: %s", quote(a), textIsDir)
		default:
			if interactive && !r.confirm(answers, fi, a) {
				continue
			}
			r.warn("cannot remove %s: %s", quote(a), textROFS)
		}
		st = 1
	}
	return r.finish(st)
}

// removeTree reports what rm -r fails to remove below a directory: its
// files, and the directory itself when it is empty.
func (r *run) removeTree(shown, name string) {
	entries, err := fs.ReadDir(r.fsys, name)
	if err != nil {
		r.warn("cannot remove %s: %s", quote(shown), ErrText(err))
		return
	}
	if len(entries) == 0 {
		r.warn("cannot remove %s: %s", quote(shown), textROFS)
		return
	}
	for _, e := range entries {
		if r.stopped() {
			return
		}
		child := join(shown, e.Name())
		if e.IsDir() {
			r.removeTree(child, path.Join(name, e.Name()))
			continue
		}
		r.warn("cannot remove %s: %s", quote(child), textROFS)
	}
}

// confirm asks whether to remove a file, as rm -i does, and reports
// whether the answer read from standard input is yes.
func (r *run) confirm(answers *bufio.Reader, fi fs.FileInfo, a string) bool {
	kind := "regular file"
	if fi.Size() == 0 {
		kind = "regular empty file"
	}
	r.out.Flush()
	fmt.Fprintf(r.env.Stderr, "%s: remove %s %s? ", r.prog, kind, quote(a))
	if answers == nil {
		return false
	}
	line, _ := answers.ReadString('\n')
	return strings.HasPrefix(line, "y") || strings.HasPrefix(line, "Y")
}
