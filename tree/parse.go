package tree

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxDocument bounds the size of a decompressed document.
const maxDocument = 1 << 30

// Parse reads a tree document: a JSON object that maps slugs to entries,
// as plain JSON or gzip-compressed and base64-encoded (see the package
// documentation). Entries that fail validation are skipped and reported by
// [Tree.Problems]; a document that cannot be read at all is an error that
// wraps [ErrMalformed]. Parse does not retain data.
func Parse(data []byte) (*Tree, error) {
	doc, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("tree: %w: %v", ErrMalformed, err)
	}
	// The entries' strings are slices of one copy of the document.
	p := parser{scanner: scanner{s: string(doc), b: doc}}
	if err := p.document(); err != nil {
		return nil, fmt.Errorf("tree: %w: %v", ErrMalformed, err)
	}
	return build(p.entries, !p.unsorted, p.problems, p.rejected), nil
}

// decode returns the JSON text of a document, which may be part of data.
func decode(data []byte) ([]byte, error) {
	text := bytes.TrimLeft(data, " \t\r\n")
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf")) // byte order mark
	text = bytes.TrimLeft(text, " \t\r\n")
	if len(text) == 0 {
		return nil, fmt.Errorf("empty document")
	}
	switch text[0] {
	case '{', '[', '"':
		return text, nil
	case 0x1f:
		return gunzip(text)
	}
	text = bytes.TrimRight(text, " \t\r\n")
	zipped, err := unbase64(text)
	if err != nil {
		return nil, notJSON(text, err)
	}
	doc, err := gunzip(zipped)
	if err != nil {
		return nil, notJSON(text, err)
	}
	return doc, nil
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

func unbase64(text []byte) ([]byte, error) {
	enc := base64.StdEncoding
	if bytes.ContainsAny(text, "-_") {
		enc = base64.URLEncoding
	}
	out := make([]byte, enc.WithPadding(base64.NoPadding).DecodedLen(len(text)))
	n, err := enc.Decode(out, text)
	if err != nil && !bytes.Contains(text, []byte("=")) {
		// Unpadded input.
		if n2, err2 := enc.WithPadding(base64.NoPadding).Decode(out, text); err2 == nil {
			n, err = n2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("base64: %v", err)
	}
	return out[:n], nil
}

func gunzip(zipped []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		return nil, gzipError(err)
	}
	var b bytes.Buffer
	if len(zipped) >= 18 {
		// The trailer holds the decompressed size modulo 2^32: a hint.
		hint := int(binary.LittleEndian.Uint32(zipped[len(zipped)-4:]))
		b.Grow(min(hint, 1032*len(zipped), maxDocument) + bytes.MinRead)
	}
	n, err := b.ReadFrom(io.LimitReader(zr, maxDocument+1))
	if err != nil {
		return nil, gzipError(err)
	}
	if n > maxDocument {
		return nil, fmt.Errorf("gzip: document larger than %d bytes", maxDocument)
	}
	return b.Bytes(), nil
}

func gzipError(err error) error {
	if strings.HasPrefix(err.Error(), "gzip: ") {
		return err
	}
	return fmt.Errorf("gzip: %v", err)
}

// parser reads a document into entries.
type parser struct {
	scanner
	entries  []Entry
	problems []Problem
	// rejected maps the slug of each entry skipped while parsing to the
	// number of entries appended before it, so that build can tell which
	// occurrence came first.
	rejected map[string]int
	unsorted bool     // entries are not in path order
	groups   []string // scratch
	arena    []string // backing store of Entry.Groups
}

func (p *parser) document() error {
	if c := p.peek(); c != '{' {
		if c == 0 {
			return p.unexpected("")
		}
		return p.errorf("top-level value is %s, want an object", article(kind(c)))
	}
	p.i++
	// Every entry is an object: counting the braces (fast) gives the
	// number of entries, unless other objects or strings have braces.
	p.entries = make([]Entry, 0, min(bytes.Count(p.b, []byte{'{'}), len(p.b)/6))
	if p.peek() == '}' {
		p.i++
	} else {
		for {
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
			if err := p.member(slug, utf); err != nil {
				return err
			}
			c := p.peek()
			if c == '}' {
				p.i++
				break
			}
			if c != ',' {
				return p.unexpected("after object key:value pair")
			}
			p.i++
		}
	}
	if p.ws(); p.i < len(p.s) {
		return p.unexpected("after top-level value")
	}
	return nil
}

// member reads the entry of slug.
func (p *parser) member(slug string, utf bool) error {
	p.entries = append(p.entries, Entry{Slug: slug, Size: -1})
	e := &p.entries[len(p.entries)-1]
	reason, err := p.entry(e)
	if err != nil {
		return err
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
	if _, dup := p.rejected[slug]; !dup {
		p.rejected[slug] = len(p.entries)
	}
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
