package gnu

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromafs/chromafs/internal/getopt"
)

var lsSpec = getopt.Spec{
	Short: "1aAdFghlmnoprQRStUX",
	Long: append([]getopt.Long{
		{Name: "quote-name", Key: 'Q'},
		{Name: "all", Key: 'a'},
		{Name: "almost-all", Key: 'A'},
		{Name: "directory", Key: 'd'},
		{Name: "classify", Key: 'F'},
		{Name: "human-readable", Key: 'h'},
		{Name: "si", Key: 's' + 256},
		{Name: "indicator-style", HasArg: getopt.RequiredArgument, Key: 'i' + 256},
		{Name: "reverse", Key: 'r'},
		{Name: "recursive", Key: 'R'},
		{Name: "numeric-uid-gid", Key: 'n'},
		{Name: "group-directories-first", Key: 'g' + 256},
		{Name: "color", HasArg: getopt.OptionalArgument, Key: 'c' + 256},
	}, helpVersion...),
}

const lsHelp = `Usage: %s [OPTION]... [FILE]...
List information about the FILEs (the current directory by default).
Entries are sorted by name (byte order) unless -S, -t or -U is given.

  -a, --all                  do not ignore entries starting with .
  -A, --almost-all           do not list implied . and ..
  -d, --directory            list directories themselves, not their contents
  -F, --classify             append indicator (one of */=@|) to entries
  -g                         like -l, but do not list owner
  -h, --human-readable       with -l, print sizes like 1K 234M 2G etc.
      --si                   likewise, but use powers of 1000 not 1024
      --indicator-style=WORD  append indicator with style WORD to entry names:
                               none (default), slash (-p), classify (-F)
      --color[=WHEN]         accepted for never, auto and tty: output is never
                               colored
      --group-directories-first  group directories before files
  -l                         use a long listing format
  -m                         fill width with a comma separated list of entries
  -n, --numeric-uid-gid      like -l, but list numeric user and group IDs (0)
  -o                         like -l, but do not list group information
  -p                         append / indicator to directories
  -Q, --quote-name           enclose entry names in double quotes
  -r, --reverse              reverse order while sorting
  -R, --recursive            list subdirectories recursively
  -S                         sort by file size, largest first
  -t                         sort by modification time, newest first
  -U                         do not sort; list entries in directory order
  -X                         sort alphabetically by entry extension
  -1                         list one file per line (always, as output is not
                               a terminal)
      --help        display this help and exit
      --version     output version information and exit

Exit status:
 0  if OK,
 1  if minor problems (e.g., cannot access subdirectory),
 2  if serious trouble (e.g., cannot access command-line argument).
`

type lsSort int

const (
	sortName lsSort = iota
	sortSize
	sortTime
	sortNone
	sortExt
)

type lsOptions struct {
	all, almostAll, directory, recursive, reverse, long bool
	noOwner, noGroup, numeric, dirsFirst                bool
	humanBase                                           uint64 // 0: exact sizes
	indicator                                           int    // 0 none, 1 slash, 2 classify
	sort                                                lsSort
	commas                                              bool // -m
	quote                                               bool // -Q
}

// Ls lists files and directories as GNU ls 9.1 does when its output is
// not a terminal: one name per line, file operands first, then each
// directory's entries (under a "dir:" header when there are several
// operands or -R). Options: -1 -a -A -d -F -g -h --si -l -m -n -o -p -Q -r -R
// -S -t -U -X, --indicator-style, --group-directories-first and --color (never
// colored: --color=always is refused). Exit status: 0, 1 for minor problems (an
// unreadable subdirectory), 2 for a missing operand or a usage error.
//
// ls -l prints the mode, a link count (1 for files, 2 plus the number of
// subdirectories for a directory), the owner and group "chromafs", the
// size, the modification time (month, day and time within the past six
// months, month, day and year otherwise; "?" for a zero time) and the
// name. Its "total" line counts 1 KiB blocks as a filesystem without
// sparse files would allocate them: the sum of each entry's size rounded
// up to a multiple of 1024, divided by 1024.
func Ls(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "ls")
	opts, operands, done, status := r.parse(&lsSpec, args, 2, lsHelp)
	if done {
		return status
	}
	var o lsOptions
	for _, op := range opts {
		switch op.Key {
		case 'a':
			o.all, o.almostAll = true, false
		case 'A':
			o.almostAll, o.all = true, false
		case 'd':
			o.directory = true
		case 'F':
			o.indicator = 2
		case 'p':
			o.indicator = 1
		case 'g':
			o.long, o.noOwner, o.commas = true, true, false
		case 'o':
			o.long, o.noGroup, o.commas = true, true, false
		case 'l':
			o.long, o.commas = true, false
		case 'n':
			o.long, o.numeric, o.commas = true, true, false
		case '1':
			o.commas = false
		case 'm':
			o.commas, o.long = true, false
		case 'Q':
			o.quote = true
		case 'X':
			o.sort = sortExt
		case 'g' + 256:
			o.dirsFirst = true
		case 'c' + 256:
			// --color alone means always.
			i := 0
			if op.HasValue {
				var ok bool
				if i, ok = argmatch(op.Arg, colorWords); !ok {
					return r.argmatchDie(op.Arg, "--color", colorWords, 3, 3, 3)
				}
			}
			if i < 3 {
				return r.usage(2, "%s is not supported: output is never colored", op.Name+map[bool]string{true: "=" + op.Arg}[op.HasValue])
			}
		case 'h':
			o.humanBase = 1024
		case 's' + 256:
			o.humanBase = 1000
		case 'i' + 256:
			valid := []string{"none", "slash", "file-type", "classify"}
			i, ok := argmatch(op.Arg, valid)
			if !ok {
				return r.argmatchDie(op.Arg, "--indicator-style", valid)
			}
			o.indicator = []int{0, 1, 1, 2}[i]
		case 'r':
			o.reverse = true
		case 'R':
			o.recursive = true
		case 'S':
			o.sort = sortSize
		case 't':
			o.sort = sortTime
		case 'U':
			o.sort = sortNone
		}
	}
	if !r.open() {
		return r.finish(2)
	}
	l := &lister{run: r, o: o}
	return r.finish(l.main(operands))
}

var colorWords = []string{"always", "yes", "force", "never", "no", "none", "auto", "tty", "if-tty"}

// argmatchDie reports an invalid argument to an option with a choice of
// words, as gnulib's argmatch_die does (status 1, even in ls): the valid
// words one per line, or, given the sizes of groups of synonyms, a group
// per line.
func (r *run) argmatchDie(arg, option string, valid []string, groups ...int) int {
	kind := "invalid"
	if _, ambiguous := argmatchAmbiguous(arg, valid); ambiguous {
		kind = "ambiguous"
	}
	r.warn("%s argument %s for %s", kind, localeQuote(arg), localeQuote(option))
	fmt.Fprintln(r.env.Stderr, "Valid arguments are:")
	if groups == nil {
		groups = slices.Repeat([]int{1}, len(valid))
	}
	for _, n := range groups {
		var words []string
		for _, v := range valid[:n] {
			words = append(words, localeQuote(v))
		}
		valid = valid[n:]
		fmt.Fprintf(r.env.Stderr, "  - %s\n", strings.Join(words, ", "))
	}
	r.tryHelp()
	return 1
}

func argmatchAmbiguous(arg string, valid []string) (int, bool) {
	n := 0
	for _, v := range valid {
		if strings.HasPrefix(v, arg) {
			n++
		}
	}
	return n, n > 1 && !slices.Contains(valid, arg)
}

// argmatch finds arg among valid, exactly or as an unambiguous prefix.
func argmatch(arg string, valid []string) (int, bool) {
	found := -1
	for i, v := range valid {
		if v == arg {
			return i, true
		}
		if strings.HasPrefix(v, arg) && arg != "" {
			if found >= 0 {
				return -1, false
			}
			found = i
		}
	}
	return found, found >= 0
}

type lister struct {
	*run
	o      lsOptions
	status int
	first  bool // no directory printed yet
}

// lsEntry is one name to list: an operand or a directory entry.
type lsEntry struct {
	name   string // as printed
	fsName string
	info   fs.FileInfo // nil until needed, for entries
	dir    fs.DirEntry
	isDir  bool
}

func (l *lister) main(operands []string) int {
	if len(operands) == 0 {
		operands = []string{"."}
	}
	var files []*lsEntry
	for _, a := range operands {
		name, ok := l.resolve(a)
		var fi fs.FileInfo
		err := fs.ErrNotExist
		if ok {
			fi, err = fs.Stat(l.fsys, name)
		}
		if err != nil {
			l.warn("cannot access %s: %s", quote(a), ErrText(err))
			l.status = 2
			continue
		}
		files = append(files, &lsEntry{name: a, fsName: name, info: fi, isDir: fi.IsDir()})
	}
	l.sortEntries(files)
	var dirs []*lsEntry
	if !l.o.directory {
		kept := files[:0]
		for _, f := range files {
			if f.isDir {
				dirs = append(dirs, f)
			} else {
				kept = append(kept, f)
			}
		}
		files = kept
	}
	l.first = true
	if len(files) > 0 {
		l.print(files, false)
		l.first = false
		if len(dirs) > 0 {
			l.out.WriteByte('\n')
			l.first = true
		}
	}
	header := !(len(files) == 0 && len(operands) <= 1 && len(dirs) == 1) || l.o.recursive
	for _, d := range dirs {
		if l.stopped() {
			break
		}
		l.listDir(d, header, true)
	}
	return l.status
}

// listDir lists one directory, then, with -R, its subdirectories.
func (l *lister) listDir(d *lsEntry, header, operand bool) {
	entries, err := fs.ReadDir(l.fsys, d.fsName)
	if err != nil {
		l.warn("cannot open directory %s: %s", quote(d.name), ErrText(err))
		if operand {
			l.status = 2
		}
		l.status = max(l.status, 1)
		return
	}
	if header {
		if !l.first {
			l.out.WriteByte('\n')
		}
		l.first = false
		fmt.Fprintf(l.out, "%s:\n", l.show(d.name))
	}
	var list []*lsEntry
	if l.o.all {
		list = append(list, &lsEntry{name: ".", fsName: d.fsName, info: d.info, isDir: true},
			&lsEntry{name: "..", fsName: parentName(d.fsName), isDir: true})
	}
	for _, e := range entries {
		if !l.o.all && !l.o.almostAll && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		list = append(list, &lsEntry{name: e.Name(), fsName: joinName(d.fsName, e.Name()), dir: e, isDir: e.IsDir()})
	}
	list = l.loadInfo(d.name, list)
	l.sortEntries(list)
	l.print(list, true)
	if !l.o.recursive {
		return
	}
	for _, e := range list {
		if !e.isDir || e.name == "." || e.name == ".." || l.stopped() {
			continue
		}
		sub := *e
		sub.name = join(d.name, e.name)
		l.listDir(&sub, true, false)
	}
}

// loadInfo fetches the FileInfo of entries when the options need it,
// dropping (with a diagnostic, status 1) those it cannot stat.
func (l *lister) loadInfo(dir string, list []*lsEntry) []*lsEntry {
	if !l.o.long && l.o.sort != sortSize && l.o.sort != sortTime && l.o.indicator != 2 {
		return list
	}
	kept := list[:0]
	for _, e := range list {
		if e.info == nil {
			var err error
			if e.dir != nil {
				e.info, err = e.dir.Info()
			} else {
				e.info, err = fs.Stat(l.fsys, e.fsName)
			}
			if err != nil {
				l.warn("cannot access %s: %s", quote(join(dir, e.name)), ErrText(err))
				l.status = max(l.status, 1)
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept
}

func parentName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return "."
}

// sortEntries orders a listing as ls does: by name (byte order), or by
// size or time with ties by name, all reversed by -r; -U keeps the order.
func (l *lister) sortEntries(list []*lsEntry) {
	cmp := func(a, b *lsEntry) int { return strings.Compare(a.name, b.name) }
	switch l.o.sort {
	case sortNone:
		return
	case sortSize:
		cmp = func(a, b *lsEntry) int {
			if c := b.info.Size() - a.info.Size(); c != 0 {
				return sign(c)
			}
			return strings.Compare(a.name, b.name)
		}
	case sortExt:
		ext := func(n string) string {
			if i := strings.LastIndexByte(n, '.'); i >= 0 {
				return n[i:]
			}
			return ""
		}
		cmp = func(a, b *lsEntry) int {
			if c := strings.Compare(ext(a.name), ext(b.name)); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		}
	case sortTime:
		cmp = func(a, b *lsEntry) int {
			if c := b.info.ModTime().Compare(a.info.ModTime()); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		}
	}
	if l.o.reverse {
		forward := cmp
		cmp = func(a, b *lsEntry) int { return forward(b, a) }
	}
	if l.o.dirsFirst {
		// Directories first whatever the order, as GNU ls does.
		within := cmp
		cmp = func(a, b *lsEntry) int {
			if a.isDir != b.isDir {
				if a.isDir {
					return -1
				}
				return 1
			}
			return within(a, b)
		}
	}
	slices.SortStableFunc(list, cmp)
}

func sign(n int64) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// print writes a listing: names, or long lines with a total for a
// directory's contents.
func (l *lister) print(list []*lsEntry, total bool) {
	if l.o.commas {
		// GNU's print_with_separator, for a line 80 columns wide.
		pos := 0
		for i, e := range list {
			name := l.show(e.name) + l.indicator(e)
			n := utf8.RuneCountInString(name)
			if i > 0 {
				if pos+n+2 < 80 {
					pos += 2
					l.out.WriteString(", ")
				} else {
					pos = 0
					l.out.WriteString(",\n")
				}
			}
			l.out.WriteString(name)
			pos += n
		}
		if len(list) > 0 {
			l.out.WriteByte('\n')
		}
		return
	}
	if !l.o.long {
		for _, e := range list {
			l.out.WriteString(l.show(e.name))
			l.out.WriteString(l.indicator(e))
			l.out.WriteByte('\n')
		}
		return
	}
	rows := make([][2]string, len(list)) // link count, size
	var wLinks, wSize int
	var blocks uint64
	for i, e := range list {
		rows[i][0] = strconv.Itoa(l.links(e))
		rows[i][1] = l.size(uint64(max(e.info.Size(), 0)))
		wLinks = max(wLinks, len(rows[i][0]))
		wSize = max(wSize, len(rows[i][1]))
		blocks += (uint64(max(e.info.Size(), 0)) + 1023) / 1024
	}
	if total {
		t := strconv.FormatUint(blocks, 10)
		if l.o.humanBase != 0 {
			t = human(blocks*1024, l.o.humanBase)
		}
		fmt.Fprintf(l.out, "total %s\n", t)
	}
	now := l.now()
	for i, e := range list {
		fmt.Fprintf(l.out, "%s %*s ", modeString(e.info.Mode()), wLinks, rows[i][0])
		name := owner
		if l.o.numeric {
			name = "0"
		}
		if !l.o.noOwner {
			l.out.WriteString(name + " ")
		}
		if !l.o.noGroup {
			l.out.WriteString(name + " ")
		}
		fmt.Fprintf(l.out, "%*s %s %s%s\n", wSize, rows[i][1], lsTime(e.info.ModTime(), now, l.loc()), l.show(e.name), l.indicator(e))
	}
}

// owner is the user and group name that ls -l and stat print.
const owner = "chromafs"

func (l *lister) size(n uint64) string {
	if l.o.humanBase != 0 {
		return human(n, l.o.humanBase)
	}
	return strconv.FormatUint(n, 10)
}

// links is the link count ls -l shows: 1 for a file; for a directory 2
// plus its subdirectories, as on a Unix filesystem.
func (l *lister) links(e *lsEntry) int {
	if !e.isDir {
		return 1
	}
	entries, err := fs.ReadDir(l.fsys, e.fsName)
	if err != nil {
		return 2
	}
	n := 2
	for _, c := range entries {
		if c.IsDir() {
			n++
		}
	}
	return n
}

func (l *lister) indicator(e *lsEntry) string {
	switch {
	case l.o.indicator == 0:
		return ""
	case e.isDir:
		return "/"
	case l.o.indicator == 1 || e.info == nil:
		return ""
	}
	m := e.info.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return "@"
	case m&fs.ModeNamedPipe != 0:
		return "|"
	case m&fs.ModeSocket != 0:
		return "="
	case m.IsRegular() && m&0o111 != 0:
		return "*"
	}
	return ""
}

// lsTime formats a modification time as ls -l does in the C and C.UTF-8
// locales: "Jan _2 15:04" within the past six months (of 365.2425 days),
// "Jan _2  2006" otherwise, including the future. A zero time, which
// chromafs uses for "unknown", prints as GNU ls prints a time it cannot
// get: "?", right-aligned in the column.
func lsTime(t, now time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "           ?"
	}
	sixMonthsAgo := now.Add(-31556952 / 2 * time.Second)
	t = t.In(loc)
	if t.After(sixMonthsAgo) && t.Before(now) {
		return t.Format("Jan _2 15:04")
	}
	return t.Format("Jan _2  2006")
}

// modeString is a mode as ls -l and stat %A print it: the type letter
// (- d l p s c b) and the permission bits with setuid, setgid and sticky.
func modeString(m fs.FileMode) string {
	var b [10]byte
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	default:
		b[0] = '-'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		} else {
			b[i+1] = '-'
		}
	}
	special := func(i int, set bool, lower, upper byte) {
		if !set {
			return
		}
		if b[i] == 'x' {
			b[i] = lower
		} else {
			b[i] = upper
		}
	}
	special(3, m&fs.ModeSetuid != 0, 's', 'S')
	special(6, m&fs.ModeSetgid != 0, 's', 'S')
	special(9, m&fs.ModeSticky != 0, 't', 'T')
	return string(b[:])
}

// show is a name as ls prints it: as is, or with -Q in double quotes
// with C escapes (GNU's c quoting style).
func (l *lister) show(name string) string {
	if !l.o.quote {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\a' || c == '\b' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			b.WriteByte('\\')
			b.WriteString(ctlEscape(c))
		case c < ' ' || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
