package testenv

import (
	"sync"
	"testing"
)

// Shared is data that several tests of a test binary read and that is
// made once, by the first test that asks for it: a collection written to
// the shared Chroma, a corpus, a built binary. What the setup makes must
// not be tied to that test (no tb.TempDir, [CollectionName] or
// tb.Cleanup): use [TempDir] and [SharedCollectionName], which [Main]
// removes when the tests end. The zero value is ready to use; it is safe
// for concurrent use (parallel tests wait for the first setup).
type Shared[T any] struct {
	mu    sync.Mutex
	state int    // 0 not made, 1 made, 2 setup failed, 3 setup skipped
	first string // the test that ran the setup
	v     T
}

// Get returns the data, running setup with tb if no test has yet. When
// setup failed or skipped its test, every later caller fails or skips
// too, naming the first test.
func (s *Shared[T]) Get(tb testing.TB, setup func(tb testing.TB) T) T {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == 0 {
		s.state, s.first = 2, tb.Name()
		defer func() {
			if s.state == 2 && tb.Skipped() {
				s.state = 3
			}
		}()
		s.v = setup(tb)
		s.state = 1
	}
	switch s.state {
	case 2:
		tb.Fatalf("the shared test data could not be made: see %s, which ran the setup", s.first)
	case 3:
		tb.Skipf("the shared test data was skipped: see %s, which ran the setup", s.first)
	}
	return s.v
}
