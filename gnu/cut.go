package gnu

import (
	"bytes"
	"context"
	"io"
	"math"
	"slices"

	"github.com/chromafs/chromafs/internal/getopt"
)

const keyOutDelim = 'O' + 256

var cutSpec = getopt.Spec{
	Short: "b:c:d:f:nsz",
	Long: append([]getopt.Long{
		{Name: "bytes", Key: 'b', HasArg: getopt.RequiredArgument},
		{Name: "characters", Key: 'c', HasArg: getopt.RequiredArgument},
		{Name: "delimiter", Key: 'd', HasArg: getopt.RequiredArgument},
		{Name: "fields", Key: 'f', HasArg: getopt.RequiredArgument},
		{Name: "only-delimited", Key: 's'},
		{Name: "output-delimiter", Key: keyOutDelim, HasArg: getopt.RequiredArgument},
		{Name: "complement", Key: 'C'},
		{Name: "zero-terminated", Key: 'z'},
	}, helpVersion...),
}

const cutHelp = `Usage: %s OPTION... [FILE]...
Print selected parts of lines from each FILE to standard output.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -b, --bytes=LIST        select only these bytes
  -c, --characters=LIST   select only these characters
  -d, --delimiter=DELIM   use DELIM instead of TAB for field delimiter
  -f, --fields=LIST       select only these fields;  also print any line
                            that contains no delimiter character, unless
                            the -s option is specified
  -n                      (ignored)
      --complement        complement the set of selected bytes, characters
                            or fields
  -s, --only-delimited    do not print lines not containing delimiters
      --output-delimiter=STRING  use STRING as the output delimiter
                            the default is to use the input delimiter
  -z, --zero-terminated   line delimiter is NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

Use one, and only one of -b, -c or -f.  Each LIST is made up of one
range, or many ranges separated by commas.  Selected input is written
in the same order that it is read, and is written exactly once.
Each range is one of:

  N     N'th byte, character or field, counted from 1
  N-    from N'th byte, character or field, to end of line
  N-M   from N'th to M'th (included) byte, character or field
  -M    from first to M'th (included) byte, character or field
`

// cutRange is an inclusive range of positions, from 1.
type cutRange struct{ lo, hi uint64 }

// Cut prints the selected bytes (-b, and -c, which counts bytes as GNU
// cut 9.1 does) or fields (-f, with -d and -s) of each line, as GNU cut
// does, with --complement, --output-delimiter and -z.
func Cut(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "cut")
	opts, operands, done, status := r.parse(&cutSpec, args, 1, cutHelp)
	if done {
		return status
	}
	var list string
	mode := byte(0)
	delim, delimGiven, onlyDelimited, complement, eol := byte('\t'), false, false, false, byte('\n')
	var outDelim []byte
	outGiven := false
	for _, o := range opts {
		switch o.Key {
		case 'b', 'c', 'f':
			if mode != 0 {
				return r.usage(1, "only one list may be specified")
			}
			mode, list = byte(o.Key), o.Arg
		case 'd':
			if len(o.Arg) > 1 {
				return r.usage(1, "the delimiter must be a single character")
			}
			delim, delimGiven = 0, true
			if o.Arg != "" {
				delim = o.Arg[0]
			}
		case 's':
			onlyDelimited = true
		case 'C':
			complement = true
		case 'z':
			eol = 0
		case keyOutDelim:
			outDelim, outGiven = []byte(o.Arg), true
		}
	}
	if mode == 0 {
		return r.usage(1, "you must specify a list of bytes, characters, or fields")
	}
	if mode != 'f' && delimGiven {
		return r.usage(1, "an input delimiter may be specified only when operating on fields")
	}
	if mode != 'f' && onlyDelimited {
		return r.usage(1, "suppressing non-delimited lines makes sense\n\tonly when operating on fields")
	}
	ranges, msg := parseCutList(list, mode != 'f')
	if msg != "" {
		return r.usage(1, "%s", msg)
	}
	if complement {
		ranges = complementRanges(ranges)
	}
	if !outGiven {
		outDelim = []byte{delim}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(2)
	}
	selected := func(i uint64) (in, start bool) {
		for _, rg := range ranges {
			if i >= rg.lo && i <= rg.hi {
				return true, i == rg.lo
			}
		}
		return false, false
	}
	return r.finish(r.eachInput(operands, func(f io.Reader) error {
		return r.eachLine(f, eol, func(line []byte) {
			line = bytes.TrimSuffix(line, []byte{eol})
			if mode != 'f' {
				printed := false
				for i, c := range line {
					in, start := selected(uint64(i) + 1)
					if !in {
						continue
					}
					if outGiven && printed && start {
						r.out.Write(outDelim)
					}
					printed = true
					r.out.WriteByte(c)
				}
				r.out.WriteByte(eol)
				return
			}
			if bytes.IndexByte(line, delim) < 0 {
				if !onlyDelimited {
					r.out.Write(line)
					r.out.WriteByte(eol)
				}
				return
			}
			printed := false
			for i, field := range bytes.Split(line, []byte{delim}) {
				if in, _ := selected(uint64(i) + 1); !in {
					continue
				}
				if printed {
					r.out.Write(outDelim)
				}
				printed = true
				r.out.Write(field)
			}
			r.out.WriteByte(eol)
		})
	}))
}

// parseCutList parses a LIST as coreutils' set_fields does, or returns
// its diagnostic.
func parseCutList(s string, pos bool) ([]cutRange, string) {
	numbered := "fields are numbered from 1"
	if pos {
		numbered = "byte/character positions are numbered from 1"
	}
	var out []cutRange
	var value, initial uint64
	lhs, rhs, dash := false, false, false
	numStart := -1
	for i := 0; ; i++ {
		c := byte(0)
		if i < len(s) {
			c = s[i]
		}
		switch {
		case c == '-':
			numStart = -1
			if dash {
				if pos {
					return nil, "invalid byte or character range"
				}
				return nil, "invalid field range"
			}
			dash = true
			if lhs && value == 0 {
				return nil, numbered
			}
			initial = 1
			if lhs {
				initial = value
			}
			value = 0
		case c == ',' || c == ' ' || c == '\t' || i >= len(s):
			numStart = -1
			if dash {
				dash = false
				if !lhs && !rhs {
					return nil, "invalid range with no endpoint: -"
				}
				if !rhs {
					out = append(out, cutRange{initial, math.MaxUint64})
				} else {
					if value < initial {
						return nil, "invalid decreasing range"
					}
					out = append(out, cutRange{initial, value})
				}
			} else {
				if value == 0 {
					return nil, numbered
				}
				out = append(out, cutRange{value, value})
			}
			value = 0
			if i >= len(s) {
				slices.SortFunc(out, func(a, b cutRange) int {
					switch {
					case a.lo < b.lo:
						return -1
					case a.lo > b.lo:
						return 1
					}
					return 0
				})
				merged := out[:0]
				for _, rg := range out {
					if n := len(merged); n > 0 && rg.lo <= merged[n-1].hi {
						merged[n-1].hi = max(merged[n-1].hi, rg.hi)
						continue
					}
					merged = append(merged, rg)
				}
				return merged, ""
			}
			lhs, rhs = false, false
		case isDigit(c):
			if numStart < 0 {
				numStart = i
			}
			if dash {
				rhs = true
			} else {
				lhs = true
			}
			d := uint64(c - '0')
			if value > (math.MaxUint64-d)/10 || value*10+d == math.MaxUint64 {
				j := numStart
				for j < len(s) && isDigit(s[j]) {
					j++
				}
				if pos {
					return nil, "byte/character offset " + localeQuote(s[numStart:j]) + " is too large"
				}
				return nil, "field number " + localeQuote(s[numStart:j]) + " is too large"
			}
			value = value*10 + d
		default:
			if pos {
				return nil, "invalid byte/character position " + localeQuote(s[i:])
			}
			return nil, "invalid field value " + localeQuote(s[i:])
		}
	}
}

// complementRanges returns the positions from 1 that rs do not hold.
func complementRanges(rs []cutRange) []cutRange {
	var out []cutRange
	next := uint64(1)
	for _, rg := range rs {
		if rg.lo > next {
			out = append(out, cutRange{next, rg.lo - 1})
		}
		if rg.hi == math.MaxUint64 {
			return out
		}
		next = rg.hi + 1
	}
	return append(out, cutRange{next, math.MaxUint64})
}
