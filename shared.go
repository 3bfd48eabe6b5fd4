package chromafs

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/singleflight"

	"github.com/chromafs/chromafs/internal/coarse"
	"github.com/chromafs/chromafs/internal/pageload"
	"github.com/chromafs/chromafs/tree"
)

// Shared is the state that filesystems share across New calls, so that
// many sessions, of many users and collections, in one process cost one
// tree parse per tree version and one fetch per page at a time:
//
//   - trees parsed from tree records, by collection id and tree version,
//     so that a New on an unchanged collection does not parse its tree
//     again. Their memory is bounded (see NewShared): the least valuable
//     trees are evicted to stay within it;
//   - for each collection and tree id, the version that New fetched last
//     and when (what WithTreeMaxAge and WithStaleTree reuse), and the last
//     failure to parse its tree record, with its retry backoff (see New);
//   - what searches learned from the store: for each literal set of a
//     search (and the collection's tree version), which pages may contain
//     one of them (see FS.Candidates), so that a search repeated in any
//     session of any user asks the store nothing about the pages an
//     earlier one asked about. This is bounded by an eighth of the bound
//     of NewShared (32 MiB by default: a literal set costs two bits per
//     page of the tree), least valuable first; and, by collection
//     and tree version, what the coarse filter's self-check found of the
//     store's answers (see FS.Candidates);
//   - fetches in flight: concurrent News of one collection fetch its tree
//     record once, and concurrent reads of one page, in any session, fetch
//     it once.
//
// Pages are cached by the cachepkg.Cache of WithCache, not here. A session
// (an FS and its Sub views) keeps the tree it was made with, whatever its
// Shared later evicts or drops.
//
// New uses a process-wide Shared unless it is given WithShared; sessions
// made with different Shareds share none of the above. A server makes all
// its sessions with one Shared (the process-wide one will do); tests that
// must start cold make their own. A Shared is safe for concurrent use.
type Shared struct {
	// parsed holds trees by collection id and tree version, weighed by
	// treeWeight.
	parsed *otter.Cache[string, *tree.Tree]
	// latest holds the treeState of the last fetch by collection id and
	// tree id, failed the last failure while it is the latest news of the
	// tree.
	latest *otter.Cache[string, *treeState]
	failed *otter.Cache[string, *treeFailure]
	// coarse holds what Candidates learned from the store, by collection,
	// tree version and literal set (see coarseKey).
	coarse *otter.Cache[string, *coarse.Bits]

	badIndex   sync.Map           // collection id and version -> error: a lazy index with a bad block
	health     sync.Map           // collection id and version -> *coarse.Health: the coarse filter's self-check (coarsecheck.go)
	noMarker   sync.Map           // collection id -> true: no tree version marker the last time (a hint for indexTree that Drop and Reset keep)
	treeFlight singleflight.Group // by collection id and tree id
	flights    pageload.Flights   // page fetches and preloads in flight

	// The backoff of a remembered tree failure: the first wait, and the
	// most it doubles to while the tree record stays the same.
	retryFirst, retryMax time.Duration

	parses  atomic.Int64 // tree documents parsed, for tests
	decodes atomic.Int64 // compact trees decoded, for tests
}

// defaultTreeBytes is the bound of NewShared(0): some 700,000 pages of
// trees (see treeWeight).
const defaultTreeBytes = 256 << 20

// coarseShare is the share of a Shared's bound (see NewShared) that the
// coarse results of searches may hold, beside the trees.
const coarseShare = 8

// stateEntries is the number of collections (and tree ids) whose last
// fetch and last failure a Shared remembers.
const stateEntries = 1024

// NewShared returns an empty Shared that keeps parsed trees of at most
// maxTreeBytes in all, estimated from their entries (256 bytes per page
// plus the length of its slug, hash and content type); maxTreeBytes <= 0
// means 256 MiB, which holds some 700,000 pages with typical slugs. A tree heavier than the bound
// is not kept: every New of its collection then parses the tree record
// again, so a server sets the bound above the largest tree it serves.
// The results of searches are kept within maxTreeBytes/8 more. The last
// fetch and failure of up to 1024 collections are remembered apart from
// the bound.
func NewShared(maxTreeBytes int64) *Shared {
	if maxTreeBytes <= 0 {
		maxTreeBytes = defaultTreeBytes
	}
	return &Shared{
		parsed: otter.Must(&otter.Options[string, *tree.Tree]{
			MaximumWeight: uint64(maxTreeBytes),
			Weigher:       func(_ string, t *tree.Tree) uint32 { return treeWeight(t) },
			// Evictions run on the goroutine that adds a tree, so that
			// the bound holds when New returns. No callback of the cache
			// calls it back, so running it there cannot deadlock.
			Executor: func(fn func()) { fn() },
		}),
		latest:     otter.Must(&otter.Options[string, *treeState]{MaximumSize: stateEntries}),
		failed:     otter.Must(&otter.Options[string, *treeFailure]{MaximumSize: stateEntries}),
		coarse:     coarse.NewCache(maxTreeBytes / coarseShare),
		retryFirst: time.Second,
		retryMax:   30 * time.Second,
	}
}

// defaultShared is the Shared of New calls without WithShared, made on
// first use rather than at start (every program linking the package
// paid for its cache otherwise).
var defaultShared = sync.OnceValue(func() *Shared { return NewShared(0) })

// WithShared makes New take and keep trees in s, and share page fetches
// with the other sessions of s, instead of the process-wide Shared.
// WithShared(nil) means the process-wide one.
func WithShared(s *Shared) Option {
	return func(c *config) { c.shared = s }
}

// Drop forgets what s holds of the collection whose CollectionID is
// collectionID: its parsed trees, what searches learned of it, its last fetch (so that the next New
// fetches and parses its tree record) and its remembered failures (so
// that the next New does not wait for their retry). Sessions made
// earlier keep their tree; a New in progress may keep what it fetches.
func (s *Shared) Drop(collectionID string) {
	prefix := collectionID + "\x00"
	dropPrefix(s.parsed, prefix)
	dropPrefix(s.latest, prefix)
	dropPrefix(s.failed, prefix)
	dropPrefix(s.coarse, strconv.Itoa(len(collectionID))+":"+collectionID)
	for _, m := range []*sync.Map{&s.badIndex, &s.health} {
		m.Range(func(k, _ any) bool {
			if strings.HasPrefix(k.(string), prefix) {
				m.Delete(k)
			}
			return true
		})
	}
}

// Reset forgets every tree, search result, fetch and failure s holds, as Drop does for
// one collection.
func (s *Shared) Reset() {
	s.parsed.InvalidateAll()
	s.latest.InvalidateAll()
	s.failed.InvalidateAll()
	s.coarse.InvalidateAll()
	s.badIndex.Clear()
	s.health.Clear()
}

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
