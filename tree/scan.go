package tree

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of JSON values, as encoding/json does.
const maxDepth = 10000

// syntaxError is a JSON syntax error at a byte offset of the decoded
// document.
type syntaxError struct {
	msg string
	off int
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("json: %s at offset %d", e.msg, e.off)
}

// scanner reads JSON from s. Strings without escapes are returned as slices
// of s, so they allocate nothing. b, when set, holds the same bytes as s,
// for reading eight bytes at a time.
type scanner struct {
	s string
	b []byte
	i int
}

// strSafe[c] reports whether byte c can appear in a JSON string as is.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (d *scanner) errorf(format string, args ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, args...), off: d.i}
}

// unexpected returns the error for the byte at d.i (or the end of input)
// where a want was expected.
func (d *scanner) unexpected(want string) error {
	if d.i >= len(d.s) {
		return &syntaxError{msg: "unexpected end of input", off: d.i}
	}
	return d.errorf("invalid character %s %s", quoteByte(d.s[d.i]), want)
}

func quoteByte(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.QuoteRuneToASCII(rune(c))
	if c >= utf8.RuneSelf {
		s = fmt.Sprintf("byte 0x%02x", c)
	}
	return "'" + s[1:len(s)-1] + "'"
}

func (d *scanner) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, or 0 at the end of input.
func (d *scanner) peek() byte {
	d.ws()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// expect consumes byte c (after white space).
func (d *scanner) expect(c byte, want string) error {
	if d.peek() != c {
		return d.unexpected(want)
	}
	d.i++
	return nil
}

// str reads a string at d.i, which holds '"'. ok is false when the string
// had an escaped lone UTF-16 surrogate, which is decoded as U+FFFD.
func (d *scanner) str() (s string, ok bool, err error) {
	start := d.i + 1
	i := start
	if len(d.b) == len(d.s) {
		// Skip eight safe bytes at a time: no byte is '"', '\\' or below
		// 0x20 (the classic "has less" and "has zero byte" tests).
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		for i+8 <= len(d.b) {
			x := binary.LittleEndian.Uint64(d.b[i:])
			q := x ^ (ones * '"')
			bs := x ^ (ones * '\\')
			if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
				break
			}
			i += 8
		}
	}
	for i < len(d.s) && strSafe[d.s[i]] {
		i++
	}
	if i < len(d.s) && d.s[i] == '"' {
		d.i = i + 1
		return d.s[start:i], true, nil
	}
	return d.strSlow(start, i)
}

func (d *scanner) strSlow(start, i int) (string, bool, error) {
	buf := make([]byte, 0, i-start+16)
	buf = append(buf, d.s[start:i]...)
	ok := true
	for {
		if i >= len(d.s) {
			d.i = i
			return "", false, d.unexpected("")
		}
		c := d.s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return string(buf), ok, nil
		case c < 0x20:
			d.i = i
			return "", false, d.unexpected("in string literal")
		case c != '\\':
			j := i + 1
			for j < len(d.s) && strSafe[d.s[j]] {
				j++
			}
			buf = append(buf, d.s[i:j]...)
			i = j
			continue
		}
		// Escape.
		i++
		if i >= len(d.s) {
			d.i = i
			return "", false, d.unexpected("")
		}
		switch c := d.s[i]; c {
		case '"', '\\', '/':
			buf = append(buf, c)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := d.hex4(i + 1)
			if err != nil {
				return "", false, err
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 < len(d.s) && d.s[i+1] == '\\' && d.s[i+2] == 'u' {
					if r2, err = d.hex4(i + 3); err != nil {
						return "", false, err
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
					ok = false
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.i = i
			return "", false, d.unexpected("in string escape code")
		}
		i++
	}
}

// hex4 decodes the four hex digits at s[i:].
func (d *scanner) hex4(i int) (rune, error) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(d.s) {
			d.i = k
			return 0, d.unexpected("")
		}
		c := d.s[k]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			d.i = k
			return 0, d.unexpected("in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// num reads a number at d.i and returns its literal.
func (d *scanner) num() (string, error) {
	s, i := d.s, d.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		d.i = i
		return "", d.unexpected("in numeric literal")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			return "", d.unexpected("after decimal point in numeric literal")
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			return "", d.unexpected("in exponent of numeric literal")
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	d.i = i
	return s[start:i], nil
}

// lit reads the literal true, false or null at d.i.
func (d *scanner) lit() (byte, error) {
	var w string
	switch d.s[d.i] {
	case 't':
		w = "true"
	case 'f':
		w = "false"
	default:
		w = "null"
	}
	for k := 0; k < len(w); k++ {
		if d.i+k >= len(d.s) || d.s[d.i+k] != w[k] {
			d.i += k
			return 0, d.unexpected("in literal " + w + " (expecting '" + w[k:k+1] + "')")
		}
	}
	d.i += len(w)
	return w[0], nil
}

// skip reads and discards one value (after white space).
func (d *scanner) skip(depth int) error {
	switch c := d.peek(); c {
	case '{', '[':
		if depth >= maxDepth {
			return d.errorf("exceeded max depth")
		}
		d.i++
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		if d.peek() == end {
			d.i++
			return nil
		}
		for {
			if c == '{' {
				if d.peek() != '"' {
					return d.unexpected("looking for beginning of object key string")
				}
				if _, _, err := d.str(); err != nil {
					return err
				}
				if err := d.expect(':', "after object key"); err != nil {
					return err
				}
			}
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			switch d.peek() {
			case ',':
				d.i++
			case end:
				d.i++
				return nil
			default:
				if c == '{' {
					return d.unexpected("after object key:value pair")
				}
				return d.unexpected("after array element")
			}
		}
	case '"':
		_, _, err := d.str()
		return err
	case 't', 'f', 'n':
		_, err := d.lit()
		return err
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			_, err := d.num()
			return err
		}
		return d.unexpected("looking for beginning of value")
	}
}

// kind names the JSON type of a value that starts with c.
func kind(c byte) string {
	switch c {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}

// article prefixes a kind with "a" or "an".
func article(kind string) string {
	if kind == "null" {
		return kind
	}
	if kind == "array" || kind == "object" {
		return "an " + kind
	}
	return "a " + kind
}
