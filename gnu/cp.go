package gnu

import (
	"context"
	"fmt"
	"io/fs"
	"path"

	"github.com/chromafs/chromafs/internal/getopt"
)

var cpSpec = getopt.Spec{
	Short: "adfHilLnPprRst:TuvxZ",
	Long: append([]getopt.Long{
		{Name: "archive", Key: 'a'},
		{Name: "force", Key: 'f'},
		{Name: "interactive", Key: 'i'},
		{Name: "no-clobber", Key: 'n'},
		{Name: "recursive", Key: 'r'},
		{Name: "target-directory", Key: 't', HasArg: getopt.RequiredArgument},
		{Name: "no-target-directory", Key: 'T'},
		{Name: "update", Key: 'u'},
		{Name: "verbose", Key: 'v'},
		{Name: "preserve", Key: 'p' + 256, HasArg: getopt.OptionalArgument},
	}, helpVersion...),
}

const cpHelp = `Usage: %s [OPTION]... [-T] SOURCE DEST
  or:  %[1]s [OPTION]... SOURCE... DIRECTORY
  or:  %[1]s [OPTION]... -t DIRECTORY SOURCE...
Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.

  -a, --archive                same as -dR --preserve=all
  -f, --force                  (ignored)
  -n, --no-clobber             do not overwrite an existing file
  -R, -r, --recursive          copy directories recursively
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY
  -T, --no-target-directory    treat DEST as a normal file
  -v, --verbose                explain what is being done
      --help        display this help and exit
      --version     output version information and exit

The filesystem is read-only: copying anything fails.
`

// Cp is GNU cp 9.1 on a read-only filesystem: after checking the
// operands as cp does (missing operands, a target that must be a
// directory, "cannot stat" a missing source, "-r not specified; omitting
// directory", "are the same file"), each copy fails with "cannot create
// regular file 'x': Read-only file system" or "cannot create directory
// 'x'" (with -r, files into a directory that exists, in name order);
// status 1.
func Cp(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "cp")
	opts, operands, done, status := r.parse(&cpSpec, args, 1, cpHelp)
	if done {
		return status
	}
	recursive, verbose, targetDir, noTarget := false, false, "", false
	for _, o := range opts {
		switch o.Key {
		case 'r', 'R', 'a':
			recursive = true
		case 'v':
			verbose = true
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
		fi, name, text := r.lookup(s)
		if text != "" {
			r.warn("cannot stat %s: %s", quote(s), text)
			continue
		}
		if fi.IsDir() && !recursive {
			r.warn("-r not specified; omitting directory %s", quote(s))
			continue
		}
		dest := destination(s, target, intoDir)
		if dn, ok := r.resolve(dest); ok && dn == name {
			r.warn("%s and %s are the same file", quote(s), quote(dest))
			continue
		}
		r.copyFails(s, name, fi, dest, verbose)
	}
	return r.finish(1)
}

// copyFails reports how copying source (fs.FS name name) to dest fails.
func (r *run) copyFails(shown, name string, fi fs.FileInfo, dest string, verbose bool) {
	dfi, dname, dtext := r.lookup(dest)
	if verbose {
		r.out.WriteString(fmt.Sprintf("%s -> %s\n", quote(shown), quote(dest)))
	}
	if !fi.IsDir() {
		text := textROFS
		if dtext == textNoEnt {
			text = r.createText(dname)
		} else if dfi != nil && dfi.IsDir() {
			r.warn("cannot overwrite directory %s with non-directory", quote(dest))
			return
		}
		r.warn("cannot create regular file %s: %s", quote(dest), text)
		return
	}
	if dfi == nil {
		text := textROFS
		if dtext == textNoEnt {
			text = r.createText(dname)
		}
		r.warn("cannot create directory %s: %s", quote(dest), text)
		return
	}
	if !dfi.IsDir() {
		r.warn("cannot overwrite non-directory %s with directory %s", quote(dest), quote(shown))
		return
	}
	entries, err := fs.ReadDir(r.fsys, name)
	if err != nil {
		r.warn("cannot access %s: %s", quote(shown), ErrText(err))
		return
	}
	for _, e := range entries {
		if r.stopped() {
			return
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		r.copyFails(join(shown, e.Name()), path.Join(name, e.Name()), info, join(dest, e.Name()), verbose)
	}
}
