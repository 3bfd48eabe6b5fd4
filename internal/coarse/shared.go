package coarse

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/maypok86/otter/v2"
)

// Shared is the coarse filter's part of a chromafs.Shared: what searches
// learned from the store, for each literal set and tree version (a [Bits]
// under a [Key]), and, by collection and tree version, what the
// self-check found of the store's answers (a [Health]). The Filters of
// every session made with one chromafs.Shared use one Shared, so that a
// search repeated in any session of any user asks the store nothing about
// the pages an earlier one asked about. Drop and Reset are the only ways
// to forget what it holds. A Shared is safe for concurrent use.
type Shared struct {
	// answers holds the Bits by Key.String.
	answers *otter.Cache[string, *Bits]
	// health holds, by collection id and tree version, the self-check's
	// record (check.go).
	health sync.Map // -> *Health
}

// NewShared returns an empty Shared whose answers hold at most about
// maxBytes (keys and bits, plus a fixed cost per record): the least
// valuable are evicted to stay within it. The self-check's records, a few
// words per collection and tree version, are not bounded.
func NewShared(maxBytes int64) *Shared {
	return &Shared{answers: otter.Must(&otter.Options[string, *Bits]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k string, b *Bits) uint32 {
			return uint32(min(int64(len(k))+16*int64(len(b.known))+128, math.MaxUint32))
		},
	})}
}

// Health returns the self-check's record for the collection whose id is
// collectionID at the tree version version, made on first use.
func (s *Shared) Health(collectionID, version string) *Health {
	key := collectionID + "\x00" + version
	if h, ok := s.health.Load(key); ok {
		return h.(*Health)
	}
	h, _ := s.health.LoadOrStore(key, new(Health))
	return h.(*Health)
}

// Drop forgets the answers and the self-check's records of the collection
// whose id is collectionID, at every tree version.
func (s *Shared) Drop(collectionID string) {
	// Key.String starts with the collection id, its length first.
	prefix := strconv.Itoa(len(collectionID)) + ":" + collectionID
	for k := range s.answers.Keys() {
		if strings.HasPrefix(k, prefix) {
			s.answers.Invalidate(k)
		}
	}
	prefix = collectionID + "\x00"
	s.health.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), prefix) {
			s.health.Delete(k)
		}
		return true
	})
}

// Reset forgets every answer and every self-check's record.
func (s *Shared) Reset() {
	s.answers.InvalidateAll()
	s.health.Clear()
}
