package testenv

import (
	"os"
	"testing"
	"time"
)

// DefaultSoak is how long a soak or load test runs when CHROMAFS_SOAK is
// not set: long enough to mix its operations, short enough for make test.
const DefaultSoak = 5 * time.Second

// SoakDuration is how long a soak or load test runs: CHROMAFS_SOAK (a Go
// duration, e.g. 10m for a real soak), else DefaultSoak. A value that is
// not a duration fails the test.
func SoakDuration(tb testing.TB) time.Duration {
	tb.Helper()
	if v := os.Getenv("CHROMAFS_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			tb.Fatalf("CHROMAFS_SOAK=%q: %v", v, err)
		}
		return d
	}
	return DefaultSoak
}
