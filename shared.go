package chromafs

import (
	"sync"

	"github.com/chromafs/chromafs/internal/coarse"
	"github.com/chromafs/chromafs/internal/pageload"
	"github.com/chromafs/chromafs/internal/treeload"
)

// Shared is the state that filesystems share across New calls, so that
// many sessions, of many users and collections, in one process cost one
// tree parse per tree version and one fetch per page at a time. It is
// made of the engines' shared parts:
//
//   - trees (package internal/treeload): trees parsed from tree records,
//     by collection id and tree version, so that a New on an unchanged
//     collection does not parse its tree again; for each collection and
//     tree id, the version that New fetched last and when (what
//     WithTreeMaxAge and WithStaleTree reuse), and the last failure to
//     parse its tree record, with its retry backoff (see New); and the
//     fetches of tree records in flight, so that concurrent News of one
//     collection fetch its tree record once;
//   - what searches learned from the store (package internal/coarse): for
//     each literal set of a search (and the collection's tree version),
//     which pages may contain one of them (see FS.Candidates), so that a
//     search repeated in any session of any user asks the store nothing
//     about the pages an earlier one asked about (a literal set costs two
//     bits per page of the tree); and, by collection and tree version,
//     what the coarse filter's self-check found of the store's answers
//     (see FS.Candidates);
//   - page fetches in flight (package internal/pageload), so that
//     concurrent reads of one page, in any session, fetch it once, and
//     the Preloads in progress, which concurrent calls share. These hold
//     nothing once they end.
//
// The parsed trees and the searches' answers share one memory bound, set
// by NewShared: the least valuable are evicted to stay within it. Drop
// forgets what every part holds of one collection, Reset of all of them;
// nothing else does.
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
	trees *treeload.Cache
	// coarse holds what Candidates learned from the store, by collection,
	// tree version and literal set, and what the coarse filter's
	// self-check found of the store's answers.
	coarse  *coarse.Shared
	flights pageload.Flights
}

// A Shared's bound (see NewShared) is split in parts: treeParts for the
// parsed trees, coarseParts for the searches' answers.
const (
	treeParts   = 8
	coarseParts = 1
	allParts    = treeParts + coarseParts
)

// defaultSharedBytes is the bound of NewShared(0): 288 MiB, of which 256
// MiB of trees (some 700,000 pages) and 32 MiB of searches' answers.
const defaultSharedBytes = treeload.DefaultBytes / treeParts * allParts

// NewShared returns an empty Shared whose parsed trees and searches'
// answers hold at most maxBytes in all: trees up to 8/9 of it, estimated
// from their entries (256 bytes per page plus the length of its slug,
// hash and content type), answers up to 1/9. maxBytes <= 0 means 288
// MiB, whose 256 MiB of trees hold some 700,000 pages with typical slugs.
// A tree heavier than its part of the bound is not kept: every New of its
// collection then parses the tree record again, so a server sets the
// bound to 9/8 of the largest tree it serves or more. The last fetch and
// failure of up to 1024 collections are remembered apart from the bound.
func NewShared(maxBytes int64) *Shared {
	if maxBytes <= 0 {
		maxBytes = defaultSharedBytes
	}
	return &Shared{
		trees:  treeload.NewCache(max(maxBytes/allParts*treeParts, 1)),
		coarse: coarse.NewShared(max(maxBytes/allParts*coarseParts, 1)),
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
// collectionID, in every part: its parsed trees, its last fetch (so that
// the next New fetches and parses its tree record), its remembered
// failures (so that the next New does not wait for their retry), what
// searches learned of it and what the coarse filter's self-check found.
// Sessions made earlier keep their tree; a New in
// progress may keep what it fetches. Fetches in flight are not dropped:
// they end by themselves.
func (s *Shared) Drop(collectionID string) {
	s.trees.Drop(collectionID)
	s.coarse.Drop(collectionID)
}

// SharedStats is what a Shared holds of trees and has done since it was
// made: for a server's metrics.
type SharedStats struct {
	// TreesLoaded counts the trees parsed from tree records or decoded
	// from compact indexes; a tree kept and reused by later sessions is
	// loaded once.
	TreesLoaded int64
	// TreesEvicted counts the trees evicted to keep the memory bound
	// (see NewShared), not those that Drop or Reset forgot.
	TreesEvicted int64
	// Trees is the number of trees held, TreeBytes their estimated
	// memory, which the bound limits.
	Trees     int
	TreeBytes int64
}

// Stats returns what s holds of trees and has done; safe for concurrent
// use.
func (s *Shared) Stats() SharedStats {
	st := s.trees.Stats()
	return SharedStats{TreesLoaded: st.Loaded, TreesEvicted: st.Evicted, Trees: st.Trees, TreeBytes: st.Bytes}
}

// Reset forgets every tree, search result, fetch and failure s holds: it
// is Drop for every collection.
func (s *Shared) Reset() {
	s.trees.Reset()
	s.coarse.Reset()
}
