package gnu

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var trSpec = getopt.Spec{
	Short: "cCdst",
	Long: append([]getopt.Long{
		{Name: "complement", Key: 'c'},
		{Name: "delete", Key: 'd'},
		{Name: "squeeze-repeats", Key: 's'},
		{Name: "truncate-set1", Key: 't'},
	}, helpVersion...),
}

const trHelp = `Usage: %s [OPTION]... STRING1 [STRING2]
Translate, squeeze, and/or delete characters from standard input,
writing to standard output.  STRING1 and STRING2 specify arrays of
characters ARRAY1 and ARRAY2 that control the action.

  -c, -C, --complement    use the complement of ARRAY1
  -d, --delete            delete characters in ARRAY1, do not translate
  -s, --squeeze-repeats   replace each sequence of a repeated character
                            that is listed in the last specified ARRAY,
                            with a single occurrence of that character
  -t, --truncate-set1     first truncate ARRAY1 to length of ARRAY2
      --help        display this help and exit
      --version     output version information and exit

ARRAYs are specified as strings of characters.  Most represent themselves.
Interpreted sequences are:

  \NNN            character with octal value NNN (1 to 3 octal digits)
  \\              backslash
  \a              audible BEL
  \b              backspace
  \f              form feed
  \n              new line
  \r              return
  \t              horizontal tab
  \v              vertical tab
  CHAR1-CHAR2     all characters from CHAR1 to CHAR2 in ascending order
  [CHAR*]         in ARRAY2, copies of CHAR until length of ARRAY1
  [CHAR*REPEAT]   REPEAT copies of CHAR, REPEAT octal if starting with 0
  [:alnum:]       all letters and digits
  [:alpha:]       all letters
  [:blank:]       all horizontal whitespace
  [:cntrl:]       all control characters
  [:digit:]       all digits
  [:graph:]       all printable characters, not including space
  [:lower:]       all lower case letters
  [:print:]       all printable characters, including space
  [:punct:]       all punctuation characters
  [:space:]       all horizontal or vertical whitespace
  [:upper:]       all upper case letters
  [:xdigit:]      all hexadecimal digits
  [=CHAR=]        all characters which are equivalent to CHAR

Translation occurs if -d is not given and both STRING1 and STRING2 appear.
-t may be used only when translating.  ARRAY2 is extended to length of
ARRAY1 by repeating its last character as necessary.  Excess characters
of ARRAY2 are ignored.  Character classes expand in unspecified order;
while translating, [:lower:] and [:upper:] may be used in pairs to
specify case conversion.  Squeezing occurs after translation or deletion.
`

// trClass holds the bytes of each character class in C.UTF-8 (tr works
// on bytes).
func trClass(name string) (func(c byte) bool, bool) {
	f, ok := map[string]func(c byte) bool{
		"alnum":  func(c byte) bool { return isDigit(c) || isAlpha(c) },
		"alpha":  isAlpha,
		"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
		"cntrl":  func(c byte) bool { return c < ' ' || c == 0x7f },
		"digit":  isDigit,
		"graph":  func(c byte) bool { return c > ' ' && c < 0x7f },
		"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
		"print":  func(c byte) bool { return c >= ' ' && c < 0x7f },
		"punct":  func(c byte) bool { return c > ' ' && c < 0x7f && !isDigit(c) && !isAlpha(c) },
		"space":  func(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') },
		"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
		"xdigit": func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') },
	}[name]
	return f, ok
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// trSet is an expanded STRING: its bytes, where a [c*] fill goes, and
// whether it holds a class other than upper and lower.
type trSet struct {
	bytes     []byte
	fillAt    int // -1: none
	fillByte  byte
	otherCls  bool
	hasRepeat bool
}

// parseTrSet expands a tr STRING, or returns tr's diagnostic.
func parseTrSet(s string) (trSet, string) {
	set := trSet{fillAt: -1}
	// First the escapes, keeping which bytes were escaped.
	var b []byte
	var esc []bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b, esc = append(b, c), append(esc, false)
			continue
		}
		i++
		c = s[i]
		switch {
		case c >= '0' && c <= '7':
			j := i
			v := 0
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' && v*8+int(s[j]-'0') <= 0377 {
				v = v*8 + int(s[j]-'0')
				j++
			}
			c, i = byte(v), j-1
		default:
			if k := strings.IndexByte("abfnrtv", c); k >= 0 {
				c = "\a\b\f\n\r\t\v"[k]
			}
		}
		b, esc = append(b, c), append(esc, true)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '[' && !esc[i] && i+1 < len(b) {
			rest := string(b[i+1:])
			switch {
			case strings.HasPrefix(rest, ":"):
				if end := strings.Index(rest[1:], ":]"); end >= 0 {
					name := rest[1 : 1+end]
					f, ok := trClass(name)
					if !ok {
						return set, "invalid character class " + localeQuote(name)
					}
					if name != "upper" && name != "lower" {
						set.otherCls = true
					}
					for k := 0; k < 256; k++ {
						if f(byte(k)) {
							set.bytes = append(set.bytes, byte(k))
						}
					}
					i += 1 + end + 2
					continue
				}
			case strings.HasPrefix(rest, "=") && len(rest) >= 3 && rest[2:4] == "=]":
				set.bytes = append(set.bytes, rest[1])
				i += 4
				continue
			case len(rest) >= 3 && rest[1] == '*':
				if end := strings.IndexByte(rest[2:], ']'); end >= 0 {
					num := rest[2 : 2+end]
					n := int64(-1)
					if num != "" {
						base := 10
						if num[0] == '0' {
							base = 8
						}
						v, err := strconv.ParseInt(num, base, 64)
						if err != nil {
							return set, "invalid repeat count " + localeQuote(num) + " in [c*n] construct"
						}
						if v > 0 {
							n = v
						}
					}
					set.hasRepeat = true
					if n < 0 {
						set.fillAt, set.fillByte = len(set.bytes), rest[0]
					} else {
						for range n {
							set.bytes = append(set.bytes, rest[0])
						}
					}
					i += 2 + end + 1
					continue
				}
			}
		}
		if i+2 < len(b) && b[i+1] == '-' && !esc[i+1] {
			hi := b[i+2]
			if hi < c {
				return set, "range-endpoints of " + quote(string(b[i:i+3])) + " are in reverse collating sequence order"
			}
			for k := int(c); k <= int(hi); k++ {
				set.bytes = append(set.bytes, byte(k))
			}
			i += 2
			continue
		}
		set.bytes = append(set.bytes, c)
	}
	return set, ""
}

// Tr translates, deletes or squeezes bytes of Env.Stdin, as GNU tr 9.1
// does: ranges, classes, [=c=], [c*n], escapes, -c, -d, -s and -t. Like
// GNU tr it works on bytes, not UTF-8 characters.
func Tr(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "tr")
	opts, operands, done, status := r.parse(&trSpec, args, 1, trHelp)
	if done {
		return status
	}
	complement, del, squeeze, truncate := false, false, false, false
	for _, o := range opts {
		switch o.Key {
		case 'c', 'C':
			complement = true
		case 'd':
			del = true
		case 's':
			squeeze = true
		case 't':
			truncate = true
		}
	}
	translate := !del && len(operands) == 2
	switch {
	case len(operands) == 0:
		return r.usage(1, "missing operand")
	case len(operands) == 1 && !del && !squeeze:
		r.warn("missing operand after %s", localeQuote(operands[0]))
		r.out.Flush()
		io.WriteString(env.Stderr, "Two strings must be given when translating.\n")
		r.tryHelp()
		return 1
	case len(operands) == 1 && del && squeeze:
		r.warn("missing operand after %s", localeQuote(operands[0]))
		io.WriteString(env.Stderr, "Two strings must be given when both deleting and squeezing repeats.\n")
		r.tryHelp()
		return 1
	case len(operands) == 2 && del && !squeeze:
		r.warn("extra operand %s", localeQuote(operands[1]))
		io.WriteString(env.Stderr, "Only one string may be given when deleting without squeezing repeats.\n")
		r.tryHelp()
		return 1
	case len(operands) > 2:
		return r.usage(1, "extra operand %s", localeQuote(operands[2]))
	}
	set1, msg := parseTrSet(operands[0])
	if msg == "" && set1.hasRepeat {
		msg = "the [c*] repeat construct may not appear in string1"
	}
	if msg != "" {
		r.warn("%s", msg)
		return 1
	}
	var in1 [256]bool
	for _, c := range set1.bytes {
		in1[c] = true
	}
	if complement {
		set1.bytes = set1.bytes[:0]
		for k := 0; k < 256; k++ {
			in1[k] = !in1[k]
			if in1[k] {
				set1.bytes = append(set1.bytes, byte(k))
			}
		}
	}
	var set2 trSet
	var in2 [256]bool
	if len(operands) == 2 {
		set2, msg = parseTrSet(operands[1])
		if msg != "" {
			r.warn("%s", msg)
			return 1
		}
		if translate {
			if set2.otherCls {
				r.warn("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'")
				return 1
			}
			if set2.fillAt >= 0 {
				n := max(0, len(set1.bytes)-len(set2.bytes))
				fill := strings.Repeat(string(set2.fillByte), n)
				set2.bytes = append(set2.bytes[:set2.fillAt], append([]byte(fill), set2.bytes[set2.fillAt:]...)...)
			}
			if len(set2.bytes) == 0 && len(set1.bytes) > 0 && !truncate {
				r.warn("when not truncating set1, string2 must be non-empty")
				return 1
			}
		}
		for _, c := range set2.bytes {
			in2[c] = true
		}
	}
	var table [256]byte
	for k := range table {
		table[k] = byte(k)
	}
	if translate {
		for i, c := range set1.bytes {
			switch {
			case i < len(set2.bytes):
				table[c] = set2.bytes[i]
			case !truncate:
				table[c] = set2.bytes[len(set2.bytes)-1]
			}
		}
	}
	squeezeSet := in1
	if len(operands) == 2 {
		squeezeSet = in2
	}
	if !r.open() {
		return r.finish(2)
	}
	buf := make([]byte, 64<<10)
	last := -1
	in := env.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	for !r.stopped() {
		n, err := in.Read(buf)
		for _, c := range buf[:n] {
			if del && in1[c] {
				continue
			}
			c = table[c]
			if squeeze && squeezeSet[c] && int(c) == last {
				continue
			}
			last = int(c)
			r.out.WriteByte(c)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			r.warn("read error: %s", ErrText(err))
			return r.finish(1)
		}
	}
	return r.finish(0)
}
