package gnu

import (
	"context"
	"io"
	"io/fs"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/chromafs/chromafs/internal/getopt"
)

var wcSpec = getopt.Spec{
	Short: "clmw",
	Long: append([]getopt.Long{
		{Name: "bytes", Key: 'c'},
		{Name: "chars", Key: 'm'},
		{Name: "lines", Key: 'l'},
		{Name: "words", Key: 'w'},
	}, helpVersion...),
}

const wcHelp = `Usage: %s [OPTION]... [FILE]...
Print newline, word, and byte counts for each FILE, and a total line if
more than one FILE is specified.  A word is a non-zero-length sequence of
printable characters delimited by white space.

With no FILE, or when FILE is -, read standard input.

The options below may be used to select which counts are printed, always in
the following order: newline, word, character, byte.
  -c, --bytes            print the byte counts
  -m, --chars            print the character counts
  -l, --lines            print the newline counts
  -w, --words            print the word counts
      --help        display this help and exit
      --version     output version information and exit
`

// wcCounts are the counts of one input.
type wcCounts struct{ lines, words, chars, bytes uint64 }

func (c *wcCounts) add(o wcCounts) {
	c.lines += o.lines
	c.words += o.words
	c.chars += o.chars
	c.bytes += o.bytes
}

// Wc counts the newlines, words, characters and bytes of each file, as
// GNU wc 9.1 does in C.UTF-8: -l -w -m -c (default -lwc), a total line
// for more than one operand, and the column width GNU computes (the
// digits of the sum of the regular files' sizes, at least 7 when an
// operand is standard input or not a regular file, 1 for a single count
// of a single operand). A word is a run of printable characters between
// white space (no-break spaces included); bytes that are not UTF-8 count
// as bytes, not characters, and neither start nor end a word. -L and
// --files0-from are not supported.
func Wc(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "wc")
	opts, operands, done, status := r.parse(&wcSpec, args, 1, wcHelp)
	if done {
		return status
	}
	var show [4]bool // lines, words, chars, bytes
	for _, o := range opts {
		switch o.Key {
		case 'l':
			show[0] = true
		case 'w':
			show[1] = true
		case 'm':
			show[2] = true
		case 'c':
			show[3] = true
		}
	}
	if show == [4]bool{} {
		show = [4]bool{true, true, false, true}
	}
	nshow := 0
	for _, s := range show {
		if s {
			nshow++
		}
	}
	named := len(operands) > 0
	if !named {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(2)
	}
	// The width, from what stat says of each operand.
	width := 1
	if !(len(operands) == 1 && nshow == 1) {
		minWidth, total := 1, uint64(0)
		for _, a := range operands {
			if a == "-" {
				minWidth = 7
				continue
			}
			name, ok := r.resolve(a)
			if !ok {
				continue
			}
			fi, err := fs.Stat(r.fsys, name)
			switch {
			case err != nil:
			case fi.Mode().IsRegular():
				total += uint64(fi.Size())
			default:
				minWidth = 7
			}
		}
		width = max(len(strconv.FormatUint(total, 10)), minWidth)
	}
	print := func(c wcCounts, name string, hasName bool) {
		vals := [4]uint64{c.lines, c.words, c.chars, c.bytes}
		sep := ""
		for i, s := range show {
			if !s {
				continue
			}
			v := strconv.FormatUint(vals[i], 10)
			r.out.WriteString(sep)
			for k := len(v); k < width; k++ {
				r.out.WriteByte(' ')
			}
			r.out.WriteString(v)
			sep = " "
		}
		if hasName {
			r.out.WriteString(" " + name)
		}
		r.out.WriteByte('\n')
	}
	var total wcCounts
	st := 0
	for _, a := range operands {
		if r.stopped() {
			break
		}
		f, err := r.openInput(a)
		if err != nil && !isReadErr(err) {
			r.warn("%s: %s", quotef(a), errText(err))
			st = 1
			continue
		}
		var c wcCounts
		if err == nil {
			c, err = wcCount(f)
			f.Close()
		}
		if err != nil {
			r.warn("%s: %s", quotef(a), errText(err))
			st = 1
		}
		total.add(c)
		print(c, a, named)
	}
	if len(operands) > 1 {
		print(total, "total", true)
	}
	return r.finish(st)
}

// wcCount counts rd as wc does in a UTF-8 locale.
func wcCount(rd io.Reader) (wcCounts, error) {
	var c wcCounts
	buf := make([]byte, 64<<10)
	inWord := false
	carry := 0 // bytes of an incomplete character kept at buf's start
	for {
		k, err := rd.Read(buf[carry:])
		c.bytes += uint64(k)
		data := buf[:carry+k]
		atEOF := err != nil
		i := 0
		for i < len(data) {
			b := data[i]
			if b < utf8.RuneSelf {
				switch {
				case b == ' ' || (b >= '\t' && b <= '\r'):
					if b == '\n' {
						c.lines++
					}
					if inWord {
						c.words++
					}
					inWord = false
				case b > ' ' && b < 0x7f:
					inWord = true
				}
				c.chars++
				i++
				continue
			}
			if !atEOF && !utf8.FullRune(data[i:]) {
				break
			}
			ch, size := utf8.DecodeRune(data[i:])
			i += size
			if ch == utf8.RuneError && size == 1 {
				continue
			}
			c.chars++
			switch {
			case isWcSpace(ch):
				if inWord {
					c.words++
				}
				inWord = false
			case unicode.IsGraphic(ch):
				inWord = true
			}
		}
		carry = copy(buf, data[i:])
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, err
		}
	}
	if inWord {
		c.words++
	}
	return c, nil
}

// isWcSpace reports whether wc 9.1 separates words at r: the C library's
// white space and the no-break spaces.
func isWcSpace(r rune) bool {
	switch r {
	case 0xA0, 0x2007, 0x202F, 0x2060:
		return true
	case 0x85:
		return false
	}
	return unicode.IsSpace(r)
}
