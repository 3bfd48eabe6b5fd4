package collection

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
	var a []json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if len(a) < 3 || len(a) > 4 {
		return fmt.Errorf("a part has %d fields, want 3 or 4", len(a))
	}
	*p = Part{}
	if err := json.Unmarshal(a[0], &p.ID); err != nil {
		return fmt.Errorf("part id: %w", err)
	}
	if err := json.Unmarshal(a[1], &p.Skip); err != nil || p.Skip < 0 {
		return fmt.Errorf("part %q: skip %s: want a non-negative integer", p.ID, a[1])
	}
	if err := json.Unmarshal(a[2], &p.Len); err != nil || p.Len < p.Skip {
		return fmt.Errorf("part %q: length %s: want an integer of at least the skip, %d", p.ID, a[2], p.Skip)
	}
	if len(a) == 4 {
		if err := json.Unmarshal(a[3], &p.Gap); err != nil {
			return fmt.Errorf("part %q: gap: %w", p.ID, err)
		}
	}
	return nil
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
	var r Recipe
	if err := json.Unmarshal([]byte(s), &r); err != nil {
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
	return &r, nil
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
