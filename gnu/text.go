package gnu

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"strings"
	"syscall"

	"github.com/chromafs/chromafs/internal/textio"
)

// HoldLimit is the most input, in bytes, that a text command holds in
// memory at once: all of sort's and tac's input, the lines that head
// -n -N and tail -n N keep back, and one line of uniq, cut or nl. Past
// it the command stops with ErrTooLarge rather than grow without bound.
const HoldLimit = textio.HoldLimit

// holdLimit is HoldLimit, lowered by tests.
var holdLimit = HoldLimit

// ErrTooLarge is the error of a text command whose input exceeds
// HoldLimit.
var ErrTooLarge = textio.ErrTooLarge

// stdinLabel is how head, tail and wc's headers and diagnostics name
// standard input.
const stdinLabel = "standard input"

// openInput opens an operand for reading: "-" is Env.Stdin (empty when
// there is none), anything else a file resolved against Env.Dir. A
// directory is an error wrapping errIsDir, reported by the commands as
// a read error.
func (r *run) openInput(a string) (io.ReadCloser, error) {
	if a == "-" {
		if r.env.Stdin == nil {
			return io.NopCloser(strings.NewReader("")), nil
		}
		return io.NopCloser(r.env.Stdin), nil
	}
	name, ok := r.resolve(a)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: a, Err: fs.ErrNotExist}
	}
	f, err := r.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: a, Err: errIsDir}
	}
	return f, nil
}

// eachInput opens each operand in turn (see openInput) and hands it to
// fn, until the context ends. An operand that cannot be opened, or on
// which fn fails, is reported as "OPERAND: reason" and makes the status
// 1; the others go on. It returns 0 or 1.
func (r *run) eachInput(operands []string, fn func(f io.Reader) error) int {
	return r.eachInputReporting(operands, nil, nil, fn)
}

// eachInputReporting is eachInput for commands that word their
// diagnostics otherwise: openFailed reports an operand that cannot be
// opened and readFailed one on which fn fails (nil for "OPERAND:
// reason"). Either failure makes the status 1 and the others go on.
func (r *run) eachInputReporting(operands []string, openFailed, readFailed func(a string, err error), fn func(f io.Reader) error) int {
	report := func(a string, err error) { r.warn("%s: %s", quotef(a), errText(err)) }
	if openFailed == nil {
		openFailed = report
	}
	if readFailed == nil {
		readFailed = report
	}
	st := 0
	for _, a := range operands {
		if r.stopped() {
			break
		}
		f, err := r.openInput(a)
		if err != nil {
			openFailed(a, err)
			st = 1
			continue
		}
		if err := fn(f); err != nil {
			readFailed(a, err)
			st = 1
		}
		f.Close()
	}
	return st
}

// eachLine hands each line of rd, with its end byte eol where it has
// one, to fn until the input or the context ends. It returns the read
// error, or nil at the end of the input.
func (r *run) eachLine(rd io.Reader, eol byte, fn func(line []byte)) error {
	lr := newLineReader(rd, eol)
	for !r.stopped() {
		line, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		fn(line)
	}
	return nil
}

// inputName is how head and tail name an operand in diagnostics.
func inputName(a string) string {
	if a == "-" {
		return stdinLabel
	}
	return a
}

// readHeld reads all of rd, at most HoldLimit bytes.
func readHeld(rd io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(rd, int64(holdLimit)+1))
	if err != nil {
		return data, err
	}
	if len(data) > holdLimit {
		return nil, ErrTooLarge
	}
	return data, nil
}

// newLineReader reads rd's lines ending in delim, each at most
// HoldLimit bytes long.
func newLineReader(rd io.Reader, delim byte) *textio.LineReader {
	return textio.NewLineReader(rd, delim, holdLimit)
}

// errLargeNum is the error of parseSize for a number past what a uint64
// holds: coreutils reports it with EOVERFLOW's text.
var errLargeNum = syscall.EOVERFLOW

// parseSize parses a count as coreutils' xstrtoumax does with the suffixes
// in valid: decimal digits, then an optional multiplier (b 512, c 1, w 2,
// k K m M G T P E Z Y R Q, powers of 1024, and, when valid holds '0',
// "kB" for powers of 1000 and "KiB" for powers of 1024). It returns
// errLargeNum for a value past math.MaxUint64 and another error for any
// other malformed count.
func parseSize(s, valid string) (uint64, error) {
	bad := errors.New("invalid")
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, bad
	}
	var n uint64
	over := false
	for _, c := range s[:i] {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			over = true
		}
		n = n*10 + d
	}
	rest := s[i:]
	if rest != "" {
		if !strings.ContainsRune(valid, rune(rest[0])) {
			return 0, bad
		}
		base, power, mult := uint64(1024), 0, uint64(1)
		if strings.ContainsRune(valid, '0') && len(rest) > 1 {
			switch rest[1:] {
			case "iB":
			case "B", "D":
				base = 1000
			default:
				return 0, bad
			}
			rest = rest[:1]
		}
		switch rest[0] {
		case 'b':
			mult = 512
		case 'B':
			mult = 1024
		case 'c':
			mult = 1
		case 'w':
			mult = 2
		default:
			power = strings.IndexByte("kMGTPEZYRQ", rest[0]) + 1
			if rest[0] == 'K' {
				power = 1
			}
			if rest[0] == 'm' {
				power = 2
			}
		}
		if len(s[i:]) > 1 && mult != 1 && power == 0 {
			return 0, bad
		}
		for range power {
			mult *= base
			if power > 6 {
				over = true
			}
		}
		if mult != 0 && n > math.MaxUint64/mult {
			over = true
		}
		n *= mult
	}
	if over {
		return math.MaxUint64, errLargeNum
	}
	return n, nil
}

// sizeError is the diagnostic of an invalid count: "invalid number of
// lines: ‘x’", followed by the reason for one too large.
func sizeError(what, arg string, err error) string {
	if errors.Is(err, errLargeNum) {
		return fmt.Sprintf("%s: %s: Value too large for defined data type", what, localeQuote(arg))
	}
	return fmt.Sprintf("%s: %s", what, localeQuote(arg))
}

// lastLines returns the offset in data where its last n lines (ended by
// delim; a last line may lack it) begin.
func lastLines(data []byte, n uint64, delim byte) int {
	end := len(data)
	if end > 0 && data[end-1] == delim {
		end--
	}
	for end >= 0 && n > 0 {
		i := bytes.LastIndexByte(data[:end], delim)
		n--
		if i < 0 {
			return 0
		}
		if n == 0 {
			return i + 1
		}
		end = i
	}
	return len(data)
}

// The C library's texts for the errors of the write commands.
const (
	textROFS   = "Read-only file system"
	textExist  = "File exists"
	textNoEnt  = "No such file or directory"
	textNotDir = "Not a directory"
	textIsDir  = "Is a directory"
)

// lookup stats an operand of a write command; text is the C library's
// text of why it cannot, "" when it can.
func (r *run) lookup(a string) (fi fs.FileInfo, name, text string) {
	name, ok := r.resolve(a)
	if !ok {
		return nil, "", textNoEnt
	}
	fi, err := fs.Stat(r.fsys, name)
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, name, textNotDir
		}
		return nil, name, ErrText(err)
	}
	return fi, name, ""
}

// createText is why creating the fs.FS name fails on a read-only
// filesystem: the parent is missing or not a directory, or the
// filesystem is read-only.
func (r *run) createText(name string) string {
	if name == "." {
		return textExist
	}
	fi, err := fs.Stat(r.fsys, path.Dir(name))
	switch {
	case err != nil && errors.Is(err, syscall.ENOTDIR):
		return textNotDir
	case err != nil:
		return ErrText(err)
	case !fi.IsDir():
		return textNotDir
	}
	return textROFS
}

// isDevNull reports whether operand a is /dev/null, the one file a
// command may write.
func (r *run) isDevNull(a string) bool {
	p := a
	if !strings.HasPrefix(p, "/") {
		p = "/" + r.env.Dir + "/" + p
	}
	return a != "" && path.Clean(p) == "/dev/null"
}

// target splits the operands of cp, mv and ln into sources and a target,
// with -t DIR and -T, and reports whether the target is a directory
// the sources go into. ok is false when it has printed a usage error or
// a failing target.
func (r *run) target(operands []string, targetDir string, noTargetDir bool) (sources []string, target string, intoDir, ok bool) {
	if targetDir != "" {
		fi, _, text := r.lookup(targetDir)
		if text != "" {
			r.warn("target directory %s: %s", quote(targetDir), text)
			return nil, "", false, false
		}
		if !fi.IsDir() {
			r.warn("target %s is not a directory", quote(targetDir))
			return nil, "", false, false
		}
		if len(operands) == 0 {
			r.usage(1, "missing file operand")
			return nil, "", false, false
		}
		return operands, targetDir, true, true
	}
	switch len(operands) {
	case 0:
		r.usage(1, "missing file operand")
		return nil, "", false, false
	case 1:
		r.usage(1, "missing destination file operand after %s", quote(operands[0]))
		return nil, "", false, false
	}
	target = operands[len(operands)-1]
	sources = operands[:len(operands)-1]
	fi, _, text := r.lookup(target)
	if noTargetDir {
		if len(sources) > 1 {
			r.usage(1, "extra operand %s", localeQuote(operands[2]))
			return nil, "", false, false
		}
		return sources, target, false, true
	}
	if len(sources) > 1 {
		if text != "" {
			r.warn("target %s: %s", quote(target), text)
			return nil, "", false, false
		}
		if !fi.IsDir() {
			r.warn("target %s is not a directory", quote(target))
			return nil, "", false, false
		}
	}
	return sources, target, text == "" && fi.IsDir(), true
}

// destination is where source goes: target itself, or target/base when
// target is a directory.
func destination(source, target string, intoDir bool) string {
	if !intoDir {
		return target
	}
	base := path.Base(strings.TrimRight(source, "/"))
	if base == "" || base == "." && source == "" {
		base = source
	}
	return join(target, base)
}
