package textio

import (
	"bufio"
	"errors"
	"io"
)

// HoldLimit is the most input, in bytes, that a text command holds in
// memory at once (one line for a LineReader).
const HoldLimit = 64 << 20

// ErrTooLarge is the error of a read that would hold more than a
// command's limit.
var ErrTooLarge = errors.New("input exceeds the 64 MiB a command holds in memory")

// LineReader reads lines ending in a delimiter byte, each at most a
// limit of bytes long.
type LineReader struct {
	br    *bufio.Reader
	delim byte
	limit int
	buf   []byte
}

// NewLineReader returns a LineReader of rd's lines ending in delim, each
// at most limit bytes (delimiter included).
func NewLineReader(rd io.Reader, delim byte, limit int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(rd, 64<<10), delim: delim, limit: limit}
}

// Next returns the next line with its delimiter (missing on a last line
// that has none), valid until the next call, or io.EOF after the last.
// A line longer than the limit is ErrTooLarge; other errors are rd's.
func (l *LineReader) Next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice(l.delim)
		if len(l.buf)+len(chunk) > l.limit {
			return nil, ErrTooLarge
		}
		if err == bufio.ErrBufferFull {
			l.buf = append(l.buf, chunk...)
			continue
		}
		if len(l.buf) == 0 && err == nil {
			return chunk, nil
		}
		l.buf = append(l.buf, chunk...)
		if err == io.EOF && len(l.buf) > 0 {
			return l.buf, nil
		}
		if err != nil {
			return nil, err
		}
		return l.buf, nil
	}
}

// Rest is the input after the last line Next returned, for a caller that
// reads the remainder as a whole.
func (l *LineReader) Rest() io.Reader { return l.br }
