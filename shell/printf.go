package shell

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"mvdan.cc/sh/v3/interp"
)

// bashPrintf is bash 5.2's printf builtin without -v: it writes format,
// reused while arguments remain, to w, and returns the exit status (1
// after an invalid number, which prints what its valid prefix is; 1 at
// an invalid conversion, which ends the output there). now is the time
// of %(...)T's -1 and -2 and loc its time zone.
func bashPrintf(w, errw io.Writer, prog, format string, args []string, now time.Time, loc *time.Location) int {
	p := &printer{errw: errw, prog: prog, args: args, now: now, loc: loc}
	var out strings.Builder
	for {
		used := p.next
		if !p.pass(&out, format) || p.stopped {
			break
		}
		if p.next >= len(p.args) || p.next == used {
			break
		}
	}
	io.WriteString(w, out.String())
	return p.status
}

type printer struct {
	errw    io.Writer
	prog    string
	args    []string
	next    int
	status  int
	stopped bool // \c in %b: no more output at all
	now     time.Time
	loc     *time.Location
}

func (p *printer) warn(format string, a ...any) {
	fmt.Fprintf(p.errw, "%s: printf: %s\n", p.prog, fmt.Sprintf(format, a...))
}

func (p *printer) arg() (string, bool) {
	if p.next < len(p.args) {
		p.next++
		return p.args[p.next-1], true
	}
	return "", false
}

// pass formats format once; false means stop (an invalid conversion).
func (p *printer) pass(out *strings.Builder, format string) bool {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' {
			n, s, _ := unescape(format[i+1:], false)
			out.WriteString(s)
			i += n
			continue
		}
		if c != '%' {
			out.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			out.WriteByte('%')
			i++
			continue
		}
		// %[flags][width][.precision][length]conv
		j := i + 1
		flags := ""
		for j < len(format) && strings.IndexByte("-+ #0'", format[j]) >= 0 {
			if format[j] != '\'' {
				flags += format[j : j+1]
			}
			j++
		}
		width, prec := "", ""
		hasPrec := false
		if j < len(format) && format[j] == '*' {
			a, _ := p.arg()
			n, _ := p.integer(a)
			width = strconv.FormatInt(n, 10)
			j++
		} else {
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				width += format[j : j+1]
				j++
			}
		}
		if j < len(format) && format[j] == '.' {
			hasPrec = true
			j++
			if j < len(format) && format[j] == '*' {
				a, _ := p.arg()
				n, _ := p.integer(a)
				prec = strconv.FormatInt(n, 10)
				j++
			} else {
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					prec += format[j : j+1]
					j++
				}
			}
		}
		if strings.HasPrefix(width, "-") {
			flags, width = flags+"-", width[1:]
		}
		for j < len(format) && strings.IndexByte("hlLjzt", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			p.warn("`%s': missing format character", format[i:])
			p.status = 1
			return false
		}
		conv := format[j]
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		switch conv {
		case 'd', 'i':
			a, _ := p.arg()
			n, _ := p.integer(a)
			out.WriteString(fmt.Sprintf(spec+"d", n))
		case 'o', 'u', 'x', 'X':
			a, _ := p.arg()
			n, _ := p.integer(a)
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			s := fmt.Sprintf(strings.ReplaceAll(spec, "#", "")+verb, uint64(n))
			if strings.Contains(flags, "#") && n != 0 {
				s = fmt.Sprintf(strings.ReplaceAll(spec, "#", "")+"s", map[byte]string{'o': "0", 'x': "0x", 'X': "0X", 'u': ""}[conv]+strconv.FormatUint(uint64(n), map[byte]int{'o': 8, 'x': 16, 'X': 16, 'u': 10}[conv]))
				if conv == 'X' {
					s = strings.ToUpper(s)
				}
			}
			out.WriteString(s)
		case 'f', 'F', 'e', 'E', 'g', 'G':
			a, _ := p.arg()
			f := p.float(a)
			verb := string(conv)
			if conv == 'F' {
				verb = "f"
			}
			s := fmt.Sprintf(spec+verb, f)
			if math.IsInf(f, 0) || math.IsNaN(f) {
				s = strings.NewReplacer("+Inf", "inf", "-Inf", "-inf", "NaN", "nan").Replace(s)
				if conv == 'F' || conv == 'E' || conv == 'G' {
					s = strings.ToUpper(s)
				}
			}
			if (conv == 'g' || conv == 'G') && strings.Contains(flags, "#") {
				s = fmt.Sprintf(spec+verb, f)
			}
			out.WriteString(s)
		case 'c':
			a, _ := p.arg()
			if a != "" {
				a = a[:1]
			}
			out.WriteString(fmt.Sprintf(strings.ReplaceAll(spec, "0", "")+"s", a))
		case 's':
			a, _ := p.arg()
			out.WriteString(fmt.Sprintf(spec+"s", a))
		case 'b':
			a, _ := p.arg()
			var b strings.Builder
			for k := 0; k < len(a); k++ {
				if a[k] != '\\' {
					b.WriteByte(a[k])
					continue
				}
				n, s, stop := unescape(a[k+1:], true)
				if stop {
					p.stopped = true
					out.WriteString(fmt.Sprintf(spec+"s", b.String()))
					return false
				}
				b.WriteString(s)
				k += n
			}
			out.WriteString(fmt.Sprintf(spec+"s", b.String()))
		case 'q', 'Q':
			a, _ := p.arg()
			out.WriteString(fmt.Sprintf(spec+"s", shellQuoteArg(a)))
		case '(':
			end := strings.Index(format[j:], ")T")
			if end < 0 {
				p.warn("`(': invalid format character")
				p.status = 1
				return false
			}
			layout := format[j+1 : j+end]
			a, ok := p.arg()
			t := p.now
			if ok && a != "" {
				n, _ := p.integer(a)
				if n >= 0 {
					t = time.Unix(n, 0)
				}
			}
			out.WriteString(fmt.Sprintf(spec+"s", strftime(layout, t.In(p.loc))))
			j += end + 1
		default:
			p.warn("`%c': invalid format character", conv)
			p.status = 1
			return false
		}
		i = j
	}
	return true
}

// integer parses a numeric argument as bash does (strtoimax, with 'c
// and "c for a character's code); an invalid one is reported, and its
// valid prefix used.
func (p *printer) integer(a string) (int64, bool) {
	if len(a) > 0 && (a[0] == '\'' || a[0] == '"') {
		if len(a) == 1 {
			return 0, true
		}
		r, _ := utf8.DecodeRuneInString(a[1:])
		return int64(r), true
	}
	s := strings.TrimLeft(a, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := 10
	switch {
	case len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	k := 0
	for k < len(s) && digitValue(s[k]) < base {
		k++
	}
	n, err := strconv.ParseUint(s[:k], base, 64)
	if k == 0 {
		n, err = 0, nil
	}
	var v int64
	switch {
	case err != nil || (!neg && n > math.MaxInt64) || (neg && n > 1<<63):
		p.warn("warning: %s: Numerical result out of range", a)
		v = math.MaxInt64
		if neg {
			v = math.MinInt64
		}
		return v, false
	case neg:
		v = -int64(n)
	default:
		v = int64(n)
	}
	if k < len(s) || (k == 0 && a != "") {
		p.warn("%s: invalid number", a)
		p.status = 1
		return v, false
	}
	return v, true
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// float parses a floating-point argument as strtold does.
func (p *printer) float(a string) float64 {
	if len(a) > 0 && (a[0] == '\'' || a[0] == '"') {
		n, _ := p.integer(a)
		return float64(n)
	}
	s := strings.TrimLeft(a, " \t\n\v\f\r")
	if s == "" {
		return 0
	}
	// The longest prefix that parses.
	for k := len(s); k > 0; k-- {
		c := s[:k]
		if t := strings.TrimLeft(c, "+-"); (strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X")) && !strings.ContainsAny(t, "pP") {
			c += "p0" // strtold's hexadecimal without an exponent
		}
		f, err := strconv.ParseFloat(c, 64)
		if err == nil || strings.Contains(err.Error(), "range") {
			if k < len(s) {
				p.warn("%s: invalid number", a)
				p.status = 1
			}
			return f
		}
	}
	p.warn("%s: invalid number", a)
	p.status = 1
	return 0
}

// unescape reads the escape after a backslash at the start of s: the
// bytes consumed, the text, and whether it is \c (which, in %b, ends all
// output). inB selects %b's rules (\0NNN octal; \c).
func unescape(s string, inB bool) (int, string, bool) {
	if s == "" {
		return 0, "\\", false
	}
	switch c := s[0]; c {
	case 'a':
		return 1, "\a", false
	case 'b':
		return 1, "\b", false
	case 'e', 'E':
		return 1, "\x1b", false
	case 'f':
		return 1, "\f", false
	case 'n':
		return 1, "\n", false
	case 'r':
		return 1, "\r", false
	case 't':
		return 1, "\t", false
	case 'v':
		return 1, "\v", false
	case '\\':
		return 1, "\\", false
	case '"', '?':
		if inB {
			return 1, "\\" + string(c), false
		}
		return 1, string(c), false
	case '\'':
		if inB {
			return 1, "\\'", false
		}
		return 1, "'", false
	case 'c':
		if inB {
			return 1, "", true
		}
		return 1, "\\c", false
	case 'x':
		k := 1
		for k < 3 && k < len(s) && digitValue(s[k]) < 16 {
			k++
		}
		if k == 1 {
			return 1, "\\x", false
		}
		n, _ := strconv.ParseUint(s[1:k], 16, 8)
		return k, string([]byte{byte(n)}), false
	case 'u', 'U':
		max := 5
		if c == 'U' {
			max = 9
		}
		k := 1
		for k < max && k < len(s) && digitValue(s[k]) < 16 {
			k++
		}
		if k == 1 {
			return 1, "\\" + string(c), false
		}
		n, _ := strconv.ParseUint(s[1:k], 16, 32)
		return k, string(rune(n)), false
	}
	if s[0] >= '0' && s[0] <= '7' {
		start, max := 0, 3
		if inB && s[0] == '0' {
			start, max = 1, 4
		}
		k := start
		for k < max && k < len(s) && s[k] >= '0' && s[k] <= '7' {
			k++
		}
		n, _ := strconv.ParseUint("0"+s[start:k], 8, 16)
		return k, string([]byte{byte(n)}), false
	}
	return 1, "\\" + s[:1], false
}

// shellQuoteArg quotes s as printf %q does: $'...' for control
// characters, backslashes before the characters the shell would read.
func shellQuoteArg(s string) string {
	if s == "" {
		return "''"
	}
	control := false
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			control = true
		}
	}
	var b strings.Builder
	if control {
		b.WriteString("$'")
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			case '\a':
				b.WriteString(`\a`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\v':
				b.WriteString(`\v`)
			case 0x1b:
				b.WriteString(`\E`)
			case '\\', '\'':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				if c < 0x20 || c == 0x7f {
					fmt.Fprintf(&b, `\%03o`, c)
				} else {
					b.WriteByte(c)
				}
			}
		}
		b.WriteString("'")
		return b.String()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(" !\"#$&'()*,;<>?[\\]^`{|}", c) >= 0 || (i == 0 && c == '~') {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// strftime formats t with the common conversions of strftime(3).
func strftime(layout string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(layout); i++ {
		if layout[i] != '%' || i+1 == len(layout) {
			b.WriteByte(layout[i])
			continue
		}
		i++
		switch layout[i] {
		case 'Y':
			b.WriteString(t.Format("2006"))
		case 'y':
			b.WriteString(t.Format("06"))
		case 'm':
			b.WriteString(t.Format("01"))
		case 'd':
			b.WriteString(t.Format("02"))
		case 'e':
			b.WriteString(t.Format("_2"))
		case 'H':
			b.WriteString(t.Format("15"))
		case 'I':
			b.WriteString(t.Format("03"))
		case 'M':
			b.WriteString(t.Format("04"))
		case 'S':
			b.WriteString(t.Format("05"))
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(t.Format("Mon Jan _2 15:04:05 2006"))
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(layout[i])
		}
	}
	return b.String()
}

// validVar matches the names printf -v can assign: a variable or an
// array element.
// Compiled on first use, not at start.
var validVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?$`)
})

// printfCall turns a printf command into what runs it: the shell's
// printf (printfCmd), or for -v VAR an eval that assigns its output.
func (rs *runState) printfCall(hc interp.HandlerContext, args []string) []string {
	prog := rs.s.prog
	usage := func() []string {
		fmt.Fprintln(hc.Stderr, "printf: usage: printf [-v var] format [arguments]")
		return []string{failCmd, "2"}
	}
	a := args[1:]
	varName := ""
	for len(a) > 0 && len(a[0]) > 1 && a[0][0] == '-' {
		switch {
		case a[0] == "--":
			a = a[1:]
		case a[0] == "-v" && len(a) > 1:
			varName, a = a[1], a[2:]
			continue
		case strings.HasPrefix(a[0], "-v") && len(a[0]) > 2:
			varName, a = a[0][2:], a[1:]
			continue
		case a[0] == "-v":
			fmt.Fprintf(hc.Stderr, "%s: printf: -v: option requires an argument\n", prog)
			return usage()
		default:
			fmt.Fprintf(hc.Stderr, "%s: printf: %s: invalid option\n", prog, a[0][:2])
			return usage()
		}
		break
	}
	if len(a) == 0 {
		return usage()
	}
	if varName == "" {
		return append([]string{printfCmd}, a...)
	}
	if !validVar().MatchString(varName) {
		fmt.Fprintf(hc.Stderr, "%s: printf: `%s': not a valid identifier\n", prog, varName)
		return []string{failCmd, "2"}
	}
	var out strings.Builder
	st := bashPrintf(&out, hc.Stderr, prog, a[0], a[1:], rs.s.clock(), rs.s.loc)
	assign := varName + "='" + strings.ReplaceAll(out.String(), "'", `'\''`) + "'"
	if st != 0 {
		assign += "; " + failCmd + " " + strconv.Itoa(st)
	}
	return []string{"eval", assign}
}
