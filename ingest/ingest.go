package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// Target is a collection that ingest can read and write:
// *memstore.Store and *chromastore.Collection both satisfy it.
type Target interface {
	collection.Store
	collection.Writer
}

// metadataSetter is implemented by targets whose collection has metadata
// (chromastore.Collection, memstore.Store): Run records the tree's version
// there (collection.TreeVersionKey).
type metadataSetter interface {
	SetMetadata(ctx context.Context, set map[string]any) error
}

// Markers that Run writes into the tree record's metadata.
const (
	// MetaSystem marks the tree record as not content; it is
	// collection.SystemKey.
	MetaSystem = collection.SystemKey
	// MetaWriter names the program that wrote the collection; its value
	// is WriterName.
	MetaWriter = "chromafs_writer"
	// MetaLineAligned is true when every chunk ends at a line end, except
	// in pages whose tree entry has SplitLines set.
	MetaLineAligned = collection.LineAlignedKey
	// MetaDirty is set to true on the previous tree record before a run
	// writes its first chunk, and to false by the run's new tree. A run
	// that finds it true (a previous run failed part way, so chunks may no
	// longer match the tree's hashes) trusts no hash.
	MetaDirty = "chromafs_dirty"
	// WriterName is the value of MetaWriter. Re-ingest trusts the content
	// hashes of a tree only when it carries this name.
	WriterName = "chromafs-ingest/1"
)

// Defaults of [Options].
const (
	DefaultMaxChunk  = 1024
	DefaultBatchSize = 100
)

// Options control [Run]. The zero value is usable.
type Options struct {
	// Layout names the metadata fields and the tree record. Empty fields
	// are those of collection.DefaultLayout().
	Layout collection.Layout

	// MaxChunk is the chunk size in bytes (default DefaultMaxChunk); see
	// the package documentation, section "Chunking".
	MaxChunk int

	// Rules decide each page's access. Nil makes every page public.
	Rules *Rules

	// Compressed writes the tree as gzip-compressed base64 instead of
	// plain JSON.
	Compressed bool

	// TreeMaxBytes, when positive, is the largest document the tree
	// record may have: a larger tree is written as a manifest plus shards
	// of at most this many bytes (see collection.ShardTree; Chroma Cloud's
	// limit is chromastore.CloudMaxDocumentBytes). It must be 0 or at least
	// collection.MinShardBytes. 0 means the target's own limit when it
	// declares one (a MaxDocumentBytes method, as chromastore.Collection
	// has under CloudLimits), else none. Readers assemble the shards
	// transparently; a tree that fits is written whole, as always.
	TreeMaxBytes int

	// Exclude lists globs (doublestar syntax) of files and directories not
	// to ingest. A pattern without "/" matches a name at any depth (as in
	// .gitignore); a pattern with "/" matches the whole path relative to
	// src (a leading "/" or "./" anchors a pattern without another "/");
	// a trailing "/" restricts a pattern to directories. ".git"
	// (directory or file) is always skipped.
	Exclude []string

	// Force rewrites the chunks of every page, even those whose content
	// is unchanged since the last ingest.
	Force bool

	// Prune, after the tree is written, deletes every record that has
	// the layout's slug field but whose page the new tree does not name:
	// orphans left by a run that failed between writing its tree and
	// deleting the chunks of removed pages, or by another writer. It
	// reads the whole collection, so dst must implement
	// collection.Scanner.
	Prune bool

	// DryRun computes the report, reading the collection but writing and
	// deleting nothing.
	DryRun bool

	// Progress, when not nil, is called with the number of files done and
	// the total, once before the first and after each file.
	Progress func(done, total int)

	// BatchSize is the number of records per upsert and ids per delete
	// (default DefaultBatchSize).
	BatchSize int

	// Now returns the current time (default time.Now); it times the
	// report.
	Now func() time.Time

	// Pointers are lazy file pointers (see [LoadPointers]) written into
	// the tree next to the folder's files, without chunks; the access
	// rules apply to them as to files. A pointer's slug must not be that
	// of a file (or lie under a file, or be a directory of files). A
	// re-ingest removes the pointers no longer listed, and deletes the
	// chunks of a page that became a pointer.
	Pointers []Pointer
}

func (o Options) withDefaults() Options {
	o.Layout = o.Layout.WithDefaults()
	if o.MaxChunk <= 0 {
		o.MaxChunk = DefaultMaxChunk
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Skip is a file that Run did not ingest.
type Skip struct {
	Path   string // relative to the docs folder, as found (maybe not UTF-8)
	Reason string
}

func (s Skip) String() string { return displayPath(s.Path) + ": " + s.Reason }

// Report says what Run did (or, for a dry run, would do).
type Report struct {
	DryRun bool

	// Pages is the number of pages in the new tree:
	// Added + Updated + Unchanged.
	Pages int
	// Added counts pages new to the collection, Updated pages whose
	// chunks were rewritten, Unchanged pages whose chunks were kept, and
	// Removed pages of the previous tree that are gone.
	Added, Updated, Unchanged, Removed int

	// Chunks is the number of chunk records written; Deleted the number
	// of records deleted (stale chunks of updated pages and the chunks of
	// removed pages).
	Chunks, Deleted int

	// Orphans is the number of records, included in Deleted, that
	// Options.Prune deleted.
	Orphans int

	// Pointers is the number of lazy pointers among Pages (they are
	// counted in Added, Updated and Unchanged too).
	Pointers int

	// TreeBytes is the size of the new tree document, and TreeShards the
	// number of shard records it was written in (0: one tree record).
	TreeBytes, TreeShards int

	// Excluded counts files and directories left out by Options.Exclude.
	Excluded int
	// Skipped lists files that could not be ingested, with the reason.
	Skipped []Skip

	// Elapsed is the run's duration, measured with Options.Now.
	Elapsed time.Duration
}

// String summarises the report on a few lines, without timing.
func (r *Report) String() string {
	var b strings.Builder
	if r.DryRun {
		b.WriteString("dry run: ")
	}
	fmt.Fprintf(&b, "%s (%d added, %d updated, %d unchanged), %d removed\n",
		count(r.Pages, "page"), r.Added, r.Updated, r.Unchanged, r.Removed)
	if r.Pointers > 0 {
		fmt.Fprintf(&b, "%s among the pages\n", count(r.Pointers, "lazy pointer"))
	}
	if r.TreeShards > 0 {
		fmt.Fprintf(&b, "tree of %d bytes in %s\n", r.TreeBytes, count(r.TreeShards, "shard"))
	}
	if r.DryRun {
		fmt.Fprintf(&b, "%s to write, %s to delete\n", count(r.Chunks, "chunk"), count(r.Deleted, "record"))
	} else {
		fmt.Fprintf(&b, "%s written, %s deleted\n", count(r.Chunks, "chunk"), count(r.Deleted, "record"))
	}
	if r.Orphans > 0 {
		fmt.Fprintf(&b, "%s among the deleted\n", count(r.Orphans, "orphan record"))
	}
	if r.Excluded > 0 {
		fmt.Fprintf(&b, "%d excluded\n", r.Excluded)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped %s\n", s)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// count returns "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// Run writes the files of src into dst, as described in the package
// documentation. When it fails part way, the error says how far it got,
// and the collection keeps its previous tree.
func Run(ctx context.Context, dst Target, src fs.FS, opt Options) (*Report, error) {
	return run(ctx, dst, src, opt, "")
}

// RunDir is Run over os.DirFS(dir). When opt.Rules came from [LoadRules]
// and the rules file lies inside dir, the rules file is skipped.
func RunDir(ctx context.Context, dst Target, dir string, opt Options) (*Report, error) {
	rulesSlug := ""
	if opt.Rules != nil && opt.Rules.path != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			if rel, err := filepath.Rel(abs, opt.Rules.path); err == nil && filepath.IsLocal(rel) {
				rulesSlug = filepath.ToSlash(rel)
			}
		}
	}
	return run(ctx, dst, os.DirFS(dir), opt, rulesSlug)
}

// ingestion is the state of one run.
type ingestion struct {
	ctx    context.Context
	dst    Target
	opt    Options
	report *Report
	total  int  // files to ingest
	done   int  // files done
	wrote  bool // the new tree is written

	// the previous tree record, while it must be marked dirty before the
	// first write
	toMark *collection.TreeDoc

	// pending chunk records, and the pages they complete
	pending      []collection.Record
	pendingPages []pendingPage
}

type pendingPage struct {
	slug string
	ids  map[string]bool // the page's new chunk ids
}

func run(ctx context.Context, dst Target, src fs.FS, opt Options, rulesSlug string) (*Report, error) {
	opt = opt.withDefaults()
	start := opt.Now()
	ex, err := newExcluder(opt.Exclude)
	if err != nil {
		return nil, err
	}
	var scanner collection.Scanner
	if opt.Prune {
		var ok bool
		if scanner, ok = dst.(collection.Scanner); !ok {
			return nil, fmt.Errorf("ingest: prune: %T cannot scan its collection", dst)
		}
	}
	in := &ingestion{ctx: ctx, dst: dst, opt: opt, report: &Report{DryRun: opt.DryRun}}
	r := in.report

	files, err := walk(ctx, src, ex, rulesSlug, r)
	if err != nil {
		return nil, err
	}
	in.total = len(files)
	if err := checkPointers(opt.Pointers); err != nil {
		return nil, fmt.Errorf("ingest: pointers: %w", err)
	}
	if err := checkClashes(files, opt.Pointers); err != nil {
		return nil, err
	}

	if dl, ok := dst.(interface{ MaxDocumentBytes() int }); ok && opt.TreeMaxBytes == 0 {
		opt.TreeMaxBytes = dl.MaxDocumentBytes()
	}
	if opt.TreeMaxBytes > 0 && opt.TreeMaxBytes < collection.MinShardBytes {
		return nil, fmt.Errorf("ingest: tree document limit of %d bytes is below the minimum of %d", opt.TreeMaxBytes, collection.MinShardBytes)
	}
	old, oldRec, trusted, err := readTree(ctx, dst, opt.Layout.TreeID)
	oldManifest := oldRec.Manifest // nil for a tree in one record
	if err != nil {
		return nil, err
	}
	oldIndex := IndexManifest(ctx, dst, opt.Layout.TreeID)
	if trusted && !opt.DryRun {
		in.toMark = &oldRec
	}

	in.progress()
	entries := make([]tree.Entry, 0, len(files))
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, in.failed("", err)
		}
		e, ok, err := in.page(src, f, old, trusted)
		if err != nil {
			return nil, err
		}
		if ok {
			entries = append(entries, e)
			seen[e.Slug] = true
		}
		in.done++
		in.progress()
	}
	if err := in.flush(); err != nil {
		return nil, err
	}
	// Pages that became pointers lose their chunks once the new tree is
	// written.
	var unchunked []string
	for _, p := range opt.Pointers {
		e := p.entry(opt.Rules)
		var prev *tree.Entry
		if old != nil {
			prev, _ = old.Entry(p.Slug)
		}
		switch {
		case prev == nil:
			r.Added++
		case samePointer(prev, &e):
			r.Unchanged++
		default:
			r.Updated++
		}
		if prev != nil && prev.URL == "" {
			unchunked = append(unchunked, p.Slug)
		}
		entries = append(entries, e)
		seen[e.Slug] = true
		r.Pointers++
	}

	// The tree goes last, so that it never names chunks that are not
	// written yet.
	tr, err := BuildTree(opt.Layout.TreeID, entries, opt.Compressed, opt.TreeMaxBytes)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	shards := tr.Shards
	r.TreeBytes, r.TreeShards = len(tr.Doc), len(shards)
	if !opt.DryRun {
		// The version marker is cleared before the tree changes and set
		// after; shards go before the manifest that names them (see
		// TreeRecords.Write).
		written, err := tr.Write(ctx, dst, opt.BatchSize)
		in.wrote = written
		switch {
		case err != nil && written:
			return nil, fmt.Errorf("ingest: %w", err)
		case err != nil:
			return nil, in.failed("", err)
		}
	}
	// The previous tree's shards go once the new manifest is written (a
	// reader holding the old manifest then fetches the new one).
	if err := in.delete(tr.StaleShards(oldManifest, oldIndex), "delete the previous tree's shards"); err != nil {
		return nil, err
	}
	r.Pages = len(entries)

	// Chunks of removed pages go after the tree, which no longer names
	// them.
	var removed []string
	if old != nil {
		for _, e := range old.Entries() {
			if !seen[e.Slug] {
				removed = append(removed, e.Slug)
			}
		}
	}
	if err := in.deletePages(removed); err != nil {
		return nil, err
	}
	r.Removed = len(removed)
	if err := in.deletePages(unchunked); err != nil {
		return nil, err
	}
	if scanner != nil {
		// Records of pointer pages are orphans too: pointers have no
		// chunks.
		chunked := maps.Clone(seen)
		for _, p := range opt.Pointers {
			delete(chunked, p.Slug)
		}
		keep := make(map[string]bool, len(shards))
		for _, s := range shards {
			keep[s.ID] = true
		}
		for _, s := range tr.IndexShards {
			keep[s.ID] = true
		}
		for _, m := range []*collection.Manifest{oldManifest, oldIndex} {
			if m != nil {
				// Deleted above already (or counted, in a dry run).
				for _, id := range m.ShardIDs() {
					keep[id] = true
				}
			}
		}
		if err := in.prune(scanner, chunked, removed, keep); err != nil {
			return nil, err
		}
	}
	r.Elapsed = opt.Now().Sub(start)
	return r, nil
}

// readTree returns the collection's current tree (nil if there is none),
// its record as ReadTree read it (with the manifest of a sharded tree),
// and whether its hashes can be trusted to describe chunks that ingest
// wrote.
func readTree(ctx context.Context, dst Target, id string) (*tree.Tree, collection.TreeDoc, bool, error) {
	// A sharded tree comes back whole, with its manifest in Manifest.
	rec, err := collection.ReadTree(ctx, dst, id)
	fix := "(delete it, or use another collection, to ingest from scratch)"
	switch {
	case errors.Is(err, collection.ErrNoTree):
		return nil, rec, false, nil
	case errors.Is(err, tree.ErrMalformed):
		return nil, rec, false, fmt.Errorf("ingest: existing tree record %q: %w %s", id, err, fix)
	case err != nil:
		return nil, rec, false, fmt.Errorf("ingest: read tree record %q: %w", id, err)
	}
	t, err := tree.Parse(rec.Document)
	if err != nil {
		return nil, rec, false, fmt.Errorf("ingest: existing tree record %q: %w %s", id, err, fix)
	}
	writer, _ := rec.Metadata[MetaWriter].(string)
	return t, rec, writer == WriterName && rec.Metadata[MetaDirty] != true, nil
}

// markDirty marks the previous tree record dirty, once, before the first
// chunk is written: the record is written again unchanged but for
// MetaDirty.
func (in *ingestion) markDirty() error {
	if in.toMark == nil {
		return nil
	}
	md := maps.Clone(in.toMark.Metadata)
	if md == nil {
		md = map[string]any{}
	}
	md[MetaDirty] = true
	// A sharded tree's manifest: its shards stay as they are.
	doc := in.toMark.RecordDocument
	rec := collection.Record{ID: in.opt.Layout.TreeID, Document: string(doc), Metadata: md, System: true}
	if err := in.dst.Upsert(in.ctx, []collection.Record{rec}); err != nil {
		return in.failed("mark tree record "+strconv.Quote(in.opt.Layout.TreeID)+" dirty", err)
	}
	in.toMark = nil
	return nil
}

// page processes one file: it returns the file's tree entry, or ok false
// when the file is skipped.
func (in *ingestion) page(src fs.FS, f file, old *tree.Tree, trusted bool) (e tree.Entry, ok bool, err error) {
	r := in.report
	content, err := fs.ReadFile(src, f.slug)
	if err != nil {
		return e, false, in.failed("read "+displayPath(f.slug), err)
	}
	if !utf8.Valid(content) {
		r.Skipped = append(r.Skipped, Skip{f.slug, "content is not valid UTF-8 text"})
		return e, false, nil
	}
	isPublic, groups := in.opt.Rules.Access(f.slug)
	e = PageEntry(f.slug, content, f.info.ModTime(), isPublic, groups, 0, false)

	var prev *tree.Entry
	if old != nil {
		prev, _ = old.Entry(f.slug)
	}
	if prev != nil && trusted && !in.opt.Force && prev.Hash == e.Hash && prev.Chunks > 0 {
		// Unchanged content is not cut again: its chunks are those the
		// previous entry names.
		e.Chunks, e.SplitLines = prev.Chunks, prev.SplitLines
		r.Unchanged++
		return e, true, nil
	}

	chunks, split := Chunk(content, in.opt.MaxChunk)
	e.Chunks, e.SplitLines = len(chunks), split
	page := pendingPage{slug: f.slug, ids: make(map[string]bool, len(chunks))}
	recs, err := ChunkRecords(in.opt.Layout, f.slug, chunks)
	if err != nil {
		return e, false, fmt.Errorf("ingest: page %s: %w", displayPath(f.slug), err)
	}
	for _, r := range recs {
		page.ids[r.ID] = true
	}
	in.pending = append(in.pending, recs...)
	in.pendingPages = append(in.pendingPages, page)
	if prev != nil {
		r.Updated++
	} else {
		r.Added++
	}
	if len(in.pending) >= in.opt.BatchSize {
		if err := in.flush(); err != nil {
			return e, false, err
		}
	}
	return e, true, nil
}

// PageEntry returns the tree entry of the page slug as ingest writes it:
//
//   - Size: len(content);
//   - ModTime: modTime in UTC, truncated to the second;
//   - Hash: "sha256:" and the lowercase hex SHA-256 of content (what
//     readers check pages and pointers against);
//   - ContentType: ContentType(slug, content);
//   - IsPublic and Groups as given, with HasIsPublic set;
//   - Chunks and SplitLines as given: the number of chunk records the
//     page is stored in and whether a chunk was cut inside a line, as
//     Chunk returns them (len(chunks), splitLines).
//
// Every writer of chromafs trees builds page entries with it, so that
// they agree on the format. groups is not copied.
func PageEntry(slug string, content []byte, modTime time.Time, isPublic bool, groups []string, chunks int, splitLines bool) tree.Entry {
	sum := sha256.Sum256(content)
	return tree.Entry{
		Slug:        slug,
		IsPublic:    isPublic,
		HasIsPublic: true,
		Groups:      groups,
		Size:        int64(len(content)),
		ModTime:     modTime.UTC().Truncate(time.Second),
		Hash:        "sha256:" + hex.EncodeToString(sum[:]),
		ContentType: ContentType(slug, content),
		Chunks:      chunks,
		SplitLines:  splitLines,
	}
}

// ChunkID returns the record id of chunk index of page slug:
// "<slug>#<index>". Ids are unique because the index is the digits after
// the last "#".
func ChunkID(slug string, index int) string {
	return collection.ChunkID(slug, index)
}

// ChunkRecords returns the records of a page's chunks (from Chunk) as
// chromafs ingest writes them: id ChunkID(slug, i), the chunk as the
// document, and metadata holding the layout's slug and index fields and
// collection.LineKey, the 1-based page line on which the chunk starts.
// Every writer of the format (ingest, the test generator) builds chunk
// records here. A chunk whose id would be the layout's tree record id is
// an error.
func ChunkRecords(l collection.Layout, slug string, chunks []string) ([]collection.Record, error) {
	l = l.WithDefaults()
	recs := make([]collection.Record, len(chunks))
	line := 1 // of the chunk's first byte
	for i, text := range chunks {
		id := ChunkID(slug, i)
		if id == l.TreeID {
			return nil, fmt.Errorf("chunk id %q is the tree record's id", id)
		}
		recs[i] = collection.Record{
			ID:       id,
			Document: text,
			Metadata: map[string]any{l.SlugField: slug, l.IndexField: i, collection.LineKey: line},
		}
		line += strings.Count(text, "\n")
	}
	return recs, nil
}

// flush upserts the pending records, then deletes the records of their
// pages that are not among the new ones.
func (in *ingestion) flush() error {
	for len(in.pending) > 0 {
		n := min(len(in.pending), in.opt.BatchSize)
		batch := in.pending[:n]
		if !in.opt.DryRun {
			if err := in.markDirty(); err != nil {
				return err
			}
			if err := in.dst.Upsert(in.ctx, batch); err != nil {
				return in.failed("upsert chunks of "+pageRange(batch, in.opt.Layout.SlugField), err)
			}
		}
		in.report.Chunks += n
		in.pending = in.pending[n:]
	}
	in.pending = nil
	pages := in.pendingPages
	in.pendingPages = nil
	if len(pages) == 0 {
		return nil
	}
	slugs := make([]string, len(pages))
	for i, p := range pages {
		slugs[i] = p.slug
	}
	current, err := in.dst.ChunkIDs(in.ctx, in.opt.Layout, slugs)
	if err != nil {
		return in.failed("list chunks of "+displayPath(slugs[0])+" ...", err)
	}
	var stale []string
	for _, p := range pages {
		for _, id := range current[p.slug] {
			if !p.ids[id] && id != in.opt.Layout.TreeID {
				stale = append(stale, id)
			}
		}
	}
	return in.delete(stale, "delete stale chunks")
}

// deletePages deletes every record of the given pages.
func (in *ingestion) deletePages(slugs []string) error {
	for len(slugs) > 0 {
		n := min(len(slugs), in.opt.BatchSize)
		current, err := in.dst.ChunkIDs(in.ctx, in.opt.Layout, slugs[:n])
		if err != nil {
			return in.failed("list chunks of removed page "+displayPath(slugs[0])+" ...", err)
		}
		var ids []string
		for _, slug := range slugs[:n] {
			for _, id := range current[slug] {
				if id != in.opt.Layout.TreeID {
					ids = append(ids, id)
				}
			}
		}
		if err := in.delete(ids, "delete chunks of removed page "+displayPath(slugs[0])+" ..."); err != nil {
			return err
		}
		slugs = slugs[n:]
	}
	return nil
}

// prune deletes the records of pages that are neither in the new tree
// (seen) nor removed (their records are deleted already, or would be in a
// dry run).
//
// It also deletes tree shards (collection.IsShardID) that the new
// manifest does not name (keepShards): shards left by a run that failed
// between writing them and writing their manifest.
func (in *ingestion) prune(sc collection.Scanner, seen map[string]bool, removed []string, keepShards map[string]bool) error {
	skip := make(map[string]bool, len(removed))
	for _, slug := range removed {
		skip[slug] = true
	}
	var orphans []string
	err := sc.Scan(in.ctx, in.opt.Layout, false, func(cs []collection.Chunk) error {
		for _, c := range cs {
			if !seen[c.Slug] && !skip[c.Slug] && c.ID != in.opt.Layout.TreeID {
				orphans = append(orphans, c.ID)
			}
		}
		return nil
	})
	if err != nil {
		return in.failed("prune: scan collection", err)
	}
	ids, err := sc.IDs(in.ctx)
	if err != nil {
		return in.failed("prune: list record ids", err)
	}
	for _, id := range ids {
		shard := collection.IsShardID(in.opt.Layout.TreeID, id) || collection.IsShardID(treeindex.RecordID(in.opt.Layout.TreeID), id)
		if shard && !keepShards[id] {
			orphans = append(orphans, id)
		}
	}
	in.report.Orphans = len(orphans)
	return in.delete(orphans, "prune: delete orphan records")
}

func (in *ingestion) delete(ids []string, what string) error {
	for len(ids) > 0 {
		n := min(len(ids), in.opt.BatchSize)
		if !in.opt.DryRun {
			if err := in.dst.Delete(in.ctx, ids[:n]); err != nil {
				return in.failed(what, err)
			}
		}
		in.report.Deleted += n
		ids = ids[n:]
	}
	return nil
}

func (in *ingestion) progress() {
	if in.opt.Progress != nil {
		in.opt.Progress(in.done, in.total)
	}
}

// failed wraps err with what failed and how far the run got.
func (in *ingestion) failed(what string, err error) error {
	r := in.report
	if what != "" {
		what += ": "
	}
	tree := "tree not updated"
	if in.wrote {
		tree = "tree updated"
	}
	return fmt.Errorf("ingest: %safter %d of %d files (%d chunks written, %d records deleted, %s): %w",
		what, in.done, in.total, r.Chunks, r.Deleted, tree, err)
}

// pageRange names the pages of a batch of records.
func pageRange(batch []collection.Record, slugField string) string {
	first, _ := batch[0].Metadata[slugField].(string)
	last, _ := batch[len(batch)-1].Metadata[slugField].(string)
	if first == last {
		return displayPath(first)
	}
	return displayPath(first) + " ... " + displayPath(last)
}

// displayPath returns p, quoted if it is not clean printable text.
func displayPath(p string) string {
	for _, r := range p {
		if r == utf8.RuneError || r == '"' || r == '\\' || !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}
