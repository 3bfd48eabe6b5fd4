package tree

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// Encode writes entries as a tree document: plain JSON, or when compressed
// is set, gzip-compressed and base64-encoded (standard encoding). Keys are
// sorted in path order (as [Tree.Entries]; Parse reads sorted documents
// fastest), so the output is deterministic. Every entry has isPublic and
// groups ([] when empty); the optional fields are written only when set
// (Size >= 0, a non-zero ModTime as RFC 3339 in UTC, a non-empty Hash,
// ContentType, URL or Parts, Chunks > 0, SplitLines). Encode refuses entries that
// [New] would skip: unsafe or duplicate slugs, clashes, invalid fields.
func Encode(entries []Entry, compressed bool) ([]byte, error) {
	if t := New(entries); len(t.problems) > 0 {
		return nil, fmt.Errorf("tree: cannot encode %s", t.problems[0])
	}
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b Entry) int { return comparePaths(a.Slug, b.Slug) })

	b := make([]byte, 0, 64+len(sorted)*96)
	b = append(b, '{')
	for i := range sorted {
		e := &sorted[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = appendString(b, e.Slug)
		b = append(b, ":{"...)
		if e.Chunks > 0 {
			b = append(b, `"chunks":`...)
			b = strconv.AppendInt(b, int64(e.Chunks), 10)
			b = append(b, ',')
		}
		if e.ContentType != "" {
			b = append(b, `"contentType":`...)
			b = appendString(b, e.ContentType)
			b = append(b, ',')
		}
		b = append(b, `"groups":[`...)
		for j, g := range e.Groups {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, g)
		}
		b = append(b, "],"...)
		if e.Hash != "" {
			b = append(b, `"hash":`...)
			b = appendString(b, e.Hash)
			b = append(b, ',')
		}
		b = append(b, `"isPublic":`...)
		b = strconv.AppendBool(b, e.IsPublic)
		if e.Parts != "" {
			b = append(b, `,"parts":`...)
			b = appendString(b, e.Parts)
		}
		if !e.ModTime.IsZero() {
			b = append(b, `,"modTime":"`...)
			b = e.ModTime.UTC().AppendFormat(b, time.RFC3339Nano)
			b = append(b, '"')
		}
		if e.Size >= 0 {
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, e.Size, 10)
		}
		if e.SplitLines {
			b = append(b, `,"splitLines":true`...)
		}
		if e.URL != "" {
			b = append(b, `,"url":`...)
			b = appendString(b, e.URL)
		}
		b = append(b, '}')
	}
	if len(sorted) > 0 {
		b = append(b, '\n')
	}
	b = append(b, "}\n"...)
	if !compressed {
		return b, nil
	}

	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return base64.StdEncoding.AppendEncode(nil, z.Bytes()), nil
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += n
			start = i
			continue
		}
		i += n
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
