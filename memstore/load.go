package memstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// LoadOptions control how [Load] writes files, to mimic the writers that
// fill collections in the wild.
type LoadOptions struct {
	// ChunkSize is the size in bytes at which pages are cut into chunks,
	// at arbitrary byte offsets (moved back to a rune boundary), not at
	// line ends. Zero stores every page as one chunk.
	ChunkSize int

	// Shuffle, when non-nil, inserts the chunks of all pages in an order
	// drawn from it instead of page by page.
	Shuffle *rand.Rand

	// Access returns the access of a page. Nil makes every page public.
	Access func(slug string) (isPublic bool, groups []string)

	// Compressed writes the tree as gzip-compressed base64.
	Compressed bool

	// WithSizes writes each entry's size, content hash
	// ("sha256:" + hex) and chunk count, as chromafs's ingest does.
	// Without it, entries carry only access, as older writers' do.
	WithSizes bool

	// ModTime, when not zero, is written as every entry's mod time.
	ModTime time.Time

	// Separator is the separator the reader will join chunks with.
	// With the default "", chunks are cut every ChunkSize bytes. With a
	// non-empty separator, a page is cut only where the separator occurs
	// and that occurrence is dropped (as a writer that splits on "\n" and a
	// reader that joins with "\n" do), so joining reproduces the page
	// exactly but a chunk may exceed ChunkSize; a page in which the
	// separator does not occur is one chunk.
	Separator string
}

// Load writes files (slug -> content) into s: the chunk records of every
// page, with metadata holding the slug and index fields of layout, and a
// tree record with id layout.TreeID and metadata _system: true. Chunk ids
// are "<slug>:<index>". Slugs are written as given, unchecked, so that
// tests can plant bad ones. Load is meant for an empty store: it replaces
// the tree record, and chunks of pages not in files stay.
func Load(s *Store, layout collection.Layout, files map[string]string, opt LoadOptions) error {
	layout = layout.WithDefaults()
	slugs := make([]string, 0, len(files))
	for slug := range files {
		slugs = append(slugs, slug)
	}
	slices.Sort(slugs)

	var records []collection.Record
	entries := make([]tree.Entry, 0, len(slugs))
	for _, slug := range slugs {
		content := files[slug]
		chunks := cut(content, opt.ChunkSize, opt.Separator)
		for i, text := range chunks {
			records = append(records, collection.Record{
				ID:       slug + ":" + strconv.Itoa(i),
				Document: text,
				Metadata: map[string]any{layout.SlugField: slug, layout.IndexField: i},
			})
		}
		e := tree.Entry{Slug: slug, IsPublic: true, HasIsPublic: true, Size: -1}
		if opt.Access != nil {
			e.IsPublic, e.Groups = opt.Access(slug)
		}
		if opt.WithSizes {
			sum := sha256.Sum256([]byte(content))
			e.Size = int64(len(content))
			e.Hash = "sha256:" + hex.EncodeToString(sum[:])
			e.Chunks = len(chunks)
		}
		if !opt.ModTime.IsZero() {
			e.ModTime = opt.ModTime.UTC().Truncate(time.Second)
		}
		entries = append(entries, e)
	}
	if opt.Shuffle != nil {
		opt.Shuffle.Shuffle(len(records), func(i, j int) { records[i], records[j] = records[j], records[i] })
	}
	doc, err := tree.Encode(entries, opt.Compressed)
	if err != nil {
		return fmt.Errorf("memstore: load: encode tree: %w", err)
	}
	records = append(records, collection.Record{
		ID:       layout.TreeID,
		Document: string(doc),
		Metadata: map[string]any{collection.SystemKey: true},
		System:   true,
	})
	if err := s.Upsert(context.Background(), records); err != nil {
		return fmt.Errorf("memstore: load: %w", err)
	}
	return nil
}

// cut splits content into the chunks described by LoadOptions.
func cut(content string, size int, sep string) []string {
	if sep != "" {
		if size <= 0 {
			return []string{content}
		}
		var chunks []string
		parts := strings.Split(content, sep)
		cur := parts[0]
		for _, p := range parts[1:] {
			if len(cur)+len(sep)+len(p) > size {
				chunks = append(chunks, cur)
				cur = p
				continue
			}
			cur += sep + p
		}
		return append(chunks, cur)
	}
	if size <= 0 || len(content) <= size {
		return []string{content}
	}
	var chunks []string
	for len(content) > size {
		n := runeCut(content, size)
		chunks = append(chunks, content[:n])
		content = content[n:]
	}
	if content != "" {
		chunks = append(chunks, content)
	}
	return chunks
}

// runeCut returns where to cut s, which is longer than size: at the last
// rune boundary at or before size, or after the first rune if that is
// longer than size. Where s is not valid UTF-8 it cuts at size.
func runeCut(s string, size int) int {
	for i := size; i > 0 && i > size-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	_, w := utf8.DecodeRuneInString(s)
	return max(w, size)
}
