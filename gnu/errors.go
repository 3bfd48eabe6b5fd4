package gnu

import (
	"errors"

	"github.com/chromafs/chromafs/internal/textio"
)

// The errors that the commands share and how they are worded.

// ErrText renders an error the way the C library's strerror does for
// the errors an fs.FS returns ("No such file or directory"); other
// errors print their own text, which names what failed.
func ErrText(err error) string { return textio.ErrText(err) }

// errTextStd is ErrText, and whether the text is one of the standard
// messages rather than the error's own.
func errTextStd(err error) (string, bool) { return textio.ErrTextStd(err) }

// errIsDir is the error of reading a directory as a file: openInput's
// for a directory operand, reported as a read error.
var errIsDir = errors.New("is a directory")

// isReadErr reports whether an error of openInput is one that GNU
// tools meet when reading rather than opening (a directory).
func isReadErr(err error) bool { return errors.Is(err, errIsDir) }

// errText is ErrText for the read errors of text commands: a directory
// reads as "Is a directory".
func errText(err error) string {
	if errors.Is(err, errIsDir) {
		return "Is a directory"
	}
	if errors.Is(err, ErrTooLarge) {
		return ErrTooLarge.Error()
	}
	return ErrText(err)
}
