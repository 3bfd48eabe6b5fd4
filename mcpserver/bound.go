package mcpserver

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// noteRoom is the characters an answer keeps free for the note that ends
// it when it is cut.
const noteRoom = 200

// lines collects an answer line by line, up to a number of characters
// and of lines, and counts what it leaves out: once a line does not fit,
// the ones after it are counted, not kept, so that the answer is a prefix.
// It is an io.Writer of text that ends with a newline (the last line may
// be unterminated: see text).
type lines struct {
	maxChars int // < 0: none
	maxLines int // <= 0: none

	kept    strings.Builder
	chars   int
	n       int // lines kept
	partial []byte
	full    bool

	droppedLines int
	droppedChars int
}

// newLines returns a collector of at most maxChars characters (minus
// the room of the closing note; none when maxChars < 0) and maxLines lines
// (none when maxLines <= 0).
func newLines(maxChars, maxLines int) *lines {
	if maxChars >= 0 {
		maxChars = max(maxChars-noteRoom, 1)
	}
	return &lines{maxChars: maxChars, maxLines: maxLines}
}

func (l *lines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = append(l.partial, p...)
			break
		}
		if len(l.partial) > 0 {
			l.partial = append(l.partial, p[:i]...)
			l.add(string(l.partial))
			l.partial = l.partial[:0]
		} else {
			l.add(string(p[:i]))
		}
		p = p[i+1:]
	}
	return n, nil
}

// add appends one line (without its newline), cut at MaxLineLength
// characters.
func (l *lines) add(s string) {
	s, _ = cutLine(s)
	c := utf8.RuneCountInString(s) + 1
	if !l.full && (l.maxLines <= 0 || l.n < l.maxLines) && (l.maxChars < 0 || l.chars+c <= l.maxChars) {
		l.kept.WriteString(s)
		l.kept.WriteByte('\n')
		l.chars += c
		l.n++
		return
	}
	l.full = true
	l.droppedLines++
	l.droppedChars += c
}

// text returns the lines kept, after adding an unterminated last line.
func (l *lines) text() string {
	if len(l.partial) > 0 {
		l.add(string(l.partial))
		l.partial = nil
	}
	return l.kept.String()
}

// cut reports whether lines were left out.
func (l *lines) cut() bool { return l.droppedLines > 0 }

// cutLine returns s cut after MaxLineLength characters, with a marker
// saying how many were left out, and that number (0 when s is whole).
func cutLine(s string) (string, int) {
	if len(s) <= MaxLineLength {
		return s, 0
	}
	n := 0
	for i := range s {
		if n == MaxLineLength {
			rest := utf8.RuneCountInString(s[i:])
			return s[:i] + " [… line cut: " + thousands(rest) + " more characters]", rest
		}
		n++
	}
	return s, 0
}

// thousands formats n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
