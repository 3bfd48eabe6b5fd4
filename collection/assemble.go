package collection

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/tree"
)

// ErrCorruptPage is wrapped by errors about a page whose chunks cannot be
// reassembled: a missing, duplicate or invalid chunk index, no chunks at
// all, or content that disagrees with the size the tree records. Such a
// page is never served partially. It matches fscap.ErrContent.
var ErrCorruptPage = fscap.NewContentError("corrupt page")

// Assemble reassembles a page from its chunks exactly as the filesystem
// (package chromafs) does: it
// orders them by index, checks that the indexes are exactly 0..n-1 and
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
	// at[i] is the position in chunks of the chunk of index i (+1; 0:
	// none yet). Pages have a few chunks, so it is on the stack.
	var small [32]int32
	var at []int32
	if len(chunks) <= len(small) {
		at = small[:len(chunks)]
	} else {
		at = make([]int32, len(chunks))
	}
	for _, c := range chunks {
		if c.Index == NoIndex {
			return nil, fmt.Errorf("%w: page %q: chunk %q has no valid chunk index", ErrCorruptPage, e.Slug, c.ID)
		}
		if c.Slug != e.Slug {
			return nil, fmt.Errorf("%w: page %q: store returned chunk %q of page %q", ErrCorruptPage, e.Slug, c.ID, c.Slug)
		}
	}
	for i, c := range chunks {
		if c.Index < 0 || c.Index >= len(chunks) || at[c.Index] != 0 {
			// Not 0..n-1: report what sorting the indexes shows.
			return nil, indexError(e, chunks)
		}
		at[c.Index] = int32(i + 1)
	}
	size := 0
	for _, c := range chunks {
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
	for i, p := range at {
		if i > 0 {
			data = append(data, sep...)
		}
		data = append(data, chunks[p-1].Text...)
	}
	if want, ok := strings.CutPrefix(e.Hash, "sha256:"); ok {
		sum := sha256.Sum256(data)
		var got [2 * sha256.Size]byte
		hex.Encode(got[:], sum[:])
		if string(got[:]) != want {
			return nil, fmt.Errorf("%w: page %q: content hash sha256:%s does not match the tree's %s", ErrCorruptPage, e.Slug, got[:], e.Hash)
		}
	}
	return data, nil
}

// indexError describes how the indexes of chunks, which are not exactly
// 0..n-1, go wrong: the first duplicate or gap in index order.
func indexError(e *tree.Entry, chunks []Chunk) error {
	chunks = slices.Clone(chunks)
	slices.SortFunc(chunks, func(a, b Chunk) int { return a.Index - b.Index })
	for i, c := range chunks {
		if c.Index != i {
			if i > 0 && c.Index == chunks[i-1].Index {
				return fmt.Errorf("%w: page %q: duplicate chunk index %d (chunks %q and %q)", ErrCorruptPage, e.Slug, c.Index, chunks[i-1].ID, c.ID)
			}
			return fmt.Errorf("%w: page %q: missing chunk index %s", ErrCorruptPage, e.Slug, missingRange(i, c.Index))
		}
	}
	return fmt.Errorf("%w: page %q: invalid chunk indexes", ErrCorruptPage, e.Slug) // not reached
}

func missingRange(from, to int) string {
	if to-from == 1 {
		return strconv.Itoa(from)
	}
	return strconv.Itoa(from) + "-" + strconv.Itoa(to-1)
}
