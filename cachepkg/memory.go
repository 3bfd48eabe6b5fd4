package cachepkg

import (
	"context"
	"math"

	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"
)

// DefaultMemoryBytes is the capacity of a Memory cache created with a
// non-positive size: 256 MiB.
const DefaultMemoryBytes = 256 << 20

// Memory is an in-process cache bounded by the total size of its keys and
// values, built on otter (an S3-FIFO cache with a weigher). Its methods
// never return an error.
type Memory struct {
	c     *otter.Cache[string, []byte]
	max   uint64
	stats *stats.Counter
}

var _ Cache = (*Memory)(nil)

// NewMemory returns a cache that holds at most maxBytes bytes of keys and
// values (DefaultMemoryBytes if maxBytes <= 0). A single value larger than
// the whole cache is not stored.
func NewMemory(maxBytes int64) *Memory {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryBytes
	}
	st := stats.NewCounter()
	c := otter.Must(&otter.Options[string, []byte]{
		MaximumWeight: uint64(maxBytes),
		Weigher:       weigh,
		StatsRecorder: st,
	})
	return &Memory{c: c, max: uint64(maxBytes), stats: st}
}

func weigh(key string, value []byte) uint32 {
	n := uint64(len(key)) + uint64(len(value)) + entryOverhead
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}

// entryOverhead approximates the bookkeeping cost of one entry, so that
// many tiny pages cannot exceed the bound by much.
const entryOverhead = 64

// Get implements Cache.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	v, ok := m.c.GetIfPresent(key)
	return v, ok, nil
}

// Stats implements StatsReporter: Get and GetMany count a hit or a miss
// per key (Has counts neither).
func (m *Memory) Stats() Stats {
	s := m.stats.Snapshot()
	return Stats{Hits: s.Hits, Misses: s.Misses}
}

// Put implements Cache.
func (m *Memory) Put(_ context.Context, key string, value []byte) error {
	if uint64(weigh(key, value)) > m.max {
		return nil
	}
	m.c.Set(key, value)
	return nil
}

// Has implements Cache.
func (m *Memory) Has(_ context.Context, key string) (bool, error) {
	_, ok := m.c.GetEntryQuietly(key)
	return ok, nil
}

// GetMany implements Cache.
func (m *Memory) GetMany(_ context.Context, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	for _, k := range keys {
		if v, ok := m.c.GetIfPresent(k); ok {
			out[k] = v
		}
	}
	return out, nil
}

// PutMany implements Cache.
func (m *Memory) PutMany(ctx context.Context, values map[string][]byte) error {
	for k, v := range values {
		_ = m.Put(ctx, k, v)
	}
	return nil
}

// Clear implements Cache.
func (m *Memory) Clear(context.Context) error {
	m.c.InvalidateAll()
	return nil
}

// Len returns the number of entries.
func (m *Memory) Len() int { return m.c.EstimatedSize() }

// Bytes returns the weighted size of the entries: their keys, values and
// a fixed per-entry overhead.
func (m *Memory) Bytes() int64 {
	m.c.CleanUp()
	return int64(m.c.WeightedSize())
}
