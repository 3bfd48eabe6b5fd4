package cachepkg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/cachepkg"
)

func TestMemoryGetPut(t *testing.T) {
	ctx := context.Background()
	m := cachepkg.NewMemory(1 << 20)
	if _, ok, err := m.Get(ctx, "a"); ok || err != nil {
		t.Fatalf("Get on empty cache = %v, %v; want miss", ok, err)
	}
	if err := m.Put(ctx, "a", []byte("alpha")); err != nil {
		t.Fatal(err)
	}
	v, ok, err := m.Get(ctx, "a")
	if err != nil || !ok || string(v) != "alpha" {
		t.Fatalf("Get(a) = %q, %v, %v; want alpha", v, ok, err)
	}
	if has, _ := m.Has(ctx, "a"); !has {
		t.Fatal("Has(a) = false after Put")
	}
	if err := m.PutMany(ctx, map[string][]byte{"b": []byte("beta"), "c": []byte("gamma")}); err != nil {
		t.Fatal(err)
	}
	got, err := m.GetMany(ctx, []string{"a", "b", "c", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || string(got["b"]) != "beta" || string(got["c"]) != "gamma" {
		t.Fatalf("GetMany = %q; want a, b and c", got)
	}
	if err := m.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := m.Get(ctx, "a"); ok {
		t.Fatal("Get(a) hit after Clear")
	}
}

func TestMemoryBound(t *testing.T) {
	ctx := context.Background()
	const max = 64 << 10
	m := cachepkg.NewMemory(max)
	page := []byte(strings.Repeat("x", 1000))
	for i := range 1000 {
		if err := m.Put(ctx, fmt.Sprintf("page-%d", i), page); err != nil {
			t.Fatal(err)
		}
	}
	if b := m.Bytes(); b > max {
		t.Fatalf("Bytes() = %d after 1000 puts of 1 KB; want <= %d", b, max)
	}
	if m.Len() == 0 {
		t.Fatal("cache kept nothing")
	}
	// A value larger than the whole cache is not stored.
	if err := m.Put(ctx, "huge", make([]byte, 2*max)); err != nil {
		t.Fatal(err)
	}
	if has, _ := m.Has(ctx, "huge"); has {
		t.Fatal("a value larger than the cache was stored")
	}
}

func ExampleMemory() {
	ctx := context.Background()
	c := cachepkg.NewMemory(32 << 20)
	_ = c.Put(ctx, "collection/v1/guide.md", []byte("# Guide\n"))
	v, ok, _ := c.Get(ctx, "collection/v1/guide.md")
	fmt.Printf("%v %q\n", ok, v)
	// Output: true "# Guide\n"
}

// TestTieredHasShared: a Tiered cache answers HasShared from its back
// tier when that tier is shared, and reports every key absent otherwise,
// whatever its front holds.
func TestTieredHasShared(t *testing.T) {
	ctx := context.Background()
	front, back := cachepkg.NewMemory(1<<20), cachepkg.NewMemory(1<<20)
	_ = front.Put(ctx, "f", []byte("front only"))
	_ = back.Put(ctx, "b", []byte("back"))
	has, err := cachepkg.NewTiered(front, back).HasShared(ctx, []string{"f", "b", "x"})
	if err != nil || len(has) != 3 || has[0] || has[1] || has[2] {
		t.Errorf("HasShared over a memory back tier = %v, %v; want 3 absent", has, err)
	}
	shared := cachepkg.NewTiered(front, fakeShared{back})
	has, err = shared.HasShared(ctx, []string{"f", "b", "x"})
	if err != nil || len(has) != 3 || has[0] || !has[1] || has[2] {
		t.Errorf("HasShared over a shared back tier = %v, %v; want [false true false]", has, err)
	}
}

// fakeShared is a Memory that says it is shared.
type fakeShared struct{ *cachepkg.Memory }

func (f fakeShared) HasShared(ctx context.Context, keys []string) ([]bool, error) {
	out := make([]bool, len(keys))
	for i, k := range keys {
		out[i], _ = f.Has(ctx, k)
	}
	return out, nil
}
