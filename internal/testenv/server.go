package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// StartTimeout bounds how long a server may take to answer after it was
// started.
const StartTimeout = 60 * time.Second

// stopTimeout bounds how long a killed server may take to exit.
const stopTimeout = 10 * time.Second

// Server is a running Chroma or Redis server.
type Server struct {
	// URL is where the server answers: http://127.0.0.1:PORT for Chroma,
	// redis://127.0.0.1:PORT for Redis, or the CHROMA_URL / REDIS_URL it
	// was given.
	URL string
	// Addr is the server's host:port.
	Addr string

	kind     kind
	external bool   // not started here: Stop and Start fail
	bin      string // executable
	dir      string // working and data directory
	logPath  string // the server's stdout and stderr, appended across restarts

	mu   sync.Mutex
	proc *process // nil when stopped
}

// process is one run of a server's executable.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	err  error         // cmd.Wait's error, set before done is closed
}

// kind describes how to run and probe one sort of server.
type kind struct {
	name    string // "chroma", "redis"
	envURL  string // CHROMA_URL
	envBin  string // CHROMA_BIN
	scheme  string // http, redis
	install string // what to run when the executable is missing
	// args returns the command line for a server on port with data in dir.
	args func(dir string, port int) []string
	// ready reports whether the server at addr answers.
	ready func(ctx context.Context, addr string) error
}

// Stop kills the server's process group and waits for it to exit. It
// fails for a server that testenv did not start. Stopping a stopped server
// does nothing.
func (s *Server) Stop() error {
	if s.external {
		return s.notOurs("stop")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked()
}

// Start starts a stopped server again on the same port and data
// directory, and waits until it answers. Starting a running server does
// nothing.
func (s *Server) Start() error {
	if s.external {
		return s.notOurs("start")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		select {
		case <-s.proc.done:
			s.proc = nil // it died on its own: start it again
		default:
			return nil
		}
	}
	return s.startLocked()
}

// Restart stops the server and starts it again on the same port and data
// directory.
func (s *Server) Restart() error {
	if s.external {
		return s.notOurs("restart")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stopLocked(); err != nil {
		return err
	}
	return s.startLocked()
}

// Running reports whether the server's process is alive. A server that
// testenv did not start counts as running.
func (s *Server) Running() bool {
	if s.external {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return false
	}
	select {
	case <-s.proc.done:
		return false
	default:
		return true
	}
}

// LogTail returns the last lines the server wrote, for error messages.
func (s *Server) LogTail() string {
	if s.external {
		return ""
	}
	return logTail(s.logPath, 4096)
}

func (s *Server) notOurs(op string) error {
	return fmt.Errorf("testenv: cannot %s %s at %s: it was not started by testenv (%s is set)", op, s.kind.name, s.URL, s.kind.envURL)
}

func (s *Server) startLocked() error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("testenv: start %s: %w", s.kind.name, err)
	}
	defer logf.Close() // the child has its own copy
	_, port, _ := net.SplitHostPort(s.Addr)
	p, _ := strconv.Atoi(port)
	cmd := exec.Command(s.bin, s.kind.args(s.dir, p)...)
	cmd.Dir = s.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	fmt.Fprintf(logf, "\n=== testenv: %s %q\n", time.Now().Format(time.RFC3339), cmd.Args)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("testenv: start %s (%s): %w", s.kind.name, s.bin, err)
	}
	proc := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		proc.err = cmd.Wait()
		close(proc.done)
	}()
	s.proc = proc

	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	var last error
	for {
		select {
		case <-proc.done:
			s.proc = nil
			return fmt.Errorf("testenv: %s on %s exited while starting (%v); log %s ends with:\n%s",
				s.kind.name, s.Addr, proc.err, s.logPath, s.LogTail())
		default:
		}
		probe, cancelProbe := context.WithTimeout(ctx, 2*time.Second)
		last = s.kind.ready(probe, s.Addr)
		cancelProbe()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			_ = s.stopLocked()
			return fmt.Errorf("testenv: %s on %s did not answer within %v (last: %v); log %s ends with:\n%s",
				s.kind.name, s.Addr, StartTimeout, last, s.logPath, s.LogTail())
		case <-proc.done:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Server) stopLocked() error {
	proc := s.proc
	if proc == nil {
		return nil
	}
	s.proc = nil
	killGroup(proc.cmd.Process)
	select {
	case <-proc.done:
		return nil
	case <-time.After(stopTimeout):
		return fmt.Errorf("testenv: %s (pid %d) on %s did not exit within %v of SIGKILL",
			s.kind.name, proc.cmd.Process.Pid, s.Addr, stopTimeout)
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("testenv: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*[a-zA-Z]")

// logTail returns at most the last n bytes of the file at path, from a
// line start, without terminal escapes.
func logTail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Sprintf("(unreadable log: %v)", err)
	}
	off := max(size-n, 0)
	b := make([]byte, size-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Sprintf("(unreadable log: %v)", err)
	}
	if off > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(ansi.ReplaceAll(bytes.TrimRight(b, "\n"), nil))
}

// newServer prepares (but does not start) a server of kind k with its
// data in a new directory under parent.
func newServer(k kind, bin, parent string) (*Server, error) {
	dir, err := os.MkdirTemp(parent, k.name+"-")
	if err != nil {
		return nil, fmt.Errorf("testenv: %s data directory: %w", k.name, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return &Server{
		URL:     k.scheme + "://" + addr,
		Addr:    addr,
		kind:    k,
		bin:     bin,
		dir:     dir,
		logPath: filepath.Join(dir, k.name+".log"),
	}, nil
}

// launch starts a new server of kind k under parent. A port taken by
// someone else between freePort and the server's bind shows as an early
// exit; launch then tries another port, twice at most.
func launch(k kind, bin, parent string) (*Server, error) {
	var err error
	for range 3 {
		var s *Server
		s, err = newServer(k, bin, parent)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		err = s.startLocked()
		s.mu.Unlock()
		if err == nil {
			return s, nil
		}
		if portInUse(s.Addr) {
			continue
		}
		return nil, err
	}
	return nil, err
}

// portInUse reports whether something listens on addr.
func portInUse(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
