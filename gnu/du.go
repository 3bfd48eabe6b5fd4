package gnu

import (
	"context"
	"io/fs"
	"path"
	"strconv"

	"github.com/chromafs/chromafs/internal/getopt"
)

const (
	keyApparent = 'A' + 256
	keyDuSi     = 'S' + 256
	keyMaxDepth = 'd'
)

var duSpec = getopt.Spec{
	Short: "abcd:hkmsS",
	Long: append([]getopt.Long{
		{Name: "all", Key: 'a'},
		{Name: "apparent-size", Key: keyApparent},
		{Name: "bytes", Key: 'b'},
		{Name: "total", Key: 'c'},
		{Name: "max-depth", Key: keyMaxDepth, HasArg: getopt.RequiredArgument},
		{Name: "human-readable", Key: 'h'},
		{Name: "si", Key: keyDuSi},
		{Name: "summarize", Key: 's'},
		{Name: "separate-dirs", Key: 'S'},
	}, helpVersion...),
}

const duHelp = `Usage: %s [OPTION]... [FILE]...
Summarize device usage of the set of FILEs, recursively for directories.

Mandatory arguments to long options are mandatory for short options too.
  -a, --all             write counts for all files, not just directories
      --apparent-size   print apparent sizes rather than device usage
  -b, --bytes           equivalent to '--apparent-size --block-size=1'
  -c, --total           produce a grand total
  -d, --max-depth=N     print the total for a directory (or file, with --all)
                          only if it is N or fewer levels below the command
                          line argument;  --max-depth=0 is the same as
                          --summarize
  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)
      --si              like -h, but use powers of 1000 not 1024
  -k                    like --block-size=1K
  -m                    like --block-size=1M
  -S, --separate-dirs   for directories do not include size of subdirectories
  -s, --summarize       display only a total for each argument
      --help        display this help and exit
      --version     output version information and exit
`

// Du prints the sizes of files and directories as GNU du 9.1 does with
// --apparent-size, which it always is: a collection has no blocks, so
// sizes are the files' lengths (a directory's own size is 0), printed in
// KiB rounded up (-k, the default), MiB (-m), bytes (-b), or -h / --si.
// Options: -a -b -c -d N -h -k -m -s -S --apparent-size --si. Entries come
// in name order.
func Du(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "du")
	opts, operands, done, status := r.parse(&duSpec, args, 1, duHelp)
	if done {
		return status
	}
	var (
		all, total, summarize, separate bool
		unit                            uint64 = 1024
		humanBase                       uint64
		maxDepth                        = -1
	)
	for _, o := range opts {
		switch o.Key {
		case 'a':
			all = true
		case 'b':
			unit, humanBase = 1, 0
		case 'c':
			total = true
		case keyMaxDepth:
			n, err := strconv.Atoi(o.Arg)
			if err != nil || n < 0 {
				r.warn("invalid maximum depth %s", localeQuote(o.Arg))
				r.tryHelp()
				return r.finish(1)
			}
			maxDepth = n
		case 'h':
			humanBase = 1024
		case keyDuSi:
			humanBase = 1000
		case 'k':
			unit, humanBase = 1024, 0
		case 'm':
			unit, humanBase = 1<<20, 0
		case 's':
			summarize = true
		case 'S':
			separate = true
		}
	}
	if summarize && all {
		r.warn("cannot both summarize and show all entries")
		r.tryHelp()
		return r.finish(1)
	}
	if summarize {
		if maxDepth > 0 {
			r.warn("warning: summarizing conflicts with --max-depth=%d", maxDepth)
			r.tryHelp()
			return r.finish(1)
		}
		maxDepth = 0
	}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	if !r.open() {
		return r.finish(1)
	}
	show := func(n uint64, name string) {
		var s string
		switch {
		case humanBase != 0:
			s = human(n, humanBase)
		default:
			s = strconv.FormatUint((n+unit-1)/unit, 10)
		}
		r.out.WriteString(s + "\t" + name + "\n")
	}
	st := 0
	var grand uint64
	// walk returns the size of name (shown as shown) and prints what is
	// at most maxDepth below the operand.
	var walk func(name, shown string, depth int, isDir bool, size int64) uint64
	walk = func(name, shown string, depth int, isDir bool, size int64) uint64 {
		if !isDir {
			n := uint64(max(size, 0))
			if (all || depth == 0) && (maxDepth < 0 || depth <= maxDepth) {
				show(n, shown)
			}
			return n
		}
		ents, err := fs.ReadDir(r.fsys, name)
		if err != nil {
			r.warn("cannot read directory %s: %s", quote(shown), ErrText(err))
			st = 1
		}
		var sum, sub uint64
		for _, e := range ents {
			if r.stopped() {
				break
			}
			var sz int64
			if !e.IsDir() {
				if fi, err := e.Info(); err == nil {
					sz = fi.Size()
				}
			}
			n := walk(path.Join(name, e.Name()), join(shown, e.Name()), depth+1, e.IsDir(), sz)
			if e.IsDir() {
				sub += n
			} else {
				sum += n
			}
		}
		shownSize := sum + sub
		if separate {
			shownSize = sum
		}
		if maxDepth < 0 || depth <= maxDepth {
			show(shownSize, shown)
		}
		return sum + sub
	}
	for _, a := range operands {
		if r.stopped() {
			break
		}
		name, ok := r.resolve(a)
		var fi fs.FileInfo
		var err error = fs.ErrNotExist
		if ok {
			fi, err = fs.Stat(r.fsys, name)
		}
		if err != nil {
			r.warn("cannot access %s: %s", quote(a), ErrText(err))
			st = 1
			continue
		}
		grand += walk(name, a, 0, fi.IsDir(), fi.Size())
	}
	if total {
		show(grand, "total")
	}
	return r.finish(st)
}
