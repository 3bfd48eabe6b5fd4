package chromafs

import "time"

// SetTreeRetry sets the backoff of the tree failures that s remembers:
// the first wait and the most it doubles to.
func SetTreeRetry(s *Shared, first, most time.Duration) {
	s.retryFirst, s.retryMax = first, most
}

// TreeParses returns the number of tree documents parsed for s so far.
func TreeParses(s *Shared) int64 { return s.parses.Load() }

// TreeDecodes returns how many compact trees (tree indexes) s decoded.
func TreeDecodes(s *Shared) int64 { return s.decodes.Load() }

// TreeBytes returns the estimated bytes of the parsed trees s keeps.
func TreeBytes(s *Shared) uint64 {
	s.parsed.CleanUp()
	return s.parsed.WeightedSize()
}

// PassTreeRetry makes the tree failures that s remembers d older: a
// retry due within d is due now, as if d had passed (their backoff, which
// the next failure doubles, is kept).
func PassTreeRetry(s *Shared, d time.Duration) {
	for k, f := range s.failed.All() {
		g := *f
		g.retry = g.retry.Add(-d)
		s.failed.Set(k, &g)
	}
}

// SharedTreeKey is the key of a compact tree in a shared cache.
func SharedTreeKey(collectionID, version string) string { return sharedTreeKey(collectionID, version) }
