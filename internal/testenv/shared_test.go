package testenv

import (
	"sync"
	"testing"
)

// TestShared: the first test to ask runs the setup, every later and
// concurrent asker gets what it made without running it again, and a
// setup that skips its test makes the later askers skip.
func TestShared(t *testing.T) {
	var s Shared[[]string]
	runs := 0
	setup := func(tb testing.TB) []string {
		runs++
		return []string{"made by " + tb.Name()}
	}
	t.Run("first", func(t *testing.T) {
		if got := s.Get(t, setup); len(got) != 1 || got[0] != "made by TestShared/first" {
			t.Errorf("Get = %q", got)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if got := s.Get(t, setup); len(got) != 1 || got[0] != "made by TestShared/first" {
					t.Errorf("Get = %q", got)
				}
			})
		}
		wg.Wait()
	})
	if runs != 1 {
		t.Errorf("setup ran %d times, want 1", runs)
	}

	var skipped Shared[int]
	t.Run("skips", func(t *testing.T) {
		skipped.Get(t, func(tb testing.TB) int { tb.Skip("no server"); return 0 })
	})
	t.Run("later", func(t *testing.T) {
		defer func() {
			if !t.Skipped() {
				t.Error("a later Get after a skipped setup did not skip")
			}
		}()
		skipped.Get(t, func(testing.TB) int { t.Error("setup ran again"); return 1 })
	})
}
