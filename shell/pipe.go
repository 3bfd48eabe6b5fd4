package shell

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// brokenPipe reports whether w is the write end of a pipe whose read end
// is closed: a write there would fail with EPIPE (and raise SIGPIPE in a
// process). The shell's pipes between commands are *os.File pipes; any
// other writer is not a pipe.
func brokenPipe(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	broken := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds, 0)
		broken = err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
	})
	return broken
}
