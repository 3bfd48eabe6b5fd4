package coarse

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// adoptedPage is a page of the adopted test collection: its chunks'
// texts and, per part, the bytes it repeats of what precedes it and the
// gap before it.
type adoptedPage struct {
	chunks []string
	skips  []int
	gaps   []string
	tail   string
}

// adoptedPages are the pages of TestFilterAdopted, one per kind of
// junction.
var adoptedPages = map[string]adoptedPage{
	// Blocked or open: a gap of two line breaks, and a final one.
	"gap.md": {chunks: []string{"alpha beta", "gamma delta"}, skips: []int{0, 0}, gaps: []string{"", "\n\n"}, tail: "\n"},
	// Covered, for literals of at most 11 bytes: the second chunk
	// repeats 10 bytes.
	"overlap.md": {chunks: []string{"one two three four", "three four five six"}, skips: []int{0, 10}, gaps: []string{"", ""}},
	// Joined: chunks that meet, two of them short.
	"adjacent.md": {chunks: []string{"abc hel", "lo", " wor", "ld xyz"}, skips: []int{0, 0, 0, 0}, gaps: []string{"", "", "", ""}},
	// A gap of one space.
	"spacegap.md": {chunks: []string{"foo", "bar"}, skips: []int{0, 0}, gaps: []string{"", " "}},
}

// content returns the page as its recipe builds it.
func (p adoptedPage) content() string {
	var b strings.Builder
	for i, c := range p.chunks {
		b.WriteString(p.gaps[i] + c[p.skips[i]:])
	}
	return b.String() + p.tail
}

// adoptedFilter returns a Filter over the adopted test collection (its
// chunks carry only a source, as a foreign writer's do) in store, and
// the store's memstore.
func adoptedFilter(t *testing.T, blind bool, cache cachepkg.Cache, log *slog.Logger) (*Filter, []*tree.Node, *countingStore) {
	t.Helper()
	mem := memstore.New("adopted-filter-test")
	entries := map[string]any{}
	var recs []collection.Record
	for slug, p := range adoptedPages {
		r := collection.Recipe{Tail: p.tail}
		for i, c := range p.chunks {
			id := fmt.Sprintf("uuid-%s-%d", slug, i)
			recs = append(recs, collection.Record{ID: id, Document: c, Metadata: map[string]any{"source": "/site/" + slug}})
			r.Parts = append(r.Parts, collection.Part{ID: id, Skip: p.skips[i], Len: len(c), Gap: p.gaps[i]})
		}
		entries[slug] = map[string]any{"isPublic": true, "size": len(p.content()), "parts": r.Encode()}
	}
	if err := mem.Upsert(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tree.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cs := &countingStore{Store: mem, blind: blind}
	v := tr.View(nil)
	f := NewFilter(Config{Store: cs, Layout: collection.DefaultLayout(), Tree: tr, View: v, Version: "v1",
		Cache: cache, Keys: keyFunc(pageKey), Shared: NewShared(1 << 20), Log: log})
	return f, viewPages(v), cs
}

// TestFilterAdopted: pages of an adopted collection are searched by the
// ids of their chunks: a page is kept when a chunk holds a literal, when
// a literal straddles chunks that meet (through short ones) or overlap
// by fewer bytes than it has, or when a gap (between chunks, or the
// final line break) may hold part of it (spacegap.md's one space keeps it
// for every literal with a space); a page whose junctions are gaps
// without its runes, or overlaps as long as it, is left out when no
// chunk holds it. Each case is checked against the pages' content.
func TestFilterAdopted(t *testing.T) {
	ctx := context.Background()
	f, pages, cs := adoptedFilter(t, false, cachepkg.NewMemory(0), nil)
	for _, tc := range []struct {
		lits     []string
		fold     bool
		want     []string
		searches int32 // the store's searches: 1, or 4 with the boundary queries
	}{
		{[]string{"zzz"}, false, nil, 4},
		{[]string{"beta\n\ngam"}, false, []string{"gap.md"}, 4},                            // the gap may hold it: gap.md without a question
		{[]string{"delta\n"}, false, []string{"gap.md"}, 4},                                // the final line break
		{[]string{"four five"}, false, []string{"overlap.md", "spacegap.md"}, 4},           // in the second chunk
		{[]string{"two three four five"}, false, []string{"overlap.md", "spacegap.md"}, 4}, // longer than the overlap: straddles
		{[]string{"hello world"}, false, []string{"adjacent.md", "spacegap.md"}, 4},        // across four chunks
		{[]string{"HELLO WORLD"}, true, []string{"adjacent.md", "spacegap.md"}, 4},
		{[]string{"o b"}, false, []string{"spacegap.md"}, 4},
		{[]string{"c hel"}, false, []string{"adjacent.md", "spacegap.md"}, 4},
		{[]string{"a"}, false, []string{"adjacent.md", "gap.md", "spacegap.md"}, 1}, // one rune: no boundary queries
		{[]string{"three"}, false, []string{"overlap.md"}, 4},
		{[]string{"llo wo"}, false, []string{"adjacent.md", "spacegap.md"}, 4}, // spacegap.md: its gap may hold the space
		{[]string{"ofoo"}, false, nil, 4},
	} {
		before := cs.searches.Load()
		keep, err := f.Candidates(ctx, pages, tc.lits, tc.fold)
		if err != nil {
			t.Fatal(err)
		}
		got := kept(pages, keep)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Candidates(%q, fold %v) kept %q; want %q", tc.lits, tc.fold, got, tc.want)
		}
		for _, n := range pages {
			c := adoptedPages[n.Path].content()
			has := slices.ContainsFunc(tc.lits, func(l string) bool {
				return strings.Contains(c, l) || tc.fold && strings.Contains(strings.ToLower(c), strings.ToLower(l))
			})
			if has && !slices.Contains(got, n.Path) {
				t.Errorf("Candidates(%q, fold %v) left out %s, which holds it", tc.lits, tc.fold, n.Path)
			}
		}
		if n := cs.searches.Load() - before; n != tc.searches {
			t.Errorf("Candidates(%q, fold %v): %d searches; want %d", tc.lits, tc.fold, n, tc.searches)
		}
	}
}

// TestFilterAdoptedSelfCheck: a store whose text search answers nothing
// is caught by an adopted page in memory that holds the literal: the
// filter turns off and keeps every page.
func TestFilterAdoptedSelfCheck(t *testing.T) {
	ctx := context.Background()
	cache := cachepkg.NewMemory(0)
	var logs strings.Builder
	f, pages, _ := adoptedFilter(t, true, cache, slog.New(slog.NewTextHandler(&logs, nil)))
	for _, n := range pages {
		if n.Path == "overlap.md" {
			if err := cache.Put(ctx, pageKey(n), []byte(adoptedPages[n.Path].content())); err != nil {
				t.Fatal(err)
			}
		}
	}
	keep, err := f.Candidates(ctx, pages, []string{"five"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := kept(pages, keep); len(got) != len(pages) || !f.Health().Off() {
		t.Errorf("kept %q, Health().Off() = %v; want every page, and the filter off", got, f.Health().Off())
	}
	if !strings.Contains(logs.String(), "did not name a page") {
		t.Errorf("no warning:\n%s", logs.String())
	}
}
