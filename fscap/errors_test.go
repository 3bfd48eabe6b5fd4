package fscap_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/chromafs/chromafs/fscap"
)

func TestErrReadOnly(t *testing.T) {
	for _, err := range []error{
		fscap.ErrReadOnly,
		&fs.PathError{Op: "write", Path: "a", Err: fscap.ErrReadOnly},
		&os.LinkError{Op: "rename", Old: "a", New: "b", Err: fscap.ErrReadOnly},
	} {
		for _, target := range []error{fscap.ErrReadOnly, fs.ErrPermission, syscall.EROFS} {
			if !errors.Is(err, target) {
				t.Errorf("errors.Is(%v, %v) = false", err, target)
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v matches fs.ErrNotExist", err)
		}
		var errno syscall.Errno
		if !errors.As(err, &errno) || errno != syscall.EROFS {
			t.Errorf("errors.As(%v, *syscall.Errno) = %v; want EROFS", err, errno)
		}
	}
}

// unavailable is an error that says whether it is unavailable.
type unavailable bool

func (u unavailable) Error() string     { return "status" }
func (u unavailable) Unavailable() bool { return bool(u) }

// timeoutError is a net.Error.
type timeoutError struct{}

func (*timeoutError) Error() string   { return "i/o timeout" }
func (*timeoutError) Timeout() bool   { return true }
func (*timeoutError) Temporary() bool { return true }

var errCorrupt = fscap.NewContentError("corrupt page")

func TestIsUnavailable(t *testing.T) {
	wrap := func(err error) error {
		return &fs.PathError{Op: "read", Path: "a", Err: errors.Join(errors.New("chroma"), err)}
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{wrap(syscall.ECONNREFUSED), true},
		{wrap(syscall.ECONNRESET), true},
		{wrap(syscall.ECONNABORTED), true},
		{wrap(syscall.EHOSTUNREACH), true},
		{wrap(syscall.ENETUNREACH), true},
		{wrap(syscall.ETIMEDOUT), true},
		{wrap(syscall.EPIPE), true},
		{wrap(context.DeadlineExceeded), true},
		{wrap(io.ErrUnexpectedEOF), true},
		{wrap(&timeoutError{}), true},
		{wrap(&net.DNSError{Err: "no such host", Name: "chroma.internal"}), true},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("refused")}), true},
		{wrap(unavailable(true)), true},
		{wrap(unavailable(false)), false},
		{wrap(fmt.Errorf("%w: %w", unavailable(false), syscall.ECONNREFUSED)), false},
		{wrap(context.Canceled), false},
		{wrap(fs.ErrNotExist), false},
		{wrap(errCorrupt), false},
		{io.EOF, false},
		{errors.New("other"), false},
	} {
		if got := fscap.IsUnavailable(tc.err); got != tc.want {
			t.Errorf("IsUnavailable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestErrContent(t *testing.T) {
	other := fscap.NewContentError("corrupt page")
	wrapped := fmt.Errorf("read a.md: %w", errCorrupt)
	tests := []struct {
		err, target error
		want        bool
	}{
		{errCorrupt, fscap.ErrContent, true},
		{wrapped, fscap.ErrContent, true},
		{wrapped, errCorrupt, true},
		{wrapped, other, false}, // each call makes its own error
		{errors.New("corrupt page"), fscap.ErrContent, false},
		{syscall.ECONNREFUSED, fscap.ErrContent, false},
		{errCorrupt, fs.ErrNotExist, false},
	}
	for _, tt := range tests {
		if got := errors.Is(tt.err, tt.target); got != tt.want {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.want)
		}
	}
	if errCorrupt.Error() != "corrupt page" {
		t.Errorf("Error() = %q, want the text given", errCorrupt.Error())
	}
}
