package treeload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/tree"
)

// Options are what a session's New asks of Current.
type Options struct {
	// MaxAge: a tree fetched less than MaxAge ago is reused without a
	// request (the root's WithTreeMaxAge); 0 fetches on every call.
	MaxAge time.Duration
	// MaxStale: when the store cannot be reached, a tree fetched less
	// than MaxStale ago is served (the root's WithStaleTree); 0 never.
	MaxStale time.Duration
	// Limits bound the parse of the tree document (the root's
	// WithTreeLimits).
	Limits tree.Limits
	// Cache is the session's page cache: its shared tier, if it has one
	// (see SharedCache), shares compact trees between processes.
	Cache cachepkg.Cache
	// Log takes the warnings. It must not be nil.
	Log *slog.Logger
}

// State is a collection's tree as a Cache last fetched it. The tree
// itself is the one its Cache keeps parsed for the version, if it still
// does. A session keeps the State and the tree it was made with.
type State struct {
	Version     string    // a digest of the tree document (collection.TreeVersionOf)
	ChunkIDs    bool      // the tree record declares collection.ChunkIDScheme
	LineAligned bool      // the tree record declares collection.LineAlignedKey
	ModTime     time.Time // the tree record's collection.TreeModTimeKey, or zero
	fetched     time.Time

	// An episode of serving this state stale (WithStaleTree): when the
	// store last failed to answer (Unix nanoseconds, 0 if never), and
	// whether the episode's warning was logged.
	failedAt atomic.Int64
	warned   atomic.Bool
}

// treeFailure is a tree that failed to parse (or to assemble), kept so
// that New does not fetch and parse it again on every call.
type treeFailure struct {
	version string // collection.TreeVersionOf the document; "" if not known
	limits  tree.Limits
	err     error
	retry   time.Time     // no request before then
	backoff time.Duration // the wait before retry
}

// markerMaxAge bounds how long a tree is trusted on the word of the
// collection's TreeVersionKey (collection.TreeVersionKey) alone: a writer other than chromafs ingest
// may change the tree record without updating the marker.
const markerMaxAge = time.Minute

// staleRetry is how often, while New serves a stale tree, it asks the
// store again: so that a store that times out does not cost every New
// its timeout.
const staleRetry = time.Second

// Current returns the collection's tree: the one fetched last if it is
// younger than Options.MaxAge, or if it is younger than markerMaxAge and the
// collection's TreeVersionKey (collection.TreeVersionKey) names its version; else the tree record
// fetched now (parsed only if this version was not parsed before). A
// remembered failure is returned as it is until its retry time; an
// unreachable store gives the tree fetched last, within WithStaleTree's
// bound (Options.MaxStale). A tree fetched last that c no longer keeps
// parsed counts as never fetched. Errors are those the root's New
// documents.
func (c *Cache) Current(ctx context.Context, store collection.Store, treeID string, o *Options) (*State, *tree.Tree, error) {
	key := store.CollectionID() + "\x00" + treeID
	prev, _ := c.latest.GetIfPresent(key)
	var prevTree *tree.Tree
	if prev != nil {
		prevTree, _ = c.parsed.GetIfPresent(store.CollectionID() + "\x00" + prev.Version)
		if prevTree == nil {
			prev = nil
		}
	}
	if prev != nil {
		age := time.Since(prev.fetched)
		if o.MaxAge > 0 && age < o.MaxAge {
			return prev, prevTree, nil
		}
		if st, ok := prev.staleWithoutAsking(o, age); ok {
			return st, prevTree, nil
		}
		if tv, ok := store.(collection.TreeVersioner); ok && age < markerMaxAge {
			v, err := tv.TreeVersion(ctx)
			if err == nil {
				prev.answered()
			}
			if err == nil && v != "" && v == prev.Version && !c.failedSince(key, prev) {
				return prev, prevTree, nil
			}
			if err != nil && fscap.IsUnavailable(err) {
				if st, ok := c.stale(prev, o, key, err); ok {
					return st, prevTree, nil
				}
			}
		}
	}
	if f, ok := c.failed.GetIfPresent(key); ok && f.limits == o.Limits && time.Now().Before(f.retry) {
		return nil, nil, f.err
	}
	v, err, _ := c.flight.Do(key, func() (any, error) {
		st, t, err := c.fetchTree(ctx, store, treeID, key, o)
		if err != nil {
			return nil, err
		}
		return fetched{st, t}, nil
	})
	if err != nil {
		if prev != nil && fscap.IsUnavailable(err) {
			if st, ok := c.stale(prev, o, key, err); ok {
				return st, prevTree, nil
			}
		}
		return nil, nil, err
	}
	f := v.(fetched)
	return f.st, f.tree, nil
}

// fetched is what one fetch of a tree record gives.
type fetched struct {
	st   *State
	tree *tree.Tree
}

// failedSince reports whether a failure of the tree was remembered after
// st was fetched: the tree changed, and st is not current.
func (c *Cache) failedSince(key string, st *State) bool {
	f, ok := c.failed.GetIfPresent(key)
	return ok && f.retry.After(st.fetched)
}

// staleWithoutAsking returns st if New is to serve it without asking the
// store: it is serving st stale and asked less than staleRetry ago.
func (st *State) staleWithoutAsking(o *Options, age time.Duration) (*State, bool) {
	failed := st.failedAt.Load()
	if o.MaxStale <= 0 || failed == 0 || age >= o.MaxStale || time.Since(time.Unix(0, failed)) >= staleRetry {
		return nil, false
	}
	return st, true
}

// answered ends an episode of serving st stale: the store answered.
func (st *State) answered() {
	if st.failedAt.Load() != 0 {
		st.failedAt.Store(0)
		st.warned.Store(false)
	}
}

// stale returns st if WithStaleTree lets New serve it after the store
// failed with err (which fscap.IsUnavailable reports), and logs the
// first time of an episode.
func (c *Cache) stale(st *State, o *Options, key string, err error) (*State, bool) {
	age := time.Since(st.fetched)
	if o.MaxStale <= 0 || age >= o.MaxStale || c.failedSince(key, st) {
		// Not after a newer tree failed to parse: that tree is the
		// collection's, and st is not.
		return nil, false
	}
	st.failedAt.Store(time.Now().UnixNano())
	if !st.warned.Swap(true) {
		collection, treeID, _ := strings.Cut(key, "\x00")
		o.Log.Warn("chromafs: store unreachable; serving the path tree fetched earlier until it answers (WithStaleTree)",
			"collection", collection, "tree", treeID, "age", age.Round(time.Millisecond), "max_stale", o.MaxStale, "err", err)
	}
	return st, true
}

// fetchTree fetches and parses the tree record treeID, remembering a
// failure to parse in c.failed and a success in c.latest (and the tree
// in c.parsed).
func (c *Cache) fetchTree(ctx context.Context, store collection.Store, treeID, key string, o *Options) (*State, *tree.Tree, error) {
	if st, t, ok := c.indexTree(ctx, store, treeID, key, o); ok {
		return st, t, nil
	}
	limits := o.Limits
	rec, err := collection.ReadTree(ctx, store, treeID)
	if err != nil {
		err = fmt.Errorf("chromafs: fetch path tree %q: %w", treeID, err)
		if errors.Is(err, tree.ErrMalformed) {
			// A broken manifest, or shards that do not assemble.
			c.rememberFailure(key, "", limits, err)
		}
		return nil, nil, err
	}
	version := rec.Version
	if f, ok := c.failed.GetIfPresent(key); ok && f.version == version && f.limits == limits {
		// The same document that failed: not parsed again.
		c.rememberFailure(key, version, limits, f.err)
		return nil, nil, f.err
	}
	pkey := store.CollectionID() + "\x00" + version
	t, ok := c.parsed.GetIfPresent(pkey)
	shared := SharedCache(o.Cache)
	if !ok && shared != nil {
		var up bool
		t, up = c.sharedJSON(ctx, shared, store, version, o)
		ok = t != nil
		if !up {
			shared = nil // warned once; not asked again
		}
	}
	if !ok {
		c.parses.Add(1)
		t, err = tree.ParseLimited(rec.Document, limits)
		if err != nil {
			err = fmt.Errorf("chromafs: parse path tree %q (version %s): %w", treeID, version, err)
			c.rememberFailure(key, version, limits, err)
			return nil, nil, err
		}
		c.parsed.Set(pkey, t)
		if shared != nil {
			c.shareParsed(ctx, shared, store, version, rec.Metadata, t, o)
		}
	}
	c.failed.Invalidate(key)
	st := &State{
		Version:     version,
		ChunkIDs:    rec.Metadata[collection.ChunkIDsKey] == collection.ChunkIDScheme,
		LineAligned: rec.Metadata[collection.LineAlignedKey] == true,
		ModTime:     metadataTime(rec.Metadata[collection.TreeModTimeKey]),
		fetched:     time.Now(),
	}
	c.latest.Set(key, st)
	return st, t, nil
}

// rememberFailure records that the tree of key failed with err: the first
// failure of a version waits c.retryFirst before the next request, each
// failure of the same version after a retry twice as long as the last
// (up to c.retryMax).
func (c *Cache) rememberFailure(key, version string, limits tree.Limits, err error) {
	wait := c.retryFirst
	if f, ok := c.failed.GetIfPresent(key); ok && f.version == version && f.limits == limits {
		wait = min(2*f.backoff, c.retryMax)
	}
	c.failed.Set(key, &treeFailure{version: version, limits: limits, err: err, retry: time.Now().Add(wait), backoff: wait})
}

// metadataTime reads a time from record metadata: an RFC 3339 string or
// a number of Unix seconds; anything else is the zero Time.
func metadataTime(v any) time.Time {
	var t time.Time
	switch v := v.(type) {
	case string:
		t, _ = time.Parse(time.RFC3339, v)
	case int:
		t = time.Unix(int64(v), 0)
	case int64:
		t = time.Unix(v, 0)
	case float64:
		if v >= -62135596800 && v <= 253402300799 {
			sec, frac := math.Modf(v)
			t = time.Unix(int64(sec), int64(frac*1e9))
		}
	case time.Time:
		t = v
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}
	}
	return t.UTC().Round(0)
}
