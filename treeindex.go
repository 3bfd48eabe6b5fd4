package chromafs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// The compact tree index and shared parsed trees.
//
// A collection that chromafs ingest wrote has, beside its JSON tree record,
// a compact index of the same tree (package treeindex) stamped with the
// tree's version. When New must fetch the tree, it asks the collection for
// its tree version marker (collection.TreeVersionKey, one collection
// lookup) and, when the marker is set:
//
//  1. with a shared cache (WithCache given a cache that is not a process's
//     own memory, such as a cachepkg.Tiered whose back is a Redis), it
//     gets the index stored there under the collection and that version
//     by an earlier process, and decodes it;
//  2. else it fetches the index record, and uses it when its stamp is the
//     marker's version, storing it in the shared cache for the next
//     process.
//
// Otherwise, or when the index is missing, its stamp differs, or it does
// not decode (one warning on the logger of WithLogger for a stamp that
// differs or an index that does not decode; a missing one is silent), New
// reads the JSON tree as before, and with a shared cache gets the tree's
// compact form from it by the version of the JSON document, or stores it
// there after parsing. Every path gives the same tree: the index holds the
// entries exactly as the JSON document does (a tree with problems, which
// ingest never writes, is never shared).

// sharedTreeKey is the key of a tree's compact form in a shared cache.
// Page keys (see session.cacheKey) have four fields, so they never
// collide with it.
func sharedTreeKey(collectionID, version string) string {
	return collectionID + "\x00tree-index\x00" + version
}

// sharedCache returns the cache in which New shares trees between
// processes: nil for a process's own memory, the back of a tiered cache.
func sharedCache(c cachepkg.Cache) cachepkg.Cache {
	switch c := c.(type) {
	case nil, *cachepkg.Memory:
		return nil
	case *cachepkg.Tiered:
		return sharedCache(c.Back)
	}
	return c
}

// indexTree returns the collection's tree from its compact index, in the
// shared cache or the index record, when the collection's tree version
// marker names the index's stamp. ok is false when New must read the
// JSON tree.
func (sh *Shared) indexTree(ctx context.Context, store collection.Store, treeID, key string, cfg *config) (*treeState, *tree.Tree, bool) {
	tv, ok := store.(collection.TreeVersioner)
	if !ok {
		return nil, nil, false
	}
	shared := sharedCache(cfg.cache)
	// Without a shared cache the index record is fetched while the
	// marker is looked up, when the collection had a marker the last
	// time: the two requests take the time of one.
	var early chan fetchedIndex
	if _, none := sh.noMarker.Load(store.CollectionID()); shared == nil && !none {
		early = make(chan fetchedIndex, 1)
		go func() {
			doc, err := readIndex(ctx, store, treeindex.RecordID(treeID))
			early <- fetchedIndex{doc, err}
		}()
	}
	marker, err := tv.TreeVersion(ctx)
	if err == nil && marker == "" {
		sh.noMarker.Store(store.CollectionID(), true)
	} else if err == nil {
		sh.noMarker.Delete(store.CollectionID())
	}
	if err != nil || marker == "" {
		if early != nil {
			// Not left running past New: when it was, searches of a
			// foreign collection right after New got wrong hits
			// (search's TestSentence, TestIndependentSentence); why was
			// not found.
			<-early
		}
		return nil, nil, false
	}
	if f, ok := sh.failed.GetIfPresent(key); ok && f.version == marker && f.limits == cfg.treeLimits {
		// This version failed to parse: the JSON path remembers it.
		return nil, nil, false
	}
	if shared != nil {
		payload, up := sh.sharedGet(ctx, shared, store.CollectionID(), marker, cfg)
		if !up {
			shared = nil // warned once; not asked again
		}
		if payload != nil {
			h, err := treeindex.ReadHeader(payload)
			var st *treeState
			var t *tree.Tree
			if err == nil {
				st, t, err = sh.useIndex(h, marker, store, key, cfg)
			}
			if err == nil {
				return st, t, true
			}
			cfg.logger.Warn("chromafs: the shared compact tree is unusable; reading the tree record",
				"collection", store.CollectionID(), "version", marker, "err", err)
		}
	}
	var doc []byte
	if early != nil {
		f := <-early
		doc, err = f.doc, f.err
	} else {
		doc, err = readIndex(ctx, store, treeindex.RecordID(treeID))
	}
	if err != nil {
		if !errors.Is(err, collection.ErrNoTree) && !fscap.IsUnavailable(err) && ctx.Err() == nil {
			cfg.logger.Warn("chromafs: tree index ignored; reading the JSON tree record",
				"collection", store.CollectionID(), "tree", treeID, "err", err)
		}
		return nil, nil, false
	}
	// With a shared cache the payload is decoded whole, to be stored
	// there; else only the header, and the blocks when they are needed.
	var payload []byte
	var h *treeindex.Header
	if shared != nil {
		if payload, err = treeindex.DecodeDocument(doc); err == nil {
			h, err = treeindex.ReadHeader(payload)
		}
	} else {
		h, err = treeindex.ReadDocument(doc)
	}
	var st *treeState
	var t *tree.Tree
	if err == nil {
		st, t, err = sh.useIndex(h, marker, store, key, cfg)
	}
	if err != nil {
		cfg.logger.Warn("chromafs: tree index ignored; reading the JSON tree record",
			"collection", store.CollectionID(), "tree", treeID, "version", marker, "err", err)
		return nil, nil, false
	}
	if shared != nil {
		sh.sharedPut(ctx, shared, store.CollectionID(), marker, payload, cfg)
	}
	return st, t, true
}

// fetchedIndex is what readIndex returned.
type fetchedIndex struct {
	doc []byte
	err error
}

// readIndex returns the document of the index record id, assembled from
// its shards when it is sharded. Unlike collection.ReadTree it does not
// hash a document in one record: the index's own checksum and stamp
// vouch for it.
func readIndex(ctx context.Context, store collection.Store, id string) ([]byte, error) {
	rec, err := store.Tree(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, sharded, err := collection.ParseManifest(rec.Document); err != nil || !sharded {
		return rec.Document, err
	}
	td, err := collection.ReadTree(ctx, store, id)
	return td.Document, err
}

// errStamp is the error of an index made from another tree version.
var errStamp = errors.New("the index was made from another version of the tree")

// useIndex decodes the index whose header is h and whose stamp must be
// version (see decodeIndex), and keeps the tree as fetchTree keeps a
// parsed one.
func (sh *Shared) useIndex(h *treeindex.Header, version string, store collection.Store, key string, cfg *config) (*treeState, *tree.Tree, error) {
	t, err := sh.decodeIndex(h, version, store, cfg)
	if err != nil {
		return nil, nil, err
	}
	sh.failed.Invalidate(key)
	st := stateOf(version, h.Metadata)
	sh.latest.Set(key, st)
	return st, t, nil
}

// decodeIndex decodes the index whose header is h, whose stamp must be version, and
// keeps the tree in sh.parsed; a tree of this version parsed earlier is
// reused.
func (sh *Shared) decodeIndex(h *treeindex.Header, version string, store collection.Store, cfg *config) (*tree.Tree, error) {
	if h.Stamp != version {
		return nil, errStamp
	}
	pkey := store.CollectionID() + "\x00" + version
	if t, ok := sh.parsed.GetIfPresent(pkey); ok {
		return t, nil
	}
	if err, ok := sh.badIndex.Load(pkey); ok {
		return nil, err.(error)
	}
	sh.decodes.Add(1)
	ix, lazy, err := h.Lazy(cfg.treeLimits, func(err error) {
		// A block that fails is served nowhere; the next session reads
		// the JSON tree instead of this index.
		cfg.logger.Warn("chromafs: a block of the compact tree index is unusable; its pages are not served, and the next session reads the JSON tree",
			"collection", store.CollectionID(), "version", version, "err", err)
		sh.badIndex.Store(pkey, fmt.Errorf("a block of the index is unusable: %w", err))
		sh.parsed.Invalidate(pkey)
	})
	if err == nil && !lazy {
		ix, err = h.Decode(cfg.treeLimits) // format version 1
	}
	if err != nil {
		return nil, err
	}
	sh.parsed.Set(pkey, ix.Tree)
	return ix.Tree, nil
}

// stateOf returns the state of a tree fetched now whose record has the
// metadata md.
func stateOf(version string, md map[string]any) *treeState {
	return &treeState{
		version:     version,
		chunkIDs:    md[collection.ChunkIDsKey] == collection.ChunkIDScheme,
		lineAligned: md[collection.LineAlignedKey] == true,
		modTime:     metadataTime(md[collection.TreeModTimeKey]),
		fetched:     time.Now(),
	}
}

// treeMetadata is the part of a tree record's metadata that a shared
// compact tree carries: what stateOf reads.
func treeMetadata(md map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{collection.ChunkIDsKey, collection.LineAlignedKey, collection.TreeModTimeKey} {
		if v, ok := md[k]; ok {
			if tm, ok := v.(time.Time); ok {
				v = tm.UTC().Format(time.RFC3339Nano)
			}
			out[k] = v
		}
	}
	return out
}

// sharedJSON returns the tree of a JSON tree record of the given version
// from the shared cache, or nil.
// up is false when the cache failed (and a warning was logged).
func (sh *Shared) sharedJSON(ctx context.Context, shared cachepkg.Cache, store collection.Store, version string, cfg *config) (t *tree.Tree, up bool) {
	payload, up := sh.sharedGet(ctx, shared, store.CollectionID(), version, cfg)
	if payload == nil {
		return nil, up
	}
	h, err := treeindex.ReadHeader(payload)
	if err == nil {
		t, err = sh.decodeIndex(h, version, store, cfg)
	}
	if err != nil {
		cfg.logger.Warn("chromafs: the shared compact tree is unusable; parsing the tree record",
			"collection", store.CollectionID(), "version", version, "err", err)
		return nil, true
	}
	return t, true
}

// shareParsed stores the compact form of a tree parsed from its JSON
// record in the shared cache. A tree with problems is not shared: its
// compact form would not report them.
func (sh *Shared) shareParsed(ctx context.Context, shared cachepkg.Cache, store collection.Store, version string, md map[string]any, t *tree.Tree, cfg *config) {
	if len(t.Problems()) > 0 {
		return
	}
	payload, err := treeindex.Encode(t.Entries(), version, treeMetadata(md))
	if err != nil {
		cfg.logger.Warn("chromafs: cannot encode the tree for the shared cache", "collection", store.CollectionID(), "err", err)
		return
	}
	sh.sharedPut(ctx, shared, store.CollectionID(), version, payload, cfg)
}

// sharedGet returns the compact tree stored under the collection and
// version, or nil. A failure of the cache is a miss, with a warning, and
// up false. (A rediscache.Cache with a Logger reports its failures as
// misses and logs them itself, once per episode.)
func (sh *Shared) sharedGet(ctx context.Context, shared cachepkg.Cache, collectionID, version string, cfg *config) (payload []byte, up bool) {
	v, ok, err := shared.Get(ctx, sharedTreeKey(collectionID, version))
	if err != nil {
		cfg.logger.Warn("chromafs: shared cache failed; reading the tree from the collection",
			"collection", collectionID, "version", version, "err", err)
		return nil, false
	}
	if !ok {
		return nil, true
	}
	return v, true
}

func (sh *Shared) sharedPut(ctx context.Context, shared cachepkg.Cache, collectionID, version string, payload []byte, cfg *config) {
	if err := shared.Put(ctx, sharedTreeKey(collectionID, version), payload); err != nil {
		cfg.logger.Warn("chromafs: cannot store the compact tree in the shared cache",
			"collection", collectionID, "version", version, "err", err)
	}
}
