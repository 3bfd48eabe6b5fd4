package textio

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestErrTextStd(t *testing.T) {
	for _, tt := range []struct {
		err  error
		text string
		std  bool
	}{
		{&fs.PathError{Op: "open", Path: "a", Err: fs.ErrNotExist}, "No such file or directory", true},
		{fmt.Errorf("x: %w", syscall.EROFS), "Read-only file system", true},
		{fs.ErrPermission, "Permission denied", true},
		{fs.ErrInvalid, "Invalid argument", true},
		{syscall.EPIPE, "Broken pipe", true},
		{syscall.ENOSPC, syscall.ENOSPC.Error(), true},
		{&fs.PathError{Op: "read", Path: "d", Err: errors.New("is a directory")}, "Is a directory", true},
		{&fs.PathError{Op: "open", Path: "d/x", Err: errors.New("not a directory")}, "Not a directory", true},
		{&fs.PathError{Op: "read", Path: "a", Err: errors.New("store unavailable")}, "store unavailable", false},
		{ErrTooLarge, ErrTooLarge.Error(), false},
	} {
		text, std := ErrTextStd(tt.err)
		if text != tt.text || std != tt.std {
			t.Errorf("ErrTextStd(%v) = %q, %v; want %q, %v", tt.err, text, std, tt.text, tt.std)
		}
		if got := ErrText(tt.err); got != tt.text {
			t.Errorf("ErrText(%v) = %q; want %q", tt.err, got, tt.text)
		}
	}
}
