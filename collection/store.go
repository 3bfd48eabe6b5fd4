package collection

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/chromafs/chromafs/fscap"
)

// Layout names the metadata fields and the tree record of a collection.
// An empty field stands for its default (see DefaultLayout): the
// filesystem (chromafs.WithLayout), ingest and validate complete a Layout
// with WithDefaults, so the zero Layout is the layout that existing
// collections use. Store methods receive a complete Layout.
type Layout struct {
	// SlugField is the metadata field that holds a chunk's page slug
	// (default "page_slug").
	SlugField string
	// IndexField is the metadata field that holds a chunk's 0-based index
	// within its page (default "chunk_index").
	IndexField string
	// TreeID is the id of the record whose document is the path tree
	// (default "__path_tree__").
	TreeID string
}

// DefaultLayout returns the layout that existing collections use:
// page_slug, chunk_index and __path_tree__.
func DefaultLayout() Layout {
	return Layout{
		SlugField:  "page_slug",
		IndexField: "chunk_index",
		TreeID:     "__path_tree__",
	}
}

// WithDefaults returns l with its empty fields taken from DefaultLayout.
func (l Layout) WithDefaults() Layout {
	d := DefaultLayout()
	if l.SlugField == "" {
		l.SlugField = d.SlugField
	}
	if l.IndexField == "" {
		l.IndexField = d.IndexField
	}
	if l.TreeID == "" {
		l.TreeID = d.TreeID
	}
	return l
}

// TreeRecord is a record as Store.Tree and RecordReader return it: the
// tree record, or a shard of a sharded tree.
type TreeRecord struct {
	// Document is the record's document. For a tree record: a JSON object,
	// or the same gzip-compressed and base64-encoded, or a sharded tree's
	// manifest (see ParseManifest).
	Document []byte
	// Metadata is the record's metadata (may be nil).
	Metadata map[string]any
}

// NoIndex is the Chunk.Index of a chunk whose index field is missing or
// is not a non-negative integer.
const NoIndex = -1

// Chunk is one record of a page.
type Chunk struct {
	// ID is the record id.
	ID string
	// Slug is the page the chunk belongs to.
	Slug string
	// Index is the chunk's position within its page, or NoIndex.
	Index int
	// Text is the chunk's document. It is empty when the caller did not ask
	// for documents.
	Text string
}

// Store is the read side of a collection, shaped by what the filesystem
// needs rather than by Chroma's API. Package chromastore implements it
// over a Chroma server and package memstore in memory.
//
// Implementations must be safe for concurrent use, must honour the
// context's deadline and cancellation, and must never return records of
// pages that were not asked for.
type Store interface {
	// CollectionID returns a stable identifier of the collection, used to
	// namespace cache keys.
	CollectionID() string

	// Tree returns the record with the given id. If there is no such record
	// the error wraps ErrNoTree.
	Tree(ctx context.Context, id string) (TreeRecord, error)

	// Chunks returns every chunk (with its text) whose slug field, named by
	// layout, is one of slugs, each once. The order is unspecified. slugs
	// is never empty, but may repeat a slug or name pages that have no
	// records; implementations batch and page requests as their backend
	// needs.
	Chunks(ctx context.Context, layout Layout, slugs []string) ([]Chunk, error)
}

// IDReader is implemented by stores that can fetch records by id. On
// Chroma a get by id is a direct lookup while a get by slug filters the
// metadata of the whole collection, a cost that grows with the collection
// (BENCHMARKS.md, "Other observations"), so the filesystem reads by id
// when the collection says its chunk ids follow ChunkID (see ChunkIDsKey).
type IDReader interface {
	// ChunksByID returns those of the records with the given ids that
	// exist and carry the layout's slug field as a string, each once, with
	// their texts and indexes. The order is unspecified. ids is never
	// empty, but may repeat an id; implementations batch as their backend
	// needs.
	ChunksByID(ctx context.Context, layout Layout, ids []string) ([]Chunk, error)
}

// PartReader is implemented by stores whose reads are answered in parts
// (Chroma: one request per batch of slugs or ids, several in flight): it
// hands over each part as soon as it is answered, so that the filesystem
// assembles and checks the pages of one part while the others are still
// on their way, instead of waiting for the last.
type PartReader interface {
	// ChunksEach returns what Chunks returns, by calling fn with the
	// chunks of each part of the answer as that part comes in. fn is
	// called from one goroutine at a time and should return quickly (the
	// next part waits for it); a record already handed over is not handed
	// over again. The first error of fn stops the read and is returned as
	// it is.
	ChunksEach(ctx context.Context, layout Layout, slugs []string, fn func([]Chunk) error) error
	// ChunksByIDEach returns what IDReader.ChunksByID returns, part by
	// part, as ChunksEach does.
	ChunksByIDEach(ctx context.Context, layout Layout, ids []string, fn func([]Chunk) error) error
}

// ChunkIDsKey is the tree record metadata key by which a writer declares
// that the id of chunk i of page slug is ChunkID(slug, i). Its value must
// be ChunkIDScheme. chromafs ingest writes it.
const ChunkIDsKey = "chromafs_chunk_ids"

// ChunkIDScheme is the value of ChunkIDsKey for ids made by ChunkID.
const ChunkIDScheme = "slug#index"

// ChunkID returns the id of chunk i of page slug under ChunkIDScheme:
// the slug, "#", and the index in decimal.
func ChunkID(slug string, i int) string {
	return slug + "#" + strconv.Itoa(i)
}

// Scanner is implemented by stores that can enumerate every record of a
// collection. It is used by validation, never by the filesystem.
type Scanner interface {
	// Scan calls fn with successive batches, never empty, of every record
	// that has the layout's slug field as a string, each once, in no
	// particular order, with texts when withText is set. fn may call the
	// store. Scan stops at the first error fn returns and returns it as
	// it is.
	Scan(ctx context.Context, layout Layout, withText bool, fn func([]Chunk) error) error
	// IDs returns the ids of every record of the collection, each once, in
	// no particular order, including records without a slug field (such
	// as the tree record).
	IDs(ctx context.Context) ([]string, error)
}

// RecordScanner is implemented by stores that can enumerate every record
// with its metadata, whatever layout wrote it. Package adopt reads the
// collections other tools wrote with it; the filesystem never uses it.
type RecordScanner interface {
	// ScanRecords calls fn with successive batches, never empty, of every
	// record of the collection, each once, with its document and its
	// metadata (System false; chromastore gives numbers as int64 or
	// float64, memstore as they were written), in the store's order: insertion
	// order for memstore and for a Chroma whose get pages in insertion
	// order. fn owns the batch and may call the store. ScanRecords stops
	// at the first error fn returns and returns it as it is.
	ScanRecords(ctx context.Context, fn func([]Record) error) error
}

// DocumentReader is implemented by stores that can fetch the documents
// of records by id, whatever their metadata: the filesystem reads the
// chunks of a page that another tool wrote (see Recipe) with it.
type DocumentReader interface {
	// DocumentsByID returns the documents of those of the records with
	// the given ids that exist, by id ("" for a record without one). ids
	// is never empty, but may repeat an id; implementations batch as
	// their backend needs.
	DocumentsByID(ctx context.Context, ids []string) (map[string]string, error)
}

// Record is one record to write.
type Record struct {
	ID       string
	Document string
	Metadata map[string]any
	// System marks a record that is not content (the tree record): it is
	// stored with a zero embedding instead of an embedded document. A
	// store may also set SystemKey in its metadata (chromastore does,
	// memstore does not); writers set it themselves.
	System bool
}

// Writer is the write side of a collection. The filesystem never uses it;
// package ingest does.
type Writer interface {
	// Upsert writes records, replacing records with the same ids: a
	// replaced record takes the new document, but its metadata is merged
	// into the old one, as Chroma merges it (keys the new metadata leaves
	// out keep their values; a key set to nil is removed). The ids of one
	// call must be distinct (chromastore refuses a repeated id, memstore
	// writes the last). A record with an empty id is an error, and then
	// nothing is written. Implementations batch as their backend needs.
	Upsert(ctx context.Context, records []Record) error
	// Delete removes the records with the given ids; unknown ids are
	// ignored, and so is an empty list.
	Delete(ctx context.Context, ids []string) error
	// ChunkIDs returns, for each of slugs that has records, the ids of its
	// records, in no particular order; slugs without records have no
	// entry, and an empty slugs gives an empty map.
	ChunkIDs(ctx context.Context, layout Layout, slugs []string) (map[string][]string, error)
}

// ErrNoTree is wrapped by errors from a collection that has no tree record.
// It matches fscap.ErrContent.
var ErrNoTree = fscap.NewContentError("collection has no path tree record")

// TreeVersionKey is the collection metadata key under which a writer
// records the version (TreeVersionOf) of the tree record it wrote last.
// chromafs ingest clears it (to "") before it writes a tree record and sets
// it after, so that a reader never trusts a version that may be older
// than the tree. Readers use it to learn that the tree they hold is still
// current with a collection lookup instead of fetching the tree record.
const TreeVersionKey = "chromafs_tree_version"

// TreeVersionOf returns the version of a tree record's document: a digest
// of its bytes. The filesystem reports it (FS.TreeVersion in package
// chromafs), and cache keys carry it.
func TreeVersionOf(doc []byte) string {
	sum := sha256.Sum256(doc)
	return hex.EncodeToString(sum[:12])
}

// Limiter is implemented by stores whose server limits requests (Chroma
// Cloud; see chromastore.Config.CloudLimits). The filesystem's grep
// candidates (FS.Candidates in package chromafs) build their
// queries within the limits; 0 means no limit.
type Limiter interface {
	// Limits returns the longest regex in bytes and the most slugs an
	// excluding Scope may list.
	Limits() (maxRegexBytes, maxExcluded int)
}

// TreeVersioner is implemented by stores that can read TreeVersionKey
// from the collection's metadata, fresh, at less cost than fetching the
// tree record (on Chroma, a collection lookup).
type TreeVersioner interface {
	// TreeVersion returns the collection's TreeVersionKey, or "" if it
	// has none.
	TreeVersion(ctx context.Context) (string, error)
}

// LineAlignedKey is the tree record metadata key by which a writer
// declares, with the value true, that every chunk of every page ends at a
// line end ("\n") or at the end of its page, except in pages whose tree
// entry has SplitLines set. chromafs ingest writes it. On such a
// collection no line (and so no literal without a newline) straddles two
// chunks, which spares grep's candidate search (FS.Candidates in package
// chromafs) its boundary queries.
const LineAlignedKey = "chromafs_line_aligned"

// TextFilter selects records by their document: a record matches if its
// document contains any of Contains (exact, case-sensitive substrings) or
// matches any of Regexes. A regex must use only the syntax that Go's
// regexp and Rust's regex crate (Chroma's) read the same way: escaped
// literals (as regexp.QuoteMeta writes them), character classes of
// literal runes, the flags (?i) and (?s), ^ and $ (start and end of the
// document), groups, alternation and bounded repetition of at most 1000.
// A zero TextFilter matches every record.
type TextFilter struct {
	Contains []string
	Regexes  []string
}

// IsZero reports whether f has no condition.
func (f TextFilter) IsZero() bool { return len(f.Contains) == 0 && len(f.Regexes) == 0 }

// Scope selects records by their slug field: the records whose slug is
// one of Slugs or, with Exclude set, every record that has a slug field
// whose slug is not one of Slugs (with Slugs empty: every record with a
// slug field). Exclude lets a search over most of a collection send the
// short list of pages it leaves out rather than the long list it covers:
// on Chroma 1.0 a slug filter costs more the more values it lists
// (BENCHMARKS.md, "grep").
type Scope struct {
	Slugs   []string
	Exclude bool
	// IDsOnly asks for the ids of the matching records only: the results
	// may then have an empty Slug (and Index NoIndex), and with Exclude
	// they may include records that have no slug field as a string (the
	// tree record, for one), never records of the pages Slugs lists.
	// Callers set it when ids
	// tell the page (ChunkIDScheme): on Chroma 1.0 an answer of ids alone
	// is much cheaper than one with metadata (BENCHMARKS.md, "grep").
	IDsOnly bool
	// IDs, when set, restricts a VectorQuerier.QueryVector or a
	// Searcher.Search to the records with these ids, whatever their
	// metadata; Slugs, Exclude and IDsOnly are then ignored. QueryVector's
	// chunks come back with their ids, texts and distances, Search's
	// with their ids alone (Slug empty, Index NoIndex, as with IDsOnly).
	// The chunks of a page that another tool wrote (collection Recipe)
	// carry no slug: semantic search and grep's coarse filter over an
	// adopted collection name them by id.
	IDs []string
}

// Searcher is implemented by stores that can filter records by their
// documents on the server side: the coarse filter of grep (see
// FS.Candidates in package chromafs).
type Searcher interface {
	// Search returns the id, slug and index (never the text) of every
	// record in scope whose document matches f. The order is unspecified.
	// An including scope is never empty; implementations batch and page
	// requests as their backend needs (an excluding scope cannot be
	// batched: it is sent whole), and must never return records outside
	// the scope (but see Scope.IDsOnly). With scope.IDs, the scope is
	// those ids (some may name no record), and the answer their ids
	// alone. A regex that does not compile is an error.
	Search(ctx context.Context, layout Layout, scope Scope, f TextFilter) ([]Chunk, error)
}
