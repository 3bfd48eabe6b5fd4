package gnu

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var sortSpec = getopt.Spec{
	Short: "bdfik:nro:st:uz",
	Long: append([]getopt.Long{
		{Name: "ignore-leading-blanks", Key: 'b'},
		{Name: "dictionary-order", Key: 'd'},
		{Name: "ignore-case", Key: 'f'},
		{Name: "ignore-nonprinting", Key: 'i'},
		{Name: "key", Key: 'k', HasArg: getopt.RequiredArgument},
		{Name: "numeric-sort", Key: 'n'},
		{Name: "reverse", Key: 'r'},
		{Name: "output", Key: 'o', HasArg: getopt.RequiredArgument},
		{Name: "stable", Key: 's'},
		{Name: "field-separator", Key: 't', HasArg: getopt.RequiredArgument},
		{Name: "unique", Key: 'u'},
		{Name: "zero-terminated", Key: 'z'},
	}, helpVersion...),
}

const sortHelp = `Usage: %s [OPTION]... [FILE]...
Write sorted concatenation of all FILE(s) to standard output.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
Ordering options:

  -b, --ignore-leading-blanks  ignore leading blanks
  -d, --dictionary-order      consider only blanks and alphanumeric characters
  -f, --ignore-case           fold lower case to upper case characters
  -i, --ignore-nonprinting    consider only printable characters
  -n, --numeric-sort          compare according to string numerical value
  -r, --reverse               reverse the result of comparisons

Other options:

  -k, --key=KEYDEF          sort via a key; KEYDEF gives location and type
  -o, --output=FILE         write result to FILE instead of standard output
                              (fails: the filesystem is read-only)
  -s, --stable              stabilize sort by disabling last-resort comparison
  -t, --field-separator=SEP  use SEP instead of non-blank to blank transition
  -u, --unique              with -c, check for strict ordering;
                              without -c, output only the first of an equal run
  -z, --zero-terminated     line delimiter is NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a
field number and C a character position in the field; both are origin 1, and
the stop position defaults to the line's end.  If neither -t nor -b is in
effect, characters in a field are counted from the beginning of the preceding
whitespace.  OPTS is one or more single-letter ordering options [bdfinr],
which override global ordering options for that key.  If no key is given, use
the entire line as the key.

The locale is C.UTF-8: lines compare byte by byte.
`

// sortKey is one -k KEYDEF, or the whole line with the global options.
type sortKey struct {
	sword, schar, eword, echar int // 0-based; eword -1 is the line's end
	skipsb, skipeb             bool
	numeric, fold, reverse     bool
	dict, nonprint             bool
}

func (k *sortKey) plain() bool {
	return !k.skipsb && !k.skipeb && !k.numeric && !k.fold && !k.dict && !k.nonprint
}

// Sort writes the sorted concatenation of its inputs, as GNU sort 9.1
// does in C.UTF-8 (byte order): -b -d -f -i -n -r -s -u -z, -t SEP and
// -k F[.C][OPTS][,F[.C][OPTS]] keys with GNU's field rules, the
// last-resort whole-line comparison unless -s or -u, and -o failing as on
// a read-only filesystem. It holds all of its input, at most HoldLimit
// bytes. -c, -m, -g, -h, -M, -R, -V and the parallelism options are not
// supported.
func Sort(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "sort")
	opts, operands, done, status := r.parse(&sortSpec, args, 2, sortHelp)
	if done {
		return status
	}
	var global sortKey
	global.eword = -1
	var keys []*sortKey
	var tab []byte
	stable, unique, delim, output := false, false, byte('\n'), ""
	for _, o := range opts {
		switch o.Key {
		case 'b':
			global.skipsb, global.skipeb = true, true
		case 'd':
			global.dict = true
		case 'f':
			global.fold = true
		case 'i':
			global.nonprint = true
		case 'n':
			global.numeric = true
		case 'r':
			global.reverse = true
		case 's':
			stable = true
		case 'u':
			unique = true
		case 'z':
			delim = 0
		case 'o':
			output = o.Arg
		case 'k':
			k, msg := parseSortKey(o.Arg)
			if msg != "" {
				r.warn("%s", msg)
				return 2
			}
			keys = append(keys, k)
		case 't':
			t := o.Arg
			switch {
			case t == "":
				r.warn("empty tab")
				return 2
			case t == "\\0":
				t = "\x00"
			case len(t) > 1:
				r.warn("multi-character tab %s", localeQuote(t))
				return 2
			}
			if tab != nil && tab[0] != t[0] {
				r.warn("incompatible tabs")
				return 2
			}
			tab = []byte(t)
		}
	}
	for _, k := range keys {
		if k.plain() && !k.reverse {
			k.skipsb, k.skipeb = global.skipsb, global.skipeb
			k.numeric, k.fold, k.dict, k.nonprint = global.numeric, global.fold, global.dict, global.nonprint
			k.reverse = global.reverse
		}
	}
	if len(keys) == 0 && !(global.plain() && !global.reverse) {
		g := global
		keys = []*sortKey{&g}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(2)
	}
	var data []byte
	for _, a := range operands {
		f, err := r.openInput(a)
		if err != nil {
			if isReadErr(err) {
				r.warn("read failed: %s: %s", a, errText(err))
			} else {
				r.warn("cannot read: %s: %s", quotef(a), errText(err))
			}
			return r.finish(2)
		}
		d, err := readHeld(f)
		f.Close()
		if err == nil && len(data)+len(d) > holdLimit {
			err = ErrTooLarge
		}
		if err != nil {
			r.warn("read failed: %s: %s", a, errText(err))
			return r.finish(2)
		}
		if len(d) > 0 && d[len(d)-1] != delim {
			d = append(d, delim)
		}
		data = append(data, d...)
	}
	if output != "" {
		r.warn("open failed: %s: Read-only file system", output)
		return r.finish(2)
	}
	lines := bytes.SplitAfter(data, []byte{delim})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = l[:len(l)-1]
	}
	s := sorter{keys: keys, tab: tab, lastResort: !stable && !unique, reverse: global.reverse}
	slices.SortStableFunc(lines, s.compare)
	for i, l := range lines {
		if r.stopped() {
			break
		}
		if unique && i > 0 && s.equal(lines[i-1], l) {
			continue
		}
		r.out.Write(l)
		r.out.WriteByte(delim)
	}
	return r.finish(0)
}

// parseSortKey parses a -k KEYDEF, or returns sort's diagnostic.
func parseSortKey(spec string) (*sortKey, string) {
	k := &sortKey{eword: -1}
	bad := func(msg string) (*sortKey, string) {
		return nil, msg + ": invalid field specification " + localeQuote(spec)
	}
	num := func(s string) (int, string, bool) {
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 {
			return 0, s, false
		}
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			n = int(^uint(0) >> 1)
		}
		return n, s[i:], true
	}
	opts := func(s string, start bool) (string, bool) {
		for s != "" {
			switch s[0] {
			case 'b':
				if start {
					k.skipsb = true
				} else {
					k.skipeb = true
				}
			case 'd':
				k.dict = true
			case 'f':
				k.fold = true
			case 'i':
				k.nonprint = true
			case 'n':
				k.numeric = true
			case 'r':
				k.reverse = true
			default:
				return s, false
			}
			s = s[1:]
		}
		return s, true
	}
	s := spec
	n, s, ok := num(s)
	if !ok {
		return nil, "invalid number at field start: invalid count at start of " + localeQuote(spec)
	}
	if n == 0 {
		return bad("field number is zero")
	}
	k.sword = n - 1
	if strings.HasPrefix(s, ".") {
		n, s, ok = num(s[1:])
		if !ok {
			return nil, "invalid number after '.': invalid count at start of " + localeQuote(s)
		}
		if n == 0 {
			return bad("character offset is zero")
		}
		k.schar = n - 1
	}
	rest, _ := opts(s, true)
	s = rest
	if strings.HasPrefix(s, ",") {
		n, s, ok = num(s[1:])
		if !ok {
			return nil, "invalid number after ',': invalid count at start of " + localeQuote(s)
		}
		if n == 0 {
			return bad("field number is zero")
		}
		k.eword = n - 1
		if strings.HasPrefix(s, ".") {
			n, s, ok = num(s[1:])
			if !ok {
				return nil, "invalid number after '.': invalid count at start of " + localeQuote(s)
			}
			k.echar = n
		}
		s, _ = opts(s, false)
	}
	if s != "" {
		return nil, "stray character in field spec: invalid field specification " + localeQuote(spec)
	}
	return k, ""
}

type sorter struct {
	keys       []*sortKey
	tab        []byte
	lastResort bool
	reverse    bool
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// begin and limit are GNU sort's begfield and limfield.
func (s *sorter) begin(line []byte, k *sortKey) int {
	p, lim := 0, len(line)
	for w := k.sword; p < lim && w > 0; w-- {
		if s.tab != nil {
			for p < lim && line[p] != s.tab[0] {
				p++
			}
			if p < lim {
				p++
			}
		} else {
			for p < lim && isBlank(line[p]) {
				p++
			}
			for p < lim && !isBlank(line[p]) {
				p++
			}
		}
	}
	if k.skipsb {
		for p < lim && isBlank(line[p]) {
			p++
		}
	}
	return min(lim, p+k.schar)
}

func (s *sorter) limit(line []byte, k *sortKey) int {
	lim := len(line)
	if k.eword < 0 {
		return lim
	}
	p, ew := 0, k.eword
	if k.echar == 0 {
		ew++
	}
	for ; p < lim && ew > 0; ew-- {
		if s.tab != nil {
			for p < lim && line[p] != s.tab[0] {
				p++
			}
			if p < lim && (ew > 1 || k.echar != 0) {
				p++
			}
		} else {
			for p < lim && isBlank(line[p]) {
				p++
			}
			for p < lim && !isBlank(line[p]) {
				p++
			}
		}
	}
	if k.echar != 0 {
		if k.skipeb {
			for p < lim && isBlank(line[p]) {
				p++
			}
		}
		p = min(lim, p+k.echar)
	}
	return p
}

// key is the part of line that k selects.
func (s *sorter) key(line []byte, k *sortKey) []byte {
	b, l := s.begin(line, k), s.limit(line, k)
	return line[b:max(b, l)]
}

// equal reports whether -u takes a and b for the same line.
func (s *sorter) equal(a, b []byte) bool {
	if len(s.keys) == 0 {
		return bytes.Equal(a, b)
	}
	return s.keyCompare(a, b) == 0
}

func (s *sorter) keyCompare(a, b []byte) int {
	for _, k := range s.keys {
		ta, tb := s.key(a, k), s.key(b, k)
		var d int
		switch {
		case k.numeric:
			d = numCompare(ta, tb)
		case k.fold || k.dict || k.nonprint:
			d = bytes.Compare(k.translate(ta), k.translate(tb))
		default:
			d = bytes.Compare(ta, tb)
		}
		if d != 0 {
			if k.reverse {
				return -d
			}
			return d
		}
	}
	return 0
}

// translate drops the bytes -d or -i ignore and folds case with -f.
func (k *sortKey) translate(t []byte) []byte {
	out := make([]byte, 0, len(t))
	for _, c := range t {
		if k.dict && !(isBlank(c) || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			continue
		}
		if k.nonprint && !(c >= ' ' && c < 0x7f) {
			continue
		}
		if k.fold && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		out = append(out, c)
	}
	return out
}

func (s *sorter) compare(a, b []byte) int {
	if len(s.keys) > 0 {
		if d := s.keyCompare(a, b); d != 0 || !s.lastResort {
			return d
		}
	}
	d := bytes.Compare(a, b)
	if s.reverse {
		return -d
	}
	return d
}

// numCompare compares the numbers at the start of a and b (after
// blanks) as sort -n does: an optional '-', digits, an optional '.' and
// digits; anything else is zero.
func numCompare(a, b []byte) int {
	na, ia, fa := parseNum(a)
	nb, ib, fb := parseNum(b)
	za := len(ia) == 0 && len(fa) == 0
	zb := len(ib) == 0 && len(fb) == 0
	if za {
		na = false
	}
	if zb {
		nb = false
	}
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	d := 0
	switch {
	case len(ia) != len(ib):
		d = len(ia) - len(ib)
	default:
		d = bytes.Compare(ia, ib)
		if d == 0 {
			d = bytes.Compare(fa, fb)
		}
	}
	if d > 0 {
		d = 1
	} else if d < 0 {
		d = -1
	}
	if na {
		return -d
	}
	return d
}

// parseNum splits a number into its sign, its integer digits without
// leading zeros and its fraction digits without trailing zeros.
func parseNum(t []byte) (neg bool, intPart, frac []byte) {
	i := 0
	for i < len(t) && isBlank(t[i]) {
		i++
	}
	if i < len(t) && t[i] == '-' {
		neg = true
		i++
	}
	for i < len(t) && t[i] == '0' {
		i++
	}
	j := i
	for j < len(t) && isDigit(t[j]) {
		j++
	}
	intPart = t[i:j]
	if j < len(t) && t[j] == '.' {
		k := j + 1
		for k < len(t) && isDigit(t[k]) {
			k++
		}
		frac = bytes.TrimRight(t[j+1:k], "0")
	}
	return neg, intPart, frac
}
