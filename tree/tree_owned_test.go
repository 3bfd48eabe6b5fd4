package tree

import (
	"reflect"
	"testing"
)

// TestNewOwned: NewOwned validates as New does and keeps the slices it is
// handed, shared Groups included.
func TestNewOwned(t *testing.T) {
	shared := []string{"admin"}
	mk := func() []Entry {
		return []Entry{
			{Slug: "b", Groups: shared, Size: -1},
			{Slug: "a", IsPublic: true, Size: 3},
			{Slug: "../x", Size: -1},
			{Slug: "c", Groups: shared, Size: -1},
		}
	}
	want := New(mk())
	got := NewOwned(mk())
	if !reflect.DeepEqual(got.Entries(), want.Entries()) || !reflect.DeepEqual(got.Problems(), want.Problems()) {
		t.Fatalf("NewOwned: %v %v; New: %v %v", got.Entries(), got.Problems(), want.Entries(), want.Problems())
	}
	es := got.Entries()
	if &es[1].Groups[0] != &shared[0] || &es[2].Groups[0] != &shared[0] { // a, b, c
		t.Error("NewOwned copied the shared Groups")
	}
}
