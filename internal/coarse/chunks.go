package coarse

import (
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/collection"
)

// FromID fills in the slug and index of a chunk that a search returned
// with its id only, reading them from an id made by collection.ChunkID. It reports
// false for an id that does not have that form.
func FromID(c *collection.Chunk) bool {
	if c.Slug != "" {
		return true
	}
	i := strings.LastIndexByte(c.ID, '#')
	if i < 0 {
		return false
	}
	n, err := strconv.Atoi(c.ID[i+1:])
	if err != nil || n < 0 || collection.ChunkID(c.ID[:i], n) != c.ID {
		return false
	}
	c.Slug, c.Index = c.ID[:i], n
	return true
}

// Straddles sets hit for the pages of split (the set inSplit) in which
// a literal may straddle chunks, given the chunks that end with a prefix
// of a literal, start with the rest, or are short.
func Straddles(inSplit map[string]bool, ends, starts, short []collection.Chunk, hit map[string]bool) {
	type pos struct {
		slug  string
		index int
	}
	at := func(chunks []collection.Chunk) map[pos]bool {
		m := make(map[pos]bool, len(chunks))
		for _, c := range chunks {
			if !inSplit[c.Slug] {
				continue
			}
			if c.Index == collection.NoIndex {
				hit[c.Slug] = true // cannot be placed: keep the page
			}
			m[pos{c.Slug, c.Index}] = true
		}
		return m
	}
	head, inner := at(starts), at(short)
	// A literal that Straddles chunks k..k+m leaves chunk k ending
	// with a prefix of it, chunk k+m starting with the rest, and
	// every chunk between them short.
	for _, c := range ends {
		if !inSplit[c.Slug] || c.Index == collection.NoIndex {
			continue
		}
		for j := c.Index + 1; ; j++ {
			if head[pos{c.Slug, j}] {
				hit[c.Slug] = true
				break
			}
			if !inner[pos{c.Slug, j}] {
				break
			}
		}
	}
}
