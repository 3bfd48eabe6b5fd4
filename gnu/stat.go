package gnu

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/internal/getopt"
)

var statSpec = getopt.Spec{
	Short: "c:L",
	Long: append([]getopt.Long{
		{Name: "format", HasArg: getopt.RequiredArgument, Key: 'c'},
		{Name: "printf", HasArg: getopt.RequiredArgument, Key: 'p' + 256},
		{Name: "dereference", Key: 'L'},
	}, helpVersion...),
}

const statHelp = `Usage: %s [OPTION]... FILE...
Display file status.

  -L, --dereference     (accepted; there are no links)
  -c  --format=FORMAT   use the specified FORMAT instead of the default;
                          output a newline after each use of FORMAT
      --printf=FORMAT   like --format, but interpret backslash escapes,
                          and do not output a mandatory trailing newline
      --help        display this help and exit
      --version     output version information and exit

The valid format sequences for files:

  %%a   permission bits in octal
  %%A   permission bits and file type in human readable form
  %%f   raw mode in hex
  %%F   file type
  %%g   group ID of owner (0)      %%G   group name of owner (chromafs)
  %%h   number of hard links
  %%n   file name
  %%N   quoted file name
  %%s   total size, in bytes
  %%u   user ID of owner (0)       %%U   user name of owner (chromafs)
  %%y   time of last data modification, human-readable ("-" if unknown)
  %%Y   time of last data modification, seconds since Epoch (0 if unknown)

Flags, a width and a precision may come between %% and the letter, as
in printf (%%-20n, %%10s). Any other sequence prints "?".
`

// Stat prints what the filesystem records of each operand, as GNU stat
// 9.1 does: -c/--format and --printf take the directives listed in the
// help (%a %A %f %F %g %G %h %n %N %s %u %U %y %Y and %%); other
// directives print "?", as GNU stat does for one it does not know.
//
// Without a format it prints the file's name, size and type, mode,
// modification time, and, when the filesystem records them
// (fscap.AttributesOf: chromafs's tree does), the file's content type,
// hash, how exactly it was reassembled (a file another tool wrote in
// overlapping, trimmed chunks), pointer URL and visibility. Exit status: 0, or 1 when an operand
// is missing or on a usage error (as GNU stat).
func Stat(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "stat")
	opts, operands, done, status := r.parse(&statSpec, args, 1, statHelp)
	if done {
		return status
	}
	format, hasFormat, escapes := "", false, false
	for _, op := range opts {
		switch op.Key {
		case 'c':
			format, hasFormat, escapes = op.Arg+"\n", true, false
		case 'p' + 256:
			format, hasFormat, escapes = op.Arg, true, true
		}
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
		name, ok := r.resolve(a)
		var fi fs.FileInfo
		err := fs.ErrNotExist
		if ok {
			fi, err = fs.Stat(r.fsys, name)
		}
		if err != nil {
			r.warn("cannot statx %s: %s", quote(a), ErrText(err))
			status = 1
			continue
		}
		if hasFormat {
			r.format(format, escapes, a, name, fi)
		} else {
			r.statDefault(a, fi)
		}
	}
	return r.finish(status)
}

func fileType(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	case m&fs.ModeDevice != 0:
		return "block special file"
	case fi.Size() == 0:
		return "regular empty file"
	}
	return "regular file"
}

func (r *run) statDefault(a string, fi fs.FileInfo) {
	w := r.out
	fmt.Fprintf(w, "  File: %s\n", a)
	fmt.Fprintf(w, "  Size: %-15d %s\n", fi.Size(), fileType(fi))
	fmt.Fprintf(w, "Access: (%04o/%s)\n", permBits(fi.Mode()), modeString(fi.Mode()))
	fmt.Fprintf(w, "Modify: %s\n", r.statTime(fi.ModTime()))
	at, ok := fscap.AttributesOf(fi)
	if !ok {
		return
	}
	if at.ContentType != "" {
		fmt.Fprintf(w, "  Type: %s\n", at.ContentType)
	}
	if at.Hash != "" {
		fmt.Fprintf(w, "  Hash: %s\n", at.Hash)
	}
	if at.Reassembly != "" {
		fmt.Fprintf(w, "Reassembled: %s\n", at.Reassembly)
	}
	if at.URL != "" {
		fmt.Fprintf(w, "   URL: %s\n", at.URL)
	}
	access := "public"
	if !at.Public {
		access = "groups " + strings.Join(at.Groups, ",")
	}
	fmt.Fprintf(w, "Visible: %s\n", access)
}

// statTime is GNU stat's %y: local time with nanoseconds and the zone
// offset; "-" for a zero (unknown) time, as GNU prints an unknown birth
// time.
func (r *run) statTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(r.loc()).Format("2006-01-02 15:04:05.000000000 -0700")
}

// permBits is the permission part of st_mode: rwx bits plus setuid,
// setgid and sticky in their Unix positions.
func permBits(m fs.FileMode) uint32 {
	p := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		p |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		p |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		p |= 0o1000
	}
	return p
}

// rawMode is st_mode as a Unix stat would give it.
func rawMode(m fs.FileMode) uint32 {
	t := uint32(0o100000)
	switch {
	case m.IsDir():
		t = 0o040000
	case m&fs.ModeSymlink != 0:
		t = 0o120000
	case m&fs.ModeNamedPipe != 0:
		t = 0o010000
	case m&fs.ModeSocket != 0:
		t = 0o140000
	case m&fs.ModeCharDevice != 0:
		t = 0o020000
	case m&fs.ModeDevice != 0:
		t = 0o060000
	}
	return t | permBits(m)
}

// format expands a --format or --printf string for one file.
func (r *run) format(format string, escapes bool, a, name string, fi fs.FileInfo) {
	w := r.out
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '\\' && escapes:
			n := writeEscape(w, format[i+1:])
			i += n
		case c == '%':
			j := i + 1
			for j < len(format) && strings.IndexByte("-#+ 0'", format[j]) >= 0 {
				j++
			}
			for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.') {
				j++
			}
			spec := format[i+1 : j]
			if j >= len(format) {
				// A lone % at the end prints as itself.
				w.WriteString(format[i:])
				return
			}
			r.directive(spec, format[j], a, name, fi)
			i = j
		default:
			w.WriteByte(c)
		}
	}
}

func (r *run) directive(spec string, verb byte, a, name string, fi fs.FileInfo) {
	w := r.out
	flags := spec[:len(spec)-len(strings.TrimLeft(spec, "-#+ 0'"))]
	width := spec[len(flags):]
	str := func(s string) {
		f := ""
		if strings.Contains(flags, "-") {
			f = "-"
		}
		fmt.Fprintf(w, "%"+f+width+"s", s)
	}
	num := func(n int64) {
		f := strings.NewReplacer("#", "", "'", "").Replace(flags)
		fmt.Fprintf(w, "%"+f+width+"d", n)
	}
	switch verb {
	case '%':
		w.WriteByte('%')
	case 'n':
		str(a)
	case 'N':
		str(quote(a))
	case 's':
		num(fi.Size())
	case 'F':
		str(fileType(fi))
	case 'a':
		str(strconv.FormatUint(uint64(permBits(fi.Mode())), 8))
	case 'A':
		str(modeString(fi.Mode()))
	case 'f':
		str(strconv.FormatUint(uint64(rawMode(fi.Mode())), 16))
	case 'h':
		l := &lister{run: r}
		num(int64(l.links(&lsEntry{fsName: name, isDir: fi.IsDir()})))
	case 'u', 'g':
		num(0)
	case 'U', 'G':
		str(owner)
	case 'y':
		str(r.statTime(fi.ModTime()))
	case 'Y':
		if t := fi.ModTime(); t.IsZero() {
			num(0)
		} else {
			num(t.Unix())
		}
	default:
		w.WriteByte('?')
	}
}

// writeEscape writes the backslash escape at the start of s (the text
// after the backslash) as --printf interprets it, and returns how many
// bytes of s it used.
func writeEscape(w interface {
	WriteByte(byte) error
	WriteString(string) (int, error)
}, s string) int {
	if s == "" {
		w.WriteByte('\\')
		return 0
	}
	simple := map[byte]byte{'a': '\a', 'b': '\b', 'e': 0x1b, 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '\\': '\\', '"': '"'}
	if b, ok := simple[s[0]]; ok {
		w.WriteByte(b)
		return 1
	}
	if s[0] >= '0' && s[0] <= '7' {
		n, v := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		w.WriteByte(byte(v))
		return n
	}
	if s[0] == 'x' {
		n, v := 1, 0
		for n < 3 && n < len(s) && isHex(s[n]) {
			d, _ := strconv.ParseUint(s[n:n+1], 16, 8)
			v = v*16 + int(d)
			n++
		}
		if n == 1 {
			w.WriteString(`\x`)
			return 1
		}
		w.WriteByte(byte(v))
		return n
	}
	w.WriteByte('\\')
	w.WriteByte(s[0])
	return 1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
