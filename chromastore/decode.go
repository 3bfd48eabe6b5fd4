package chromastore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// This file holds the decoding of answers beyond what jsonv2 does by
// itself: metadata numbers as json.Number, and tree documents taken out of
// the answer without a copy and, when long, without jsonv2's byte-at-a-time
// string scan.

// metadata is a record's metadata as decoded from an answer. Numbers are
// json.Numbers, so that integers beyond 2⁵³ stay exact and 1 and 1.0 stay
// apart: chunkIndex and plainMetadata convert them.
type metadata map[string]any

// UnmarshalJSONFrom implements jsonv2.UnmarshalerFrom.
func (m *metadata) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := readAny(dec)
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
		*m = nil
	case map[string]any:
		*m = v
	default:
		return fmt.Errorf("metadata is a %T, not an object", v)
	}
	return nil
}

// readAny reads a JSON value as encoding/json with UseNumber would
// decode it into an any: objects are map[string]any (the last of
// duplicate names wins), arrays []any, numbers json.Number, and strings,
// booleans and null string, bool and nil.
func readAny(dec *jsontext.Decoder) (any, error) {
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next read voids tok
			v, err := readAny(dec)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := dec.ReadToken()
		return m, err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		a := []any{}
		for dec.PeekKind() != ']' {
			v, err := readAny(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.ReadToken()
		return a, err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '0':
		return json.Number(tok.String()), nil
	case '"':
		return tok.String(), nil
	case 't', 'f':
		return tok.Bool(), nil
	}
	return nil, nil // null
}

// treeResult is the answer to the get of Tree: getResult with documents
// as rawStrings.
type treeResult struct {
	IDs       []string    `json:"ids"`
	Documents []rawString `json:"documents"`
	Metadatas []metadata  `json:"metadatas"`
}

// rawString is a JSON string (or null, which is empty) decoded into bytes.
// A string without escapes, such as a base64 tree document, is not
// copied: the bytes are those of the answer, which rest.do reads into a
// buffer of its own and never reuses, and jsonv2.Unmarshal decodes in
// place (jsontext's Decoder over a []byte returns values that alias it;
// TestRawStringAliases checks that this still holds).
type rawString []byte

// UnmarshalJSONFrom implements jsonv2.UnmarshalerFrom.
func (s *rawString) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return s.set(v)
}

// set sets s to the value of v, a JSON value read by a decoder with
// decodeOptions.
func (s *rawString) set(v jsontext.Value) error {
	switch v.Kind() {
	case 'n':
		*s = nil
		return nil
	case '"':
	default:
		return fmt.Errorf("document is a JSON %v, not a string", v.Kind())
	}
	// The decoder has checked the string: valid UTF-8 (decodeOptions
	// allow none other), and without a backslash it needs no unquoting.
	in := v[1 : len(v)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		*s = rawString(in[:len(in):len(in)])
		return nil
	}
	if b, ok := unquoteShort(in); ok {
		*s = b
		return nil
	}
	b, err := jsontext.AppendUnquote(nil, v)
	*s = b
	return err
}

// unquoteShort unquotes the inside of a JSON string that the decoder
// checked, when its escapes are all of one character (such as the "\n"
// that ends the first line of a tree index document): it copies the runs
// between them, found with IndexByte, where jsontext.AppendUnquote looks
// at every byte (much slower on a tree index document). It reports
// false for a string with a \u escape, which it leaves to AppendUnquote.
func unquoteShort(in []byte) ([]byte, bool) {
	out := make([]byte, 0, len(in))
	for {
		i := bytes.IndexByte(in, '\\')
		if i < 0 {
			return append(out, in...), true
		}
		if i+1 >= len(in) {
			return nil, false
		}
		out = append(out, in[:i]...)
		switch c := in[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // \u, or not JSON
			return nil, false
		}
		in = in[i+2:]
	}
}

// longString is the length from which treeResult.decodeAnswer takes a
// string out of the answer before jsonv2 sees it.
const longString = 32 << 10

// decodeAnswer decodes the answer data into r (rest.do calls it instead of
// jsonv2.Unmarshal).
//
// jsonv2 checks a string one byte at a time, which is most of the time
// it spends on a tree answer. So the long strings
// that need no unquoting (gzip+base64 tree documents) are checked here
// with word-at-a-time loops instead, and jsonv2 decodes the answer with
// each of them replaced by "", a rawString taking the string back where
// it meets that "" (known by its offset). If a string was taken from a
// place other than a document, the answer is decoded again as it is.
func (r *treeResult) decodeAnswer(data []byte) error {
	return r.decodeCutting(data, longString)
}

// decodeCutting is decodeAnswer with strings of at least minLen bytes cut
// out.
func (r *treeResult) decodeCutting(data []byte, minLen int) error {
	minLen = max(minLen, 3) // "" itself is not cut
	if len(data) < minLen {
		return jsonv2.Unmarshal(data, r, decodeOptions)
	}
	short, cuts := cutLongStrings(data, minLen)
	if len(cuts) == 0 {
		return jsonv2.Unmarshal(data, r, decodeOptions)
	}
	next := 0
	fill := jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, s *rawString) error {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		end := dec.InputOffset()
		for next < len(cuts) && cuts[next].end < end {
			next++ // taken from elsewhere: see below
		}
		if next < len(cuts) && cuts[next].end == end && len(v) == 2 {
			*s = cuts[next].text
			cuts[next].used = true
			next++
			return nil
		}
		return s.set(v)
	})
	err := jsonv2.Unmarshal(short, r, decodeOptions, jsonv2.WithUnmarshalers(fill))
	if err != nil {
		return err
	}
	for _, c := range cuts {
		if !c.used {
			*r = treeResult{}
			return jsonv2.Unmarshal(data, r, decodeOptions)
		}
	}
	return nil
}

// cut is a string taken out of an answer by cutLongStrings.
type cut struct {
	end  int64  // offset just past the "" left in its place
	text []byte // its contents (aliasing the answer), which are its value
	used bool
}

// cutLongStrings returns data with every string of at least minLen bytes
// (quotes included, minLen > 2) that is verbatim replaced by "", and those
// strings. Replacing a valid string by another keeps data as valid or
// invalid as it was: the strings of invalid data may be found wrong, but
// jsonv2 then finds the result invalid too.
func cutLongStrings(data []byte, minLen int) ([]byte, []cut) {
	var (
		out  []byte // nil until the first cut
		cuts []cut
		done int // data[:done] is in out
	)
	for i := 0; i < len(data); {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			break
		}
		start := i + q
		// A string without escapes ends at the next quote.
		if n := bytes.IndexByte(data[start+1:], '"'); n+2 >= minLen && verbatim(data[start+1:start+1+n]) {
			end := start + n + 2
			if out == nil {
				out = make([]byte, 0, 4<<10)
			}
			out = append(out, data[done:start]...)
			out = append(out, `""`...)
			cuts = append(cuts, cut{end: int64(len(out)), text: data[start+1 : end-1 : end-1]})
			done, i = end, end
			continue
		}
		if i = stringEnd(data, start); i < 0 {
			break
		}
	}
	if out == nil {
		return data, nil
	}
	return append(out, data[done:]...), cuts
}

// stringEnd returns the offset just past the JSON string that starts
// with the quote data[start], or -1 if it does not end. It looks at each
// byte at most twice, with bytes.IndexByte.
func stringEnd(data []byte, start int) int {
	i := start + 1
	for {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return -1
		}
		quote := i + q
		for {
			b := bytes.IndexByte(data[i:quote], '\\')
			if b < 0 {
				return quote + 1
			}
			i += b + 2 // past the escaped byte, which is not an end even if it is a quote
			if i > quote {
				break // it was
			}
		}
	}
}

// verbatim reports whether s, the contents of a JSON string, is the
// string's value: no escapes, no control characters (which JSON requires
// escaped) and valid UTF-8. It checks 32 bytes at a time.
func verbatim(s []byte) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
		bs    = '\\' * ones
	)
	// Bytes below 0x20 and backslashes (bytes of w^bs below 1) set the high
	// bit of their byte in low; non-ASCII bytes have it set in high.
	var high, low uint64
	i := 0
	for ; i+32 <= len(s); i += 32 {
		w0 := binary.LittleEndian.Uint64(s[i:])
		w1 := binary.LittleEndian.Uint64(s[i+8:])
		w2 := binary.LittleEndian.Uint64(s[i+16:])
		w3 := binary.LittleEndian.Uint64(s[i+24:])
		high |= w0 | w1 | w2 | w3
		low |= (w0-0x20*ones)&^w0 | (w1-0x20*ones)&^w1 | (w2-0x20*ones)&^w2 | (w3-0x20*ones)&^w3
		b0, b1, b2, b3 := w0^bs, w1^bs, w2^bs, w3^bs
		low |= (b0-ones)&^b0 | (b1-ones)&^b1 | (b2-ones)&^b2 | (b3-ones)&^b3
		if low&highs != 0 {
			return false
		}
	}
	for _, c := range s[i:] {
		if c < 0x20 || c == '\\' {
			return false
		}
		high |= uint64(c)
	}
	return high&highs == 0 || utf8.Valid(s)
}
