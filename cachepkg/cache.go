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
