package treeload

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/singleflight"

	"github.com/chromafs/chromafs/tree"
)

// Cache is what the sessions of one root Shared share of trees:
//
//   - trees parsed from tree records (or decoded from compact indexes), by
//     collection id and tree version, within a memory bound: the least
//     valuable trees are evicted to stay within it;
//   - for each collection and tree id, the State that Current fetched last
//     (what Options.MaxAge and MaxStale reuse), and the last failure to
//     parse its tree record, with its retry backoff;
//   - fetches in flight: concurrent Currents of one collection and tree id
//     fetch its tree record once.
//
// A Cache is safe for concurrent use.
type Cache struct {
	// parsed holds trees by collection id and tree version, weighed by
	// treeWeight.
	parsed *otter.Cache[string, *tree.Tree]
	// latest holds the State of the last fetch by collection id and
	// tree id, failed the last failure while it is the latest news of the
	// tree.
	latest *otter.Cache[string, *State]
	failed *otter.Cache[string, *treeFailure]

	badIndex sync.Map           // collection id and version -> error: a lazy index with a bad block
	noMarker sync.Map           // collection id -> true: no tree version marker the last time (a hint for indexTree that Drop and Reset keep)
	flight   singleflight.Group // by collection id and tree id

	// The backoff of a remembered tree failure: the first wait, and the
	// most it doubles to while the tree record stays the same.
	retryFirst, retryMax time.Duration

	parses  atomic.Int64 // tree documents parsed
	decodes atomic.Int64 // compact trees decoded
	evicted atomic.Int64 // parsed trees evicted to keep the bound
}

// DefaultBytes is the bound of NewCache(0): some 700,000 pages of trees
// (see treeWeight).
const DefaultBytes = 256 << 20

// stateEntries is the number of collections (and tree ids) whose last
// fetch and last failure a Cache remembers.
const stateEntries = 1024

// NewCache returns an empty Cache that keeps parsed trees of at most
// maxBytes in all, estimated from their entries (256 bytes per page plus
// the length of its slug, hash and content type); maxBytes <= 0 means
// DefaultBytes. A tree heavier than the bound is not kept. The last fetch
// and failure of up to 1024 collections are remembered apart from the
// bound.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultBytes
	}
	c := &Cache{
		latest:     otter.Must(&otter.Options[string, *State]{MaximumSize: stateEntries}),
		failed:     otter.Must(&otter.Options[string, *treeFailure]{MaximumSize: stateEntries}),
		retryFirst: time.Second,
		retryMax:   30 * time.Second,
	}
	c.parsed = otter.Must(&otter.Options[string, *tree.Tree]{
		MaximumWeight: uint64(maxBytes),
		Weigher:       func(_ string, t *tree.Tree) uint32 { return treeWeight(t) },
		// Evictions run on the goroutine that adds a tree, so that
		// the bound holds when New returns. No callback of the cache
		// calls it back, so running it there cannot deadlock.
		Executor: func(fn func()) { fn() },
		OnDeletion: func(e otter.DeletionEvent[string, *tree.Tree]) {
			if e.Cause == otter.CauseOverflow {
				c.evicted.Add(1)
			}
		},
	})
	return c
}

// Stats is what a Cache holds and has done since it was made.
type Stats struct {
	// Loaded counts the trees parsed from tree records or decoded from
	// compact indexes (a tree kept and reused is loaded once).
	Loaded int64
	// Evicted counts the parsed trees evicted to keep the memory bound
	// (not those that Drop or Reset forgot).
	Evicted int64
	// Trees is the number of parsed trees held, Bytes their estimated
	// memory (see NewCache's bound).
	Trees int
	Bytes int64
}

// Stats returns what c holds and has done; safe for concurrent use.
func (c *Cache) Stats() Stats {
	c.parsed.CleanUp()
	return Stats{
		Loaded:  c.parses.Load() + c.decodes.Load(),
		Evicted: c.evicted.Load(),
		Trees:   c.parsed.EstimatedSize(),
		Bytes:   int64(c.parsed.WeightedSize()),
	}
}

// Drop forgets what c holds of the collection whose CollectionID is
// collectionID: its parsed trees, its last fetch (so that the next
// Current fetches and parses its tree record) and its remembered failures
// (so that the next Current does not wait for their retry). Sessions made
// earlier keep their tree; a Current in progress may keep what it fetches.
func (c *Cache) Drop(collectionID string) {
	prefix := collectionID + "\x00"
	dropPrefix(c.parsed, prefix)
	dropPrefix(c.latest, prefix)
	dropPrefix(c.failed, prefix)
	c.badIndex.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), prefix) {
			c.badIndex.Delete(k)
		}
		return true
	})
}

// Reset forgets every tree, fetch and failure c holds, as Drop does for
// one collection.
func (c *Cache) Reset() {
	c.parsed.InvalidateAll()
	c.latest.InvalidateAll()
	c.failed.InvalidateAll()
	c.badIndex.Clear()
}

// dropPrefix invalidates the entries of an otter cache whose keys start
// with prefix.
func dropPrefix[V any](c *otter.Cache[string, V], prefix string) {
	for k := range c.Keys() {
		if strings.HasPrefix(k, prefix) {
			c.Invalidate(k)
		}
	}
}

// lazyPageWeight is treeWeight's estimate of a page of a lazy tree (see
// tree.NewLazy): the average over the generated trees below, plus its
// share of the index kept for blocks not yet decoded.
const lazyPageWeight = 387 + 50

// treeWeight estimates the memory a parsed tree holds once it has served
// a session: per page, the entry and its node in the unpruned view plus
// the bytes of its strings. (Measured on generated trees of 10k and 100k
// pages, with their unpruned and two pruned views: 333 to 356 bytes per
// page, of which 131 bytes of strings; the estimate is 387.)
func treeWeight(t *tree.Tree) uint32 {
	var w int64 = 1024
	if t.Lazy() {
		// Its entries are decoded later: the estimate of a decoded one.
		return uint32(min(w+lazyPageWeight*int64(t.Len()), math.MaxUint32))
	}
	for _, e := range t.Entries() {
		w += 256 + int64(len(e.Slug)+len(e.Hash)+len(e.ContentType)+len(e.URL)+16*len(e.Groups))
	}
	return uint32(min(w, math.MaxUint32))
}

// The hooks of the root's tests (export_tree_test.go).

// SetRetry sets the backoff of the tree failures that c remembers: the
// first wait and the most it doubles to.
func (c *Cache) SetRetry(first, most time.Duration) { c.retryFirst, c.retryMax = first, most }

// Parses returns the number of tree documents c parsed so far.
func (c *Cache) Parses() int64 { return c.parses.Load() }

// Decodes returns how many compact trees (tree indexes) c decoded.
func (c *Cache) Decodes() int64 { return c.decodes.Load() }

// Bytes returns the estimated bytes of the parsed trees c keeps.
func (c *Cache) Bytes() uint64 {
	c.parsed.CleanUp()
	return c.parsed.WeightedSize()
}

// PassRetry makes the tree failures that c remembers d older: a retry
// due within d is due now, as if d had passed (their backoff, which the
// next failure doubles, is kept).
func (c *Cache) PassRetry(d time.Duration) {
	for k, f := range c.failed.All() {
		g := *f
		g.retry = g.retry.Add(-d)
		c.failed.Set(k, &g)
	}
}
