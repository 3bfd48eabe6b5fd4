package collection

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/chromafs/chromafs/tree"
)

// A Recipe says how to put together a page of a collection that another
// tool wrote (chromafs adopt writes them, in tree.Entry.Parts): which
// chunks, by id, in page order, what each repeats of the one before it,
// and what lies between them that no chunk holds. Such chunks carry no
// slug or index of chromafs's layout; a reader gets them by id
// (IDReader) and builds the page with AssembleRecipe.
type Recipe struct {
	// Parts, in page order.
	Parts []Part `json:"p"`
	// Tail follows the last part ("" or an assumed final line break).
	Tail string `json:"t,omitempty"`
	// Exactness is "exact", "edges-assumed" or "inexact" (package
	// adopt's Exactness): how many of the page's bytes were guessed.
	Exactness string `json:"x,omitempty"`
	// Why says where a page that is not exact was guessed.
	Why string `json:"w,omitempty"`
}

// Part is one chunk's contribution to a page: Gap, then the chunk's text
// without its first Skip bytes. Len is the length of the chunk's text in
// bytes, so that where each chunk lies in the page is known without its
// text (semantic search places its hits so). The Skip bytes are the
// page's bytes that precede the contribution (adopt checks it): the
// chunk's whole text is the page's bytes from Recipe.Offset, which grep's
// coarse filter relies on. The first part has no Skip.
type Part struct {
	ID   string
	Skip int
	Len  int
	Gap  string
}

// MarshalJSON writes a part as the array [id, skip, len, gap], gap left
// out when empty.
func (p Part) MarshalJSON() ([]byte, error) {
	if p.Gap == "" {
		return json.Marshal([]any{p.ID, p.Skip, p.Len})
	}
	return json.Marshal([]any{p.ID, p.Skip, p.Len, p.Gap})
}

// UnmarshalJSON reads the array MarshalJSON writes.
func (p *Part) UnmarshalJSON(b []byte) error {
	d := jsontext.NewDecoder(bytes.NewReader(b))
	if err := p.decode(d); err != nil {
		return err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return errors.New("a part is followed by more JSON")
	}
	return nil
}

// decode reads a part, the array [id, skip, len, gap?], from d.
func (p *Part) decode(d *jsontext.Decoder) error {
	*p = Part{}
	if tok, err := d.ReadToken(); err != nil {
		return err
	} else if tok.Kind() != '[' {
		return fmt.Errorf("a part is %s, want an array [id, skip, len, gap]", kindName(tok.Kind()))
	}
	n := 0
	for d.PeekKind() != ']' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		switch n {
		case 0:
			if tok.Kind() != '"' {
				return fmt.Errorf("part id: %s, want a string", kindName(tok.Kind()))
			}
			p.ID = tok.String()
		case 1:
			v, err := intToken(tok)
			if err != nil || v < 0 {
				return fmt.Errorf("part %q: skip %s: want a non-negative integer", p.ID, tok)
			}
			p.Skip = v
		case 2:
			v, err := intToken(tok)
			if err != nil || v < p.Skip {
				return fmt.Errorf("part %q: length %s: want an integer of at least the skip, %d", p.ID, tok, p.Skip)
			}
			p.Len = v
		case 3:
			if tok.Kind() != '"' {
				return fmt.Errorf("part %q: gap: %s, want a string", p.ID, kindName(tok.Kind()))
			}
			p.Gap = tok.String()
		default:
			return fmt.Errorf("a part has more than 4 fields, want 3 or 4")
		}
		n++
	}
	if _, err := d.ReadToken(); err != nil { // ']'
		return err
	}
	if n < 3 {
		return fmt.Errorf("a part has %d fields, want 3 or 4", n)
	}
	return nil
}

// intToken is the int that a number token holds: a whole number only.
func intToken(tok jsontext.Token) (int, error) {
	if tok.Kind() != '0' {
		return 0, fmt.Errorf("%s, not a number", kindName(tok.Kind()))
	}
	return strconv.Atoi(tok.String())
}

// kindName names a JSON token's kind in an error.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "not a value"
}

// decodeRecipe reads the object that Encode writes with a streaming
// decoder (a reflective decoding of the parts' arrays took some 50 µs a
// page of 12 parts, which a cold grep of an adopted collection paid for
// every page); keys it does not know are skipped, as encoding/json does.
func decodeRecipe(s string) (*Recipe, error) {
	d := jsontext.NewDecoder(strings.NewReader(s))
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, fmt.Errorf("the recipe is %s, want an object", kindName(tok.Kind()))
	}
	var r Recipe
	for d.PeekKind() != '}' {
		key, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		name := key.String() // the token is void after the next read
		switch name {
		case "p":
			tok, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			if tok.Kind() == 'n' {
				continue
			}
			if tok.Kind() != '[' {
				return nil, fmt.Errorf("parts: %s, want an array", kindName(tok.Kind()))
			}
			for d.PeekKind() != ']' {
				var p Part
				if err := p.decode(d); err != nil {
					return nil, err
				}
				r.Parts = append(r.Parts, p)
			}
			if _, err := d.ReadToken(); err != nil {
				return nil, err
			}
		case "t", "x", "w":
			tok, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			if tok.Kind() != '"' && tok.Kind() != 'n' {
				return nil, fmt.Errorf("%q: %s, want a string", name, kindName(tok.Kind()))
			}
			v := ""
			if tok.Kind() == '"' {
				v = tok.String()
			}
			switch name {
			case "t":
				r.Tail = v
			case "x":
				r.Exactness = v
			default:
				r.Why = v
			}
		default:
			if err := d.SkipValue(); err != nil {
				return nil, err
			}
		}
	}
	if _, err := d.ReadToken(); err != nil { // '}'
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, errors.New("the recipe is followed by more JSON")
	}
	return &r, nil
}

// errRecipe is wrapped by ParseRecipe's errors.
var errRecipe = errors.New("bad parts")

// Encode returns the recipe's text, for tree.Entry.Parts: JSON, with
// each part an array [id, skip, gap].
func (r *Recipe) Encode() string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // strings and ints only
	}
	return string(b)
}

// ParseRecipe reads the text Encode writes. A recipe without parts, or
// with an empty id, is an error that wraps ErrCorruptPage.
func ParseRecipe(s string) (*Recipe, error) {
	r, err := decodeRecipe(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %v", ErrCorruptPage, errRecipe, err)
	}
	if len(r.Parts) == 0 {
		return nil, fmt.Errorf("%w: %w: no parts", ErrCorruptPage, errRecipe)
	}
	for _, p := range r.Parts {
		if p.ID == "" {
			return nil, fmt.Errorf("%w: %w: a part without an id", ErrCorruptPage, errRecipe)
		}
	}
	return r, nil
}

// Offset returns the byte offset in the page of the first byte of part
// i's chunk text: where its contribution starts (after its gap), less
// the Skip bytes it repeats of what precedes it. (Chunks that overlap
// the one before have no gap, so their whole text lies there.)
func (r *Recipe) Offset(i int) int {
	off := 0
	for j, p := range r.Parts[:i+1] {
		off += len(p.Gap)
		if j < i {
			off += p.Len - p.Skip
		}
	}
	return off - r.Parts[i].Skip
}

// IDs returns the ids of the recipe's chunks, in page order.
func (r *Recipe) IDs() []string {
	ids := make([]string, len(r.Parts))
	for i, p := range r.Parts {
		ids[i] = p.ID
	}
	return ids
}

// AssembleRecipe builds the page of entry e from its recipe and its
// chunks' documents by id (DocumentReader; other ids are ignored): for each part,
// its gap, then its chunk's text from byte Skip; then the tail. It
// checks, as Assemble does, that the size and sha256 hash agree with
// what e records. A missing chunk, a chunk shorter than its Skip, or a
// disagreement is an error wrapping ErrCorruptPage that names the page:
// the collection changed since it was adopted, and `chromafs adopt`
// again brings the tree up to date.
func AssembleRecipe(e *tree.Entry, r *Recipe, text map[string]string) ([]byte, error) {
	size := len(r.Tail)
	for _, p := range r.Parts {
		t, ok := text[p.ID]
		if !ok {
			return nil, fmt.Errorf("%w: page %q: chunk %q is gone from the collection (adopt it again)", ErrCorruptPage, e.Slug, p.ID)
		}
		if len(t) != p.Len {
			return nil, fmt.Errorf("%w: page %q: chunk %q holds %d bytes, not the %d it held when the collection was adopted (adopt it again)", ErrCorruptPage, e.Slug, p.ID, len(t), p.Len)
		}
		size += len(p.Gap) + len(t) - p.Skip
	}
	if e.Size >= 0 && e.Size != int64(size) {
		return nil, fmt.Errorf("%w: page %q: tree records %d bytes, chunks hold %d (adopt it again)", ErrCorruptPage, e.Slug, e.Size, size)
	}
	data := make([]byte, 0, size)
	for _, p := range r.Parts {
		data = append(data, p.Gap...)
		data = append(data, text[p.ID][p.Skip:]...)
	}
	data = append(data, r.Tail...)
	if want, ok := strings.CutPrefix(e.Hash, "sha256:"); ok {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return nil, fmt.Errorf("%w: page %q: content hash sha256:%s does not match the tree's %s: its chunks changed since it was adopted (adopt it again)", ErrCorruptPage, e.Slug, got, e.Hash)
		}
	}
	return data, nil
}
