package collection

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/tree"
)

// ErrCorruptPage is wrapped by errors about a page whose chunks cannot be
// reassembled: a missing, duplicate or invalid chunk index, no chunks at
// all, or content that disagrees with the size the tree records. Such a
// page is never served partially.
var ErrCorruptPage = errors.New("corrupt page")

// Assemble reassembles a page from its chunks exactly as the filesystem
// (package chromafs) does: it
// sorts them by index, checks that the indexes are exactly 0..n-1 and
// that the count, size and sha256 hash agree with what e records (when it
// records them), and joins the texts with sep. Every failure wraps ErrCorruptPage
// and names the page.
func Assemble(e *tree.Entry, chunks []Chunk, sep string) ([]byte, error) {
	if len(chunks) == 0 {
		if e.Size == 0 {
			return []byte{}, nil
		}
		return nil, fmt.Errorf("%w: page %q has no chunks", ErrCorruptPage, e.Slug)
	}
	chunks = slices.Clone(chunks)
	for _, c := range chunks {
		if c.Index == NoIndex {
			return nil, fmt.Errorf("%w: page %q: chunk %q has no valid chunk index", ErrCorruptPage, e.Slug, c.ID)
		}
		if c.Slug != e.Slug {
			return nil, fmt.Errorf("%w: page %q: store returned chunk %q of page %q", ErrCorruptPage, e.Slug, c.ID, c.Slug)
		}
	}
	slices.SortFunc(chunks, func(a, b Chunk) int { return a.Index - b.Index })
	size := 0
	for i, c := range chunks {
		if c.Index != i {
			if i > 0 && c.Index == chunks[i-1].Index {
				return nil, fmt.Errorf("%w: page %q: duplicate chunk index %d (chunks %q and %q)", ErrCorruptPage, e.Slug, c.Index, chunks[i-1].ID, c.ID)
			}
			return nil, fmt.Errorf("%w: page %q: missing chunk index %s", ErrCorruptPage, e.Slug, missingRange(i, c.Index))
		}
		size += len(c.Text)
	}
	if e.Chunks > 0 && e.Chunks != len(chunks) {
		return nil, fmt.Errorf("%w: page %q: tree records %d chunks, store has %d", ErrCorruptPage, e.Slug, e.Chunks, len(chunks))
	}
	size += len(sep) * (len(chunks) - 1)
	if e.Size >= 0 && e.Size != int64(size) {
		return nil, fmt.Errorf("%w: page %q: tree records %d bytes, chunks hold %d", ErrCorruptPage, e.Slug, e.Size, size)
	}
	data := make([]byte, 0, size)
	for i, c := range chunks {
		if i > 0 {
			data = append(data, sep...)
		}
		data = append(data, c.Text...)
	}
	if want, ok := strings.CutPrefix(e.Hash, "sha256:"); ok {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return nil, fmt.Errorf("%w: page %q: content hash sha256:%s does not match the tree's %s", ErrCorruptPage, e.Slug, got, e.Hash)
		}
	}
	return data, nil
}

func missingRange(from, to int) string {
	if to-from == 1 {
		return strconv.Itoa(from)
	}
	return strconv.Itoa(from) + "-" + strconv.Itoa(to-1)
}
