package grepx_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/regex"
)

// rare is planted in a few public and private pages, at every offset
// around the foreign writer's chunk cuts, so that it straddles chunks.
const rare = "xylophone_quartz"

// site is a small synthetic docs site: the generator's pages cut to a few
// lines (so that the foreign writer's small chunks stay few), plus pages
// with planted strings.
func site() map[string]string {
	pages := gen.Pages(140, 7)
	out := make(map[string]string, len(pages)+40)
	for slug, content := range pages {
		if len(content) > 700 {
			i := strings.LastIndexByte(content[:700], '\n')
			content = content[:i+1]
		}
		out[slug] = content
	}
	// Straddlers: the literal starts at every offset across a 97-byte cut.
	for off := 80; off < 100; off++ {
		pad := strings.Repeat("p", off)
		out[fmt.Sprintf("planted/cut-%d.md", off)] = pad + rare + " tail\nsecond line\n"
	}
	out["planted/case.md"] = "A ZEBRA crossing\nStraße und STRASSE\nſtraße\n"
	out[gen.PrivateDir+"/planted/secret.md"] = "the " + rare + " secret\n"
	out[gen.PrivateDir+"/planted/long.md"] = strings.Repeat("q", 95) + rare + rare + "\n"
	return out
}

type fullStore interface {
	collection.Store
	collection.Writer
	collection.IDReader
	collection.Searcher
}

// recorder wraps a store and records every slug whose content it returned
// and every slug a coarse search was scoped to.
type recorder struct {
	fullStore
	mu       sync.Mutex
	fetched  map[string]bool
	scopes   []collection.Scope
	requests int
}

func newRecorder(s fullStore) *recorder {
	return &recorder{fullStore: s, fetched: map[string]bool{}}
}

func (r *recorder) note(chunks []collection.Chunk, scope *collection.Scope) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	for _, c := range chunks {
		if c.Text != "" {
			r.fetched[c.Slug] = true
		}
	}
	if scope != nil {
		r.scopes = append(r.scopes, *scope)
	}
}

func (r *recorder) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	c, err := r.fullStore.Chunks(ctx, l, slugs)
	r.note(c, nil)
	return c, err
}

func (r *recorder) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	c, err := r.fullStore.ChunksByID(ctx, l, ids)
	r.note(c, nil)
	return c, err
}

func (r *recorder) Search(ctx context.Context, l collection.Layout, scope collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	c, err := r.fullStore.Search(ctx, l, scope, f)
	r.note(c, &scope)
	return c, err
}

// searchedHidden returns a hidden page (not in visible) that a search's
// scope covered, if any: one listed by an including scope, or one not
// listed by an excluding scope.
func (r *recorder) searchedHidden(all, visible map[string]string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sc := range r.scopes {
		listed := map[string]bool{}
		for _, s := range sc.Slugs {
			listed[s] = true
		}
		for slug := range all {
			if _, ok := visible[slug]; !ok && listed[slug] != sc.Exclude {
				return slug, true
			}
		}
	}
	return "", false
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fetched, r.scopes, r.requests = map[string]bool{}, nil, 0
}

func visible(files map[string]string, groups []string) map[string]string {
	out := map[string]string{}
	for slug, content := range files {
		pub, gs := gen.Access(slug)
		if pub || slices.ContainsFunc(gs, func(g string) bool { return slices.Contains(groups, g) }) {
			out[slug] = content
		}
	}
	return out
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for slug, content := range files {
		m[slug] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	return m
}

type loaded struct {
	name  string
	store fullStore
}

// stores returns the site loaded into memstore and real Chroma, once
// with chromafs's ingest (line-aligned chunks) and once the way foreign
// writers do (97-byte chunks cut mid-line, shuffled, gzip tree without
// sizes). The tests only read them (through a recorder of their own), so
// they are written once per test binary, by the first test that asks;
// the Chroma collections are deleted when the tests end.
func stores(t *testing.T) []loaded {
	t.Helper()
	return loadedSite.Get(t, func(t testing.TB) []loaded {
		files := site()
		ctx := context.Background()
		var out []loaded
		for _, backend := range []string{"memstore", "chroma"} {
			for _, writer := range []string{"ingest", "foreign"} {
				var s fullStore
				if backend == "memstore" {
					s = memstore.New("accel-" + writer)
				} else {
					s = testbackend.SharedChroma(t, "accel-"+writer)
				}
				if writer == "ingest" {
					rules, err := ingest.ParseRules(strings.NewReader("** public\n" + gen.PrivateDir + "/** private groups=" + gen.PrivateGroup + "\n"))
					if err != nil {
						t.Fatal(err)
					}
					if _, err := ingest.Run(ctx, s, mapFS(files), ingest.Options{Rules: rules, MaxChunk: 256, Compressed: true}); err != nil {
						t.Fatal(err)
					}
				} else {
					mem := memstore.New("foreign")
					err := memstore.Load(mem, collection.DefaultLayout(), files, memstore.LoadOptions{
						ChunkSize: 97, Shuffle: rand.New(rand.NewPCG(1, 2)), Access: gen.Access, Compressed: true,
					})
					if err != nil {
						t.Fatal(err)
					}
					if err := s.Upsert(ctx, mem.Records()); err != nil {
						t.Fatal(err)
					}
				}
				out = append(out, loaded{backend + "/" + writer, s})
			}
		}
		return out
	})
}

var loadedSite testenv.Shared[[]loaded]

// plainResults are the results of queries over a plain copy of the files
// that a group set sees, which several tests compare with for every
// store and cache state: the query's name and the groups → collect's
// output.
var plainResults sync.Map

// plainResult returns collect's output for query i of queries over a
// plain copy of the site's files that groups see, computed once.
func plainResult(t *testing.T, groups []string, i int) string {
	t.Helper()
	key := fmt.Sprint(queries[i].name, groups)
	if want, ok := plainResults.Load(key); ok {
		return want.(string)
	}
	want, _ := collect(t, mapFS(visible(site(), groups)), queries[i].q)
	plainResults.Store(key, want)
	return want
}

var queries = []struct {
	name   string
	q      grepx.Query
	coarse bool // whether a cold search must use the coarse filter
	narrow bool // whether the filter must rule out some files
}{
	{"rare", grepx.Query{Patterns: []string{rare}, Recursive: true}, true, true},
	{"rare context", grepx.Query{Patterns: []string{rare}, Recursive: true, Before: 1, After: 1}, true, true},
	{"rare ignore case", grepx.Query{Patterns: []string{"XYLOPHONE_Quartz"}, IgnoreCase: true, Recursive: true}, true, true},
	{"rare count", grepx.Query{Patterns: []string{rare}, Recursive: true, Mode: grepx.Count}, true, true},
	{"rare files without", grepx.Query{Patterns: []string{rare}, Recursive: true, Mode: grepx.FilesWithoutMatch}, true, true},
	{"alternation", grepx.Query{Patterns: []string{"zebra|quartz"}, Syntax: regex.Extended, IgnoreCase: true, Recursive: true}, true, true},
	{"fold non-ascii", grepx.Query{Patterns: []string{"STRAẞE", "ſtrasse"}, IgnoreCase: true, Recursive: true, Mode: grepx.FilesWithMatches}, true, true},
	{"common word", grepx.Query{Patterns: []string{"the"}, Word: true, Recursive: true, Mode: grepx.Count}, true, false},
	{"no literal", grepx.Query{Patterns: []string{`[[:upper:]][[:lower:]]{12,}`}, Syntax: regex.Extended, Recursive: true}, false, false},
	{"invert", grepx.Query{Patterns: []string{"e"}, Invert: true, Recursive: true, Mode: grepx.Count}, false, false},
	{"scoped", grepx.Query{Patterns: []string{rare}, Recursive: true, Paths: []string{"planted", "nope"}}, false, false},
	// Perl patterns (grep -P): literals only from outside lookarounds
	// and back-references; \K and lookbehind change what -o prints.
	{"perl lookbehind", grepx.Query{Patterns: []string{`(?<=the )xylophone_\w+`}, Syntax: regex.Perl, Recursive: true, OnlyMatching: true}, true, true},
	{"perl keep", grepx.Query{Patterns: []string{`xylophone_\K\w+(?= )`}, Syntax: regex.Perl, Recursive: true, OnlyMatching: true}, true, true},
	{"perl backref", grepx.Query{Patterns: []string{`(xylophone)_quartz\1`}, Syntax: regex.Perl, Recursive: true}, true, true},
	{"perl lookahead ignore case", grepx.Query{Patterns: []string{`zebra(?! crossing)|stra(?=ße)`}, Syntax: regex.Perl, IgnoreCase: true, Recursive: true, OnlyMatching: true}, true, true},
	{"perl word", grepx.Query{Patterns: []string{`\w+_quartz`}, Syntax: regex.Perl, Word: true, Recursive: true, Mode: grepx.Count}, true, true},
	{"perl no literal", grepx.Query{Patterns: []string{`(?<=\s)[[:upper:]]{5}\b`}, Syntax: regex.Perl, Recursive: true, OnlyMatching: true}, false, false},
	// More literals than a coarse query takes: every file is read, and
	// the literal automaton finds the same lines.
	{"many patterns", grepx.Query{Patterns: append(manyWords(499, 3), rare), Recursive: true}, false, false},
	{"many patterns ignore case", grepx.Query{Patterns: append(manyWords(499, 3), "XYLOPHONE_Quartz"), IgnoreCase: true, Recursive: true, Mode: grepx.Count}, false, false},
}

// TestAcceleratedEqualsPlain runs queries over chromafs (cold, so that the
// coarse filter runs; then in a new session whose page cache is empty but
// whose Shared remembers the coarse answers, for this view and, for the
// second group set, partly for another; then warm) and over a plain copy
// of the visible files, and requires identical results.
func TestAcceleratedEqualsPlain(t *testing.T) {
	files := site()
	ctx := context.Background()
	for _, l := range stores(t) {
		t.Run(l.name, func(t *testing.T) {
			rec := newRecorder(l.store)
			// One Shared per query: the first group set starts cold, the
			// second with the first's answers.
			shared := make([]*chromafs.Shared, len(queries))
			for i := range shared {
				shared[i] = chromafs.NewShared(0)
			}
			for _, groups := range [][]string{nil, {gen.PrivateGroup}} {
				for i, tc := range queries {
					t.Run(fmt.Sprintf("%s/%v", tc.name, groups), func(t *testing.T) {
						want := plainResult(t, groups, i)
						open := func() *chromafs.FS {
							fsys, err := chromafs.New(ctx, rec, chromafs.WithGroups(groups...), chromafs.WithShared(shared[i]))
							if err != nil {
								t.Fatal(err)
							}
							return fsys
						}
						got, st := collect(t, open(), tc.q)
						if got != want {
							t.Fatalf("cold: got\n%s\nwant\n%s", got, want)
						}
						if st.Coarse != tc.coarse {
							t.Errorf("cold: coarse filter used = %v, want %v (stats %+v)", st.Coarse, tc.coarse, st)
						}
						if tc.narrow && st.Candidates >= st.Files {
							t.Errorf("coarse filter removed nothing: %+v", st)
						}
						// Remembered: a new session with an empty page
						// cache asks the store no coarse query.
						rec.reset()
						fsys := open()
						got, st = collect(t, fsys, tc.q)
						if got != want {
							t.Fatalf("remembered: got\n%s\nwant\n%s", got, want)
						}
						if st.Coarse != tc.coarse {
							t.Errorf("remembered: coarse filter used = %v, want %v (stats %+v)", st.Coarse, tc.coarse, st)
						}
						if n := len(rec.scopes); n != 0 {
							t.Errorf("remembered: %d coarse queries, want 0", n)
						}
						// Warm: every page cached, so nothing is worth a query.
						if err := fsys.Prefetch(ctx, slices.Collect(maps.Keys(visible(files, groups)))); err != nil {
							t.Fatal(err)
						}
						got, st = collect(t, fsys, tc.q)
						if got != want {
							t.Fatalf("warm: got\n%s\nwant\n%s", got, want)
						}
						if st.Coarse {
							t.Errorf("warm: coarse filter used with every page cached")
						}
					})
				}
			}
		})
	}
}

// TestNoLeak searches random group sets × patterns × paths and checks that
// no hidden page's content is fetched, no coarse query is scoped to a
// hidden page, and no result names a hidden or out-of-scope page.
func TestNoLeak(t *testing.T) {
	files := site()
	ctx := context.Background()
	dirs := []string{".", "planted", gen.PrivateDir, gen.PrivateDir + "/planted", "guides", "nope", gen.PrivateDir + "/planted/secret.md", "planted/case.md"}
	pats := []grepx.Query{
		{Patterns: []string{rare}},
		{Patterns: []string{"secret"}, IgnoreCase: true},
		{Patterns: []string{"q+x"}, Syntax: regex.Extended},
		{Patterns: []string{"the", rare}, Syntax: regex.Fixed, Word: true},
		{Patterns: []string{"."}},
	}
	groupSets := [][]string{nil, {"sales"}, {gen.PrivateGroup}, {"sales", gen.PrivateGroup}, {""}}
	r := rand.New(rand.NewPCG(3, 4))
	for _, l := range stores(t) {
		t.Run(l.name, func(t *testing.T) {
			rec := newRecorder(l.store)
			for i := range 60 {
				groups := groupSets[r.IntN(len(groupSets))]
				q := pats[r.IntN(len(pats))]
				q.Recursive = true
				q.Mode = grepx.Mode(r.IntN(4))
				q.Paths = nil
				for range 1 + r.IntN(3) {
					q.Paths = append(q.Paths, dirs[r.IntN(len(dirs))])
				}
				vis := visible(files, groups)
				rec.reset()
				fsys, err := chromafs.New(ctx, rec, chromafs.WithGroups(groups...))
				if err != nil {
					t.Fatal(err)
				}
				var results []*grepx.File
				if _, err := grepx.Search(ctx, fsys, q, func(f *grepx.File) error {
					results = append(results, f)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				inScope := func(p string) bool {
					return slices.ContainsFunc(q.Paths, func(d string) bool {
						return d == "." || p == d || strings.HasPrefix(p, d+"/")
					})
				}
				for _, f := range results {
					if f.Err != nil {
						continue
					}
					if _, ok := vis[f.Path]; !ok || !inScope(f.Path) {
						t.Errorf("case %d (groups %v, %+v): result %s is hidden or out of scope", i, groups, q, f.Path)
					}
				}
				for slug := range rec.fetched {
					if _, ok := vis[slug]; !ok {
						t.Errorf("case %d (groups %v): content of hidden page %s fetched", i, groups, slug)
					}
				}
				if slug, ok := rec.searchedHidden(files, vis); ok {
					t.Errorf("case %d (groups %v): coarse query scoped to hidden page %s", i, groups, slug)
				}
				anyVisible := slices.ContainsFunc(slices.Collect(maps.Keys(vis)), inScope)
				if !anyVisible && rec.requests != 0 {
					t.Errorf("case %d (groups %v, paths %v): empty scope sent %d requests", i, groups, q.Paths, rec.requests)
				}
			}
		})
	}
}

// readOnly is a shared cache that the sessions under test read but do not
// write, so that its state (which pages it holds) stays what the test set.
type readOnly struct{ *rediscache.Cache }

func (readOnly) Put(context.Context, string, []byte) error        { return nil }
func (readOnly) PutMany(context.Context, map[string][]byte) error { return nil }

// TestAcceleratedEqualsPlainSharedCache runs queries over chromafs
// sessions whose page cache is memory in front of a shared Redis that
// holds none, part (every other page) or all of the pages, as a second
// process meets it, and over a plain copy of the visible files, and
// requires identical results. With every page in Redis no coarse query
// and no content read reaches the store; with part of them, coarse
// queries cover only the others.
func TestAcceleratedEqualsPlainSharedCache(t *testing.T) {
	rdb := testenv.Redis(t)
	files := site()
	slugs := slices.Sorted(maps.Keys(files))
	ctx := context.Background()
	for _, l := range stores(t) {
		t.Run(l.name, func(t *testing.T) {
			rec := newRecorder(l.store)
			for si, state := range []string{"none", "part", "all"} {
				rc, err := rediscache.New(rdb.URL, rediscache.Options{Prefix: fmt.Sprintf("%s/%s:", t.Name(), state), TTL: time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				defer rc.Close()
				if err := rc.Clear(ctx); err != nil {
					t.Fatal(err)
				}
				defer rc.Clear(context.Background())
				held := map[string]bool{}
				var fill []string
				for i, s := range slugs {
					if si == 2 || (si == 1 && i%2 == 0) {
						held[s] = true
						fill = append(fill, s)
					}
				}
				if len(fill) > 0 {
					filler, err := chromafs.New(ctx, l.store, chromafs.WithGroups(gen.PrivateGroup), chromafs.WithCache(rc))
					if err != nil {
						t.Fatal(err)
					}
					if err := filler.Prefetch(ctx, fill); err != nil {
						t.Fatal(err)
					}
				}
				for _, groups := range [][]string{nil, {gen.PrivateGroup}} {
					vis := visible(files, groups)
					for i, tc := range queries {
						t.Run(fmt.Sprintf("%s/%s/%v", state, tc.name, groups), func(t *testing.T) {
							want := plainResult(t, groups, i)
							rec.reset()
							fsys, err := chromafs.New(ctx, rec, chromafs.WithGroups(groups...), chromafs.WithShared(chromafs.NewShared(0)),
								chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), readOnly{rc})))
							if err != nil {
								t.Fatal(err)
							}
							got, _ := collect(t, fsys, tc.q)
							if got != want {
								t.Fatalf("got\n%s\nwant\n%s", got, want)
							}
							for slug := range rec.fetched {
								if held[slug] {
									t.Errorf("content of %s read from the store; Redis holds it", slug)
								}
							}
							rec.mu.Lock()
							defer rec.mu.Unlock()
							for _, sc := range rec.scopes {
								listed := map[string]bool{}
								for _, s := range sc.Slugs {
									listed[s] = true
								}
								for slug := range vis {
									if held[slug] && listed[slug] != sc.Exclude {
										t.Errorf("a coarse query covered %s; Redis holds it", slug)
									}
								}
							}
							if state == "all" && rec.requests > 0 {
								t.Errorf("every page in Redis: %d store requests, want 0", rec.requests)
							}
						})
					}
				}
			}
		})
	}
}
