package adopt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/treeindex"
)

// Options tune Read.
type Options struct {
	// Layout is the writer's layout; nil detects it (see Read).
	Layout *Layout
	// StripPrefix is removed from the start of every page key (see
	// Slugs); "" strips the common directory of absolute paths.
	StripPrefix string
	// TreeID is the id of chromafs's tree record (default
	// "__path_tree__"): it, its shards and its compact index are
	// chromafs's, not chunks.
	TreeID string
}

// AdoptedPage is one page of a collection, reassembled.
type AdoptedPage struct {
	// Slug is the page's path; Key the page key its chunks name.
	Slug, Key string
	*Page
	// Hash is "sha256:" and the hex SHA-256 of Content.
	Hash string
	// Chunks is the number of the page's chunks.
	Chunks int
}

// Result is what Read found.
type Result struct {
	// Layout is the layout adopted.
	Layout Layout
	// Counts holds the number of chunks of each known layout found
	// (by name); Other the number of chunks of none, OtherKeys the
	// metadata keys most common among them; System the number of
	// chromafs's own records (the tree, its shards, its index) and of
	// records marked _system.
	Counts    map[string]int
	Other     int
	OtherKeys []string
	System    int
	// Pages are the pages reassembled, by slug.
	Pages []AdoptedPage
	// Problems are the pages, or chunks, left out, and why, sorted.
	Problems []string
}

// Count returns the number of pages of each Exactness.
func (r *Result) Count() (exact, edges, inexact int) {
	for _, p := range r.Pages {
		switch p.Exactness {
		case Exact:
			exact++
		case EdgesAssumed:
			edges++
		default:
			inexact++
		}
	}
	return exact, edges, inexact
}

// ErrNoLayout is wrapped by Read's error for a collection in which it
// recognises no layout, or several.
var ErrNoLayout = errors.New("no known layout")

// Read reads every record of a collection, recognises the layout of its
// chunks and reassembles every page.
//
// Without Options.Layout, the layout is the one most chunks fit (see
// Layouts); chunks of another known layout make it an error wrapping
// ErrNoLayout that names the layouts and their counts (pass a Layout to
// adopt one of them and leave the others out), as does a collection
// with no chunk of a known layout (the error lists the metadata keys the
// chunks have, for a custom Layout). Chunks of no layout are left out
// and counted.
//
// A page whose key makes no slug, or whose chunks cannot be placed, is
// left out with a Problem; every other page is in Pages, with its
// Exactness. Read never writes.
func Read(ctx context.Context, src collection.RecordScanner, opt Options) (*Result, error) {
	treeID := opt.TreeID
	if treeID == "" {
		treeID = collection.DefaultLayout().TreeID
	}
	type rec struct {
		id, text string
		md       map[string]any
		seq      int
	}
	var recs []rec
	res := &Result{Counts: map[string]int{}}
	otherKeys := map[string]int{}
	seq := 0
	err := src.ScanRecords(ctx, func(batch []collection.Record) error {
		for _, r := range batch {
			seq++
			if chromafsRecord(r, treeID) {
				res.System++
				continue
			}
			recs = append(recs, rec{r.ID, r.Document, r.Metadata, seq})
			if opt.Layout != nil {
				continue
			}
			name := ""
			for _, l := range Layouts {
				if l.fits(r.Metadata) {
					name = l.Name
					break
				}
			}
			if name == "" {
				res.Other++
				otherKeys[metadataKeys(r.Metadata)]++
				continue
			}
			res.Counts[name]++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("adopt: read the collection: %w", err)
	}
	res.OtherKeys = topKeys(otherKeys, 3)
	if opt.Layout != nil {
		res.Layout = *opt.Layout
	} else {
		l, err := pick(res)
		if err != nil {
			return res, err
		}
		res.Layout = l
	}
	l := res.Layout

	// Group the chunks by page key (and, with a DocField, document).
	byKey := map[string][]Piece{}
	docOf := map[string]string{} // piece id -> document
	var keys []string
	for _, r := range recs {
		if !l.fits(r.md) {
			if opt.Layout != nil {
				res.Other++
				otherKeys[metadataKeys(r.md)]++
			}
			continue
		}
		k := l.key(r.md)
		p, why := l.piece(r.id, r.text, r.md, r.seq)
		if why != "" {
			res.Problems = append(res.Problems, fmt.Sprintf("page %q: %s", k, why))
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], p)
		if l.DocField != "" {
			d, _ := r.md[l.DocField].(string)
			docOf[r.id] = d
		}
	}
	if opt.Layout != nil {
		res.OtherKeys = topKeys(otherKeys, 3)
		if len(keys) == 0 {
			return res, fmt.Errorf("adopt: %w: no chunk has the fields of layout %s (%s)", ErrNoLayout, l.Name, l.describe())
		}
	}
	slugs, bad := Slugs(keys, opt.StripPrefix)
	for k, why := range bad {
		res.Problems = append(res.Problems, fmt.Sprintf("page %q left out: %s", k, why))
	}
	// LlamaIndex.TS's SimpleDirectoryReader reads .md files with its
	// Markdown reader, which changes their text: once a page shows it,
	// every .md page of the collection is taken to have been read so.
	mdReader := false
	if l.DocField != "" {
		for _, k := range keys {
			if markdownRead(byKey[k], docOf) {
				mdReader = true
				break
			}
		}
	}
	for _, k := range keys {
		s, ok := slugs[k]
		if !ok {
			continue
		}
		md := mdReader && (strings.HasSuffix(strings.ToLower(k), ".md") || markdownRead(byKey[k], docOf))
		pg, err := assembleDocs(byKey[k], docOf, l.Rules, md)
		if err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("page %q left out: %v", k, err))
			continue
		}
		sum := sha256.Sum256(pg.Content)
		res.Pages = append(res.Pages, AdoptedPage{Slug: s, Key: k, Page: pg, Hash: "sha256:" + hex.EncodeToString(sum[:]), Chunks: len(byKey[k])})
	}
	slices.SortFunc(res.Pages, func(a, b AdoptedPage) int { return strings.Compare(a.Slug, b.Slug) })
	slices.Sort(res.Problems)
	return res, nil
}

// pick chooses the layout of a collection from its counts.
func pick(res *Result) (Layout, error) {
	var names []string
	for n := range res.Counts {
		names = append(names, n)
	}
	switch len(names) {
	case 0:
		hint := ""
		if len(res.OtherKeys) > 0 {
			hint = fmt.Sprintf("; its chunks have the metadata keys %s: name the page's field with --path-field (and --order-field, --line-field)", strings.Join(res.OtherKeys, " | "))
		}
		return Layout{}, fmt.Errorf("adopt: %w: %d records, none of LangChain (source), LangChain.js (source, locFrom), LlamaIndex (_node_content), Chroma's docs (slug, chunk_id) or chromafs (page_slug, chunk_index)%s", ErrNoLayout, res.Other, hint)
	case 1:
		l, _ := LayoutNamed(names[0])
		return l, nil
	}
	sort.Slice(names, func(i, j int) bool { return res.Counts[names[i]] > res.Counts[names[j]] })
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%d chunks of %s", res.Counts[n], n))
	}
	return Layout{}, fmt.Errorf("adopt: %w: the collection mixes layouts (%s): name the one to adopt with --layout %s", ErrNoLayout, strings.Join(parts, ", "), names[0])
}

// describe lists a layout's fields for messages.
func (l Layout) describe() string {
	f := []string{"page " + strings.Join(l.PathFields, "|")}
	for _, x := range [][2]string{{"start", l.StartField}, {"end", l.EndField}, {"offsets", l.NodeContentField}, {"line", l.LineField}, {"order", l.OrderField}} {
		if x[1] != "" {
			f = append(f, x[0]+" "+x[1])
		}
	}
	return strings.Join(f, ", ")
}

// chromafsRecord reports whether r is chromafs's own: the tree record,
// one of its shards, its compact index, or a record marked _system.
func chromafsRecord(r collection.Record, treeID string) bool {
	ix := treeindex.RecordID(treeID)
	if r.ID == treeID || r.ID == ix || collection.IsShardID(treeID, r.ID) || collection.IsShardID(ix, r.ID) {
		return true
	}
	v, ok := r.Metadata[collection.SystemKey].(bool)
	return ok && v
}

func topKeys(m map[string]int, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	for i, k := range keys {
		keys[i] = "{" + k + "}"
	}
	return keys
}

// mdReaderNote is the reason a page LlamaIndex's Markdown reader read is
// inexact.
const mdReaderNote = "LlamaIndex's Markdown reader read the file (%d documents): it removes links' targets and joins headings that follow each other, so the page may differ from the file"

// headingDoc reports whether a document's chunks are those of a section
// that LlamaIndex.TS's Markdown reader made: the reader returns "\n\n",
// the heading line and the section, so the first chunk (trimmed) starts
// with "#" at offset 2.
func headingDoc(ps []Piece) bool {
	first := -1
	for i, p := range ps {
		if p.Start < 0 {
			return false
		}
		if first < 0 || p.Start < ps[first].Start {
			first = i
		}
	}
	return first >= 0 && ps[first].Start == 2 && strings.HasPrefix(ps[first].Text, "#")
}

// splitDocs groups a page's pieces by document (docOf maps a piece's id
// to its document, "" when the layout has none), the documents in the
// order of their first pieces in the collection.
func splitDocs(pieces []Piece, docOf map[string]string) (docs []string, byDoc map[string][]Piece) {
	byDoc = map[string][]Piece{}
	for _, p := range pieces {
		d := docOf[p.ID]
		if _, ok := byDoc[d]; !ok {
			docs = append(docs, d)
		}
		byDoc[d] = append(byDoc[d], p)
	}
	first := func(d string) int {
		m := byDoc[d][0].Seq
		for _, p := range byDoc[d] {
			m = min(m, p.Seq)
		}
		return m
	}
	slices.SortStableFunc(docs, func(a, b string) int { return first(a) - first(b) })
	return docs, byDoc
}

// markdownRead reports whether a page's chunks show that LlamaIndex's
// Markdown reader read its file: several documents, or one that starts
// as the reader's sections do.
func markdownRead(pieces []Piece, docOf map[string]string) bool {
	docs, byDoc := splitDocs(pieces, docOf)
	if len(docs) > 1 {
		return true
	}
	return headingDoc(byDoc[docs[0]])
}

// assembleDocs assembles a page whose pieces may come from several
// documents (see splitDocs): each document on its own, as its offsets
// count from its start, then the documents one after the other. With md
// (LlamaIndex's Markdown reader read the file), the page is inexact, the
// two line breaks the reader puts before each section's heading are
// left out, and a blank line is assumed before each heading; without
// it, a page of several documents is inexact, and they are joined a line
// break apart.
func assembleDocs(pieces []Piece, docOf map[string]string, r Rules, md bool) (*Page, error) {
	docs, byDoc := splitDocs(pieces, docOf)
	if len(docs) <= 1 && !md {
		return Assemble(pieces, r)
	}
	out := &Page{Exactness: Inexact, Why: fmt.Sprintf("the writer read the file as %d documents: they are joined in order, a line break apart", len(docs))}
	if md {
		out.Why = fmt.Sprintf(mdReaderNote, len(docs))
	}
	sep := "" // between the previous document and the next
	for i, d := range docs {
		pg, err := Assemble(byDoc[d], r)
		if err != nil {
			return nil, err
		}
		parts := slices.Clone(pg.Parts)
		body := pg.Content[:len(pg.Content)-len(pg.Tail)]
		if md && headingDoc(byDoc[d]) {
			body = body[len(parts[0].Gap):]
			parts[0].Gap = ""
			if i > 0 {
				sep = "\n\n"
			}
		}
		parts[0].Gap = sep + parts[0].Gap
		out.Parts = append(out.Parts, parts...)
		out.Content = append(out.Content, sep...)
		out.Content = append(out.Content, body...)
		out.Tail = pg.Tail
		if sep = pg.Tail; sep == "" {
			sep = "\n"
		}
	}
	out.Content = append(out.Content, out.Tail...)
	return out, nil
}
