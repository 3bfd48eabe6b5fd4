package gnu

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

const treeUsage = `usage: %s [-adfhirsU] [-L level] [--si] [--noreport] [--dirsfirst]
	[--filesfirst] [--help] [--version] [--] [directory ...]
`

const treeHelp = treeUsage + `  ------- Listing options -------
  -a            All files are listed.
  -d            List directories only.
  -f            Print the full path prefix for each file.
  -L level      Descend only level directories deep.
  -s            Print the size in bytes of each file.
  -h            Print the size in a more human readable way.
  --si          Like -h, but use in SI units (powers of 1000).
  --noreport    Turn off file/directory count at end of tree listing.
  ------- Sorting options -------
  -U            Leave files unsorted.
  -r            Reverse the order of the sort.
  --dirsfirst   List directories before files (-U disables).
  --filesfirst  List files before directories (-U disables).
  ------- Graphics options -------
  -i            Don't print indentation lines.
  -n            Turn colorization off always (accepted; there is no color).
  ------- Miscellaneous options -------
  --version     Print version and exit.
  --help        Print usage and this help message and exit.
  --            Options processing terminator.
`

type treeOptions struct {
	all, dirsOnly, fullPath, noIndent, noReport, reverse, unsorted bool
	dirsFirst, filesFirst                                          bool
	sizes, human, si                                               bool // -s, -h, --si
	level                                                          int  // deepest level listed, from 1; 0: no limit
}

// Tree prints directory trees as tree 2.1 does with its default UTF-8
// line graphics (whose vertical line is followed by two no-break spaces) and no color: each operand (the current directory by
// default) and everything below it, then a report "N directories, M
// files", where the directories include the operands themselves.
// Options: -a -d -f -h -i -L level -n -r -s -U --si --noreport
// --dirsfirst --filesfirst. Like tree 2.1 it parses its own options: clustered short
// flags, -L taking the next argument (never an attached one), long
// options spelled out in full, and "--".
//
// An operand that is not a directory prints as "name  [error opening
// dir]"; a file counts as a file, a missing operand makes the status 2.
// Usage errors print tree's usage and return 1.
func Tree(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "tree")
	o, operands, done, status := r.parseTree(args)
	if done {
		return status
	}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	if !r.open() {
		return r.finish(2)
	}
	t := &treeWalk{run: r, o: o}
	for _, a := range operands {
		if r.stopped() {
			break
		}
		t.root(a)
	}
	if !o.noReport {
		if o.dirsOnly {
			fmt.Fprintf(r.out, "\n%d %s\n", t.dirs, plural(t.dirs, "directory", "directories"))
		} else {
			fmt.Fprintf(r.out, "\n%d %s, %d %s\n", t.dirs, plural(t.dirs, "directory", "directories"), t.files, plural(t.files, "file", "files"))
		}
	}
	return r.finish(t.status)
}

// parseTree parses tree 2.1's arguments; done is true when the command
// should return status now (--help, --version, a usage error).
func (r *run) parseTree(args []string) (o treeOptions, operands []string, done bool, status int) {
	opts := true
	for n := 0; n < len(args); n++ {
		a := args[n]
		if !opts || len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			continue
		}
		if a[1] == '-' {
			switch a {
			case "--":
				opts = false
			case "--help":
				r.help(treeHelp)
				return o, nil, true, r.finish(0)
			case "--version":
				r.version()
				return o, nil, true, 0
			case "--noreport":
				o.noReport = true
			case "--dirsfirst":
				o.dirsFirst, o.filesFirst = true, false
			case "--si":
				o.sizes, o.si = true, true
			case "--filesfirst":
				o.filesFirst, o.dirsFirst = true, false
			default:
				r.warn("Invalid argument `%s'.", a)
				return o, nil, true, r.treeUsage()
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'a':
				o.all = true
			case 'd':
				o.dirsOnly = true
			case 'f':
				o.fullPath = true
			case 'i':
				o.noIndent = true
			case 'n', 'N':
			case 'r':
				o.reverse = true
			case 's':
				o.sizes = true
			case 'h':
				o.sizes, o.human = true, true
			case 'U':
				o.unsorted = true
			case 'L':
				n++
				if n >= len(args) {
					r.warn("Missing argument to -L option.")
					return o, nil, true, r.finish(1)
				}
				lvl := strtoul(args[n])
				if lvl < 1 {
					r.warn("Invalid level, must be greater than 0.")
					return o, nil, true, r.finish(1)
				}
				o.level = lvl
			default:
				r.warn("Invalid argument -`%c'.", a[j])
				return o, nil, true, r.treeUsage()
			}
		}
	}
	return o, operands, false, 0
}

func (r *run) treeUsage() int {
	r.out.Flush()
	fmt.Fprintf(r.env.Stderr, treeUsage, r.prog)
	return r.finish(1)
}

// strtoul reads a number as C's strtoul(s, NULL, 0) does, which tree uses
// for -L: leading blanks and sign, 0x hex, 0 octal, and whatever follows
// the digits ignored. It saturates instead of overflowing.
func strtoul(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := 10
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isHex(s[2]):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base = 8
	}
	n := 0
	for _, c := range []byte(s) {
		d, err := strconv.ParseUint(string(c), base, 8)
		if err != nil {
			break
		}
		if n > (1<<31)/base {
			n = 1 << 31
			continue
		}
		n = n*base + int(d)
	}
	if neg {
		return -n
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

type treeWalk struct {
	*run
	o           treeOptions
	dirs, files int
	status      int
}

func (t *treeWalk) root(a string) {
	name, ok := t.resolve(a)
	var fi fs.FileInfo
	err := fs.ErrNotExist
	if ok {
		fi, err = fs.Stat(t.fsys, name)
	}
	switch {
	case err != nil:
		fmt.Fprintf(t.out, "%s  [error opening dir]\n", a)
		t.status = 2
		return
	case !fi.IsDir():
		fmt.Fprintf(t.out, "%s%s  [error opening dir]\n", t.size(fi), a)
		if !t.o.dirsOnly {
			t.files++
		}
		return
	}
	fmt.Fprintf(t.out, "%s%s\n", t.size(fi), a)
	// tree 2.1 counts an operand directory only when it lists something.
	if t.walk(name, a, "", 1) > 0 {
		t.dirs++
	}
}

// walk prints the entries of dir (an fs.FS name; shown is its path as
// printed with -f) at depth level, and returns how many it printed.
func (t *treeWalk) walk(dir, shown, indent string, level int) int {
	entries, err := fs.ReadDir(t.fsys, dir)
	if err != nil {
		return 0
	}
	kept := entries[:0]
	for _, e := range entries {
		if (!t.o.all && strings.HasPrefix(e.Name(), ".")) || (t.o.dirsOnly && !e.IsDir()) {
			continue
		}
		kept = append(kept, e)
	}
	entries = kept
	t.sort(entries)
	for i, e := range entries {
		if t.stopped() {
			return i
		}
		last := i == len(entries)-1
		branch, next := "├── ", "│\u00a0\u00a0 "
		if last {
			branch, next = "└── ", "    "
		}
		if t.o.noIndent {
			branch, next = "", ""
		}
		label := e.Name()
		if t.o.fullPath {
			label = join(shown, e.Name())
		}
		size := ""
		if t.o.sizes {
			if fi, err := e.Info(); err == nil {
				size = t.size(fi)
			} else {
				size = "[?]  "
			}
		}
		fmt.Fprintf(t.out, "%s%s%s%s\n", indent, branch, size, label)
		if !e.IsDir() {
			t.files++
			continue
		}
		t.dirs++
		if t.o.level == 0 || level < t.o.level {
			t.walk(joinName(dir, e.Name()), join(shown, e.Name()), indent+next, level+1)
		}
	}
	return len(entries)
}

// size is the "[size]  " prefix of -s, -h and --si, as tree 2.1 prints
// it: bytes in 11 columns; with -h or --si (powers of 1024 or 1000) bytes
// in 4 columns below one unit, else one decimal below ten units and none
// from ten, rounded as C's printf rounds a float.
func (t *treeWalk) size(fi fs.FileInfo) string {
	if !t.o.sizes {
		return ""
	}
	n := max(fi.Size(), 0)
	if !t.o.human && !t.o.si {
		return fmt.Sprintf("[%11d]  ", n)
	}
	units, base := "BKMGTPEZY", int64(1024)
	if t.o.si {
		units, base = "BkMGTPEZY", 1000
	}
	idx := 0
	if n >= base {
		idx = 1
	}
	for ; n >= base*base; idx++ {
		n /= base
	}
	if idx == 0 {
		return fmt.Sprintf("[%4d]  ", n)
	}
	f := float32(n) / float32(base)
	format := "[%3.1f%c]  "
	if n/base >= 10 {
		format = "[%3.0f%c]  "
	}
	return fmt.Sprintf(format, f, units[idx])
}

// sort orders entries as tree does: by name (byte order in the C.UTF-8
// locale), reversed by -r, directories or files first if asked; -U keeps
// the filesystem's order.
func (t *treeWalk) sort(entries []fs.DirEntry) {
	if t.o.unsorted {
		return
	}
	slices.SortStableFunc(entries, func(a, b fs.DirEntry) int {
		if t.o.dirsFirst && a.IsDir() != b.IsDir() {
			return map[bool]int{true: -1, false: 1}[a.IsDir()]
		}
		if t.o.filesFirst && a.IsDir() != b.IsDir() {
			return map[bool]int{true: 1, false: -1}[a.IsDir()]
		}
		c := strings.Compare(a.Name(), b.Name())
		if t.o.reverse {
			c = -c
		}
		return c
	})
}
