package gnu

import (
	"context"
	"io"
	"math"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var headSpec = getopt.Spec{
	Short: "c:n:qvz0123456789",
	Long: append([]getopt.Long{
		{Name: "bytes", Key: 'c', HasArg: getopt.RequiredArgument},
		{Name: "lines", Key: 'n', HasArg: getopt.RequiredArgument},
		{Name: "quiet", Key: 'q'},
		{Name: "silent", Key: 'q'},
		{Name: "verbose", Key: 'v'},
		{Name: "zero-terminated", Key: 'z'},
	}, helpVersion...),
}

const headHelp = `Usage: %s [OPTION]... [FILE]...
Print the first 10 lines of each FILE to standard output.
With more than one FILE, precede each with a header giving the file name.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -c, --bytes=[-]NUM       print the first NUM bytes of each file;
                             with the leading '-', print all but the last
                             NUM bytes of each file
  -n, --lines=[-]NUM       print the first NUM lines instead of the first 10;
                             with the leading '-', print all but the last
                             NUM lines of each file
  -q, --quiet, --silent    never print headers giving file names
  -v, --verbose            always print headers giving file names
  -z, --zero-terminated    line delimiter is NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

NUM may have a multiplier suffix:
b 512, kB 1000, K 1024, MB 1000*1000, M 1024*1024,
GB 1000*1000*1000, G 1024*1024*1024, and so on for T, P, E, Z, Y, R, Q.
Binary prefixes can be used, too: KiB=K, MiB=M, and so on.
`

// sizeSuffixes are the multipliers head and tail accept in NUM.
const sizeSuffixes = "bkKmMGTPEZYRQ0"

// headerMode says when head and tail print "==> name <==" headers.
type headerMode int

const (
	headersMulti headerMode = iota // with more than one operand
	headersNever
	headersAlways
)

// Head prints the first lines or bytes of each file, as GNU head 9.1
// does: -n [-]NUM, -c [-]NUM (a leading '-' prints all but the last
// NUM), NUM with coreutils' multiplier suffixes, the obsolete first
// argument -NUM[bcklqvz], -q, -v, -z, and "==> name <==" headers for more
// than one file. "-" and no operand read Env.Stdin. All but the last NUM
// lines or bytes holds the input in memory, up to HoldLimit.
func Head(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "head")
	h := &header{run: r}
	lines, n, negative, delim := true, uint64(10), false, byte('\n')
	if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && isDigit(args[0][1]) {
		a := args[0][1:]
		i := strings.IndexFunc(a, func(c rune) bool { return c < '0' || c > '9' })
		if i < 0 {
			i = len(a)
		}
		num, mult := a[:i], ""
		for _, c := range a[i:] {
			switch c {
			case 'c':
				lines, mult = false, ""
			case 'b', 'k', 'm':
				lines, mult = false, string(c)
			case 'l':
				lines = true
			case 'q':
				h.mode = headersNever
			case 'v':
				h.mode = headersAlways
			case 'z':
				delim = 0
			default:
				return r.usage(1, "invalid trailing option -- %c", c)
			}
		}
		v, err := parseSize(num+mult, sizeSuffixes)
		if err != nil {
			r.warn("%s", sizeError(numberWhat(lines), num+mult, err))
			return 1
		}
		n = v
		args = args[1:]
	}
	opts, operands, done, status := r.parse(&headSpec, args, 1, headHelp)
	if done {
		return status
	}
	for _, o := range opts {
		switch o.Key {
		case 'c', 'n':
			lines = o.Key == 'n'
			arg := o.Arg
			negative = strings.HasPrefix(arg, "-")
			arg = strings.TrimPrefix(arg, "-")
			v, err := parseSize(arg, sizeSuffixes)
			if err != nil {
				r.warn("%s", sizeError(numberWhat(lines), arg, err))
				return 1
			}
			n = v
		case 'q':
			h.mode = headersNever
		case 'v':
			h.mode = headersAlways
		case 'z':
			delim = 0
		default:
			return r.usage(1, "invalid trailing option -- %c", rune(o.Key))
		}
	}
	return h.each(operands, func(rd io.Reader) error {
		return headCopy(r, rd, lines, negative, n, delim)
	})
}

func numberWhat(lines bool) string {
	if lines {
		return "invalid number of lines"
	}
	return "invalid number of bytes"
}

// header prints head's and tail's "==> name <==" lines.
type header struct {
	*run
	mode    headerMode
	many    bool
	printed bool
}

// each runs copy on every operand ("-" is standard input, as is no
// operand) after its header, reports what cannot be opened or read in
// head's and tail's words, and returns the exit status.
func (h *header) each(operands []string, copy func(io.Reader) error) int {
	r := h.run
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	h.many = len(operands) > 1
	if !r.open() {
		return r.finish(2)
	}
	st := 0
	for _, a := range operands {
		if r.stopped() {
			break
		}
		f, err := r.openInput(a)
		if err != nil && !isReadErr(err) {
			r.warn("cannot open %s for reading: %s", quote(a), errText(err))
			st = 1
			continue
		}
		h.print(a)
		if err == nil {
			err = copy(f)
			f.Close()
		}
		if err != nil {
			r.warn("error reading %s: %s", quote(inputName(a)), errText(err))
			st = 1
		}
	}
	return r.finish(st)
}

func (h *header) print(a string) {
	if h.mode == headersNever || (h.mode == headersMulti && !h.many) {
		return
	}
	name := inputName(a)
	if h.printed {
		h.out.WriteByte('\n')
	}
	h.printed = true
	h.out.WriteString("==> " + name + " <==\n")
}

// headCopy writes the head of rd.
func headCopy(r *run, rd io.Reader, lines, negative bool, n uint64, delim byte) error {
	switch {
	case !lines && !negative:
		_, err := io.Copy(r.out, io.LimitReader(rd, int64(min(n, math.MaxInt64))))
		return err
	case lines && !negative:
		lr := newLineReader(rd, delim)
		for ; n > 0; n-- {
			line, err := lr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			r.out.Write(line)
		}
		return nil
	}
	data, err := readHeld(rd)
	if err != nil {
		return err
	}
	if !lines {
		if n < uint64(len(data)) {
			r.out.Write(data[:uint64(len(data))-n])
		}
		return nil
	}
	r.out.Write(data[:lastLines(data, n, delim)])
	return nil
}
