package cachepkg

import "context"

// Cache stores page contents by key. Implementations must be safe for
// concurrent use.
type Cache interface {
	// Get returns the value stored under key and whether there was one.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Put stores value under key. The cache may drop it at any time.
	Put(ctx context.Context, key string, value []byte) error
	// Has reports whether key is stored, without counting as a use.
	Has(ctx context.Context, key string) (bool, error)
	// GetMany returns the values of those keys that are stored.
	GetMany(ctx context.Context, keys []string) (map[string][]byte, error)
	// PutMany stores every key/value pair of values.
	PutMany(ctx context.Context, values map[string][]byte) error
	// Clear removes every entry.
	Clear(ctx context.Context) error
}

// Stats are a cache's lookups since it was made: a hit or a miss per key
// asked for by Get or GetMany, and the keys whose lookup failed (a
// shared cache that could not be reached), which are misses too.
type Stats struct {
	Hits, Misses, Errors uint64
}

// StatsReporter is a cache that counts its lookups (Memory and
// rediscache.Cache do; Tiered does not: its tiers do), for metrics.
type StatsReporter interface {
	Stats() Stats
}
