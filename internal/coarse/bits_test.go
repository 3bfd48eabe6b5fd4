package coarse

import "testing"

// TestBitsShared checks the form in which coarse answers are shared
// through a page cache: encode and decode give the answers back, a value
// of another tree's size is refused, and merge keeps, for each entry, the
// first record's answer where it has one and the second's otherwise.
func TestCoarseBitsShared(t *testing.T) {
	const entries = 130
	a := (*Bits)(nil).With(entries, []int{0, 64, 129}, func(k int) bool { return k != 1 })  // 0: hit, 64: no, 129: hit
	b := (*Bits)(nil).With(entries, []int{64, 65, 129}, func(k int) bool { return k != 2 }) // 64: hit, 65: hit, 129: no
	got := Decode(a.Encode(), entries)
	for i := range entries {
		k1, h1 := a.Has(i)
		k2, h2 := got.Has(i)
		if k1 != k2 || h1 != h2 {
			t.Fatalf("entry %d after encode and decode: (%v, %v); want (%v, %v)", i, k2, h2, k1, h1)
		}
	}
	for _, n := range []int{entries + 64, 1} {
		if Decode(a.Encode(), n) != nil {
			t.Errorf("decoded for a tree of %d entries the answers of one of %d", n, entries)
		}
	}
	if Decode(nil, entries) != nil {
		t.Error("decoded an empty value")
	}
	m := a.Merge(b)
	for _, tc := range []struct {
		i          int
		known, hit bool
	}{
		{0, true, true}, {1, false, false}, {64, true, false}, {65, true, true}, {129, true, true},
	} {
		if k, h := m.Has(tc.i); k != tc.known || h != tc.hit {
			t.Errorf("merged entry %d: (%v, %v); want (%v, %v)", tc.i, k, h, tc.known, tc.hit)
		}
	}
	if (*Bits)(nil).Merge(b) != b || a.Merge(nil) != a {
		t.Error("merge with nil does not return the other record")
	}
}
