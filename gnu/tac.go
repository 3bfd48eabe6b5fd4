package gnu

import (
	"bytes"
	"context"
	"io"

	"github.com/chromafs/chromafs/internal/getopt"
)

var tacSpec = getopt.Spec{
	Short: "bs:",
	Long: append([]getopt.Long{
		{Name: "before", Key: 'b'},
		{Name: "separator", Key: 's', HasArg: getopt.RequiredArgument},
	}, helpVersion...),
}

const tacHelp = `Usage: %s [OPTION]... [FILE]...
Write each FILE to standard output, last line first.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -b, --before             attach the separator before instead of after
  -s, --separator=STRING   use STRING as the separator instead of newline
      --help        display this help and exit
      --version     output version information and exit
`

// Tac writes each file last record first, as GNU tac 9.1 does, with -b
// and -s STRING (an empty one makes the input one record); -r (a regular expression separator) is not supported.
// It holds each input, at most HoldLimit bytes.
func Tac(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "tac")
	opts, operands, done, status := r.parse(&tacSpec, args, 1, tacHelp)
	if done {
		return status
	}
	sep, before := []byte("\n"), false
	for _, o := range opts {
		switch o.Key {
		case 'b':
			before = true
		case 's':
			sep = []byte(o.Arg)
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(2)
	}
	cannotOpen := func(a string, err error) {
		if isReadErr(err) {
			r.warn("%s: read error: Invalid argument", a)
		} else {
			r.warn("failed to open %s for reading: %s", quote(a), errText(err))
		}
	}
	readError := func(a string, err error) { r.warn("%s: read error: %s", a, errText(err)) }
	return r.finish(r.eachInputReporting(operands, cannotOpen, readError, func(f io.Reader) error {
		data, err := readHeld(f)
		if err != nil {
			return err
		}
		// Records end after each separator (start at each with -b);
		// they are written last first.
		var records [][]byte
		if len(sep) == 0 {
			// An empty separator makes the input one record.
			records = append(records, data)
			data = nil
		}
		for len(data) > 0 {
			i := bytes.Index(data, sep)
			if before {
				j := bytes.Index(data[min(len(sep), len(data)):], sep)
				if i == 0 && j >= 0 {
					i = j + len(sep)
				} else if i == 0 || i < 0 {
					i = -1
				}
				if i < 0 {
					records = append(records, data)
					break
				}
				records = append(records, data[:i])
				data = data[i:]
				continue
			}
			if i < 0 {
				records = append(records, data)
				break
			}
			records = append(records, data[:i+len(sep)])
			data = data[i+len(sep):]
		}
		for i := len(records) - 1; i >= 0; i-- {
			r.out.Write(records[i])
		}
		return nil
	}))
}
