package gnu

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"golang.org/x/crypto/blake2b"

	"github.com/chromafs/chromafs/internal/getopt"
)

// A digest is one of the checksum commands: md5sum, sha1sum, ...
type digest struct {
	cmd  string // "md5sum"
	tag  string // the BSD-style tag: "MD5"
	bits int    // the digest's size: 128
	rfc  string // the help's last paragraph's standard
	// make returns a new hash of bits bits (b2sum's -l sets bits).
	make func(bits int) hash.Hash
}

var digests = map[string]*digest{
	"md5sum":    {cmd: "md5sum", tag: "MD5", bits: 128, rfc: "RFC 1321", make: func(int) hash.Hash { return md5.New() }},
	"sha1sum":   {cmd: "sha1sum", tag: "SHA1", bits: 160, rfc: "FIPS-180-1", make: func(int) hash.Hash { return sha1.New() }},
	"sha224sum": {cmd: "sha224sum", tag: "SHA224", bits: 224, rfc: "RFC 3874", make: func(int) hash.Hash { return sha256.New224() }},
	"sha256sum": {cmd: "sha256sum", tag: "SHA256", bits: 256, rfc: "FIPS-180-2", make: func(int) hash.Hash { return sha256.New() }},
	"sha384sum": {cmd: "sha384sum", tag: "SHA384", bits: 384, rfc: "FIPS-180-2", make: func(int) hash.Hash { return sha512.New384() }},
	"sha512sum": {cmd: "sha512sum", tag: "SHA512", bits: 512, rfc: "FIPS-180-2", make: func(int) hash.Hash { return sha512.New() }},
	"b2sum": {cmd: "b2sum", tag: "BLAKE2b", bits: 512, rfc: "RFC 7693", make: func(bits int) hash.Hash {
		h, _ := blake2b.New(bits/8, nil) // bits is checked: a multiple of 8 up to 512
		return h
	}},
}

// Md5sum prints or checks MD5 checksums, as GNU md5sum 9.1 does.
func Md5sum(ctx context.Context, env *Env, args []string) int {
	return digests["md5sum"].run(ctx, env, args)
}

// Sha1sum prints or checks SHA-1 checksums, as GNU sha1sum 9.1 does.
func Sha1sum(ctx context.Context, env *Env, args []string) int {
	return digests["sha1sum"].run(ctx, env, args)
}

// Sha224sum prints or checks SHA-224 checksums, as GNU sha224sum 9.1 does.
func Sha224sum(ctx context.Context, env *Env, args []string) int {
	return digests["sha224sum"].run(ctx, env, args)
}

// Sha256sum prints or checks SHA-256 checksums, as GNU sha256sum 9.1
// does: one line per FILE, "HEX  NAME" (a name holding a backslash, a
// newline or a carriage return is escaped and its line starts with a
// backslash), or "SHA256 (NAME) = HEX" with --tag; with -c it reads such
// lines from each FILE and prints "NAME: OK" or "NAME: FAILED", then
// GNU's warnings; the status is 1 if a file did not match, could not be
// read, or (with --strict) a line was not a checksum line. It takes -b,
// -c, -t, -z, --tag and, when checking, --ignore-missing, --quiet,
// --status, --strict and -w. A directory operand is "Is a directory".
// Like every command here it only reads: nothing is written.
func Sha256sum(ctx context.Context, env *Env, args []string) int {
	return digests["sha256sum"].run(ctx, env, args)
}

// Sha384sum prints or checks SHA-384 checksums, as GNU sha384sum 9.1 does.
func Sha384sum(ctx context.Context, env *Env, args []string) int {
	return digests["sha384sum"].run(ctx, env, args)
}

// Sha512sum prints or checks SHA-512 checksums, as GNU sha512sum 9.1 does.
func Sha512sum(ctx context.Context, env *Env, args []string) int {
	return digests["sha512sum"].run(ctx, env, args)
}

// B2sum prints or checks BLAKE2b checksums, as GNU b2sum 9.1 does, with
// -l BITS (a multiple of 8 up to 512; 0 is 512) besides md5sum's options.
func B2sum(ctx context.Context, env *Env, args []string) int {
	return digests["b2sum"].run(ctx, env, args)
}

const (
	keySumTag = 1000 + iota
	keySumIgnoreMissing
	keySumQuiet
	keySumStatus
	keySumStrict
)

var sumLongs = append([]getopt.Long{
	{Name: "binary", Key: 'b'},
	{Name: "check", Key: 'c'},
	{Name: "ignore-missing", Key: keySumIgnoreMissing},
	{Name: "quiet", Key: keySumQuiet},
	{Name: "status", Key: keySumStatus},
	{Name: "text", Key: 't'},
	{Name: "warn", Key: 'w'},
	{Name: "strict", Key: keySumStrict},
	{Name: "tag", Key: keySumTag},
	{Name: "zero", Key: 'z'},
}, helpVersion...)

var (
	sumSpec = getopt.Spec{Short: "bctwz", Long: sumLongs}
	b2Spec  = getopt.Spec{Short: "bcl:twz", Long: append([]getopt.Long{{Name: "length", Key: 'l', HasArg: getopt.RequiredArgument}}, sumLongs...)}
)

func (d *digest) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %%s [OPTION]... [FILE]...\nPrint or check %s (%d-bit) checksums.\n\nWith no FILE, or when FILE is -, read standard input.\n", d.tag, d.bits)
	b.WriteString("  -b, --binary          read in binary mode\n  -c, --check           read checksums from the FILEs and check them\n")
	if d.cmd == "b2sum" {
		b.WriteString("  -l, --length=BITS     digest length in bits; must not exceed the max for\n                          the blake2 algorithm and must be a multiple of 8\n")
	}
	b.WriteString(`      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --help        display this help and exit
      --version     output version information and exit

`)
	fmt.Fprintf(&b, "The sums are computed as described in %s.\n", d.rfc)
	b.WriteString(`When checking, the input should be a former output of this program.
The default mode is to print a line with: checksum, a space,
a character indicating input mode ('*' for binary, ' ' for text
or where binary is insignificant), and name for each FILE.

Note: There is no difference between binary mode and text mode on GNU systems.
`)
	return b.String()
}

// sumRun is one run of a checksum command.
type sumRun struct {
	*run
	d    *digest
	bits int // the digest's size in bits (b2sum -l)

	binary                               int // -1 text (-t), 1 binary (-b), 0 unset
	tag, zero                            bool
	ignoreMissing, quiet, status, strict bool
	warnLines                            bool
	misformatted, unreadable, mismatched int
	properlyFormatted, matched           bool
	// reversed is -1 until the first untagged line is read, then 0 for
	// "HEX  NAME" lines or 1 for "HEX NAME" ones, for the whole run (as
	// coreutils keeps it), so that the two forms cannot be mixed.
	reversed int
}

func (d *digest) run(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, d.cmd)
	spec := &sumSpec
	if d.cmd == "b2sum" {
		spec = &b2Spec
	}
	opts, operands, done, status := r.parse(spec, args, 1, d.help())
	if done {
		return status
	}
	s := &sumRun{run: r, d: d, bits: d.bits, reversed: -1}
	check := false
	for _, o := range opts {
		switch o.Key {
		case 'b':
			s.binary = 1
		case 't':
			s.binary = -1
		case 'c':
			check = true
		case 'z':
			s.zero = true
		case 'w':
			s.warnLines = true
		case 'l':
			n, err := strconv.ParseUint(o.Arg, 10, 64)
			if err != nil {
				r.warn("invalid length: %s", localeQuote(o.Arg))
				return r.finish(1)
			}
			if n%8 != 0 {
				r.warn("invalid length: %s", localeQuote(o.Arg))
				r.warn("length is not a multiple of 8")
				return r.finish(1)
			}
			if n > 512 {
				r.warn("invalid length: %s", localeQuote(o.Arg))
				r.warn("maximum digest length for %s is 512 bits", localeQuote("BLAKE2b"))
				return r.finish(1)
			}
			if n == 0 {
				n = 512
			}
			s.bits = int(n)
		case keySumTag:
			s.tag = true
		case keySumIgnoreMissing:
			s.ignoreMissing = true
		case keySumQuiet:
			s.quiet = true
		case keySumStatus:
			s.status = true
		case keySumStrict:
			s.strict = true
		}
	}
	switch {
	case s.tag && s.binary < 0:
		return r.usage(1, "--tag does not support --text mode")
	case s.zero && check:
		return r.usage(1, "the --zero option is not supported when verifying checksums")
	case s.tag && check:
		return r.usage(1, "the --tag option is meaningless when verifying checksums")
	case s.binary != 0 && check:
		return r.usage(1, "the --binary and --text options are meaningless when verifying checksums")
	case s.ignoreMissing && !check:
		return r.usage(1, "the --ignore-missing option is meaningful only when verifying checksums")
	case s.status && !check:
		return r.usage(1, "the --status option is meaningful only when verifying checksums")
	case s.warnLines && !check:
		return r.usage(1, "the --warn option is meaningful only when verifying checksums")
	case s.quiet && !check:
		return r.usage(1, "the --quiet option is meaningful only when verifying checksums")
	case s.strict && !check:
		return r.usage(1, "the --strict option is meaningful only when verifying checksums")
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !r.open() {
		return r.finish(1)
	}
	st := 0
	for _, a := range operands {
		if r.stopped() {
			break
		}
		var ok bool
		if check {
			ok = s.check(a)
		} else {
			ok = s.print(a)
		}
		if !ok {
			st = 1
		}
	}
	return r.finish(st)
}

// sum returns the hex digest of operand a, or the error that kept it
// from being read.
func (s *sumRun) sum(a string, bits int) (string, error) {
	f, err := s.openInput(a)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := s.d.make(bits)
	if _, err := io.Copy(h, readerCtx{s.ctx, f}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tagName is the BSD-style tag: "SHA256", or "BLAKE2b-256" for b2sum -l.
func (s *sumRun) tagName() string {
	if s.d.cmd == "b2sum" && s.bits != 512 {
		return s.d.tag + "-" + strconv.Itoa(s.bits)
	}
	return s.d.tag
}

// print writes operand a's checksum line.
func (s *sumRun) print(a string) bool {
	sum, err := s.sum(a, s.bits)
	if err != nil {
		s.warn("%s: %s", quotef(a), errText(err))
		return false
	}
	escape := !s.zero && needsEscape(a)
	if escape {
		s.out.WriteByte('\\')
	}
	if s.tag {
		fmt.Fprintf(s.out, "%s (%s) = %s", s.tagName(), escapeName(a, escape), sum)
	} else {
		mode := byte(' ')
		if s.binary > 0 {
			mode = '*'
		}
		fmt.Fprintf(s.out, "%s %c%s", sum, mode, escapeName(a, escape))
	}
	if s.zero {
		s.out.WriteByte(0)
	} else {
		s.out.WriteByte('\n')
	}
	return true
}

func needsEscape(name string) bool { return strings.ContainsAny(name, "\\\n\r") }

func escapeName(name string, escape bool) string {
	if !escape {
		return name
	}
	return strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`).Replace(name)
}

// unescapeName undoes escapeName; ok is false for a backslash followed
// by anything else, or a trailing one.
func unescapeName(s string) (string, bool) {
	if !strings.Contains(s, "\\") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i++; i == len(s) {
			return "", false
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// check reads checksum lines from operand a and checks each file they
// name, as GNU's digest_check does.
func (s *sumRun) check(a string) bool {
	f, err := s.openInput(a)
	if err != nil {
		s.warn("%s: %s", quotef(a), errText(err))
		return false
	}
	defer f.Close()
	label := a
	if a == "-" {
		label = stdinLabel
	}
	s.misformatted, s.unreadable, s.mismatched = 0, 0, 0
	s.properlyFormatted, s.matched = false, false
	lineNo := 0
	err = s.eachLine(f, '\n', func(line []byte) {
		lineNo++
		if len(line) > 0 && line[0] == '#' {
			return
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			return
		}
		want, name, ok := s.split(string(line))
		if !ok || (a == "-" && name == "-") {
			s.misformatted++
			if s.warnLines {
				s.warn("%s: %d: improperly formatted %s checksum line", quotef(label), lineNo, s.tagName())
			}
			return
		}
		s.properlyFormatted = true
		// coreutils 9.1 escapes a name here only if it holds a newline.
		escape := !s.status && strings.Contains(name, "\n")
		got, err := s.sum(name, len(want)*4)
		if err != nil {
			if s.ignoreMissing && errors.Is(err, fs.ErrNotExist) {
				return
			}
			s.warn("%s: %s", quotef(name), errText(err))
			s.unreadable++
			if !s.status {
				s.result(name, escape, "FAILED open or read")
			}
			return
		}
		match := strings.EqualFold(got, want)
		if match {
			s.matched = true
		} else {
			s.mismatched++
		}
		switch {
		case s.status:
		case !match:
			s.result(name, escape, "FAILED")
		case !s.quiet:
			s.result(name, escape, "OK")
		}
	})
	if err != nil {
		s.warn("%s: read error", quotef(label))
		return false
	}
	if !s.properlyFormatted {
		s.warn("%s: no properly formatted checksum lines found", quotef(label))
		return false
	}
	if !s.status {
		plural := func(n int, one, many string) {
			if n == 1 {
				s.warn(one, n)
			} else if n > 1 {
				s.warn(many, n)
			}
		}
		plural(s.misformatted, "WARNING: %d line is improperly formatted", "WARNING: %d lines are improperly formatted")
		plural(s.unreadable, "WARNING: %d listed file could not be read", "WARNING: %d listed files could not be read")
		plural(s.mismatched, "WARNING: %d computed checksum did NOT match", "WARNING: %d computed checksums did NOT match")
		if s.ignoreMissing && !s.matched {
			s.warn("%s: no file was verified", quotef(label))
		}
	}
	return s.mismatched == 0 && s.unreadable == 0 && (!s.strict || s.misformatted == 0) && !(s.ignoreMissing && !s.matched)
}

func (s *sumRun) result(name string, escape bool, what string) {
	if escape {
		s.out.WriteByte('\\')
	}
	s.out.WriteString(escapeName(name, escape))
	s.out.WriteString(": ")
	s.out.WriteString(what)
	s.out.WriteByte('\n')
}

// split parses one checksum line (without its end) as coreutils'
// split_3 does: "HEX  NAME", "HEX *NAME", "TAG (NAME) = HEX", or, when
// the file's first line was one, "HEX NAME"; a leading backslash means
// an escaped name. It returns the hex digest and the file's name.
func (s *sumRun) split(line string) (want, name string, ok bool) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	escaped := false
	if i < len(line) && line[i] == '\\' {
		i++
		escaped = true
	}
	hexLen := s.bits / 4
	if rest, found := strings.CutPrefix(line[i:], s.d.tag); found {
		if s.d.cmd == "b2sum" {
			// "BLAKE2b-256": the length is the line's.
			bits := 512
			if r, ok := strings.CutPrefix(rest, "-"); ok {
				j := 0
				for j < len(r) && r[j] >= '0' && r[j] <= '9' {
					j++
				}
				n, err := strconv.Atoi(r[:j])
				if err != nil || n <= 0 || n > 512 || n%8 != 0 {
					return "", "", false
				}
				bits, rest = n, r[j:]
			}
			hexLen = bits / 4
		}
		rest = strings.TrimPrefix(rest, " ")
		rest, found = strings.CutPrefix(rest, "(")
		if !found {
			return "", "", false
		}
		// The name ends at the last ')'.
		end := strings.LastIndexByte(rest, ')')
		if end < 0 {
			return "", "", false
		}
		name = rest[:end]
		rest = strings.TrimLeft(rest[end+1:], " \t")
		rest, found = strings.CutPrefix(rest, "=")
		if !found {
			return "", "", false
		}
		want = strings.TrimLeft(rest, " \t")
		if !hexOf(want, hexLen) {
			return "", "", false
		}
		if escaped {
			if name, ok = unescapeName(name); !ok {
				return "", "", false
			}
		}
		return want, name, true
	}
	if s.d.cmd == "b2sum" {
		// An untagged b2sum line's length is its hex's.
		j := i
		for j < len(line) && isHex(line[j]) {
			j++
		}
		if n := j - i; n > 0 && n%2 == 0 && n <= 128 {
			hexLen = n
		}
	}
	// At least the digest, a blank and one character of the name (one
	// more if the digest starts with a backslash, as coreutils counts).
	if i >= len(line) || len(line)-i < hexLen+2+btoi(line[i] == '\\') || !isSpace(line[i+hexLen]) {
		return "", "", false
	}
	want = line[i : i+hexLen]
	if !hexOf(want, hexLen) {
		return "", "", false
	}
	i += hexLen + 1
	if len(line)-i == 1 || (line[i] != ' ' && line[i] != '*') {
		// "HEX NAME": allowed only if the file's first line was one.
		if s.reversed == 0 {
			return "", "", false
		}
		s.reversed = 1
	} else if s.reversed != 1 {
		s.reversed = 0
		i++
	}
	name = line[i:]
	if escaped {
		if name, ok = unescapeName(name); !ok {
			return "", "", false
		}
	}
	return want, name, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// hexOf reports whether s is n hexadecimal digits.
func hexOf(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}
