package treeload

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

// SharedTreeKey is the key of a tree's compact form in a shared cache.
// Page keys (see pageload.Loader.CacheKey) have four fields, so they never
// collide with it.
func SharedTreeKey(collectionID, version string) string {
	return collectionID + "\x00tree-index\x00" + version
}

// SharedCache returns the part of a page cache that processes share: nil
// for a process's own memory, the back of a tiered cache (a Redis, say).
// New shares compact trees there, and the coarse filter its answers.
func SharedCache(c cachepkg.Cache) cachepkg.Cache {
	switch c := c.(type) {
	case nil, *cachepkg.Memory:
		return nil
	case *cachepkg.Tiered:
		return SharedCache(c.Back)
	}
	return c
}

// indexTree returns the collection's tree from its compact index, in the
// shared cache or the index record, when the collection's tree version
// marker names the index's stamp. ok is false when New must read the
// JSON tree.
func (c *Cache) indexTree(ctx context.Context, store collection.Store, treeID, key string, o *Options) (*State, *tree.Tree, bool) {
	tv, ok := store.(collection.TreeVersioner)
	if !ok {
		return nil, nil, false
	}
	shared := SharedCache(o.Cache)
	// Without a shared cache the index record is fetched while the
	// marker is looked up, when the collection had a marker the last
	// time: the two requests take the time of one.
	var early chan fetchedIndex
	if _, none := c.noMarker.Load(store.CollectionID()); shared == nil && !none {
		early = make(chan fetchedIndex, 1)
		go func() {
			doc, err := readIndex(ctx, store, treeindex.RecordID(treeID))
			early <- fetchedIndex{doc, err}
		}()
	}
	marker, err := tv.TreeVersion(ctx)
	if err == nil && marker == "" {
		c.noMarker.Store(store.CollectionID(), true)
	} else if err == nil {
		c.noMarker.Delete(store.CollectionID())
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
	if f, ok := c.failed.GetIfPresent(key); ok && f.version == marker && f.limits == o.Limits {
		// This version failed to parse: the JSON path remembers it.
		return nil, nil, false
	}
	if shared != nil {
		payload, up := c.sharedGet(ctx, shared, store.CollectionID(), marker, o)
		if !up {
			shared = nil // warned once; not asked again
		}
		if payload != nil {
			h, err := treeindex.ReadHeader(payload)
			var st *State
			var t *tree.Tree
			if err == nil {
				st, t, err = c.useIndex(h, marker, store, key, o)
			}
			if err == nil {
				return st, t, true
			}
			o.Log.Warn("chromafs: the shared compact tree is unusable; reading the tree record",
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
			o.Log.Warn("chromafs: tree index ignored; reading the JSON tree record",
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
	var st *State
	var t *tree.Tree
	if err == nil {
		st, t, err = c.useIndex(h, marker, store, key, o)
	}
	if err != nil {
		o.Log.Warn("chromafs: tree index ignored; reading the JSON tree record",
			"collection", store.CollectionID(), "tree", treeID, "version", marker, "err", err)
		return nil, nil, false
	}
	if shared != nil {
		c.sharedPut(ctx, shared, store.CollectionID(), marker, payload, o)
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
func (c *Cache) useIndex(h *treeindex.Header, version string, store collection.Store, key string, o *Options) (*State, *tree.Tree, error) {
	t, err := c.decodeIndex(h, version, store, o)
	if err != nil {
		return nil, nil, err
	}
	c.failed.Invalidate(key)
	st := stateOf(version, h.Metadata)
	c.latest.Set(key, st)
	return st, t, nil
}

// decodeIndex decodes the index whose header is h, whose stamp must be version, and
// keeps the tree in c.parsed; a tree of this version parsed earlier is
// reused.
func (c *Cache) decodeIndex(h *treeindex.Header, version string, store collection.Store, o *Options) (*tree.Tree, error) {
	if h.Stamp != version {
		return nil, errStamp
	}
	pkey := store.CollectionID() + "\x00" + version
	if t, ok := c.parsed.GetIfPresent(pkey); ok {
		return t, nil
	}
	if err, ok := c.badIndex.Load(pkey); ok {
		return nil, err.(error)
	}
	c.decodes.Add(1)
	ix, lazy, err := h.Lazy(o.Limits, func(err error) {
		// A block that fails is served nowhere; the next session reads
		// the JSON tree instead of this index.
		o.Log.Warn("chromafs: a block of the compact tree index is unusable; its pages are not served, and the next session reads the JSON tree",
			"collection", store.CollectionID(), "version", version, "err", err)
		c.badIndex.Store(pkey, fmt.Errorf("a block of the index is unusable: %w", err))
		c.parsed.Invalidate(pkey)
	})
	if err == nil && !lazy {
		ix, err = h.Decode(o.Limits) // format version 1
	}
	if err != nil {
		return nil, err
	}
	c.parsed.Set(pkey, ix.Tree)
	return ix.Tree, nil
}

// stateOf returns the state of a tree fetched now whose record has the
// metadata md.
func stateOf(version string, md map[string]any) *State {
	return &State{
		Version:     version,
		ChunkIDs:    md[collection.ChunkIDsKey] == collection.ChunkIDScheme,
		LineAligned: md[collection.LineAlignedKey] == true,
		ModTime:     metadataTime(md[collection.TreeModTimeKey]),
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
func (c *Cache) sharedJSON(ctx context.Context, shared cachepkg.Cache, store collection.Store, version string, o *Options) (t *tree.Tree, up bool) {
	payload, up := c.sharedGet(ctx, shared, store.CollectionID(), version, o)
	if payload == nil {
		return nil, up
	}
	h, err := treeindex.ReadHeader(payload)
	if err == nil {
		t, err = c.decodeIndex(h, version, store, o)
	}
	if err != nil {
		o.Log.Warn("chromafs: the shared compact tree is unusable; parsing the tree record",
			"collection", store.CollectionID(), "version", version, "err", err)
		return nil, true
	}
	return t, true
}

// shareParsed stores the compact form of a tree parsed from its JSON
// record in the shared cache. A tree with problems is not shared: its
// compact form would not report them.
func (c *Cache) shareParsed(ctx context.Context, shared cachepkg.Cache, store collection.Store, version string, md map[string]any, t *tree.Tree, o *Options) {
	if len(t.Problems()) > 0 {
		return
	}
	payload, err := treeindex.Encode(t.Entries(), version, treeMetadata(md))
	if err != nil {
		o.Log.Warn("chromafs: cannot encode the tree for the shared cache", "collection", store.CollectionID(), "err", err)
		return
	}
	c.sharedPut(ctx, shared, store.CollectionID(), version, payload, o)
}

// sharedGet returns the compact tree stored under the collection and
// version, or nil. A failure of the cache is a miss, with a warning, and
// up false. (A rediscache.Cache with a Logger reports its failures as
// misses and logs them itself, once per episode.)
func (c *Cache) sharedGet(ctx context.Context, shared cachepkg.Cache, collectionID, version string, o *Options) (payload []byte, up bool) {
	v, ok, err := shared.Get(ctx, SharedTreeKey(collectionID, version))
	if err != nil {
		o.Log.Warn("chromafs: shared cache failed; reading the tree from the collection",
			"collection", collectionID, "version", version, "err", err)
		return nil, false
	}
	if !ok {
		return nil, true
	}
	return v, true
}

func (c *Cache) sharedPut(ctx context.Context, shared cachepkg.Cache, collectionID, version string, payload []byte, o *Options) {
	if err := shared.Put(ctx, SharedTreeKey(collectionID, version), payload); err != nil {
		o.Log.Warn("chromafs: cannot store the compact tree in the shared cache",
			"collection", collectionID, "version", version, "err", err)
	}
}
