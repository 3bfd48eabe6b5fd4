package gnu

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/chromafs/chromafs/internal/getopt"
)

var nlSpec = getopt.Spec{
	Short: "b:d:f:h:i:l:n:ps:v:w:",
	Long: append([]getopt.Long{
		{Name: "body-numbering", Key: 'b', HasArg: getopt.RequiredArgument},
		{Name: "section-delimiter", Key: 'd', HasArg: getopt.RequiredArgument},
		{Name: "footer-numbering", Key: 'f', HasArg: getopt.RequiredArgument},
		{Name: "header-numbering", Key: 'h', HasArg: getopt.RequiredArgument},
		{Name: "line-increment", Key: 'i', HasArg: getopt.RequiredArgument},
		{Name: "join-blank-lines", Key: 'l', HasArg: getopt.RequiredArgument},
		{Name: "number-format", Key: 'n', HasArg: getopt.RequiredArgument},
		{Name: "no-renumber", Key: 'p'},
		{Name: "number-separator", Key: 's', HasArg: getopt.RequiredArgument},
		{Name: "starting-line-number", Key: 'v', HasArg: getopt.RequiredArgument},
		{Name: "number-width", Key: 'w', HasArg: getopt.RequiredArgument},
	}, helpVersion...),
}

const nlHelp = `Usage: %s [OPTION]... [FILE]...
Write each FILE to standard output, with line numbers added.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -b, --body-numbering=STYLE      use STYLE for numbering body lines
  -d, --section-delimiter=CC      use CC for separating logical pages
  -f, --footer-numbering=STYLE    use STYLE for numbering footer lines
  -h, --header-numbering=STYLE    use STYLE for numbering header lines
  -i, --line-increment=NUMBER     line number increment at each line
  -l, --join-blank-lines=NUMBER   group of NUMBER empty lines counted as one
  -n, --number-format=FORMAT      insert line numbers according to FORMAT
  -p, --no-renumber               do not reset line numbers for each section
  -s, --number-separator=STRING   add STRING after (possible) line number
  -v, --starting-line-number=NUMBER  first line number for each section
  -w, --number-width=NUMBER       use NUMBER columns for line numbers
      --help        display this help and exit
      --version     output version information and exit

Default options are: -bt -d'\:' -fn -hn -i1 -l1 -n'rn' -s<TAB> -v1 -w6

CC are two delimiter characters used to construct logical page delimiters;
a missing second character implies ':'.

STYLE is one of:

  a      number all lines
  t      number only nonempty lines
  n      number no lines
  pBRE   number only lines that contain a match for the basic regular
         expression, BRE (here as a Go regular expression)

FORMAT is one of:

  ln     left justified, no leading zeros
  rn     right justified, no leading zeros
  rz     right justified, leading zeros
`

// nlStyle is how nl numbers the lines of one section.
type nlStyle struct {
	kind byte // 'a', 't', 'n' or 'p'
	re   *regexp.Regexp
}

// Nl numbers lines as GNU nl 9.1 does: -b, -h, -f styles a, t, n and
// pREGEX (a Go regular expression rather than a POSIX BRE), -n ln, rn, rz,
// -w, -s, -v, -i, -l, -p and -d, with the \:\:\: \:\: \: section
// delimiter lines. Numbers continue from one file to the next.
func Nl(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "nl")
	opts, operands, done, status := r.parse(&nlSpec, args, 1, nlHelp)
	if done {
		return status
	}
	styles := [3]nlStyle{{kind: 'n'}, {kind: 't'}, {kind: 'n'}} // header, body, footer
	format, width, sep, start, incr, join, renumber := "rn", int64(6), "\t", int64(1), int64(1), int64(1), true
	delim := `\:`
	for _, o := range opts {
		switch o.Key {
		case 'b', 'h', 'f':
			i := map[int]int{'h': 0, 'b': 1, 'f': 2}[o.Key]
			what := map[int]string{'h': "header", 'b': "body", 'f': "footer"}[o.Key]
			st := nlStyle{}
			switch {
			case o.Arg == "a" || o.Arg == "t" || o.Arg == "n":
				st.kind = o.Arg[0]
			case len(o.Arg) > 0 && o.Arg[0] == 'p':
				re, err := regexp.Compile(o.Arg[1:])
				if err != nil {
					r.warn("%v", err)
					return 1
				}
				st.kind, st.re = 'p', re
			default:
				return r.usage(1, "invalid %s numbering style: %s", what, localeQuote(o.Arg))
			}
			styles[i] = st
		case 'n':
			if o.Arg != "ln" && o.Arg != "rn" && o.Arg != "rz" {
				return r.usage(1, "invalid line numbering format: %s", localeQuote(o.Arg))
			}
			format = o.Arg
		case 's':
			sep = o.Arg
		case 'p':
			renumber = false
		case 'd':
			switch len(o.Arg) {
			case 0:
				delim = ""
			case 1:
				delim = o.Arg + ":"
			default:
				delim = o.Arg
			}
		case 'w', 'v', 'i', 'l':
			what := map[int]string{'w': "invalid line number field width", 'v': "invalid starting line number", 'i': "invalid line number increment", 'l': "invalid line number of blank lines"}[o.Key]
			n, err := strconv.ParseInt(o.Arg, 10, 64)
			if err != nil && !errorsIsRange(err) {
				r.warn("%s: %s", what, localeQuote(o.Arg))
				return 1
			}
			if err != nil || ((o.Key == 'w' || o.Key == 'l') && n < 1) {
				r.warn("%s: %s: Numerical result out of range", what, localeQuote(o.Arg))
				return 1
			}
			switch o.Key {
			case 'w':
				width = n
			case 'v':
				start = n
			case 'i':
				incr = n
			case 'l':
				join = n
			}
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(2)
	}
	lineNo, section, blanks := start, 1, int64(0)
	number := func() {
		switch format {
		case "ln":
			fmt.Fprintf(r.out, "%-*d", width, lineNo)
		case "rz":
			fmt.Fprintf(r.out, "%0*d", width, lineNo)
		default:
			fmt.Fprintf(r.out, "%*d", width, lineNo)
		}
		r.out.WriteString(sep)
		lineNo += incr
	}
	noNumber := func() {
		for range int(width) + len(sep) {
			r.out.WriteByte(' ')
		}
	}
	return r.finish(r.eachInput(operands, func(f io.Reader) error {
		return r.eachLine(f, '\n', func(line []byte) {
			text := bytes.TrimSuffix(line, []byte("\n"))
			if delim != "" && len(text) > 0 && len(text)%len(delim) == 0 && len(text)/len(delim) <= 3 && bytes.Equal(text, bytes.Repeat([]byte(delim), len(text)/len(delim))) {
				section = 3 - len(text)/len(delim) // header 3, body 2, footer 1
				if renumber {
					lineNo = start
				}
				r.out.WriteByte('\n')
				return
			}
			switch s := styles[section]; s.kind {
			case 'a':
				if join > 1 && len(text) == 0 {
					if blanks++; blanks == join {
						number()
						blanks = 0
					} else {
						noNumber()
					}
				} else {
					number()
					blanks = 0
				}
			case 't':
				if len(text) > 0 {
					number()
				} else {
					noNumber()
				}
			case 'p':
				if s.re.Match(text) {
					number()
				} else {
					noNumber()
				}
			default:
				noNumber()
			}
			r.out.Write(text)
			r.out.WriteByte('\n')
		})
	}))
}
