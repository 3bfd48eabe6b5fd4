package shell

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"sync"
)

// outputStopFactor times the output cap is what a command line may write
// in all (the rest counted and dropped) before it is stopped.
const outputStopFactor = 10

// capWriter is the standard output and standard error of one Run: both
// share one budget of characters; past it, output is counted and
// dropped, and past outputStopFactor times it the Run is stopped.
type capWriter struct {
	mu       sync.Mutex
	stdout   io.Writer
	stderr   io.Writer
	limit    int64
	n        int64 // characters seen, shown or not
	bytes    int64 // bytes seen
	lastNL   bool  // the last byte shown was a newline (or nothing was shown)
	stop     func()
	isStoped bool
}

func newCapWriter(stdout, stderr io.Writer, limit int, stop func()) *capWriter {
	return &capWriter{stdout: stdout, stderr: stderr, limit: int64(limit), stop: stop, lastNL: true}
}

type capStream struct {
	c   *capWriter
	dst io.Writer
}

func (w capStream) Write(p []byte) (int, error) { return w.c.write(w.dst, p) }

func (c *capWriter) stdoutW() io.Writer { return capStream{c, c.stdout} }
func (c *capWriter) stderrW() io.Writer { return capStream{c, c.stderr} }

// charStart reports whether b starts a character: any byte but a UTF-8
// continuation byte.
func charStart(b byte) bool { return b&0xC0 != 0x80 }

// countChars returns the number of bytes of p for which charStart holds,
// eight bytes at a time: a continuation byte has its high bit set and the
// next bit clear.
func countChars(p []byte) int64 {
	const high = 0x8080808080808080
	n := 0
	for len(p) >= 8 {
		w := binary.LittleEndian.Uint64(p)
		n += 8 - bits.OnesCount64(w&^(w<<1)&high)
		p = p[8:]
	}
	for _, b := range p {
		if charStart(b) {
			n++
		}
	}
	return int64(n)
}

func (c *capWriter) write(dst io.Writer, p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := len(p)
	if !c.isStoped {
		c.bytes += int64(total)
	}
	if c.n < c.limit {
		// Show the bytes up to the start of the character past the limit.
		cut := len(p)
		n := c.n
		if c.limit-n >= int64(len(p)) {
			// No more characters than bytes: all of p is shown.
			n += countChars(p)
		} else {
			for i, b := range p {
				if charStart(b) {
					if n == c.limit {
						cut = i
						break
					}
					n++
				}
			}
		}
		c.n = n
		if cut > 0 {
			if _, err := dst.Write(p[:cut]); err != nil {
				return 0, err
			}
			c.lastNL = p[cut-1] == '\n'
		}
		p = p[cut:]
	}
	if c.isStoped {
		return total, nil
	}
	c.n += countChars(p)
	stopAt := c.limit * outputStopFactor
	if c.n >= stopAt || c.bytes >= 4*stopAt {
		c.isStoped = true
		c.stop()
	}
	return total, nil
}

func (c *capWriter) stopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.isStoped
}

// finish writes the truncation note, if output was cut.
func (c *capWriter) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= c.limit {
		return
	}
	nl := ""
	if !c.lastNL {
		nl = "\n"
	}
	more := thousands(c.n - c.limit)
	if c.isStoped {
		more = "over " + more
	}
	fmt.Fprintf(c.stdout, "%s[output truncated: %s more characters", nl, more)
	if c.isStoped {
		fmt.Fprint(c.stdout, ", and the command line was stopped")
	}
	fmt.Fprint(c.stdout, "; narrow the command, e.g. with head, grep -m or a more specific path]\n")
}

// thousands formats n with commas: 41233 is "41,233".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
