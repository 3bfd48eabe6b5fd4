package testenv

import (
	"os"
	"testing"
	"time"
)

// DefaultSoak is how long a soak or load test runs when CHROMAFS_SOAK is
// not set: long enough for every worker to mix its operations (the tests
// check that each kind ran), short enough for make test. A real soak sets
// CHROMAFS_SOAK (e.g. 60s or 10m).
const DefaultSoak = 2 * time.Second

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

// SoakWorkers is how many concurrent workers a soak test whose real soak
// runs full of them starts: full when CHROMAFS_SOAK is set, else a quarter
// of full (at least one). A worker finishes the operation it is in when
// the soak's time is up, so with the brief default duration most of the
// cost is every worker's last operation, not the duration; a quarter of
// the workers still run every kind of operation concurrently.
func SoakWorkers(full int) int {
	if os.Getenv("CHROMAFS_SOAK") != "" {
		return full
	}
	return max(1, full/4)
}

// CISoak is a soak for which CI runs a set size and duration of its own
// (issue-given, e.g. 100 sessions for 5 s) rather than the brief local
// default: with CI=true and CHROMAFS_SOAK unset it returns workers and d;
// otherwise SoakWorkers(workers) and SoakDuration.
func CISoak(tb testing.TB, workers int, d time.Duration) (int, time.Duration) {
	tb.Helper()
	if os.Getenv("CI") == "true" && os.Getenv("CHROMAFS_SOAK") == "" {
		return workers, d
	}
	return SoakWorkers(workers), SoakDuration(tb)
}
