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
