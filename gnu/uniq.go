package gnu

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/chromafs/chromafs/internal/getopt"
)

var uniqSpec = getopt.Spec{
	Short: "cdf:is:uw:z",
	Long: append([]getopt.Long{
		{Name: "count", Key: 'c'},
		{Name: "repeated", Key: 'd'},
		{Name: "skip-fields", Key: 'f', HasArg: getopt.RequiredArgument},
		{Name: "ignore-case", Key: 'i'},
		{Name: "skip-chars", Key: 's', HasArg: getopt.RequiredArgument},
		{Name: "unique", Key: 'u'},
		{Name: "check-chars", Key: 'w', HasArg: getopt.RequiredArgument},
		{Name: "zero-terminated", Key: 'z'},
	}, helpVersion...),
}

const uniqHelp = `Usage: %s [OPTION]... [INPUT [OUTPUT]]
Filter adjacent matching lines from INPUT (or standard input),
writing to OUTPUT (or standard output).

With no options, matching lines are merged to the first occurrence.

Mandatory arguments to long options are mandatory for short options too.
  -c, --count           prefix lines by the number of occurrences
  -d, --repeated        only print duplicate lines, one for each group
  -f, --skip-fields=N   avoid comparing the first N fields
  -i, --ignore-case     ignore differences in case when comparing
  -s, --skip-chars=N    avoid comparing the first N characters
  -u, --unique          only print unique lines
  -z, --zero-terminated     line delimiter is NUL, not newline
  -w, --check-chars=N   compare no more than N characters in lines
      --help        display this help and exit
      --version     output version information and exit

A field is a run of blanks (usually spaces and/or TABs), then non-blank
characters.  Fields are skipped before chars.

OUTPUT cannot be written: the filesystem is read-only.
`

// Uniq writes one line of each run of equal adjacent lines, as GNU uniq
// 9.1 does: -c, -d, -u, -i (ASCII case), -f N, -s N, -w N and -z. An
// OUTPUT operand fails as on a read-only filesystem. -D and --group are
// not supported.
func Uniq(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "uniq")
	opts, operands, done, status := r.parse(&uniqSpec, args, 1, uniqHelp)
	if done {
		return status
	}
	count, onlyDup, onlyUniq, fold, delim := false, false, false, false, byte('\n')
	skipFields, skipChars, checkChars := uint64(0), uint64(0), uint64(1<<63)
	for _, o := range opts {
		switch o.Key {
		case 'c':
			count = true
		case 'd':
			onlyDup = true
		case 'u':
			onlyUniq = true
		case 'i':
			fold = true
		case 'z':
			delim = 0
		case 'f', 's', 'w':
			n, err := strconv.ParseUint(o.Arg, 10, 64)
			if err != nil && !errorsIsRange(err) {
				what := map[int]string{'f': "invalid number of fields to skip", 's': "invalid number of bytes to skip", 'w': "invalid number of bytes to compare"}[o.Key]
				r.warn("%s: %s", o.Arg, what)
				return 1
			}
			if err != nil {
				n = 1 << 63
			}
			switch o.Key {
			case 'f':
				skipFields = n
			case 's':
				skipChars = n
			default:
				checkChars = n
			}
		}
	}
	if len(operands) > 2 {
		return r.usage(1, "extra operand %s", localeQuote(operands[2]))
	}
	in := "-"
	if len(operands) > 0 {
		in = operands[0]
	}
	if !r.open() {
		return r.finish(2)
	}
	if len(operands) == 2 && operands[1] != "-" {
		r.warn("%s: Read-only file system", quotef(operands[1]))
		return r.finish(1)
	}
	f, err := r.openInput(in)
	if err != nil {
		if isReadErr(err) {
			r.warn("error reading %s", quote(in))
		} else {
			r.warn("%s: %s", quotef(in), errText(err))
		}
		return r.finish(1)
	}
	defer f.Close()
	key := func(line []byte) []byte {
		line = bytes.TrimSuffix(line, []byte{delim})
		i := 0
		for n := skipFields; n > 0 && i < len(line); n-- {
			for i < len(line) && isBlank(line[i]) {
				i++
			}
			for i < len(line) && !isBlank(line[i]) {
				i++
			}
		}
		i = int(min(uint64(len(line)), uint64(i)+skipChars))
		line = line[i:]
		return line[:min(uint64(len(line)), checkChars)]
	}
	equal := func(a, b []byte) bool {
		if fold {
			return bytes.Equal(asciiOnly(a), asciiOnly(b))
		}
		return bytes.Equal(a, b)
	}
	var prev []byte
	n := 0
	emit := func() {
		if n == 0 || (onlyDup && n < 2) || (onlyUniq && n > 1) {
			return
		}
		if count {
			fmt.Fprintf(r.out, "%7d ", n)
		}
		r.out.Write(bytes.TrimSuffix(prev, []byte{delim}))
		r.out.WriteByte(delim)
	}
	lr := newLineReader(f, delim)
	for !r.stopped() {
		line, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			emit()
			r.warn("error reading %s: %s", quote(in), errText(err))
			return r.finish(1)
		}
		if n > 0 && equal(key(prev), key(line)) {
			n++
			continue
		}
		emit()
		prev = append(prev[:0], line...)
		n = 1
	}
	emit()
	return r.finish(0)
}

// asciiOnly returns b with ASCII letters in upper case: uniq -i folds
// only those in C.UTF-8.
func asciiOnly(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func errorsIsRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
