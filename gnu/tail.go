package gnu

import (
	"context"
	"io"
	"math"
	"strings"
)

// tailSpec is head's options: tail takes the same (following, -f, is
// not supported).
var tailSpec = headSpec

const tailHelp = `Usage: %s [OPTION]... [FILE]...
Print the last 10 lines of each FILE to standard output.
With more than one FILE, precede each with a header giving the file name.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -c, --bytes=[+]NUM       output the last NUM bytes; or use -c +NUM to
                             output starting with byte NUM of each file
  -n, --lines=[+]NUM       output the last NUM lines, instead of the last 10;
                             or use -n +NUM to skip NUM-1 lines at the start
  -q, --quiet, --silent    never output headers giving file names
  -v, --verbose            always output headers giving file names
  -z, --zero-terminated    line delimiter is NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

NUM may have a multiplier suffix:
b 512, kB 1000, K 1024, MB 1000*1000, M 1024*1024,
GB 1000*1000*1000, G 1024*1024*1024, and so on for T, P, E, Z, Y, R, Q.
Binary prefixes can be used, too: KiB=K, MiB=M, and so on.

A read-only filesystem does not change: following a file (-f) is not
supported.
`

// Tail prints the last lines or bytes of each file, as GNU tail 9.1
// does: -n [+]NUM, -c [+]NUM (a leading '+' starts at line or byte NUM),
// NUM with coreutils' multiplier suffixes, the obsolete forms -NUM[bcl]
// and +NUM[bcl] as the only option before at most one file, -q, -v, -z
// and "==> name <==" headers for more than one file. "-" and no operand
// read Env.Stdin. Following (-f, -F, --pid, ...) is not supported: the
// filesystem is read-only, and those options are invalid here. The last
// NUM lines or bytes are held in memory, up to HoldLimit.
func Tail(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "tail")
	h := &header{run: r}
	lines, n, fromStart, delim := true, uint64(10), false, byte('\n')
	if o, ok := tailObsolete(args); ok {
		if o.bad {
			r.warn("invalid number: %s", quote(args[0]))
			return 1
		}
		lines, n, fromStart = o.lines, o.n, o.fromStart
		args = args[o.used:]
	}
	opts, operands, done, status := r.parse(&tailSpec, args, 1, tailHelp)
	if done {
		return status
	}
	for _, o := range opts {
		switch o.Key {
		case 'c', 'n':
			lines = o.Key == 'n'
			arg := o.Arg
			fromStart = strings.HasPrefix(arg, "+")
			num := strings.TrimPrefix(strings.TrimPrefix(arg, "+"), "-")
			v, err := parseSize(num, sizeSuffixes)
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
			r.warn("option used in invalid context -- %c", rune(o.Key))
			return 1
		}
	}
	if fromStart && n > 0 {
		n--
	}
	return h.each(operands, func(rd io.Reader) error {
		return tailCopy(r, rd, lines, fromStart, n, delim)
	})
}

// tailObsoleteOpt is tail's obsolete option: -NUM[bcl] or +NUM[bcl].
type tailObsoleteOpt struct {
	used             int // arguments it takes, with a "--" after it
	fromStart, lines bool
	n                uint64
	bad              bool // NUM is too large
}

// tailObsolete parses args[0] as tail's obsolete option, which is one
// only when it is the only option, before at most one file.
func tailObsolete(args []string) (tailObsoleteOpt, bool) {
	o := tailObsoleteOpt{used: 1, lines: true}
	switch {
	case len(args) == 1:
	case len(args) == 2 && !(strings.HasPrefix(args[1], "-") && len(args[1]) > 1):
	case (len(args) == 2 || len(args) == 3) && args[1] == "--":
		o.used = 2
	default:
		return o, false
	}
	a := args[0]
	if a == "" || (a[0] != '+' && a[0] != '-') {
		return o, false
	}
	o.fromStart = a[0] == '+'
	p := a[1:]
	// "-" is standard input and "-c" needs a value.
	if !o.fromStart && (p == "" || p == "c") {
		return o, false
	}
	i := strings.IndexFunc(p, func(c rune) bool { return c < '0' || c > '9' })
	if i < 0 {
		i = len(p)
	}
	num, rest := p[:i], p[i:]
	def, mult := uint64(10), uint64(1)
	if rest != "" {
		switch rest[0] {
		case 'b':
			def, mult = 10*512, 512
			o.lines = false
		case 'c':
			o.lines = false
		case 'l':
		default:
			return o, false
		}
		rest = rest[1:]
	}
	if rest != "" {
		return o, false
	}
	o.n = def
	if num != "" {
		v, err := parseSize(num, "")
		if err != nil || (mult > 1 && v > math.MaxUint64/mult) {
			o.bad = true
		}
		o.n = v * mult
	}
	return o, true
}

// tailCopy writes the tail of rd.
func tailCopy(r *run, rd io.Reader, lines, fromStart bool, n uint64, delim byte) error {
	if fromStart {
		if !lines {
			if _, err := io.CopyN(io.Discard, rd, int64(min(n, math.MaxInt64))); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			_, err := io.Copy(r.out, rd)
			return err
		}
		lr := newLineReader(rd, delim)
		for ; n > 0; n-- {
			if _, err := lr.Next(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
		_, err := io.Copy(r.out, lr.Rest())
		return err
	}
	// Keep the end of the input, trimmed to what is asked each time it
	// doubles.
	var held []byte
	buf := make([]byte, 64<<10)
	keep := func() {
		if lines {
			held = held[lastLines(held, n, delim):]
		} else if uint64(len(held)) > n {
			held = held[uint64(len(held))-n:]
		}
	}
	limit := 2 * len(buf)
	for {
		k, err := rd.Read(buf)
		held = append(held, buf[:k]...)
		if len(held) > limit {
			keep()
			if len(held) > holdLimit {
				return ErrTooLarge
			}
			limit = max(2*len(held), 2*len(buf))
			held = append([]byte(nil), held...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	keep()
	r.out.Write(held)
	return nil
}
