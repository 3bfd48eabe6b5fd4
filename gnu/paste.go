package gnu

import (
	"context"
	"io"
	"unicode/utf8"

	"github.com/chromafs/chromafs/internal/getopt"
	"github.com/chromafs/chromafs/internal/textio"
)

var pasteSpec = getopt.Spec{
	Short: "d:sz",
	Long: append([]getopt.Long{
		{Name: "delimiters", Key: 'd', HasArg: getopt.RequiredArgument},
		{Name: "serial", Key: 's'},
		{Name: "zero-terminated", Key: 'z'},
	}, helpVersion...),
}

const pasteHelp = `Usage: %s [OPTION]... [FILE]...
Write lines consisting of the sequentially corresponding lines from
each FILE, separated by TABs, to standard output.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -d, --delimiters=LIST   reuse characters from LIST instead of TABs
  -s, --serial            paste one file at a time instead of in parallel
  -z, --zero-terminated    line delimiter is NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
`

// Paste merges lines of files as GNU paste 9.1 does, with -d LIST (its
// backslash escapes \n \t \\ \0 and empty), -s and -z. Like GNU paste it
// opens every file first and stops, status 1, if one cannot be opened.
func Paste(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "paste")
	opts, operands, done, status := r.parse(&pasteSpec, args, 1, pasteHelp)
	if done {
		return status
	}
	delims := []string{"\t"}
	serial := false
	eol := byte('\n')
	for _, o := range opts {
		switch o.Key {
		case 'd':
			d, ok := pasteDelims(o.Arg)
			if !ok {
				r.warn("delimiter list ends with an unescaped backslash: %s", quote(o.Arg))
				return r.finish(1)
			}
			delims = d
		case 's':
			serial = true
		case 'z':
			eol = 0
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(1)
	}
	readers := make([]*textio.LineReader, len(operands))
	var stdin *textio.LineReader
	for i, a := range operands {
		if a == "-" {
			if stdin == nil {
				f, _ := r.openInput("-")
				stdin = newLineReader(f, eol)
			}
			readers[i] = stdin
			continue
		}
		f, err := r.openInput(a)
		if err != nil {
			if isReadErr(err) {
				// GNU paste opens a directory and fails at its first read.
				readers[i] = newLineReader(errReader{err}, eol)
				continue
			}
			r.warn("%s: %s", quotef(a), errText(err))
			return r.finish(1)
		}
		defer f.Close()
		readers[i] = newLineReader(f, eol)
	}
	st := 0
	readErr := func(i int, err error) {
		r.warn("%s: %s", operands[i], errText(err))
		st = 1
	}
	// line returns the next line of reader i without its terminator,
	// and whether there was one.
	line := func(i int) ([]byte, bool) {
		if readers[i] == nil {
			return nil, false
		}
		l, err := readers[i].Next()
		if err != nil {
			if err != io.EOF {
				readErr(i, err)
			}
			readers[i] = nil
			return nil, false
		}
		if n := len(l); n > 0 && l[n-1] == eol {
			l = l[:n-1]
		}
		return l, true
	}
	if serial {
		for i := range operands {
			n := 0
			for !r.stopped() {
				l, ok := line(i)
				if !ok {
					break
				}
				if n > 0 {
					r.out.WriteString(delims[(n-1)%len(delims)])
				}
				r.out.Write(l)
				n++
			}
			if readers[i] == nil && st != 0 && n == 0 {
				continue
			}
			r.out.WriteByte(eol)
		}
		return r.finish(st)
	}
	for !r.stopped() {
		var row []byte
		any := false
		for i := range operands {
			l, ok := line(i)
			if ok {
				any = true
				row = append(row, l...)
			}
			if i < len(operands)-1 {
				row = append(row, delims[i%len(delims)]...)
			}
		}
		if !any {
			break
		}
		r.out.Write(row)
		r.out.WriteByte(eol)
	}
	return r.finish(st)
}

// pasteDelims splits paste's -d LIST into its delimiters: one character
// each, with the escapes \n, \t, \\ and \0 (the empty delimiter).
func pasteDelims(list string) ([]string, bool) {
	var d []string
	for i := 0; i < len(list); i++ {
		c := list[i]
		if c != '\\' {
			_, n := utf8.DecodeRuneInString(list[i:])
			d = append(d, list[i:i+n])
			i += n - 1
			continue
		}
		if i+1 >= len(list) {
			return nil, false
		}
		i++
		switch list[i] {
		case 'n':
			d = append(d, "\n")
		case 't':
			d = append(d, "\t")
		case '0':
			d = append(d, "")
		case 'b':
			d = append(d, "\b")
		case 'f':
			d = append(d, "\f")
		case 'r':
			d = append(d, "\r")
		case 'v':
			d = append(d, "\v")
		default:
			d = append(d, list[i:i+1])
		}
	}
	if len(d) == 0 {
		d = []string{""}
	}
	return d, true
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
