package gnu

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strconv"

	"github.com/chromafs/chromafs/internal/getopt"
)

var catSpec = getopt.Spec{
	Short: "AbeEnstTuv",
	Long: append([]getopt.Long{
		{Name: "show-all", Key: 'A'},
		{Name: "number-nonblank", Key: 'b'},
		{Name: "show-ends", Key: 'E'},
		{Name: "number", Key: 'n'},
		{Name: "squeeze-blank", Key: 's'},
		{Name: "show-tabs", Key: 'T'},
		{Name: "show-nonprinting", Key: 'v'},
	}, helpVersion...),
}

const catHelp = `Usage: %s [OPTION]... [FILE]...
Concatenate FILE(s) to standard output.

With no FILE, or when FILE is -, read standard input (when there is one).

  -A, --show-all           equivalent to -vET
  -b, --number-nonblank    number nonempty output lines, overrides -n
  -e                       equivalent to -vE
  -E, --show-ends          display $ at end of each line
  -n, --number             number all output lines
  -s, --squeeze-blank      suppress repeated empty output lines
  -t                       equivalent to -vT
  -T, --show-tabs          display TAB characters as ^I
  -u                       (ignored)
  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB
      --help        display this help and exit
      --version     output version information and exit
`

type catOptions struct {
	number, nonblank, ends, squeeze, tabs, nonprinting bool
}

func (o catOptions) plain() bool {
	return !o.number && !o.nonblank && !o.ends && !o.squeeze && !o.tabs && !o.nonprinting
}

// Cat writes each file to standard output, as GNU cat 9.1 does, with its
// options -A -b -e -E -n -s -t -T -u -v. Line numbers and blank-line
// squeezing continue from one file to the next. A file that cannot be
// read is reported and skipped; the status is then 1 (and 1 for a usage
// error, as GNU cat). An error of the filesystem's own (a broken page)
// is printed once, in its own words; a standard one ("No such file or
// directory") as cat prints it.
func Cat(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "cat")
	opts, operands, done, status := r.parse(&catSpec, args, 1, catHelp)
	if done {
		return status
	}
	var o catOptions
	for _, op := range opts {
		switch op.Key {
		case 'A':
			o.nonprinting, o.ends, o.tabs = true, true, true
		case 'b':
			o.number, o.nonblank = true, true
		case 'e':
			o.nonprinting, o.ends = true, true
		case 'E':
			o.ends = true
		case 'n':
			o.number = true
		case 's':
			o.squeeze = true
		case 't':
			o.nonprinting, o.tabs = true, true
		case 'T':
			o.tabs = true
		case 'v':
			o.nonprinting = true
		}
	}
	if len(operands) == 0 {
		if env.Stdin == nil {
			return r.usage(1, "missing file operand (there is no standard input)")
		}
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(2)
	}
	c := &catter{run: r, o: o, newlines: 0}
	for _, a := range operands {
		if r.stopped() {
			break
		}
		data, err := c.read(a)
		if err != nil {
			c.fail(a, err)
			continue
		}
		c.write(data)
	}
	return r.finish(c.status)
}

type catter struct {
	*run
	o      catOptions
	status int
	line   int
	// newlines counts the newlines just written at the start of a line,
	// -1 inside a line, as GNU cat's own state.
	newlines int
}

func (c *catter) read(a string) ([]byte, error) {
	if a == "-" && c.env.Stdin != nil {
		return io.ReadAll(c.env.Stdin)
	}
	name, ok := c.resolve(a)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: a, Err: fs.ErrNotExist}
	}
	if fi, err := fs.Stat(c.fsys, name); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: a, Err: errIsDir}
	}
	return fs.ReadFile(c.fsys, name)
}

func (c *catter) fail(a string, err error) {
	text, std := errTextStd(err)
	c.warn("%s: %s", quotef(a), text)
	// A standard message is followed by the whole error, which says what
	// failed, unless it is as plain as a missing file or a directory.
	if std && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errIsDir) {
		c.warn("%s: %v", quotef(a), err)
	}
	c.status = 1
}

// write copies data to the output, numbering and marking lines as the
// options ask.
func (c *catter) write(data []byte) {
	if c.o.plain() {
		c.out.Write(data)
		return
	}
	for _, ch := range data {
		if ch == '\n' {
			c.newlines++
			if c.newlines > 0 {
				if c.newlines >= 2 {
					c.newlines = 2
					if c.o.squeeze {
						continue
					}
				}
				if c.o.number && !c.o.nonblank {
					c.number()
				}
			}
			if c.o.ends {
				c.out.WriteByte('$')
			}
			c.out.WriteByte('\n')
			continue
		}
		if c.newlines >= 0 && c.o.number {
			c.number()
		}
		c.newlines = -1
		c.char(ch)
	}
}

func (c *catter) number() {
	c.line++
	s := strconv.Itoa(c.line)
	for i := len(s); i < 6; i++ {
		c.out.WriteByte(' ')
	}
	c.out.WriteString(s)
	c.out.WriteByte('\t')
}

// char writes one byte other than a newline, in ^ and M- notation with
// -v, ^I for a tab with -T.
func (c *catter) char(ch byte) {
	switch {
	case ch == '\t':
		if c.o.tabs {
			c.out.WriteString("^I")
		} else {
			c.out.WriteByte(ch)
		}
	case !c.o.nonprinting:
		c.out.WriteByte(ch)
	default:
		if ch >= 128 {
			c.out.WriteString("M-")
			ch -= 128
		}
		switch {
		case ch < 32:
			c.out.WriteByte('^')
			c.out.WriteByte(ch + 64)
		case ch == 127:
			c.out.WriteString("^?")
		default:
			c.out.WriteByte(ch)
		}
	}
}
