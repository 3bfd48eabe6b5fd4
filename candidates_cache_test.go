package chromafs_test

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// sharedState is a state of a shared Redis page cache for the coarse
// filter's tests: which of the pages (by index in slug order) it holds.
type sharedState struct {
	name string
	held func(i int) bool
}

var sharedStates = []sharedState{
	{"none", func(int) bool { return false }},
	{"part", func(i int) bool { return i%2 == 0 }},
	{"all", func(int) bool { return true }},
}

// fillShared makes a Redis cache under its own prefix holding the pages
// of slugs (sorted) that st holds, as the sessions that opts make key
// them (opts must make every slug visible), and returns it with the held
// slugs.
func fillShared(t *testing.T, url string, store collection.Store, slugs []string, st sharedState, opts ...chromafs.Option) (*rediscache.Cache, map[string]bool) {
	t.Helper()
	rc := redisCache(t, url, fmt.Sprintf("%s/%s:", t.Name(), st.name), rediscache.Options{TTL: time.Hour})
	ctx := context.Background()
	if err := rc.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Clear(context.Background()) })
	held := map[string]bool{}
	var names []string
	for i, s := range slugs {
		if st.held(i) {
			held[s] = true
			names = append(names, s)
		}
	}
	if len(names) > 0 {
		filler := mustNew(t, store, append(slices.Clone(opts), chromafs.WithCache(rc))...)
		if err := filler.Prefetch(ctx, names); err != nil {
			t.Fatal(err)
		}
	}
	return rc, held
}

// covered returns the slugs of all that a search scope covers.
func covered(sc collection.Scope, all []string) []string {
	listed := map[string]bool{}
	for _, s := range sc.Slugs {
		listed[s] = true
	}
	var out []string
	for _, s := range all {
		if listed[s] != sc.Exclude {
			out = append(out, s)
		}
	}
	return out
}

// TestCandidatesSharedCache runs the coarse filter with a shared Redis
// page cache behind memory (as `chromafs --redis-url` makes it) holding
// none, part or all of the pages, on every backend and writer: the pages
// Redis holds are candidates without a question to the store, the store
// is asked about the others only, with the same answers as without Redis,
// and with every page in Redis it is asked nothing.
func TestCandidatesSharedCache(t *testing.T) {
	rdb := testenv.Redis(t)
	files := corpus(t)
	for k, v := range foldFiles {
		files[k] = v
	}
	slugs := slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	})
	cases := []struct {
		lits []string
		fold bool
	}{
		{[]string{"access_token"}, false},
		{[]string{"ACCESS_TOKEN"}, true},
		{[]string{"mission"}, true},
		{[]string{"no such literal anywhere"}, false},
		{[]string{"the"}, false},
		{[]string{"end\nline line"}, false},
	}
	ctx := context.Background()
	for _, b := range testbackend.Backends() {
		for _, w := range writers {
			if w.name == "sharded" {
				continue
			}
			t.Run(b.Name+"/"+w.name, func(t *testing.T) {
				target := b.New(t)
				w.write(t, target, files)
				store := &requestLog{Target: target}
				for _, st := range sharedStates {
					rc, held := fillShared(t, rdb.URL, store, slugs, st, chromafs.WithGroups("staff"))
					for _, groups := range [][]string{{"staff"}, nil} {
						ref := mustNew(t, target, chromafs.WithGroups(groups...), chromafs.WithShared(chromafs.NewShared(0)))
						names := allFiles(t, ref)
						for _, tc := range cases {
							want, err := ref.Candidates(ctx, names, tc.lits, tc.fold)
							if err != nil {
								t.Fatal(err)
							}
							// A new Shared: no answer is remembered.
							fsys := mustNew(t, store, chromafs.WithGroups(groups...), chromafs.WithShared(chromafs.NewShared(0)),
								chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)))
							store.searches, store.gets, store.byID = nil, nil, nil
							got, err := fsys.Candidates(ctx, names, tc.lits, tc.fold)
							if err != nil {
								t.Fatal(err)
							}
							checkCandidates(t, ref, names, tc.lits, tc.fold, got)
							// The held pages (without fold, those whose content
							// has a literal), then the store's answers for the
							// others.
							var wantGot []string
							for _, n := range names {
								switch {
								case held[n] && !tc.fold:
									data, err := fs.ReadFile(ref, n)
									if err != nil {
										t.Fatal(err)
									}
									if slices.ContainsFunc(tc.lits, func(l string) bool { return strings.Contains(string(data), l) }) {
										wantGot = append(wantGot, n)
									}
								case held[n] || slices.Contains(want, n):
									wantGot = append(wantGot, n)
								}
							}
							if !slices.Equal(got, wantGot) {
								t.Errorf("%s, groups %q: Candidates(%q, fold=%v) = %q; want %q", st.name, groups, tc.lits, tc.fold, got, wantGot)
							}
							for _, s := range store.searches {
								for _, c := range covered(s.scope, slugs) {
									if held[c] && slices.Contains(names, c) {
										t.Errorf("%s, groups %q: %q: a search covered %s, which Redis holds", st.name, groups, tc.lits, c)
									}
								}
							}
							if len(store.gets)+len(store.byID) > 0 {
								t.Errorf("%s: Candidates read content from the store", st.name)
							}
							if st.name == "all" && len(store.searches) > 0 {
								t.Errorf("all pages in Redis, groups %q: %q sent %d searches; want none", groups, tc.lits, len(store.searches))
							}
							// Another process (a new Shared) finds the answers
							// in Redis: the same candidates, no question to
							// the store.
							other := mustNew(t, store, chromafs.WithGroups(groups...), chromafs.WithShared(chromafs.NewShared(0)),
								chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)))
							store.searches = nil
							again, err := other.Candidates(ctx, names, tc.lits, tc.fold)
							if err != nil {
								t.Fatal(err)
							}
							if !slices.Equal(again, got) || len(store.searches) > 0 {
								t.Errorf("%s, groups %q: %q in a second process: %q and %d searches; want %q and none", st.name, groups, tc.lits, again, len(store.searches), got)
							}
						}
					}
				}
			})
		}
	}
}

// TestCandidatesSharedCacheDown: when the shared cache does not answer,
// the store is asked about every page, with one warning and no error.
func TestCandidatesSharedCacheDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	rc := redisCache(t, "redis://"+addr, "down:", rediscache.Options{Timeout: 200 * time.Millisecond})
	files := corpus(t)
	store := testbackend.Chroma(t)
	foreign(t, store, files)
	ctx := context.Background()
	ref := mustNew(t, store, chromafs.WithShared(chromafs.NewShared(0)))
	names := allFiles(t, ref)
	want, err := ref.Candidates(ctx, names, []string{"access_token"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var logs testenv.LogBuffer
	fsys := mustNew(t, store, chromafs.WithShared(chromafs.NewShared(0)),
		chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)),
		chromafs.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	got, err := fsys.Candidates(ctx, names, []string{"access_token"}, false)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Candidates with Redis down = %q, %v; want %q", got, err, want)
	}
	// New warns once too: it asks the shared cache for the compact tree
	// (see TestSharedCompactTreeRedisDown).
	s := logs.String()
	if strings.Count(s, "level=WARN")-strings.Count(s, "shared cache failed; reading the tree") != 1 || !strings.Contains(s, "page cache check failed") {
		t.Errorf("log:\n%s\nwant one warning that the cache check failed", s)
	}
}

// TestCandidatesQueryShape checks what the coarse filter sends for an
// ingest-written (line-aligned) collection: one query, plus the three
// boundary queries only when a page had a line cut (its entry has
// SplitLines), scoped to exactly those pages; the main query has no slug
// filter when the view hides nothing, and otherwise leaves out the hidden
// pages with $nin, the cheaper form when they are fewer than the visible
// ones (see BENCHMARKS.md).
func TestCandidatesQueryShape(t *testing.T) {
	files := map[string]string{
		"a.md":          "short line one\nshort line two\n",
		"b.md":          "the token is here\n",
		"c.md":          "nothing to see\nreally nothing\n",
		"d.md":          "more\n",
		"internal/s.md": "the token, privately\n",
	}
	long := strings.Repeat("word ", 40) + "token\n" // one line longer than a chunk
	rules, err := ingest.ParseRules(strings.NewReader("** public\ninternal/** private groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		split  bool
		groups []string
	}{
		{"aligned/public", false, nil},
		{"aligned/staff", false, []string{"staff"}},
		{"split/public", true, nil},
		{"split/staff", true, []string{"staff"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := maps.Clone(files)
			if tc.split {
				src["long.md"] = long
			}
			mem := memstore.New(t.Name())
			if _, err := ingest.Run(ctx, mem, mapFSOf(src), ingest.Options{Rules: rules, MaxChunk: 64}); err != nil {
				t.Fatal(err)
			}
			store := &requestLog{Target: mem}
			fsys := mustNew(t, store, chromafs.WithGroups(tc.groups...), chromafs.WithShared(chromafs.NewShared(0)))
			names := allFiles(t, fsys)
			if _, err := fsys.Candidates(ctx, names, []string{"token"}, false); err != nil {
				t.Fatal(err)
			}
			var main, boundary []collection.Scope
			for _, s := range store.searches {
				if slices.ContainsFunc(s.filter.Regexes, func(re string) bool { return strings.Contains(re, "$") || strings.HasPrefix(re, "^") }) {
					boundary = append(boundary, s.scope)
				} else {
					main = append(main, s.scope)
				}
			}
			if len(main) != 1 {
				t.Fatalf("%d main queries, want 1: %+v", len(main), store.searches)
			}
			wantMain := collection.Scope{Exclude: true, IDsOnly: true}
			if tc.groups == nil {
				wantMain.Slugs = []string{"internal/s.md"}
			}
			if !slices.Equal(main[0].Slugs, wantMain.Slugs) || main[0].Exclude != wantMain.Exclude {
				t.Errorf("main query scope %+v, want %+v", main[0], wantMain)
			}
			wantBoundary := 0
			if tc.split {
				wantBoundary = 3
			}
			if len(boundary) != wantBoundary {
				t.Fatalf("%d boundary queries, want %d", len(boundary), wantBoundary)
			}
			for _, sc := range boundary {
				if sc.Exclude || !slices.Equal(sc.Slugs, []string{"long.md"}) {
					t.Errorf("boundary query scope %+v, want the split page long.md only", sc)
				}
			}
		})
	}
}
