package grepx

import (
	"bytes"
	"unicode/utf8"

	"github.com/chromafs/chromafs/regex"
)

// lineScanner yields the selected lines of a buffer: the lines that match,
// or with invert the lines that do not. Without invert it jumps from match
// to match with the matcher's whole-buffer search; with invert it still
// finds the matching lines that way and selects every line between them.
type lineScanner struct {
	data   []byte
	m      *regex.Matcher
	invert bool

	pos int // start of the next unexamined line
	num int // its 1-based number

	// With invert: the next matching line at or after pos, if known.
	matchStart, matchEnd int
	matchKnown, noMatch  bool
}

// next returns the next selected line [s, e) (e excludes the '\n') and
// its number.
func (ls *lineScanner) next() (s, e, num int, ok bool) {
	for ls.pos < len(ls.data) {
		if !ls.invert {
			rs, re, found := ls.m.Next(ls.data[ls.pos:])
			if !found {
				ls.pos = len(ls.data)
				return 0, 0, 0, false
			}
			s, e = ls.pos+rs, ls.pos+re
			num = ls.num + bytes.Count(ls.data[ls.pos:s], newline)
			ls.advance(e, num)
			return s, e, num, true
		}
		if !ls.matchKnown && !ls.noMatch {
			rs, re, found := ls.m.Next(ls.data[ls.pos:])
			if found {
				ls.matchStart, ls.matchEnd, ls.matchKnown = ls.pos+rs, ls.pos+re, true
			} else {
				ls.noMatch = true
			}
		}
		s = ls.pos
		e = lineEnd(ls.data, s)
		num = ls.num
		ls.advance(e, num)
		if ls.matchKnown && s == ls.matchStart {
			ls.matchKnown = false
			continue
		}
		return s, e, num, true
	}
	return 0, 0, 0, false
}

func (ls *lineScanner) advance(e, num int) {
	ls.pos = e + 1
	if e == len(ls.data) {
		ls.pos = e
	}
	ls.num = num + 1
}

var newline = []byte{'\n'}

// lineEnd returns the end of the line that starts at s (the index of its
// '\n', or len(data)).
func lineEnd(data []byte, s int) int {
	if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
		return s + i
	}
	return len(data)
}

// scanFile fills f with the result of q over data.
func scanFile(f *File, data []byte, m *regex.Matcher, q *Query) {
	// In a binary file (one holding a NUL byte) GNU grep reads NUL bytes
	// as line ends, which changes counts and which lines match.
	binary := bytes.IndexByte(data, 0) >= 0
	if binary {
		data = bytes.ReplaceAll(data, []byte{0}, newline)
	}
	ls := lineScanner{data: data, m: m, invert: q.Invert, num: 1}
	max := q.MaxCount
	switch q.Mode {
	case FilesWithMatches, FilesWithoutMatch:
		if _, _, _, ok := ls.next(); ok {
			f.Count = 1
		}
		return
	case Count:
		for max == 0 || f.Count < max {
			if _, _, _, ok := ls.next(); !ok {
				break
			}
			f.Count++
		}
		return
	}

	if binary {
		// GNU grep prints no lines of a binary file, only that it matches.
		if _, _, _, ok := ls.next(); ok {
			f.Count = 1
			f.Binary = true
		}
		return
	}
	limit := q.MaxMatches
	e := emitter{f: f, data: data, onlyMatching: q.OnlyMatching, m: m, num: 1}
	for (max == 0 || f.Count < max) && (limit <= 0 || f.Count < limit) {
		s, end, num, ok := ls.next()
		if !ok {
			break
		}
		e.after(s)
		e.before(s, num, q.Before)
		e.emit(s, end, num, false)
		f.Count++
		e.afterLeft = q.After
	}
	e.after(len(data))
}

// emitter appends lines to a File, keeping track of the last line written
// so that context lines are never written twice.
type emitter struct {
	f            *File
	data         []byte
	m            *regex.Matcher
	onlyMatching bool

	cur       int // offset just after the last line written
	num       int // number of the line at cur
	afterLeft int
}

// after writes pending trailing context lines that start before limit.
func (e *emitter) after(limit int) {
	for e.afterLeft > 0 && e.cur < limit && e.cur < len(e.data) {
		end := lineEnd(e.data, e.cur)
		e.emit(e.cur, end, e.num, true)
		e.afterLeft--
	}
	e.afterLeft = 0
}

// before writes up to n context lines that precede the line at s (number
// num) and follow what was already written.
func (e *emitter) before(s, num, n int) {
	if n <= 0 || s <= e.cur {
		return
	}
	b, k := s, 0
	for k < n && b > e.cur {
		i := bytes.LastIndexByte(e.data[:b-1], '\n')
		b = i + 1
		k++
	}
	for i := range k {
		end := lineEnd(e.data, b)
		e.emit(b, end, num-k+i, true)
		b = end + 1
	}
}

// emit writes the line [s, end) numbered num. A line that is not valid
// UTF-8 is not written and marks the file binary, as GNU grep does in a
// UTF-8 locale; with OnlyMatching the check applies to each match.
func (e *emitter) emit(s, end, num int, context bool) {
	e.cur = end + 1
	if end == len(e.data) {
		e.cur = end
	}
	e.num = num + 1
	text := e.data[s:end]
	l := Line{Number: num, Offset: int64(s), Text: text, Context: context}
	if e.onlyMatching {
		// grep -o prints matches, of selected lines and (with -v) of
		// context lines; only what it prints is checked for encoding.
		for _, r := range e.m.FindAll(text, nil) {
			if utf8.Valid(text[r[0]:r[1]]) {
				l.Matches = append(l.Matches, r)
			} else {
				e.f.Binary = true
			}
		}
	} else if !utf8.Valid(text) {
		e.f.Binary = true
		return
	}
	e.f.Lines = append(e.f.Lines, l)
}
