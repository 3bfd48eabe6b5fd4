package chromafs

import (
	"time"

	"github.com/chromafs/chromafs/internal/treeload"
)

// SetTreeRetry sets the backoff of the tree failures that s remembers:
// the first wait and the most it doubles to.
func SetTreeRetry(s *Shared, first, most time.Duration) { s.trees.SetRetry(first, most) }

// TreeParses returns the number of tree documents parsed for s so far.
func TreeParses(s *Shared) int64 { return s.trees.Parses() }

// TreeDecodes returns how many compact trees (tree indexes) s decoded.
func TreeDecodes(s *Shared) int64 { return s.trees.Decodes() }

// TreeBytes returns the estimated bytes of the parsed trees s keeps.
func TreeBytes(s *Shared) uint64 { return s.trees.Bytes() }

// PassTreeRetry makes the tree failures that s remembers d older: a
// retry due within d is due now, as if d had passed (their backoff, which
// the next failure doubles, is kept).
func PassTreeRetry(s *Shared, d time.Duration) { s.trees.PassRetry(d) }

// SharedTreeKey is the key of a compact tree in a shared cache.
func SharedTreeKey(collectionID, version string) string {
	return treeload.SharedTreeKey(collectionID, version)
}
