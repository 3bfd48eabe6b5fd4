package gnu

import (
	"bufio"
	"context"
	"io"
	"strconv"

	"github.com/chromafs/chromafs/internal/getopt"
)

var foldSpec = getopt.Spec{
	Short: "bsw:0123456789",
	Long: append([]getopt.Long{
		{Name: "bytes", Key: 'b'},
		{Name: "spaces", Key: 's'},
		{Name: "width", Key: 'w', HasArg: getopt.RequiredArgument},
	}, helpVersion...),
}

const foldHelp = `Usage: %s [OPTION]... [FILE]...
Wrap input lines in each FILE, writing to standard output.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -b, --bytes         count bytes rather than columns
  -s, --spaces        break at spaces
  -w, --width=WIDTH   use WIDTH columns instead of 80
      --help        display this help and exit
      --version     output version information and exit
`

// Fold wraps lines as GNU fold 9.1 does: -w WIDTH (and the obsolete
// -WIDTH), -s and -b. Like GNU fold it counts a byte as a column (a tab
// to the next multiple of 8, a backspace back one, a carriage return
// to 0), so a multibyte character counts as several.
func Fold(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "fold")
	opts, operands, done, status := r.parse(&foldSpec, args, 1, foldHelp)
	if done {
		return status
	}
	width, spaces, countBytes := 80, false, false
	digits := ""
	for _, o := range opts {
		switch {
		case o.Key >= '0' && o.Key <= '9':
			digits += string(rune(o.Key))
			continue
		case o.Key == 'b':
			countBytes = true
		case o.Key == 's':
			spaces = true
		case o.Key == 'w':
			n, ok := r.columns(o.Arg)
			if !ok {
				return r.finish(1)
			}
			width = n
		}
		if digits != "" {
			n, ok := r.columns(digits)
			if !ok {
				return r.finish(1)
			}
			width, digits = n, ""
		}
	}
	if digits != "" {
		n, ok := r.columns(digits)
		if !ok {
			return r.finish(1)
		}
		width = n
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(1)
	}
	return r.finish(r.eachInput(operands, func(f io.Reader) error {
		return r.fold(f, width, spaces, countBytes)
	}))
}

// columns parses fold's width, 1 or more.
func (r *run) columns(s string) (int, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	switch {
	case err == nil && n >= 1 && n <= 1<<40:
		return int(n), true
	case err == nil || isRange(err):
		r.warn("invalid number of columns: %s: Numerical result out of range", localeQuote(s))
	default:
		r.warn("invalid number of columns: %s", localeQuote(s))
	}
	return 0, false
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// fold is GNU fold's fold_file.
func (r *run) fold(f io.Reader, width int, spaces, countBytes bool) error {
	adjust := func(column int, c byte) int {
		if countBytes {
			return column + 1
		}
		switch c {
		case '\b':
			if column > 0 {
				return column - 1
			}
			return 0
		case '\r':
			return 0
		case '\t':
			return column + 8 - column%8
		}
		return column + 1
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	column := 0
	for {
		c, err := br.ReadByte()
		if err != nil {
			r.out.Write(line)
			if err == io.EOF {
				return nil
			}
			return err
		}
		if c == '\n' {
			line = append(line, c)
			r.out.Write(line)
			line, column = line[:0], 0
			if r.stopped() {
				return nil
			}
			continue
		}
	rescan:
		column = adjust(column, c)
		if column > width {
			if spaces {
				end := -1
				for i := len(line) - 1; i >= 0; i-- {
					if line[i] == ' ' || line[i] == '\t' {
						end = i + 1
						break
					}
				}
				if end > 0 {
					r.out.Write(line[:end])
					r.out.WriteByte('\n')
					line = append(line[:0], line[end:]...)
					column = 0
					for _, b := range line {
						column = adjust(column, b)
					}
					goto rescan
				}
			}
			if len(line) == 0 {
				line = append(line, c)
				continue
			}
			line = append(line, '\n')
			r.out.Write(line)
			line, column = line[:0], 0
			goto rescan
		}
		line = append(line, c)
		if len(line) > holdLimit {
			return ErrTooLarge
		}
	}
}
