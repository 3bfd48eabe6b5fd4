package gnu_test

import (
	"slices"
	"testing"

	"github.com/chromafs/chromafs/gnu"
)

// TestLookup: Names lists every command once, sorted, and each looks up;
// other names do not; the caller's slice is its own.
func TestLookup(t *testing.T) {
	names := gnu.Names()
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("Names() = %q; want sorted names, each once", names)
	}
	for _, want := range []string{"awk", "cat", "grep", "ls", "sed", "yes"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() lacks %q", want)
		}
	}
	for _, name := range names {
		if f, ok := gnu.Lookup(name); !ok || f == nil {
			t.Errorf("Lookup(%q) = %v, %v; want the command", name, f != nil, ok)
		}
	}
	for _, name := range []string{"", "bash", "xargs", "LS", "ls "} {
		if f, ok := gnu.Lookup(name); ok || f != nil {
			t.Errorf("Lookup(%q) found a command", name)
		}
	}
	names[0] = "changed"
	if got := gnu.Names(); got[0] == "changed" {
		t.Error("Names() shares its slice with an earlier caller")
	}
}
