package gnu

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/chromafs/chromafs/internal/getopt"
)

var seqSpec = getopt.Spec{
	Short: "f:s:w",
	Long: append([]getopt.Long{
		{Name: "format", Key: 'f', HasArg: getopt.RequiredArgument},
		{Name: "separator", Key: 's', HasArg: getopt.RequiredArgument},
		{Name: "equal-width", Key: 'w'},
	}, helpVersion...),
}

const seqHelp = `Usage: %s [OPTION]... LAST
  or:  %[1]s [OPTION]... FIRST LAST
  or:  %[1]s [OPTION]... FIRST INCREMENT LAST
Print numbers from FIRST to LAST, in steps of INCREMENT.

Mandatory arguments to long options are mandatory for short options too.
  -f, --format=FORMAT      use printf style floating-point FORMAT
  -s, --separator=STRING   use STRING to separate numbers (default: \n)
  -w, --equal-width        equalize width by padding with leading zeroes
      --help        display this help and exit
      --version     output version information and exit

If FIRST or INCREMENT is omitted, it defaults to 1.  That is, an
omitted INCREMENT defaults to 1 even when LAST is smaller than FIRST.
The sequence of numbers ends when the sum of the current number and
INCREMENT would become greater than LAST.
FIRST, INCREMENT, and LAST are interpreted as decimal numbers.
FORMAT must be suitable for printing one floating-point argument.
`

// seqNumRE is the decimal numbers seq accepts here.
// Compiled on first use, not at start: every chromafs command links gnu.
var seqNumRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t\n]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
})

// seqOperand is a parsed operand and the width and precision GNU seq
// derives from how it is written.
type seqOperand struct {
	v                *big.Rat
	width, precision int
}

func parseSeqOperand(arg string) (seqOperand, bool) {
	if !seqNumRE().MatchString(arg) {
		return seqOperand{}, false
	}
	a := strings.TrimLeft(arg, " \t\n+")
	v, ok := new(big.Rat).SetString(strings.TrimPrefix(a, "+"))
	if !ok {
		return seqOperand{}, false
	}
	o := seqOperand{v: v, width: len(a)}
	dot := strings.IndexByte(a, '.')
	fraction := 0
	if dot >= 0 {
		fraction = strings.IndexAny(a[dot+1:]+"e", "eE")
		o.precision = fraction
		switch {
		case fraction == 0:
			o.width--
		case dot == 0 || !isDigit(a[dot-1]):
			o.width++
		}
	}
	if e := strings.IndexAny(a, "eE"); e >= 0 {
		exp, _ := strconv.Atoi(a[e+1:])
		if exp < 0 {
			o.precision -= exp
		} else {
			o.precision -= min(o.precision, exp)
		}
		o.width -= len(a) - e
		if exp < 0 {
			if dot < 0 || e == dot+1 {
				o.width++
			}
			exp = -exp
		} else {
			if dot >= 0 && o.precision == 0 && fraction > 0 {
				o.width--
			}
			exp -= min(fraction, exp)
		}
		o.width += exp
	}
	return o, true
}

// Seq prints a sequence of numbers, as GNU seq 9.1 does: FIRST,
// INCREMENT and LAST decimal numbers (exactly, without binary rounding),
// -s, -w, and -f with one floating-point directive (%e %f %g %E %F %G
// and flags). Negative operands need no "--". Infinities, NaN and
// hexadecimal operands are not supported.
func Seq(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "seq")
	// Options come first, as seq parses them, and a negative number ends
	// them.
	end := 0
	for end < len(args) {
		a := args[end]
		if a == "--" || len(a) < 2 || a[0] != '-' || a[1] == '.' || isDigit(a[1]) {
			break
		}
		end++
		if strings.HasPrefix(a, "--") {
			name := a[2:]
			if !strings.Contains(name, "=") && name != "" && (strings.HasPrefix("format", name) || strings.HasPrefix("separator", name)) {
				end++
			}
			continue
		}
		if i := strings.IndexAny(a[1:], "fs"); i >= 0 && i == len(a)-2 {
			end++
		}
	}
	end = min(end, len(args))
	opts, _, done, status := r.parse(&seqSpec, args[:end], 1, seqHelp)
	if done {
		return status
	}
	operands := args[end:]
	if len(operands) > 0 && operands[0] == "--" {
		operands = operands[1:]
	}
	format, sep, equal := "", "\n", false
	for _, o := range opts {
		switch o.Key {
		case 'f':
			format = o.Arg
		case 's':
			sep = o.Arg
		case 'w':
			equal = true
		}
	}
	if format != "" && equal {
		return r.usage(1, "format string may not be specified when printing equal width strings")
	}
	if len(operands) == 0 {
		return r.usage(1, "missing operand")
	}
	if len(operands) > 3 {
		return r.usage(1, "extra operand %s", localeQuote(operands[3]))
	}
	var goFormat string
	if format != "" {
		f, msg := seqFormat(format)
		if msg != "" {
			r.warn("%s", msg)
			return 1
		}
		goFormat = f
	}
	var ops []seqOperand
	for _, a := range operands {
		o, ok := parseSeqOperand(a)
		if !ok {
			return r.usage(1, "invalid floating point argument: %s", localeQuote(a))
		}
		ops = append(ops, o)
	}
	one := seqOperand{v: big.NewRat(1, 1), width: 1}
	first, step, last := one, one, ops[len(ops)-1]
	if len(ops) >= 2 {
		first = ops[0]
	}
	if len(ops) == 3 {
		step = ops[1]
		if step.v.Sign() == 0 {
			return r.usage(1, "invalid Zero increment value: %s", localeQuote(operands[1]))
		}
	}
	prec := max(first.precision, step.precision)
	width := 0
	if equal {
		fw := first.width + prec - first.precision
		lw := last.width + prec - last.precision
		if last.precision > 0 && prec == 0 {
			lw--
		}
		if last.precision == 0 && prec > 0 {
			lw++
		}
		if first.precision == 0 && prec > 0 {
			fw++
		}
		width = max(fw, lw)
	}
	x := new(big.Rat).Set(first.v)
	printed := false
	for i := 0; !r.stopped(); i++ {
		if c := x.Cmp(last.v); (step.v.Sign() > 0 && c > 0) || (step.v.Sign() < 0 && c < 0) {
			break
		}
		if i > 0 {
			r.out.WriteString(sep)
		}
		if goFormat != "" {
			f, _ := x.Float64()
			fmt.Fprintf(r.out, goFormat, f)
		} else {
			s := x.FloatString(prec)
			neg := strings.HasPrefix(s, "-")
			if neg {
				s = s[1:]
				r.out.WriteByte('-')
			}
			for k := len(s); k < width-btoi(neg); k++ {
				r.out.WriteByte('0')
			}
			r.out.WriteString(s)
		}
		x.Add(x, step.v)
		printed = true
	}
	if printed {
		r.out.WriteString("\n")
	}
	return r.finish(0)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// seqFormat checks a -f FORMAT as seq does and turns it into a Go format
// for one float64.
func seqFormat(f string) (string, string) {
	var b strings.Builder
	found := false
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteString("%%")
			i++
			continue
		}
		if found {
			return "", "format " + localeQuote(f) + " has too many % directives"
		}
		found = true
		j := i + 1
		flags := ""
		for j < len(f) && strings.IndexByte("-+ #0'", f[j]) >= 0 {
			if f[j] != '\'' {
				flags += f[j : j+1]
			}
			j++
		}
		k := j
		for k < len(f) && isDigit(f[k]) {
			k++
		}
		wid := f[j:k]
		prec := ""
		if k < len(f) && f[k] == '.' {
			m := k + 1
			for m < len(f) && isDigit(f[m]) {
				m++
			}
			prec = f[k:m]
			if prec == "." {
				prec = ".0"
			}
			k = m
		}
		if k >= len(f) {
			return "", "format " + localeQuote(f) + " ends in %"
		}
		verb := f[k]
		if strings.IndexByte("eEfFgGaA", verb) < 0 {
			return "", "format " + localeQuote(f) + " has unknown %" + f[k:k+1] + " directive"
		}
		if prec == "" {
			prec = ".6"
		}
		if verb == 'F' {
			verb = 'f'
		}
		if verb == 'a' || verb == 'A' {
			verb = map[byte]byte{'a': 'x', 'A': 'X'}[verb]
		}
		b.WriteString("%" + flags + wid + prec + string(verb))
		i = k
	}
	if !found {
		return "", "format " + localeQuote(f) + " has no % directive"
	}
	return b.String(), ""
}
