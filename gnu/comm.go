package gnu

import (
	"bytes"
	"context"
	"io"
	"strconv"

	"github.com/chromafs/chromafs/internal/getopt"
	"github.com/chromafs/chromafs/internal/textio"
)

const (
	keyCheckOrder   = 'c' + 256
	keyNoCheckOrder = 'n' + 256
	keyCommDelim    = 'D' + 256
	keyTotal        = 't' + 256
)

var commSpec = getopt.Spec{
	Short: "123z",
	Long: append([]getopt.Long{
		{Name: "check-order", Key: keyCheckOrder},
		{Name: "nocheck-order", Key: keyNoCheckOrder},
		{Name: "output-delimiter", Key: keyCommDelim, HasArg: getopt.RequiredArgument},
		{Name: "total", Key: keyTotal},
		{Name: "zero-terminated", Key: 'z'},
	}, helpVersion...),
}

const commHelp = `Usage: %s [OPTION]... FILE1 FILE2
Compare sorted files FILE1 and FILE2 line by line.

When FILE1 or FILE2 (not both) is -, read standard input.

With no options, produce three-column output.  Column one contains
lines unique to FILE1, column two contains lines unique to FILE2,
and column three contains lines common to both files.

  -1                      suppress column 1 (lines unique to FILE1)
  -2                      suppress column 2 (lines unique to FILE2)
  -3                      suppress column 3 (lines that appear in both files)

      --check-order       check that the input is correctly sorted, even
                            if all input lines are pairable
      --nocheck-order     do not check that the input is correctly sorted
      --output-delimiter=STR  separate columns with STR
      --total             output a summary
  -z, --zero-terminated   line delimiter is NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
`

// Comm compares two sorted files as GNU comm 9.1 does in the C.UTF-8
// locale (lines compare as bytes): -1 -2 -3, --check-order,
// --nocheck-order, --output-delimiter, --total and -z. Unsorted input is
// reported once per file ("comm: file 2 is not in sorted order") when a
// line has no pair, and the status is then 1.
func Comm(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "comm")
	opts, operands, done, status := r.parse(&commSpec, args, 1, commHelp)
	if done {
		return status
	}
	show := [4]bool{true, true, true, true}
	check := 0 // 0 default, 1 --check-order, -1 --nocheck-order
	delim := "\t"
	delimSet := false
	total := false
	eol := byte('\n')
	for _, o := range opts {
		switch o.Key {
		case '1', '2', '3':
			show[o.Key-'0'] = false
		case 'z':
			eol = 0
		case keyCheckOrder:
			check = 1
		case keyNoCheckOrder:
			check = -1
		case keyCommDelim:
			if delimSet && o.Arg != delim {
				r.warn("multiple output delimiters specified")
				return r.finish(1)
			}
			delim, delimSet = o.Arg, true
			if delim == "" {
				delim = "\x00"
			}
		case keyTotal:
			total = true
		}
	}
	switch len(operands) {
	case 0:
		return r.usage(1, "missing operand")
	case 1:
		return r.usage(1, "missing operand after %s", localeQuote(operands[0]))
	case 2:
	default:
		return r.usage(1, "extra operand %s", localeQuote(operands[2]))
	}
	if !r.open() {
		return r.finish(1)
	}
	var in [2]*textio.LineReader
	for i, a := range operands {
		f, err := r.openInput(a)
		if err != nil {
			if isReadErr(err) {
				in[i] = newLineReader(errReader{err}, eol)
				continue
			}
			r.warn("%s: %s", quotef(a), errText(err))
			return r.finish(1)
		}
		defer f.Close()
		in[i] = newLineReader(f, eol)
	}
	var (
		cur, prev [2][]byte
		have      [2]bool
		unsorted  [2]bool
		counts    [4]int
		failed    bool
		unpaired  bool
	)
	read := func(i int) {
		if have[i] {
			prev[i] = append(prev[i][:0], cur[i]...)
		}
		l, err := in[i].Next()
		if err != nil {
			if err != io.EOF {
				r.warn("%s: %s", operands[i], errText(err))
				failed = true
			}
			have[i] = false
			cur[i] = nil
			return
		}
		if n := len(l); n > 0 && l[n-1] == eol {
			l = l[:n-1]
		}
		cur[i] = append(cur[i][:0], l...)
		have[i] = true
	}
	started := [2]bool{}
	advance := func(i int) {
		read(i)
		// GNU comm checks the order once a line without a pair has been
		// seen, or always with --check-order.
		checking := check > 0 || (check == 0 && unpaired)
		if have[i] && started[i] && checking && !unsorted[i] && bytes.Compare(prev[i], cur[i]) > 0 {
			unsorted[i] = true
			r.warn("file %d is not in sorted order", i+1)
		}
		started[i] = true
	}
	emit := func(col int, l []byte) {
		counts[col]++
		if !show[col] {
			return
		}
		for c := 1; c < col; c++ {
			if show[c] {
				r.out.WriteString(delim)
			}
		}
		r.out.Write(l)
		r.out.WriteByte(eol)
	}
	advance(0)
	advance(1)
	for (have[0] || have[1]) && !failed && !r.stopped() {
		switch {
		case !have[1] || (have[0] && bytes.Compare(cur[0], cur[1]) < 0):
			emit(1, cur[0])
			unpaired = true
			advance(0)
		case !have[0] || bytes.Compare(cur[0], cur[1]) > 0:
			emit(2, cur[1])
			unpaired = true
			advance(1)
		default:
			emit(3, cur[0])
			advance(0)
			advance(1)
		}
	}
	if total {
		for c := 1; c <= 3; c++ {
			r.out.WriteString(strconv.Itoa(counts[c]))
			r.out.WriteString(delim)
		}
		r.out.WriteString("total")
		r.out.WriteByte(eol)
	}
	if failed {
		return r.finish(1)
	}
	if unsorted[0] || unsorted[1] {
		r.warn("input is not in sorted order")
		return r.finish(1)
	}
	return r.finish(0)
}
