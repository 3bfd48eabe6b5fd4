package textio

import (
	"errors"
	"io/fs"
	"syscall"
)

// ErrText renders an error the way the C library's strerror does for
// the errors an fs.FS returns ("No such file or directory"); other
// errors print their own text, which names what failed.
func ErrText(err error) string {
	text, _ := ErrTextStd(err)
	return text
}

// ErrTextStd is ErrText, and whether the text is one of the standard
// messages rather than the error's own.
func ErrTextStd(err error) (string, bool) {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory", true
	case errors.Is(err, syscall.EROFS):
		return "Read-only file system", true
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied", true
	case errors.Is(err, fs.ErrInvalid):
		return "Invalid argument", true
	case errors.Is(err, syscall.EPIPE):
		return "Broken pipe", true
	case errors.As(err, &errno):
		return errno.Error(), true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch pe.Err.Error() {
		case "is a directory":
			return "Is a directory", true
		case "not a directory":
			return "Not a directory", true
		}
		return pe.Err.Error(), false
	}
	return err.Error(), false
}
