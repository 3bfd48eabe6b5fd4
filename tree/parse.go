package tree

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Parse reads a tree document: a JSON object that maps slugs to entries,
// as plain JSON or gzip-compressed and base64-encoded (see the package
// documentation), within the default [Limits]. Entries that fail
// validation are skipped and reported by [Tree.Problems]; a document that
// cannot be read at all is an error that wraps [ErrMalformed]. Parse does
// not retain data.
func Parse(data []byte) (*Tree, error) {
	return ParseLimited(data, Limits{})
}

// ParseLimited is [Parse] within the given limits (see Limits and the
// package documentation, section "Limits").
func ParseLimited(data []byte, l Limits) (*Tree, error) {
	p, err := newParser(data, l.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("tree: %w: %v", ErrMalformed, err)
	}
	if err := p.document(); err != nil {
		return nil, p.fail(err)
	}
	if err := p.checkSize(); err != nil {
		return nil, p.fail(err)
	}
	t := build(p.entries, !p.unsorted, p.problems, p.rejected)
	if t.Len() == 0 && p.members > 0 {
		return nil, noEntries(p.members, t.problems)
	}
	return t, nil
}

// noEntries is the error of a document whose members are all skipped.
func noEntries(members int, problems []Problem) error {
	var b strings.Builder
	for i, pr := range problems {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(problems)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(pr.String())
	}
	return fmt.Errorf("tree: %w: all %d entries skipped (%s)", ErrNoEntries, members, b.String())
}

// fail turns an error of the parse into Parse's error.
func (p *parser) fail(err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		se.off += int(p.base)
	}
	if errors.Is(err, ErrMalformed) {
		return fmt.Errorf("tree: %w", err)
	}
	return fmt.Errorf("tree: %w: %v", ErrMalformed, err)
}

// newParser returns a parser of data: over the JSON text itself when it
// is plain, else over the stream that inflates it.
func newParser(data []byte, l Limits) (*parser, error) {
	text := bytes.TrimLeft(data, " \t\r\n")
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf")) // byte order mark
	text = bytes.TrimLeft(text, " \t\r\n")
	if len(text) == 0 {
		return nil, fmt.Errorf("empty document")
	}
	switch text[0] {
	case '{', '[', '"':
		// The entries' strings are slices of one copy of the document.
		p := &parser{scanner: scanner{s: string(text), b: text}, limits: l, eof: true}
		p.entries = make([]Entry, 0, min(bytes.Count(text, []byte{'{'}), len(text)/6))
		return p, nil
	}
	var r io.Reader
	if text[0] == 0x1f {
		r = bytes.NewReader(text)
	} else {
		text = bytes.TrimRight(text, " \t\r\n")
		enc := base64.StdEncoding
		if bytes.ContainsAny(text, "-_") {
			enc = base64.URLEncoding
		}
		if !bytes.Contains(text, []byte("=")) {
			enc = enc.WithPadding(base64.NoPadding)
		}
		r = base64.NewDecoder(enc, bytes.NewReader(text))
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, notJSON(text, sourceError(err))
	}
	p := &parser{src: zr, limits: l, text: text}
	p.entries = make([]Entry, 0, 1024)
	return p, nil
}

// notJSON returns err, or a better error when text is a JSON value other
// than an object (such as a number) that merely looked like base64.
func notJSON(text []byte, err error) error {
	d := scanner{s: string(text)}
	if d.skip(0) == nil && d.peek() == 0 && d.i == len(d.s) {
		return fmt.Errorf("json: top-level value is %s, want an object", article(kind(text[0])))
	}
	return err
}

// sourceError names the layer that failed to decode a compressed
// document.
func sourceError(err error) error {
	var ce base64.CorruptInputError
	if errors.As(err, &ce) {
		return fmt.Errorf("base64: %v", err)
	}
	if strings.HasPrefix(err.Error(), "gzip: ") {
		return err
	}
	return fmt.Errorf("gzip: %v", err)
}

// window is the least that a parser reads of an inflating document at a
// time.
const window = 64 << 10

// textChunk is the size of the blocks that hold the strings of a
// compressed document's entries.
const textChunk = 64 << 10

// parser reads a document into entries. A compressed document is read
// from src a window at a time: s holds the part not consumed yet, and
// a member cut by the end of the window is read again once more of the
// document is in (members are small; the window grows for a large one).
type parser struct {
	scanner
	limits   Limits
	entries  []Entry
	problems []Problem
	members  int // members of the top-level object read, valid or not
	// rejected maps the slug of each entry skipped while parsing to the
	// number of entries appended before its last occurrence, so that
	// build can tell which occurrence came last.
	rejected map[string]int
	unsorted bool     // entries are not in path order
	groups   []string // scratch
	arena    []string // backing store of Entry.Groups

	// Compressed documents only.
	src     io.Reader // the inflated document; nil when s is all of it
	text    []byte    // the compressed document, for messages
	eof     bool      // src is exhausted: s holds the rest of the document
	base    int64     // offset in the document of s[0]
	buf     []byte    // the window; b is buf[:len(s)]
	strs    *strings.Builder
	interns map[string]string // group names
}

// refill moves the window to start at s[keep:] and reads more of the
// document into it. It reports whether it read anything; it checks the
// limits.
func (p *parser) refill(keep int) (bool, error) {
	if p.src == nil || p.eof {
		return false, nil
	}
	rest := len(p.b) - keep
	size := rest + max(window, rest)
	if cap(p.buf) < size {
		nb := make([]byte, size)
		copy(nb, p.b[keep:])
		p.buf = nb
	} else {
		p.buf = p.buf[:cap(p.buf)]
		copy(p.buf, p.b[keep:])
	}
	n := rest
	for n < len(p.buf) {
		m, err := p.src.Read(p.buf[n:])
		n += m
		if err == io.EOF {
			p.eof = true
			break
		}
		if err != nil {
			return false, sourceError(err)
		}
	}
	p.base += int64(keep)
	p.i -= keep
	p.b = p.buf[:n]
	p.s = string(p.b)
	if err := p.checkSize(); err != nil {
		return false, err
	}
	return n > rest, nil
}

// checkSize checks the bytes decoded so far against the limits.
func (p *parser) checkSize() error {
	total := p.base + int64(len(p.s))
	if total > p.limits.MaxBytes {
		return fmt.Errorf("%w: more than %d bytes (Limits.MaxBytes)", ErrTooLarge, p.limits.MaxBytes)
	}
	entries := int64(len(p.entries))
	allowed := p.limits.MaxBytes
	if per := p.limits.BytesPerEntry; entries < (allowed-BaseBytes)/per {
		allowed = BaseBytes + per*entries
	}
	if total > allowed {
		return fmt.Errorf("%w: %d bytes decoded with %d valid entries, where %d bytes plus %d per valid entry are allowed (Limits.BytesPerEntry)",
			ErrTooLarge, total, entries, BaseBytes, p.limits.BytesPerEntry)
	}
	return nil
}

// truncated reports whether err is the end of the window, which may not
// be the end of the document.
func (p *parser) truncated(err error) bool {
	se, ok := err.(*syntaxError)
	return ok && se.off >= len(p.s) && !p.eof
}

// next skips white space, reading more of a compressed document as
// needed, and returns the next byte, or 0 at the end of the document.
func (p *parser) next() (byte, error) {
	for {
		p.ws()
		if p.i < len(p.s) {
			return p.s[p.i], nil
		}
		more, err := p.refill(len(p.s))
		if err != nil || !more {
			return 0, err
		}
	}
}

// own returns s, copied out of the window when it is a string of a
// compressed document, so that no window is retained.
func (p *parser) own(s string) string {
	if p.src == nil || s == "" {
		return s
	}
	if p.strs == nil || p.strs.Cap()-p.strs.Len() < len(s) {
		p.strs = new(strings.Builder)
		p.strs.Grow(max(textChunk, len(s)))
	}
	n := p.strs.Len()
	p.strs.WriteString(s)
	return p.strs.String()[n:]
}

// ownGroup is own for group names, which repeat: each is copied once.
func (p *parser) ownGroup(g string) string {
	if p.src == nil {
		return g
	}
	if s, ok := p.interns[g]; ok {
		return s
	}
	if p.interns == nil {
		p.interns = make(map[string]string)
	}
	s := p.own(g)
	p.interns[s] = s
	return s
}

func (p *parser) document() error {
	c, err := p.next()
	if err != nil {
		return err
	}
	if c != '{' {
		if p.i >= len(p.s) {
			return p.unexpected("")
		}
		return p.errorf("top-level value is %s, want an object", article(kind(c)))
	}
	p.i++
	if c, err = p.next(); err != nil {
		return err
	}
	if c == '}' {
		p.i++
	} else {
		for {
			if err := p.memberAgain(); err != nil {
				return err
			}
			c, err := p.next()
			if err != nil {
				return err
			}
			if c == '}' {
				p.i++
				break
			}
			if c != ',' {
				return p.unexpected("after object key:value pair")
			}
			p.i++
			if _, err := p.next(); err != nil {
				return err
			}
		}
	}
	// Only white space may follow, to the end of the document.
	for {
		if p.ws(); p.i < len(p.s) {
			return p.unexpected("after top-level value")
		}
		more, err := p.refill(len(p.s))
		if err != nil || !more {
			return err
		}
	}
}

// memberAgain reads a member, again from its start with more of the
// document in the window while the window's end cuts it.
func (p *parser) memberAgain() error {
	for {
		start, n := p.i, len(p.entries)
		err := p.member()
		if err == nil {
			p.members++
			return nil
		}
		if !p.truncated(err) {
			return err
		}
		p.entries, p.i = p.entries[:n], start
		if _, err := p.refill(start); err != nil {
			return err
		}
	}
}

// member reads the member at p.i: a slug and its entry.
func (p *parser) member() error {
	if p.peek() != '"' {
		return p.unexpected("looking for beginning of object key string")
	}
	slug, utf, err := p.str()
	if err != nil {
		return err
	}
	if err := p.expect(':', "after object key"); err != nil {
		return err
	}
	p.entries = append(p.entries, Entry{Slug: slug, Size: -1})
	e := &p.entries[len(p.entries)-1]
	reason, err := p.entry(e)
	if err != nil {
		return err
	}
	if p.src != nil {
		slug = p.own(slug)
		e.Slug, e.Hash, e.ContentType, e.URL = slug, p.own(e.Hash), p.own(e.ContentType), p.own(e.URL)
		for i, g := range e.Groups {
			e.Groups[i] = p.ownGroup(g)
		}
	}
	// An unsafe slug is the more important problem.
	if !utf {
		reason = "unsafe slug: invalid UTF-8"
	} else if r := checkSlug(slug); r != "" {
		reason = r
	}
	if reason != "" {
		p.entries = p.entries[:len(p.entries)-1]
		p.reject(slug, reason)
		return nil
	}
	if len(p.entries) > 1 && comparePaths(p.entries[len(p.entries)-2].Slug, slug) > 0 {
		p.unsorted = true
	}
	return nil
}

func (p *parser) reject(slug, reason string) {
	p.problems = append(p.problems, Problem{Slug: slug, Reason: reason})
	if p.rejected == nil {
		p.rejected = make(map[string]int)
	}
	p.rejected[slug] = len(p.entries)
}

// Known fields of an entry, as bits of a set.
const (
	fIsPublic = 1 << iota
	fGroups
	fSize
	fModTime
	fHash
	fContentType
	fURL
	fChunks
	fSplitLines
	fParts
)

// entry reads an entry value into e. It returns why the entry must be
// skipped, or "" if it is valid; err is a syntax error.
func (p *parser) entry(e *Entry) (reason string, err error) {
	c := p.peek()
	if c != '{' {
		if err := p.skip(1); err != nil {
			return "", err
		}
		return "entry is " + article(kind(c)) + ", want an object", nil
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return "", nil
	}
	seen := 0
	for {
		if p.peek() != '"' {
			return "", p.unexpected("looking for beginning of object key string")
		}
		key, _, err := p.str()
		if err != nil {
			return "", err
		}
		if err := p.expect(':', "after object key"); err != nil {
			return "", err
		}
		c := p.peek()
		start := p.i
		var bit int
		var why string
		switch key {
		case "isPublic":
			bit = fIsPublic
			switch c {
			case 't', 'f':
				e.IsPublic, e.HasIsPublic = c == 't', true
				_, err = p.lit()
			case 'n':
				_, err = p.lit()
			default:
				why = "want a boolean"
			}
		case "groups":
			bit = fGroups
			switch c {
			case '[':
				why, err = p.groupList(e)
			case 'n':
				_, err = p.lit()
			default:
				why = "want an array of strings"
			}
		case "size":
			bit = fSize
			e.Size, why, err = p.count(c)
			if why == "" && err == nil && e.Size < 0 {
				e.Size = -1 // null
			}
		case "chunks":
			bit = fChunks
			var n int64
			n, why, err = p.count(c)
			e.Chunks = int(max(n, 0))
		case "modTime":
			bit = fModTime
			e.ModTime, why, err = p.modTime(c)
		case "hash":
			bit = fHash
			e.Hash, why, err = p.optString(c)
		case "contentType":
			bit = fContentType
			e.ContentType, why, err = p.optString(c)
		case "url":
			bit = fURL
			e.URL, why, err = p.optString(c)
		case "parts":
			bit = fParts
			e.Parts, why, err = p.optString(c)
		case "splitLines":
			bit = fSplitLines
			switch c {
			case 't', 'f':
				e.SplitLines = c == 't'
				_, err = p.lit()
			case 'n':
				_, err = p.lit()
			default:
				why = "want a boolean"
			}
		default:
			err = p.skip(1)
		}
		if err == nil && why != "" {
			p.i = start
			if err = p.skip(1); err == nil && reason == "" {
				reason = key + ": " + why + ", got " + describe(c, p.s[start:p.i])
			}
		}
		if err != nil {
			return "", err
		}
		if bit != 0 {
			if seen&bit != 0 && reason == "" {
				reason = "duplicate field " + strconv.Quote(key)
			}
			seen |= bit
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return reason, nil
		default:
			return "", p.unexpected("after object key:value pair")
		}
	}
}

// describe names a value that starts with c and whose text is text, for
// messages: short scalars are shown as they are written.
func describe(c byte, text string) string {
	if c == '{' || c == '[' || len(text) > 40 || !utf8.ValidString(text) {
		return kind(c)
	}
	return kind(c) + " " + text
}

// groupList reads an array of strings into e.Groups.
func (p *parser) groupList(e *Entry) (why string, err error) {
	p.i++ // '['
	p.groups = p.groups[:0]
	if p.peek() == ']' {
		p.i++
		return "", nil
	}
	for {
		if p.peek() != '"' {
			return "want an array of strings", nil
		}
		g, _, err := p.str()
		if err != nil {
			return "", err
		}
		p.groups = append(p.groups, g)
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			e.Groups = p.keep(p.groups)
			return "", nil
		default:
			return "", p.unexpected("after array element")
		}
	}
}

// keep copies groups into the parser's arena.
func (p *parser) keep(groups []string) []string {
	if len(p.arena)+len(groups) > cap(p.arena) {
		p.arena = make([]string, 0, max(1024, len(groups)))
	}
	start := len(p.arena)
	p.arena = append(p.arena, groups...)
	return p.arena[start:len(p.arena):len(p.arena)]
}

// count reads a non-negative integer, or null as -1.
func (p *parser) count(c byte) (n int64, why string, err error) {
	if c == 'n' {
		_, err = p.lit()
		return -1, "", err
	}
	if c != '-' && (c < '0' || c > '9') {
		return 0, "want a non-negative integer", nil
	}
	start := p.i
	lit, err := p.num()
	if err != nil {
		return 0, "", err
	}
	n, perr := strconv.ParseInt(lit, 10, 64)
	if perr != nil || n < 0 {
		p.i = start // for the message
		return 0, "want a non-negative integer", nil
	}
	return n, "", nil
}

// optString reads a string, or null as "".
func (p *parser) optString(c byte) (s string, why string, err error) {
	switch c {
	case '"':
		s, _, err = p.str()
		return s, "", err
	case 'n':
		_, err = p.lit()
		return "", "", err
	}
	return "", "want a string", nil
}

// modTime reads an RFC 3339 string or a number of Unix seconds; null and
// "" are the zero Time.
func (p *parser) modTime(c byte) (t time.Time, why string, err error) {
	start := p.i
	switch {
	case c == 'n':
		_, err = p.lit()
		return time.Time{}, "", err
	case c == '"':
		s, _, err := p.str()
		if err != nil || s == "" {
			return time.Time{}, "", err
		}
		t, ok := parseTime(s)
		if !ok {
			p.i = start
			return time.Time{}, "want an RFC 3339 time", nil
		}
		return t, "", nil
	case c == '-' || ('0' <= c && c <= '9'):
		lit, err := p.num()
		if err != nil {
			return time.Time{}, "", err
		}
		t, ok := unixTime(lit)
		if !ok {
			p.i = start
			return time.Time{}, "want Unix seconds in years 0 to 9999", nil
		}
		return t, "", nil
	}
	return time.Time{}, "want an RFC 3339 time or Unix seconds", nil
}

// Bounds of the times that RFC 3339 can write.
var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

func validTime(t time.Time) bool {
	return !t.Before(minTime) && !t.After(maxTime)
}

// parseTime parses an RFC 3339 time, with a fast path for the common
// "2006-01-02T15:04:05Z" form.
func parseTime(s string) (time.Time, bool) {
	if len(s) == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == 'Z' {
		year, ok1 := digits(s[0:4])
		month, ok2 := digits(s[5:7])
		day, ok3 := digits(s[8:10])
		hour, ok4 := digits(s[11:13])
		minute, ok5 := digits(s[14:16])
		sec, ok6 := digits(s[17:19])
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 &&
			month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year) &&
			hour < 24 && minute < 60 && sec < 60 {
			return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
		}
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, false
	}
	t = t.UTC()
	return t, validTime(t)
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// unixTime converts a JSON number of Unix seconds, with an optional
// fraction, to a time.
func unixTime(lit string) (time.Time, bool) {
	intPart, frac, hasFrac := strings.Cut(lit, ".")
	if !strings.ContainsAny(lit, "eE") {
		sec, err := strconv.ParseInt(intPart, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		var nsec int64
		if hasFrac {
			frac = (frac + "000000000")[:9] // truncate to nanoseconds
			nsec, _ = strconv.ParseInt(frac, 10, 64)
			if strings.HasPrefix(lit, "-") {
				nsec = -nsec
			}
		}
		if sec < minTime.Unix() || sec > maxTime.Unix() {
			return time.Time{}, false
		}
		t := time.Unix(sec, nsec).UTC()
		return t, validTime(t)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsNaN(f) || f < float64(minTime.Unix()) || f > float64(maxTime.Unix()) {
		return time.Time{}, false
	}
	sec, fr := math.Modf(f)
	t := time.Unix(int64(sec), int64(fr*1e9)).UTC()
	return t, validTime(t)
}
