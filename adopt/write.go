package adopt

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/tree"
)

// Markers of the tree record adopt writes.
const (
	// WriterName is the tree record's ingest.MetaWriter: the tree was
	// written by adopt, beside chunks another tool wrote.
	WriterName = "chromafs-adopt/1"
	// LayoutKey names, in the tree record's metadata, the layout adopted
	// (Layout.Name).
	LayoutKey = "chromafs_adopted_layout"
)

// Target is a collection adopt reads and writes the tree of:
// chromastore.Collection and memstore.Store are.
type Target interface {
	ingest.Target
	collection.RecordScanner
}

// WriteOptions tune Write.
type WriteOptions struct {
	// TreeID is the tree record's id (default "__path_tree__").
	TreeID string
	// Rules decide each page's access. nil keeps, for a page the
	// collection's tree already has, the access it gives, and makes
	// other pages public.
	Rules *ingest.Rules
	// Compressed writes the tree document gzip-compressed and base64
	// encoded.
	Compressed bool
	// TreeMaxBytes shards tree documents larger than this (Chroma
	// Cloud's 16 KiB limit); 0 takes the store's MaxDocumentBytes when it
	// has one, else no limit.
	TreeMaxBytes int
	// BatchSize is the most records one Upsert or Delete sends (default
	// ingest.DefaultBatchSize).
	BatchSize int
	// DryRun writes nothing, and reports what Write would do.
	DryRun bool
}

// Report says what Write did (or, in a dry run, would do).
type Report struct {
	// Pages by what happened to them since the previous tree: new pages,
	// pages whose chunks or content changed, pages gone (their chunks
	// are no longer in the collection), pages as they were.
	Added, Changed, Removed, Unchanged []string
	// TreeBytes is the size of the tree document; TreeShards the number
	// of its shards (0 for a tree in one record).
	TreeBytes, TreeShards int
	// Deleted counts the previous tree's shards deleted.
	Deleted int
}

// ErrIngested is returned by Write for a collection whose tree chromafs
// ingest wrote: its pages need no adopting.
var ErrIngested = errors.New("adopt: the collection was written by chromafs ingest: serve it as it is, or re-ingest the docs folder")

// Write writes the tree of the pages res found into dst: the tree record
// (sharded under the limit), its compact index and the collection's tree
// version marker, as ingest writes them, with metadata naming adopt
// (WriterName) and the layout (LayoutKey). A page of a foreign layout
// gets its size, sha256 hash, content type, number of parts and the
// recipe (tree.Entry.Parts) a reader builds it from; a page of
// chromafs's layout is read by slug and index as ever, and gets its size
// and hash. Write touches no chunk: it writes the tree and its index,
// and deletes only the previous tree's shards that the new tree does not
// reuse.
//
// Run again after the other tool re-ingested, it compares with the
// tree it wrote before: pages whose parts and hash are the same are
// Unchanged, and pages whose chunks are gone are Removed from the tree.
func Write(ctx context.Context, dst Target, res *Result, opt WriteOptions) (*Report, error) {
	if opt.TreeID == "" {
		opt.TreeID = collection.DefaultLayout().TreeID
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = ingest.DefaultBatchSize
	}
	if dl, ok := dst.(interface{ MaxDocumentBytes() int }); ok && opt.TreeMaxBytes == 0 {
		opt.TreeMaxBytes = dl.MaxDocumentBytes()
	}
	old, oldDoc, err := previousTree(ctx, dst, opt.TreeID)
	if err != nil {
		return nil, err
	}
	if old != nil && oldDoc.Metadata[ingest.MetaWriter] == ingest.WriterName {
		return nil, ErrIngested
	}
	foreign := res.Layout.Name != Chromafs.Name
	rep := &Report{}
	entries := make([]tree.Entry, 0, len(res.Pages))
	seen := map[string]bool{}
	for _, p := range res.Pages {
		e := tree.Entry{
			Slug:        p.Slug,
			IsPublic:    true,
			HasIsPublic: true,
			Size:        int64(len(p.Content)),
			Hash:        p.Hash,
			ContentType: ingest.ContentType(p.Slug, p.Content),
			Chunks:      p.Chunks,
			SplitLines:  true,
		}
		if foreign {
			e.Parts = p.Recipe().Encode()
			e.Chunks = len(p.Parts)
		}
		var prev *tree.Entry
		if old != nil {
			prev, _ = old.Entry(p.Slug)
		}
		switch {
		case opt.Rules != nil:
			e.IsPublic, e.Groups = opt.Rules.Access(p.Slug)
		case prev != nil:
			e.IsPublic, e.Groups = prev.IsPublic, prev.Groups
		}
		switch {
		case prev == nil:
			rep.Added = append(rep.Added, p.Slug)
		case prev.Hash == e.Hash && prev.Parts == e.Parts && prev.Size == e.Size:
			rep.Unchanged = append(rep.Unchanged, p.Slug)
		default:
			rep.Changed = append(rep.Changed, p.Slug)
		}
		seen[p.Slug] = true
		entries = append(entries, e)
	}
	if old != nil {
		for _, e := range old.Entries() {
			if !seen[e.Slug] {
				rep.Removed = append(rep.Removed, e.Slug)
			}
		}
	}
	meta := map[string]any{
		ingest.MetaSystem: true,
		ingest.MetaWriter: WriterName,
		LayoutKey:         res.Layout.Name,
	}
	tr, err := ingest.BuildTreeWith(opt.TreeID, entries, opt.Compressed, opt.TreeMaxBytes, meta)
	if err != nil {
		return nil, fmt.Errorf("adopt: %w", err)
	}
	rep.TreeBytes, rep.TreeShards = len(tr.Doc), len(tr.Shards)
	stale := tr.StaleShards(oldDoc.Manifest, ingest.IndexManifest(ctx, dst, opt.TreeID))
	rep.Deleted = len(stale)
	if opt.DryRun {
		return rep, nil
	}
	if _, err := tr.Write(ctx, dst, opt.BatchSize); err != nil {
		return nil, fmt.Errorf("adopt: %w", err)
	}
	for b := range slices.Chunk(stale, opt.BatchSize) {
		if err := dst.Delete(ctx, b); err != nil {
			return nil, fmt.Errorf("adopt: the tree was written, but deleting the previous tree's shards failed (they are harmless; adopt again to retry): %w", err)
		}
	}
	return rep, nil
}

// previousTree returns the collection's tree and its record, or nil when
// it has none.
func previousTree(ctx context.Context, dst Target, treeID string) (*tree.Tree, collection.TreeDoc, error) {
	doc, err := collection.ReadTree(ctx, dst, treeID)
	if errors.Is(err, collection.ErrNoTree) {
		return nil, collection.TreeDoc{}, nil
	}
	if err != nil {
		return nil, doc, fmt.Errorf("adopt: read the collection's tree %q: %w", treeID, err)
	}
	t, err := tree.Parse(doc.Document)
	if err != nil {
		return nil, doc, fmt.Errorf("adopt: the collection's tree %q does not parse (delete the record to start afresh): %w", treeID, err)
	}
	return t, doc, nil
}
