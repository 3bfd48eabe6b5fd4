package gnu

import (
	"context"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var basenameSpec = getopt.Spec{
	Short: "as:z",
	Long: append([]getopt.Long{
		{Name: "multiple", Key: 'a'},
		{Name: "suffix", Key: 's', HasArg: getopt.RequiredArgument},
		{Name: "zero", Key: 'z'},
	}, helpVersion...),
}

const basenameHelp = `Usage: %s NAME [SUFFIX]
  or:  %[1]s OPTION... NAME...
Print NAME with any leading directory components removed.
If specified, also remove a trailing SUFFIX.

Mandatory arguments to long options are mandatory for short options too.
  -a, --multiple       support multiple arguments and treat each as a NAME
  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a
  -z, --zero           end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
`

// Basename prints each NAME without its directories and the SUFFIX, as
// GNU basename 9.1 does: NAME [SUFFIX], or -a, -s SUFFIX, -z. It reads
// no file.
func Basename(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "basename")
	opts, operands, done, status := r.parse(&basenameSpec, args, 1, basenameHelp)
	if done {
		return status
	}
	multiple, suffix, eol := false, "", byte('\n')
	for _, o := range opts {
		switch o.Key {
		case 'a':
			multiple = true
		case 's':
			multiple, suffix = true, o.Arg
		case 'z':
			eol = 0
		}
	}
	if len(operands) == 0 {
		return r.usage(1, "missing operand")
	}
	if !multiple {
		if len(operands) > 2 {
			return r.usage(1, "extra operand %s", localeQuote(operands[2]))
		}
		if len(operands) == 2 {
			suffix = operands[1]
		}
		operands = operands[:1]
	}
	for _, a := range operands {
		r.out.WriteString(basenameOf(a, suffix))
		r.out.WriteByte(eol)
	}
	return r.finish(0)
}

// basenameOf is GNU basename's result for name and suffix.
func basenameOf(name, suffix string) string {
	t := strings.TrimRight(name, "/")
	if t == "" {
		if name == "" {
			return ""
		}
		return "/"
	}
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		t = t[i+1:]
	}
	if suffix != "" && t != suffix && strings.HasSuffix(t, suffix) {
		t = t[:len(t)-len(suffix)]
	}
	return t
}

var dirnameSpec = getopt.Spec{
	Short: "z",
	Long:  append([]getopt.Long{{Name: "zero", Key: 'z'}}, helpVersion...),
}

const dirnameHelp = `Usage: %s [OPTION] NAME...
Output each NAME with its last non-slash component and trailing slashes
removed; if NAME contains no /'s, output '.' (meaning the current directory).

  -z, --zero     end each output line with NUL, not newline
      --help     display this help and exit
      --version  output version information and exit
`

// Dirname prints each NAME without its last component, as GNU dirname
// 9.1 does, with -z. It reads no file.
func Dirname(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "dirname")
	opts, operands, done, status := r.parse(&dirnameSpec, args, 1, dirnameHelp)
	if done {
		return status
	}
	eol := byte('\n')
	if len(opts) > 0 {
		eol = 0
	}
	if len(operands) == 0 {
		return r.usage(1, "missing operand")
	}
	for _, a := range operands {
		r.out.WriteString(dirnameOf(a))
		r.out.WriteByte(eol)
	}
	return r.finish(0)
}

// dirnameOf is GNU dirname's result for name.
func dirnameOf(name string) string {
	t := strings.TrimRight(name, "/")
	if t == "" {
		if name == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}
