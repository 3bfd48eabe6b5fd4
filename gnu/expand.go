package gnu

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var expandSpec = getopt.Spec{
	Short: "it:0123456789",
	Long: append([]getopt.Long{
		{Name: "initial", Key: 'i'},
		{Name: "tabs", Key: 't', HasArg: getopt.RequiredArgument},
	}, helpVersion...),
}

const expandHelp = `Usage: %s [OPTION]... [FILE]...
Convert tabs in each FILE to spaces, writing to standard output.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -i, --initial    do not convert tabs after non blanks
  -t, --tabs=N     have tabs N characters apart, not 8
  -t, --tabs=LIST  use comma separated list of tab positions.
      --help        display this help and exit
      --version     output version information and exit
`

// Expand turns tabs into spaces as GNU expand 9.1 does: -i, -t N, -t
// LIST (explicit tab stops, a tab past the last becoming one space) and
// the obsolete -N form. Like GNU expand it counts a byte as a column.
func Expand(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "expand")
	opts, operands, done, status := r.parse(&expandSpec, args, 1, expandHelp)
	if done {
		return status
	}
	initial := false
	var stops []int
	digits := ""
	addStops := func(list string) bool {
		for _, f := range strings.FieldsFunc(list, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' }) {
			n, err := strconv.ParseUint(f, 10, 63)
			if err != nil {
				if isRange(err) {
					r.warn("tab stop is too large %s", localeQuote(f))
				} else {
					r.warn("tab size contains invalid character(s): %s", localeQuote(f))
				}
				return false
			}
			if n == 0 {
				r.warn("tab size cannot be 0")
				return false
			}
			if len(stops) > 0 && int(n) <= stops[len(stops)-1] {
				r.warn("tab sizes must be ascending")
				return false
			}
			stops = append(stops, int(n))
		}
		return true
	}
	for _, o := range opts {
		if o.Key >= '0' && o.Key <= '9' {
			digits += string(rune(o.Key))
			continue
		}
		if digits != "" {
			if !addStops(digits) {
				return r.finish(1)
			}
			digits = ""
		}
		switch o.Key {
		case 'i':
			initial = true
		case 't':
			if !addStops(o.Arg) {
				return r.finish(1)
			}
		}
	}
	if digits != "" && !addStops(digits) {
		return r.finish(1)
	}
	size := 8
	if len(stops) == 1 {
		size, stops = stops[0], nil
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(1)
	}
	return r.finish(r.eachInput(operands, func(f io.Reader) error {
		return r.expand(f, size, stops, initial)
	}))
}

// expand is GNU expand's expand().
func (r *run) expand(f io.Reader, size int, stops []int, initial bool) error {
	br := bufio.NewReaderSize(f, 64<<10)
	column, stop := 0, 0
	convert := true
	for {
		c, err := br.ReadByte()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if convert {
			switch c {
			case '\t':
				next := column + 1
				if stops == nil {
					next = column + size - column%size
				} else {
					for stop < len(stops) && stops[stop] <= column {
						stop++
					}
					if stop < len(stops) {
						next = stops[stop]
					}
				}
				for ; column < next; column++ {
					r.out.WriteByte(' ')
				}
				continue
			case '\b':
				if column > 0 {
					column--
				}
			default:
				column++
			}
			convert = !initial || c == ' ' || c == '\t'
		}
		if c == '\n' {
			column, stop, convert = 0, 0, true
			if r.stopped() {
				return nil
			}
		}
		r.out.WriteByte(c)
	}
}
