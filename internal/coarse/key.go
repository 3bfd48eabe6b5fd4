package coarse

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Key names the answers for one literal set. Besides what the answers
// depend on, it holds what decides which queries a page gets (the
// separator, the line alignment, the regex limit), so that every answer
// under one key was reached the same way.
type Key struct {
	Collection string // the collection's id
	Version    string // the tree's version: it names the pages' content
	Sep        string // the separator between chunks
	SlugField  string // the layout's metadata fields
	IndexField string
	// LineAligned: the collection declares that its chunks end at line
	// ends.
	LineAligned bool
	Fold        bool
	RegexLimit  int
	// Literals is the non-empty literal set, as UniqueLiterals returns
	// it; its order does not matter.
	Literals []string
}

// String returns k as a cache key: equal for keys equal but for the
// order of their literals, different otherwise.
func (k Key) String() string {
	var b strings.Builder
	for _, f := range []string{k.Collection, k.Version, k.Sep, k.SlugField, k.IndexField} {
		b.WriteString(strconv.Itoa(len(f)))
		b.WriteByte(':')
		b.WriteString(f)
	}
	b.WriteString(strconv.FormatBool(k.LineAligned))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatBool(k.Fold))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(k.RegexLimit))
	sorted := slices.Clone(k.Literals)
	slices.Sort(sorted)
	for _, l := range sorted {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(len(l)))
		b.WriteByte(':')
		b.WriteString(l)
	}
	return b.String()
}

// SharedKey is the page-cache key under which the answers for the key
// string key are shared between processes: hashed, as a literal set may
// be long.
func SharedKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return "chromafs-coarse\x00" + hex.EncodeToString(h[:])
}
