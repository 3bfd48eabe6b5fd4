package gnu

import (
	"context"
	"io"
	"unicode/utf8"
)

// Rev writes each line of the files with its characters reversed, as
// util-linux rev 2.38 does in a UTF-8 locale (an invalid byte is one
// character). A file that cannot be opened is reported ("rev: cannot
// open nope: No such file or directory") and the others are still
// read; the status is then 1. It takes no options but --help and
// --version.
func Rev(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "rev")
	var operands []string
	for i, a := range args {
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		switch {
		case a == "--help" || a == "-h":
			r.out.WriteString("\nUsage:\n rev [options] [file ...]\n\nReverse lines characterwise.\n\nOptions:\n -h, --help     display this help\n -V, --version  display version\n")
			return r.finish(0)
		case a == "--version" || a == "-V":
			r.version()
			return 0
		case len(a) > 1 && a[0] == '-':
			if len(a) > 2 && a[1] == '-' {
				r.warn("unrecognized option '%s'", a)
			} else {
				r.warn("invalid option -- '%c'", a[1])
			}
			r.out.Flush()
			io.WriteString(r.env.Stderr, "Try 'rev --help' for more information.\n")
			return 1
		}
		operands = append(operands, a)
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(1)
	}
	var rev []byte
	cannotOpen := func(a string, err error) {
		if isReadErr(err) {
			r.warn("%s: 0: Is a directory", a) // util-linux 2.38 says so
		} else {
			r.warn("cannot open %s: %s", a, errText(err))
		}
	}
	return r.finish(r.eachInputReporting(operands, cannotOpen, nil, func(f io.Reader) error {
		return r.eachLine(f, '\n', func(l []byte) {
			nl := len(l) > 0 && l[len(l)-1] == '\n'
			if nl {
				l = l[:len(l)-1]
			}
			rev = rev[:0]
			for len(l) > 0 {
				_, n := utf8.DecodeLastRune(l)
				rev = append(rev, l[len(l)-n:]...)
				l = l[:len(l)-n]
			}
			r.out.Write(rev)
			if nl {
				r.out.WriteByte('\n')
			}
		})
	}))
}
