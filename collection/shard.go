package collection

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/chromafs/chromafs/tree"
)

// Sharded trees.
//
// A store may limit the size of a document (Chroma Cloud: 16 KiB), and the
// path tree of a large collection is larger than that (0.77 MB for 10k
// pages, gzip-compressed). Such a tree is written as a manifest plus
// shards:
//
//   - The tree record (Layout.TreeID) holds the manifest: the line
//     ManifestHeader followed by a JSON object with the shard count,
//     the prefix of the shard ids, and the size and sha256 of the whole
//     tree document. The manifest is not a JSON object, so a reader that
//     does not know sharding fails loudly on it ("malformed tree") instead
//     of showing an empty tree.
//   - Shard i is the record with id prefix+i. Its document is the i-th
//     piece of the tree document, cut at UTF-8 boundaries; the pieces
//     concatenated are the tree document, byte for byte. Shards carry no
//     slug field, so slug-scoped queries never return them.
//
// The shard id prefix carries a digest of the tree document, so a writer
// writes a new tree's shards beside the old ones, then the manifest, and
// only then deletes the old shards: a reader never assembles shards of two
// trees. A reader that meets a missing shard or a digest mismatch (a
// writer replaced the tree between its two requests) fetches the manifest
// again, once.
//
// The assembled document is parsed like a single-record tree, and its
// version (TreeVersionOf) is the version of the same tree written whole,
// so caches keyed by version are shared between the two layouts.

// ManifestHeader is the first line of the document of a sharded tree's
// manifest record.
const ManifestHeader = "chromafs-tree-manifest/1"

// MinShardBytes is the smallest document size limit ShardTree accepts.
const MinShardBytes = 1024

// ErrShard is wrapped by errors about a sharded tree whose shards
// cannot be assembled: a shard is missing, or the assembled document's
// size or digest differs from the manifest's. It also wraps
// tree.ErrMalformed.
var ErrShard = fmt.Errorf("%w: sharded path tree is incomplete", tree.ErrMalformed)

// Manifest is the content of a sharded tree's manifest record.
type Manifest struct {
	// Shards is the number of shard records.
	Shards int `json:"shards"`
	// Prefix is the id prefix of the shards: shard i has id
	// Prefix+strconv.Itoa(i).
	Prefix string `json:"prefix"`
	// Size is the length in bytes of the assembled tree document.
	Size int64 `json:"size"`
	// SHA256 is the hex sha256 digest of the assembled tree document.
	SHA256 string `json:"sha256"`
}

// ShardID returns the id of shard i.
func (m *Manifest) ShardID(i int) string { return m.Prefix + strconv.Itoa(i) }

// ShardIDs returns the ids of every shard, in order.
func (m *Manifest) ShardIDs() []string {
	ids := make([]string, m.Shards)
	for i := range ids {
		ids[i] = m.ShardID(i)
	}
	return ids
}

// IsShardID reports whether id has the form of a shard id of the tree
// record treeID (of any tree version). Validation and pruning use it to
// tell shard records, which have no slug field, from foreign records.
func IsShardID(treeID, id string) bool {
	rest, ok := strings.CutPrefix(id, treeID+"/shard/")
	if !ok {
		return false
	}
	digest, idx, ok := strings.Cut(rest, "/")
	if !ok || len(digest) != 16 || idx == "" {
		return false
	}
	_, err := strconv.Atoi(idx)
	return err == nil
}

// ParseManifest reports whether doc is the document of a sharded
// tree's manifest and, if so, returns the manifest. A document that starts
// with ManifestHeader but does not hold a valid manifest is an error
// wrapping tree.ErrMalformed.
func ParseManifest(doc []byte) (*Manifest, bool, error) {
	rest, ok := bytes.CutPrefix(doc, []byte(ManifestHeader))
	if !ok {
		return nil, false, nil
	}
	var m Manifest
	if err := json.Unmarshal(rest, &m); err != nil {
		return nil, true, fmt.Errorf("%w: tree manifest: %v", tree.ErrMalformed, err)
	}
	if m.Shards < 1 || m.Shards > 1<<20 || m.Prefix == "" || m.Size < 0 || len(m.SHA256) != 64 {
		return nil, true, fmt.Errorf("%w: tree manifest: bad fields (shards %d, prefix %q, size %d, sha256 %q)", tree.ErrMalformed, m.Shards, m.Prefix, m.Size, m.SHA256)
	}
	return &m, true, nil
}

// ShardTree prepares the tree document doc for a store whose documents may
// hold at most maxBytes bytes. If doc fits, it returns doc itself as the
// manifest document and no shards: write it as the tree record, as
// always. Otherwise it returns the manifest document for the tree record
// (id treeID) and the shard records (System, with metadata SystemKey and
// ShardKey), which must be written before the manifest. maxBytes
// of 0 or less means no limit; a positive value below MinShardBytes is
// an error.
func ShardTree(treeID string, doc []byte, maxBytes int) (manifest []byte, shards []Record, err error) {
	if maxBytes <= 0 || len(doc) <= maxBytes {
		return doc, nil, nil
	}
	if maxBytes < MinShardBytes {
		return nil, nil, fmt.Errorf("chromafs: tree document limit of %d bytes is below the minimum of %d", maxBytes, MinShardBytes)
	}
	sum := sha256.Sum256(doc)
	digest := hex.EncodeToString(sum[:])
	m := Manifest{Prefix: treeID + "/shard/" + digest[:16] + "/", Size: int64(len(doc)), SHA256: digest}
	for rest := doc; len(rest) > 0; {
		n := min(maxBytes, len(rest))
		if n < len(rest) {
			// Cut before the rune that straddles the limit: a document
			// must be valid UTF-8.
			for n > 0 && !utf8.RuneStart(rest[n]) {
				n--
			}
			if n == 0 {
				return nil, nil, fmt.Errorf("chromafs: tree document is not valid UTF-8")
			}
		}
		id := m.Prefix + strconv.Itoa(len(shards))
		shards = append(shards, Record{
			ID:       id,
			Document: string(rest[:n]),
			Metadata: map[string]any{SystemKey: true, ShardKey: len(shards)},
			System:   true,
		})
		rest = rest[n:]
	}
	m.Shards = len(shards)
	body, err := json.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	manifest = append([]byte(ManifestHeader+"\n"), body...)
	if len(manifest) > maxBytes {
		return nil, nil, fmt.Errorf("chromafs: tree manifest of %d bytes exceeds the limit of %d (tree id %q too long?)", len(manifest), maxBytes, treeID)
	}
	return manifest, shards, nil
}

// RecordReader is implemented by stores that can fetch several records by
// id in few requests. ReadTree reads the shards of a sharded tree with it;
// without it, each shard is one Tree call.
type RecordReader interface {
	// RecordsByID returns those of the records with the given ids that exist,
	// by id, with documents and metadata. ids is never empty;
	// implementations batch as their backend needs.
	RecordsByID(ctx context.Context, ids []string) (map[string]TreeRecord, error)
}

// TreeDoc is a tree record as ReadTree reads it: the whole tree document
// with what ReadTree learned on the way, so that callers need not parse
// the manifest or hash the document again.
type TreeDoc struct {
	// Document is the whole tree document: the tree record's own, or the
	// shards of a sharded tree assembled and checked against the
	// manifest.
	Document []byte
	// Metadata is the tree record's metadata (may be nil).
	Metadata map[string]any
	// Manifest is the manifest of a sharded tree; nil for a tree in one
	// record.
	Manifest *Manifest
	// RecordDocument is the tree record's own document: Document for a
	// tree in one record, the manifest document of a sharded tree. A
	// writer that rewrites the tree record with new metadata but the same
	// tree writes it (a sharded tree's shards stay valid).
	RecordDocument []byte
	// Version is the tree's version, TreeVersionOf(Document). A sharded
	// tree's is taken from its manifest's digest, which ReadTree checked,
	// so that a large document is not hashed twice.
	Version string
}

// ReadTree reads the tree record treeID of the collection behind store
// with the whole tree document: the record's own document, or for a
// sharded tree the shards named by its manifest, assembled and checked
// against the manifest's size and digest.
// A missing tree record is an error wrapping ErrNoTree; a malformed
// manifest, one wrapping tree.ErrMalformed; a sharded tree that cannot be
// assembled, one wrapping ErrShard (and tree.ErrMalformed). ReadTree does
// not parse the tree document itself (see tree.Parse).
func ReadTree(ctx context.Context, store Store, treeID string) (TreeDoc, error) {
	var lastErr error
	for attempt := range treeShardAttempts {
		if attempt > 0 {
			// A store that is only eventually consistent (a distributed
			// Chroma) may show a new manifest before its shards.
			select {
			case <-ctx.Done():
				return TreeDoc{}, fmt.Errorf("%w (%w)", lastErr, ctx.Err())
			case <-time.After(time.Duration(attempt*attempt) * 100 * time.Millisecond):
			}
		}
		rec, err := store.Tree(ctx, treeID)
		if err != nil {
			return TreeDoc{}, err
		}
		m, sharded, err := ParseManifest(rec.Document)
		if err != nil {
			return TreeDoc{}, err
		}
		if !sharded {
			return TreeDoc{
				Document:       rec.Document,
				Metadata:       rec.Metadata,
				RecordDocument: rec.Document,
				Version:        TreeVersionOf(rec.Document),
			}, nil
		}
		doc, err := readShards(ctx, store, m)
		if err == nil {
			// readShards checked doc against m.SHA256; the version is
			// its prefix (see TreeVersionOf).
			return TreeDoc{
				Document:       doc,
				Metadata:       rec.Metadata,
				Manifest:       m,
				RecordDocument: rec.Document,
				Version:        m.SHA256[:24],
			}, nil
		}
		if !errors.Is(err, ErrShard) {
			return TreeDoc{}, err
		}
		// A writer may have replaced the tree between the two reads: its
		// new manifest names new shards.
		lastErr = err
	}
	return TreeDoc{}, lastErr
}

// treeShardAttempts is how many times ReadTree reads a sharded tree (the
// manifest, then its shards) before it gives up on shards that are missing
// or do not match: 0.1 s and 0.4 s apart.
const treeShardAttempts = 3

// shardConcurrency bounds the Tree calls of a store without RecordReader.
const shardConcurrency = 8

func readShards(ctx context.Context, store Store, m *Manifest) ([]byte, error) {
	ids := m.ShardIDs()
	docs := make([][]byte, len(ids))
	if rr, ok := store.(RecordReader); ok {
		recs, err := rr.RecordsByID(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("read %d tree shards: %w", len(ids), err)
		}
		for i, id := range ids {
			if r, ok := recs[id]; ok {
				docs[i] = r.Document
			}
		}
	} else {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(shardConcurrency)
		for i, id := range ids {
			g.Go(func() error {
				r, err := store.Tree(gctx, id)
				if errors.Is(err, ErrNoTree) {
					return nil
				}
				if err != nil {
					return fmt.Errorf("read tree shard %q: %w", id, err)
				}
				docs[i] = r.Document
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	size := 0
	for i, d := range docs {
		if d == nil {
			return nil, fmt.Errorf("%w: shard %d of %d (%q) is missing", ErrShard, i, len(ids), ids[i])
		}
		size += len(d)
	}
	if int64(size) != m.Size {
		return nil, fmt.Errorf("%w: shards hold %d bytes, the manifest declares %d", ErrShard, size, m.Size)
	}
	doc := make([]byte, 0, size)
	for _, d := range docs {
		doc = append(doc, d...)
	}
	sum := sha256.Sum256(doc)
	if hex.EncodeToString(sum[:]) != m.SHA256 {
		return nil, fmt.Errorf("%w: shards do not match the manifest's sha256", ErrShard)
	}
	return doc, nil
}
