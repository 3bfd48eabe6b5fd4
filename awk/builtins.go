package awk

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

func (in *interp) builtin(b *builtinExpr) (value, error) {
	args := b.args
	evalStr := func(i int) (string, error) {
		v, err := in.eval(args[i])
		return in.toStr(v), err
	}
	evalNum := func(i int) (float64, error) {
		v, err := in.eval(args[i])
		return in.toNum(v), err
	}
	switch b.fn {
	case fLength:
		if len(args) == 0 {
			return num(float64(utf8.RuneCountInString(in.record))), nil
		}
		if v, ok := args[0].(*varExpr); ok {
			s := in.slotOf(v)
			if !v.local && (v.idx == vENVIRON || v.idx == vARGV) || s.a != nil {
				a, err := in.arrayOf(v)
				if err != nil {
					return value{}, err
				}
				return num(float64(len(a.m))), nil
			}
			if s.ref != nil {
				r := s.ref
				for r.ref != nil && r.a == nil {
					r = r.ref
				}
				if r.a != nil {
					return num(float64(len(r.a.m))), nil
				}
			}
		}
		s, err := evalStr(0)
		return num(float64(utf8.RuneCountInString(s))), err
	case fSubstr:
		s, err := evalStr(0)
		if err != nil {
			return value{}, err
		}
		m, err := evalNum(1)
		if err != nil {
			return value{}, err
		}
		n := math.Inf(1)
		if len(args) == 3 {
			if n, err = evalNum(2); err != nil {
				return value{}, err
			}
		}
		return str(substr(s, m, n)), nil
	case fIndex:
		s, err := evalStr(0)
		if err != nil {
			return value{}, err
		}
		t, err := evalStr(1)
		if err != nil {
			return value{}, err
		}
		if t == "" {
			return num(1), nil
		}
		if in.ignoreCase {
			s, t = strings.ToLower(s), strings.ToLower(t)
		}
		i := strings.Index(s, t)
		if i < 0 {
			return num(0), nil
		}
		return num(float64(utf8.RuneCountInString(s[:i]) + 1)), nil
	case fSplit:
		return in.split(args)
	case fGensub:
		return in.gensub(args)
	case fAsort, fAsorti:
		return in.asort(args, b.fn == fAsorti)
	case fSub, fGsub:
		return in.sub(args, b.fn == fGsub)
	case fMatch:
		s, err := evalStr(0)
		if err != nil {
			return value{}, err
		}
		re, err := in.regexOf(args[1])
		if err != nil {
			return value{}, err
		}
		loc := re.FindStringIndex(s)
		if loc == nil {
			in.globals[vRSTART].v = num(0)
			in.globals[vRLENGTH].v = num(-1)
			return num(0), nil
		}
		start := utf8.RuneCountInString(s[:loc[0]]) + 1
		in.globals[vRSTART].v = num(float64(start))
		in.globals[vRLENGTH].v = num(float64(utf8.RuneCountInString(s[loc[0]:loc[1]])))
		return num(float64(start)), nil
	case fSprintf:
		vals := make([]value, len(args))
		for i, a := range args {
			v, err := in.eval(a)
			if err != nil {
				return value{}, err
			}
			vals[i] = v
		}
		s, err := sprintf(in.toStr(vals[0]), vals[1:], in)
		return str(s), err
	case fTolower, fToupper:
		s, err := evalStr(0)
		if err != nil {
			return value{}, err
		}
		if b.fn == fTolower {
			return str(strings.ToLower(s)), nil
		}
		return str(strings.ToUpper(s)), nil
	case fInt:
		n, err := evalNum(0)
		return num(math.Trunc(n)), err
	case fSqrt:
		n, err := evalNum(0)
		if n < 0 {
			in.warn("sqrt: received negative argument %s", formatNum(n, "%.6g"))
			return num(negNaN), err
		}
		return num(math.Sqrt(n)), err
	case fExp:
		n, err := evalNum(0)
		return num(math.Exp(n)), err
	case fLog:
		n, err := evalNum(0)
		if n < 0 {
			in.warn("log: received negative argument %s", formatNum(n, "%.6g"))
			return num(negNaN), err
		}
		return num(math.Log(n)), err
	case fSin:
		n, err := evalNum(0)
		return num(math.Sin(n)), err
	case fCos:
		n, err := evalNum(0)
		return num(math.Cos(n)), err
	case fAtan2:
		y, err := evalNum(0)
		if err != nil {
			return value{}, err
		}
		x, err := evalNum(1)
		return num(math.Atan2(y, x)), err
	case fRand:
		return num(in.rand()), nil
	case fSrand:
		prev := in.seed
		seed := 0.0
		if len(args) == 1 {
			n, err := evalNum(0)
			if err != nil {
				return value{}, err
			}
			seed = n
		}
		in.srandSeed(seed)
		return num(prev), nil
	case fSystem:
		c, err := evalStr(0)
		if err != nil {
			return value{}, err
		}
		in.out.Flush()
		in.warn("system(\"%s\"): running commands is not supported", c)
		return num(127), nil
	case fClose:
		name, err := evalStr(0)
		if err != nil {
			return value{}, err
		}
		return num(in.closeStream(name)), nil
	case fFflush:
		if len(args) == 1 {
			if _, err := evalStr(0); err != nil {
				return value{}, err
			}
		}
		for _, o := range in.outs {
			o.w.Flush()
		}
		in.out.Flush()
		return num(0), nil
	}
	return value{}, in.fatal("unknown builtin %s", b.name)
}

// substr is awk's substr on characters: from position m (rounded), n
// characters (rounded), clipped to the string.
func substr(s string, m, n float64) string {
	if math.IsNaN(m) || math.IsNaN(n) {
		return ""
	}
	// as gawk 5.2: positions and lengths truncate, and a start before 1
	// is 1 with the length kept
	m = math.Trunc(m)
	if !math.IsInf(n, 1) {
		n = math.Trunc(n)
	}
	if m < 1 {
		m = 1
	}
	end := m + n // exclusive, 1-based
	count := utf8.RuneCountInString(s)
	if end > float64(count+1) {
		end = float64(count + 1)
	}
	if end <= m {
		return ""
	}
	start, stop := int(m)-1, int(end)-1
	if count == len(s) {
		return s[start:stop]
	}
	i, bs, be := 0, len(s), len(s)
	for bi := range s {
		if i == start {
			bs = bi
		}
		if i == stop {
			be = bi
			break
		}
		i++
	}
	return s[bs:be]
}

func (in *interp) split(args []expr) (value, error) {
	sv, err := in.eval(args[0])
	if err != nil {
		return value{}, err
	}
	s := in.toStr(sv)
	arr, err := in.arrayOf(args[1].(*varExpr))
	if err != nil {
		return value{}, err
	}
	var seps *array
	if len(args) == 4 {
		if seps, err = in.arrayOf(args[3].(*varExpr)); err != nil {
			return value{}, err
		}
	}
	fs := in.globals[vFS].v.s
	re := in.fsRe
	if len(args) >= 3 {
		if r, ok := args[2].(*regexExpr); ok {
			fs = "\x00re"
			if re, err = in.lit(r); err != nil {
				return value{}, err
			}
		} else {
			fv, err := in.eval(args[2])
			if err != nil {
				return value{}, err
			}
			fs, re = in.toStr(fv), nil
		}
	}
	var parts, sepv []string
	lead := ""
	switch {
	case fs == " ":
		parts, sepv = splitBlanks(s)
		lead = s[:len(s)-len(strings.TrimLeft(s, " \t\n"))]
	case re == nil && (fs == "" || utf8.RuneCountInString(fs) == 1 && fs != "\\"):
		parts, err = in.splitWith(s, fs, nil, false)
		for range max(len(parts)-1, 0) {
			sepv = append(sepv, fs)
		}
	default:
		if re == nil {
			if re, err = in.regex(fs); err != nil {
				return value{}, err
			}
		}
		if s != "" {
			start := 0
			for _, m := range re.FindAllStringIndex(s, -1) {
				if m[1] == m[0] {
					continue
				}
				parts = append(parts, s[start:m[0]])
				sepv = append(sepv, s[m[0]:m[1]])
				start = m[1]
			}
			parts = append(parts, s[start:])
		}
	}
	if err != nil {
		return value{}, err
	}
	if args[1].(*varExpr) == nil {
		return value{}, nil
	}
	arr.clearAll()
	if len(parts) > in.maxArray {
		return value{}, in.fatalErr(ErrLimit, "split: more than %d elements", in.maxArray)
	}
	for i, p := range parts {
		arr.set(strconv.Itoa(i+1), strnum(p))
	}
	if err := in.checkArrays(); err != nil {
		return value{}, err
	}
	if seps != nil {
		seps.clearAll()
		if lead != "" {
			seps.set("0", str(lead))
		}
		for i, p := range sepv {
			seps.set(strconv.Itoa(i+1), str(p))
		}
	}
	return num(float64(len(parts))), nil
}

// splitBlanks splits on runs of blanks, returning the separators: seps[i]
// follows parts[i], and the blanks after the last field are the last
// separator (gawk's seps[n]).
func splitBlanks(s string) (parts, seps []string) {
	for i, j := blankField(s, 0); i < len(s); i, j = blankField(s, j) {
		parts = append(parts, s[i:j])
		if k := skipBlanks(s, j); k > j {
			seps = append(seps, s[j:k])
		}
	}
	return parts, seps
}

// blankField returns where the next field of s from i starts and ends
// when fields are separated by runs of blanks (space, tab, newline);
// start is len(s) when there is none.
func blankField(s string, i int) (start, end int) {
	i = skipBlanks(s, i)
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
		j++
	}
	return i, j
}

// skipBlanks returns the index of the first byte of s from i that is not
// a blank.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// sub does sub and gsub: & in the replacement is the match, \& a
// literal &, \\ a backslash.
func (in *interp) sub(args []expr, global bool) (value, error) {
	re, err := in.regexOf(args[0])
	if err != nil {
		return value{}, err
	}
	rv, err := in.eval(args[1])
	if err != nil {
		return value{}, err
	}
	repl := in.toStr(rv)
	var target expr = &fieldExpr{&numExpr{0}}
	if len(args) == 3 {
		target = args[2]
	}
	tv, err := in.eval(target)
	if err != nil {
		return value{}, err
	}
	s := in.toStr(tv)
	var locs [][]int
	if global {
		locs = re.FindAllStringIndex(s, -1)
	} else if loc := re.FindStringIndex(s); loc != nil {
		locs = [][]int{loc}
	}
	if len(locs) == 0 {
		return num(0), nil
	}
	var b strings.Builder
	last := 0
	for _, m := range locs {
		b.WriteString(s[last:m[0]])
		expandRepl(&b, repl, s[m[0]:m[1]])
		last = m[1]
		if b.Len() > in.maxString {
			return value{}, in.checkLen(b.String())
		}
	}
	b.WriteString(s[last:])
	if isLvalue(target) || isGroupLvalue(target) {
		if err := in.assign(target, str(b.String())); err != nil {
			return value{}, err
		}
	}
	return num(float64(len(locs))), nil
}

func isGroupLvalue(x expr) bool {
	g, ok := x.(*groupExpr)
	return ok && isLvalue(g.x)
}

// expandRepl expands a sub/gsub replacement as gawk does by default:
// & is the match, \& a literal &, \\& a backslash and the match,
// \\\& a literal \&; other backslashes are kept.
func expandRepl(b *strings.Builder, repl, match string) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '&':
			b.WriteString(match)
		case c != '\\':
			b.WriteByte(c)
		case strings.HasPrefix(repl[i:], `\\\&`):
			b.WriteString(`\&`)
			i += 3
		case strings.HasPrefix(repl[i:], `\\&`):
			b.WriteByte('\\')
			b.WriteString(match)
			i += 2
		case strings.HasPrefix(repl[i:], `\&`):
			b.WriteByte('&')
			i++
		default:
			b.WriteByte(c)
		}
	}
}

// rand is a deterministic generator: srand(seed) restarts it, and a
// run starts as srand(0) would.
func (in *interp) srandSeed(seed float64) {
	in.prevSeed = in.seed
	in.seed = seed
	in.rng = math.Float64bits(seed) ^ 0x9E3779B97F4A7C15
}

func (in *interp) rand() float64 {
	// splitmix64
	in.rng += 0x9E3779B97F4A7C15
	z := in.rng
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// sprintf formats as awk's printf: %c %d %i %o %x %X %u %e %E %f %F
// %g %G %s %%, with the flags - + space # 0, widths and precisions
// (* from the arguments). in may be nil (numbers then convert with
// %.6g).
func sprintf(format string, args []value, in *interp) (string, error) {
	var b strings.Builder
	ai, convStart := 0, 0
	toStr := func(v value) string {
		if in != nil {
			return in.toStr(v)
		}
		if v.k == kNum {
			return formatNum(v.n, "%.6g")
		}
		return v.s
	}
	toNum := func(v value) float64 {
		if v.k == kNum {
			return v.n
		}
		return strToNum(v.s)
	}
	next := func() (value, error) {
		if ai >= len(args) {
			if in != nil {
				return value{}, in.fatal("not enough arguments to satisfy format string\n\t`%s'\n\t%s^ ran out for this one", format, strings.Repeat(" ", convStart+1))
			}
			return value{}, fmt.Errorf("not enough arguments to satisfy format string")
		}
		ai++
		return args[ai-1], nil
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		start := i
		convStart = i
		i++
		var flags string
		for i < len(format) && strings.IndexByte("-+ #0'", format[i]) >= 0 {
			if format[i] == '\'' {
				// thousands grouping: none in the C.UTF-8 locale
				i++
				continue
			}
			if !strings.ContainsRune(flags, rune(format[i])) {
				flags += string(format[i])
			}
			i++
		}
		width, prec := -1, -1
		if i < len(format) && format[i] == '*' {
			v, err := next()
			if err != nil {
				return "", err
			}
			w := toNum(v)
			if w < 0 {
				flags += "-"
				w = -w
			}
			width = int(min(w, 1<<20))
			i++
		} else {
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				width = max(width, 0)*10 + int(format[i]-'0')
				if width > 1<<20 {
					width = 1 << 20
				}
				i++
			}
		}
		if i < len(format) && format[i] == '.' {
			i++
			prec = 0
			if i < len(format) && format[i] == '*' {
				v, err := next()
				if err != nil {
					return "", err
				}
				pr := toNum(v)
				prec = int(min(pr, 1<<20))
				if pr < 0 || pr != pr {
					prec = -1
				}
				i++
			} else {
				for i < len(format) && format[i] >= '0' && format[i] <= '9' {
					prec = prec*10 + int(format[i]-'0')
					if prec > 1<<20 {
						prec = 1 << 20
					}
					i++
				}
			}
		}
		// gawk accepts and ignores h, l, L, q, j, z, t
		for i < len(format) && strings.IndexByte("hlLqjzt", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			b.WriteString(format[start:])
			break
		}
		verb := format[i]
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if strings.IndexByte("cdiouxXeEfFgGs", verb) < 0 {
			// not a conversion: printed as it is
			b.WriteString(format[start : i+1])
			continue
		}
		v, err := next()
		if err != nil {
			return "", err
		}
		var body string
		switch verb {
		case 's':
			s := toStr(v)
			if prec >= 0 && prec < utf8.RuneCountInString(s) {
				s = substr(s, 1, float64(prec))
			}
			body = s
			flags = onlyMinus(flags)
		case 'c':
			if v.k == kNum || v.k == kStrnum && looksNumeric(v.s) {
				n := toNum(v)
				r := rune(int64(n))
				if n < 0 || n > utf8.MaxRune {
					r = rune(int64(n) & 0xff)
				}
				body = string(r)
			} else if body = firstChar(toStr(v)); body == "" {
				body = "\x00"
			}
			flags = onlyMinus(flags)
		case 'd', 'i':
			body, flags = formatInt(toNum(v), flags, prec)
		case 'o', 'x', 'X', 'u':
			body, flags = formatUnsigned(toNum(v), verb, flags, prec)
		case 'e', 'E', 'f', 'F', 'g', 'G':
			body, flags = formatFloat(toNum(v), verb, flags, prec)
		}
		b.WriteString(pad(body, width, flags))
		if b.Len() > 64<<20 {
			return "", fmt.Errorf("%w: printf output longer than 64 MiB", ErrLimit)
		}
	}
	return b.String(), nil
}

func firstChar(s string) string {
	if s == "" {
		return ""
	}
	_, n := utf8.DecodeRuneInString(s)
	return s[:n]
}

// pad pads body to width: left-justified with '-', with zeros after the
// sign with '0' (flags has '0' only for numbers that allow it).
func pad(body string, width int, flags string) string {
	n := utf8.RuneCountInString(body)
	if width <= n {
		return body
	}
	fill := width - n
	switch {
	case strings.Contains(flags, "-"):
		return body + strings.Repeat(" ", fill)
	case strings.Contains(flags, "0"):
		sign := ""
		if body != "" && (body[0] == '-' || body[0] == '+' || body[0] == ' ') {
			sign, body = body[:1], body[1:]
		}
		if strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0X") {
			sign, body = sign+body[:2], body[2:]
		}
		return sign + strings.Repeat("0", fill) + body
	}
	return strings.Repeat(" ", fill) + body
}

func special(n float64, flags string) (string, bool) {
	if math.IsInf(n, 0) {
		return infText(n), true
	}
	if math.IsNaN(n) {
		return nanText(n), true
	}
	return "", false
}

func noZero(flags string) string { return strings.ReplaceAll(flags, "0", "") }

func formatInt(n float64, flags string, prec int) (string, string) {
	if s, ok := special(n, flags); ok {
		return s, noZero(flags)
	}
	n = math.Trunc(n)
	var digits string
	neg := n < 0
	if math.Abs(n) < 1e18 {
		digits = strconv.FormatInt(int64(math.Abs(n)), 10)
	} else {
		digits = new(big.Float).SetFloat64(math.Abs(n)).Text('f', 0)
	}
	if prec >= 0 {
		flags = noZero(flags)
		if prec == 0 && n == 0 {
			digits = ""
		}
		for len(digits) < prec {
			digits = "0" + digits
		}
	}
	sign := ""
	switch {
	case neg:
		sign = "-"
	case strings.Contains(flags, "+"):
		sign = "+"
	case strings.Contains(flags, " "):
		sign = " "
	}
	return sign + digits, flags
}

func formatUnsigned(n float64, verb byte, flags string, prec int) (string, string) {
	if s, ok := special(n, flags); ok {
		return s, noZero(flags)
	}
	n = math.Trunc(n)
	var u uint64
	var digits string
	if n < 0 {
		if n >= -9.223372036854775808e18 {
			u = uint64(int64(n))
		} else {
			// gawk prints such values as %g numbers
			return formatFloat(n, 'g', flags, prec)
		}
	} else if n >= 1.8446744073709552e19 {
		return formatFloat(n, 'g', flags, prec)
	} else {
		u = uint64(n)
	}
	switch verb {
	case 'o':
		digits = strconv.FormatUint(u, 8)
		if strings.Contains(flags, "#") && digits[0] != '0' {
			digits = "0" + digits
		}
	case 'x':
		digits = strconv.FormatUint(u, 16)
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(u, 16))
	default:
		digits = strconv.FormatUint(u, 10)
	}
	if prec >= 0 {
		flags = noZero(flags)
		if prec == 0 && u == 0 {
			digits = ""
		}
		for len(digits) < prec {
			digits = "0" + digits
		}
	}
	if strings.Contains(flags, "#") && u != 0 {
		switch verb {
		case 'x':
			digits = "0x" + digits
		case 'X':
			digits = "0X" + digits
		}
	}
	return digits, flags
}

func formatFloat(n float64, verb byte, flags string, prec int) (string, string) {
	if s, ok := special(n, flags); ok {
		if verb == 'E' || verb == 'F' || verb == 'G' {
			s = strings.ToUpper(s)
		}
		return s, noZero(flags)
	}
	if prec < 0 {
		prec = 6
	}
	prec = min(prec, 4096) // beyond a double's digits, all zeros
	if !strings.Contains(flags, "#") && (verb == 'f' || verb == 'F' || verb == 'e' || verb == 'E') {
		v := verb
		if v == 'F' {
			v = 'f'
		}
		s := strconv.FormatFloat(n, v, prec, 64)
		if s[0] != '-' {
			if strings.Contains(flags, "+") {
				s = "+" + s
			} else if strings.Contains(flags, " ") {
				s = " " + s
			}
		}
		return s, flags
	}
	f := "%"
	for _, c := range "+ #" {
		if strings.ContainsRune(flags, c) {
			f += string(c)
		}
	}
	v := verb
	if v == 'F' {
		v = 'f'
	}
	if (v == 'g' || v == 'G') && prec == 0 {
		prec = 1
	}
	s := fmt.Sprintf(f+"."+strconv.Itoa(prec)+string(v), n)
	return s, flags
}

// onlyMinus keeps the '-' flag only, for %s and %c.
func onlyMinus(flags string) string {
	if strings.Contains(flags, "-") {
		return "-"
	}
	return ""
}

// gensub is gawk's gensub(re, repl, how [, target]): the target ($0 by
// default) with the matches replaced, all of them when how starts with
// g or G, else the how-th; in repl, & and \\0 are the match, \\N group N,
// \\& a literal &, and \\c the character c.
func (in *interp) gensub(args []expr) (value, error) {
	re, err := in.regexOf(args[0])
	if err != nil {
		return value{}, err
	}
	rv, err := in.eval(args[1])
	if err != nil {
		return value{}, err
	}
	repl := in.toStr(rv)
	hv, err := in.eval(args[2])
	if err != nil {
		return value{}, err
	}
	global, nth := false, 1
	if hs := in.toStr(hv); hs != "" && (hs[0] == 'g' || hs[0] == 'G') {
		global = true
	} else if n := in.toNum(hv); n >= 1 {
		nth = int(min(n, 1<<30))
	} else {
		in.warn("gensub: third argument `%s' treated as 1", hs)
	}
	var target string
	if len(args) == 4 {
		tv, err := in.eval(args[3])
		if err != nil {
			return value{}, err
		}
		target = in.toStr(tv)
	} else {
		target = in.record
	}
	var b strings.Builder
	last := 0
	for i, m := range re.FindAllStringSubmatchIndex(target, -1) {
		if !global && i+1 != nth {
			continue
		}
		b.WriteString(target[last:m[0]])
		for j := 0; j < len(repl); j++ {
			c := repl[j]
			switch {
			case c == '&':
				b.WriteString(target[m[0]:m[1]])
			case c == '\\' && j+1 < len(repl):
				j++
				d := repl[j]
				if d >= '0' && d <= '9' {
					g := int(d - '0')
					if 2*g+1 < len(m) && m[2*g] >= 0 {
						b.WriteString(target[m[2*g]:m[2*g+1]])
					}
				} else {
					b.WriteByte(d)
				}
			default:
				b.WriteByte(c)
			}
		}
		last = m[1]
		if b.Len() > in.maxString {
			return value{}, in.checkLen(b.String())
		}
		if !global {
			break
		}
	}
	b.WriteString(target[last:])
	return str(b.String()), nil
}

// asort and asorti sort an array's values (asort: numbers, numerically,
// before strings) or its indices (asorti: as strings) into dest, or the
// array itself, indexed from 1; they return the count.
func (in *interp) asort(args []expr, indices bool) (value, error) {
	src, err := in.arrayOf(args[0].(*varExpr))
	if err != nil {
		return value{}, err
	}
	dest := src
	if len(args) == 2 {
		if dest, err = in.arrayOf(args[1].(*varExpr)); err != nil {
			return value{}, err
		}
	}
	var vals []value
	if indices {
		for _, k := range src.keys() {
			vals = append(vals, str(k))
		}
		sort.SliceStable(vals, func(i, j int) bool { return vals[i].s < vals[j].s })
	} else {
		for _, k := range src.keys() {
			vals = append(vals, src.m[k].v)
		}
		sort.SliceStable(vals, func(i, j int) bool { return in.typeLess(vals[i], vals[j]) })
	}
	dest.clearAll()
	for i, v := range vals {
		dest.set(strconv.Itoa(i+1), v)
	}
	return num(float64(len(vals))), in.checkArrays()
}

// typeLess orders values as gawk's @val_type_asc: numbers (and strnums
// that look numeric) numerically, before strings, compared as strings.
func (in *interp) typeLess(a, b value) bool {
	an, bn := a.k == kNum || a.k == kStrnum && looksNumeric(a.s), b.k == kNum || b.k == kStrnum && looksNumeric(b.s)
	switch {
	case an && bn:
		return in.toNum(a) < in.toNum(b)
	case an != bn:
		return an
	}
	return in.toStr(a) < in.toStr(b)
}

// sortedKeys returns an array's keys in PROCINFO["sorted_in"]'s order
// (gawk's @ind_str, @ind_num, @val_type, @val_str and @val_num, _asc or
// _desc), or in insertion order.
func (in *interp) sortedKeys(a *array) []string {
	keys := a.keys()
	idx, ok := in.prog.globals["PROCINFO"]
	if !ok || in.globals[idx].a == nil {
		return keys
	}
	e, ok := in.globals[idx].a.m["sorted_in"]
	if !ok {
		return keys
	}
	mode := in.toStr(e.v)
	desc := strings.HasSuffix(mode, "_desc")
	var less func(i, j int) bool
	strLess := func(i, j int) bool { return keys[i] < keys[j] }
	switch strings.TrimSuffix(strings.TrimSuffix(mode, "_asc"), "_desc") {
	case "@ind_str":
		less = strLess
	case "@ind_num":
		less = func(i, j int) bool {
			x, y := strToNum(keys[i]), strToNum(keys[j])
			if x != y {
				return x < y
			}
			return strLess(i, j)
		}
	case "@val_type":
		less = func(i, j int) bool {
			x, y := a.m[keys[i]].v, a.m[keys[j]].v
			if in.typeLess(x, y) {
				return true
			}
			if in.typeLess(y, x) {
				return false
			}
			return strLess(i, j)
		}
	case "@val_str":
		less = func(i, j int) bool {
			x, y := in.toStr(a.m[keys[i]].v), in.toStr(a.m[keys[j]].v)
			if x != y {
				return x < y
			}
			return strLess(i, j)
		}
	case "@val_num":
		less = func(i, j int) bool {
			x, y := in.toNum(a.m[keys[i]].v), in.toNum(a.m[keys[j]].v)
			if x != y {
				return x < y
			}
			return strLess(i, j)
		}
	default:
		return keys
	}
	if desc {
		sort.SliceStable(keys, func(i, j int) bool { return less(j, i) })
	} else {
		sort.SliceStable(keys, less)
	}
	return keys
}
