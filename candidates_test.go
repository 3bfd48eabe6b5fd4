package chromafs_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
)

// contains reports whether content contains lit, with fold under Go's
// regexp (?i), which is what grep's fine filter uses.
func contains(content, lit string, fold bool) bool {
	if !fold {
		return strings.Contains(content, lit)
	}
	return regexp.MustCompile("(?i)" + regexp.QuoteMeta(lit)).MatchString(content)
}

// checkCandidates checks the contract of Candidates for one call: got is
// a subset of the visible files among names, keeps their order, and holds
// every one whose content contains one of lits.
func checkCandidates(t *testing.T, fsys fs.FS, names, lits []string, fold bool, got []string) {
	t.Helper()
	var want []string // visible files among names, in order, without repeats
	for _, name := range names {
		if slices.Contains(want, name) {
			continue
		}
		if fi, err := fs.Stat(fsys, name); err == nil && !fi.IsDir() {
			want = append(want, name)
		}
	}
	i := 0
	for _, g := range got {
		for i < len(want) && want[i] != g {
			i++
		}
		if i == len(want) {
			t.Fatalf("Candidates(%q, fold=%v) = %q: %q is not a visible file among names %q, or out of order", lits, fold, got, g, names)
		}
		i++
	}
	for _, name := range want {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatalf("ReadFile(%q): %v", name, err)
		}
		if slices.ContainsFunc(lits, func(l string) bool { return contains(string(data), l, fold) }) && !slices.Contains(got, name) {
			t.Errorf("Candidates(%q, fold=%v) = %q misses %q, whose content contains it", lits, fold, got, name)
		}
	}
}

// allFiles returns every file of fsys.
func allFiles(t *testing.T, fsys fs.FS) []string { return allFilesB(t, fsys) }

func allFilesB(t testing.TB, fsys fs.FS) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// foldFiles are pages for the case-folding cases: ASCII letters whose
// folding orbits hold non-ASCII runes (U+017F ſ for s, U+212A KELVIN SIGN
// for k), Greek sigma's three forms and other non-ASCII orbits.
var foldFiles = map[string]string{
	"fold/long-s.md":    "the miſſion statement\n",
	"fold/kelvin.md":    "0 \u212Aelvin is absolute zero\n",
	"fold/sigma.md":     "ΟΔΥΣΣΕΥΣ sailed home\n",
	"fold/sigma2.md":    "οδυσσευς and ὀδυσσεύς\n",
	"fold/final.md":     "the word λογος ends in ς\n",
	"fold/umlaut.md":    "ÜBER alles, Straße\n",
	"fold/plain.md":     "mission: keep calm\n",
	"fold/nothing.md":   "no match here at all\n",
	"fold/micro.md":     "10 µs latency\n",
	"fold/angstrom.md":  "1 Å is 0.1 nm\n",
	"fold/cyrillic.md":  "ПРИВЕТ мир\n",
	"fold/dotless-i.md": "DİYARBAKIR ıi\n",
}

// TestCandidates runs table cases on every backend and writer (line-aligned
// ingest, foreign 97-byte chunks): exact results where the collection is
// line-aligned, and the contract everywhere.
func TestCandidates(t *testing.T) {
	files := corpus(t)
	for k, v := range foldFiles {
		files[k] = v
	}
	tokenPages := []string{"guides/auth/oauth.mdx", "internal/runbooks/rotate-signing-key.md", "internal/secret/plan.md", "reference/api/errors.md"}
	cases := []struct {
		lits []string
		fold bool
		// want, when not nil, is the exact result for the staff view of
		// a line-aligned collection, over every file.
		want []string
	}{
		{lits: []string{"access_token"}, want: tokenPages},
		{lits: []string{"ACCESS_TOKEN"}, want: []string{}},
		{lits: []string{"ACCESS_TOKEN"}, fold: true, want: tokenPages},
		{lits: []string{"the"}},
		{lits: []string{"e"}},
		{lits: []string{"a", "zz"}},
		{lits: []string{"no such literal anywhere"}, want: []string{}},
		{lits: []string{"mission"}, fold: true, want: []string{"fold/long-s.md", "fold/plain.md"}},
		{lits: []string{"MISSION"}, fold: true, want: []string{"fold/long-s.md", "fold/plain.md"}},
		{lits: []string{"miſſion"}, fold: true, want: []string{"fold/long-s.md", "fold/plain.md"}},
		{lits: []string{"miſſion"}, want: []string{"fold/long-s.md"}},
		{lits: []string{"kelvin"}, fold: true, want: []string{"fold/kelvin.md"}},
		{lits: []string{"\u212Aelvin"}, fold: true, want: []string{"fold/kelvin.md"}},
		{lits: []string{"odysseus"}, fold: true, want: []string{}},
		{lits: []string{"οδυσσευς"}, fold: true, want: []string{"fold/sigma.md", "fold/sigma2.md"}},
		{lits: []string{"ΟΔΥΣΣΕΥΣ"}, fold: true, want: []string{"fold/sigma.md", "fold/sigma2.md"}},
		{lits: []string{"ΟΔΥΣΣΕΥΣ"}, want: []string{"fold/sigma.md"}},
		{lits: []string{"σ"}, fold: true, want: []string{"fold/final.md", "fold/sigma.md", "fold/sigma2.md"}},
		{lits: []string{"über", "STRASSE"}, fold: true, want: []string{"fold/umlaut.md"}},
		{lits: []string{"µs"}, fold: true, want: []string{"fold/micro.md"}},
		{lits: []string{"μS"}, fold: true, want: []string{"fold/micro.md"}}, // Greek mu folds with the micro sign
		{lits: []string{"å"}, fold: true, want: []string{"fold/angstrom.md"}},
		{lits: []string{"привет"}, fold: true, want: []string{"fold/cyrillic.md"}},
		{lits: []string{"i"}, fold: true},
		{lits: []string{"ı"}, fold: true, want: []string{"fold/dotless-i.md"}},
		{lits: []string{"[x](y)", `\d+`, "a.b*", "50%", "_", "'\""}},
		{lits: []string{"[X](Y)", `\D+`, "ß"}, fold: true},
		{lits: []string{"Leaf\nfive"}, want: []string{"deep/a/b/c/d/leaf.md"}},
		{lits: []string{"end\nline line"}},
	}
	for _, b := range testbackend.Backends() {
		for _, w := range writers {
			t.Run(b.Name+"/"+w.name, func(t *testing.T) {
				store := b.New(t)
				w.write(t, store, files)
				ctx := context.Background()
				for _, groups := range [][]string{{"staff"}, nil} {
					fsys := mustNew(t, store, chromafs.WithGroups(groups...))
					names := allFiles(t, fsys)
					for _, tc := range cases {
						got, err := fsys.Candidates(ctx, names, tc.lits, tc.fold)
						if err != nil {
							t.Fatalf("Candidates(%q, fold=%v): %v", tc.lits, tc.fold, err)
						}
						checkCandidates(t, fsys, names, tc.lits, tc.fold, got)
						if tc.want == nil || w.name != "ingest" {
							continue
						}
						want := slices.DeleteFunc(slices.Clone(tc.want), func(s string) bool {
							return groups == nil && strings.HasPrefix(s, "internal/")
						})
						slices.Sort(got)
						if !slices.Equal(got, want) {
							t.Errorf("groups %q: Candidates(%q, fold=%v) = %q, want %q", groups, tc.lits, tc.fold, got, want)
						}
					}
				}
			})
		}
	}
}

// TestCandidatesStraddle plants literals across every possible cut of a
// collection cut at arbitrary offsets: each page must be a candidate,
// while pages holding the literal's pieces in other orders need not be.
func TestCandidatesStraddle(t *testing.T) {
	const chunk = 8
	lits := []struct {
		lit, planted string
		fold         bool
	}{
		{"access_token", "access_token", false},
		{"ACCESS_TOKEN", "access_token", true},
		{"ab", "ab", false},
		{"kelvin-ſ", "\u212AELVIN-s", true}, // planted: 3-byte K, 1-byte s
		{"Straße", "STRAẞE", true},
		{"ΟΔΥΣΣΕΥΣ", "οδυσσευς", true},
		{"0123456789abcdefghij", "0123456789abcdefghij", false}, // spans three chunks or more
		{"αβγδεζηθικλμ", "ΑΒΓΔΕΖΗΘΙΚΛΜ", true},                  // 24 bytes: three chunks
	}
	files := map[string]string{}
	for i, l := range lits {
		// Shift the literal over every offset in a chunk, and
		// byte-shift by an odd filler so multi-byte runes hit every cut.
		for off := range chunk + 2 {
			files[fmt.Sprintf("plant/%d/%02d.md", i, off)] = strings.Repeat("x", off) + l.planted + strings.Repeat("y", 2*chunk)
		}
		// Pieces of the literal, separated: no page holds it.
		r := []rune(l.planted)
		h := len(r) / 2
		files[fmt.Sprintf("decoy/%d.md", i)] = string(r[h:]) + strings.Repeat("z", 3*chunk) + string(r[:h])
	}
	files["filler.md"] = strings.Repeat("quiet line\n", 20)
	for _, b := range testbackend.Backends() {
		for _, sep := range []string{"", "\n", "--"} {
			t.Run(fmt.Sprintf("%s/sep=%q", b.Name, sep), func(t *testing.T) {
				store := b.New(t)
				mem := memstore.New("straddle")
				err := memstore.Load(mem, collection.DefaultLayout(), files, memstore.LoadOptions{
					ChunkSize: chunk, Shuffle: rand.New(rand.NewPCG(3, 4)), Separator: sep,
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := store.Upsert(context.Background(), mem.Records()); err != nil {
					t.Fatal(err)
				}
				fsys := mustNew(t, store, chromafs.WithSeparator(sep))
				names := allFiles(t, fsys)
				for i, l := range lits {
					got, err := fsys.Candidates(context.Background(), names, []string{l.lit}, l.fold)
					if err != nil {
						t.Fatal(err)
					}
					checkCandidates(t, fsys, names, []string{l.lit}, l.fold, got)
					for off := range chunk + 2 {
						if name := fmt.Sprintf("plant/%d/%02d.md", i, off); !slices.Contains(got, name) {
							t.Errorf("%q: %s missing", l.lit, name)
						}
					}
					if sep == "" && slices.Contains(got, "filler.md") {
						t.Errorf("%q: filler.md is a candidate: the filter lets everything through", l.lit)
					}
				}
			})
		}
	}
}

// TestCandidatesAccess: hidden pages are never returned, even when named
// and containing the literal; names are those of a Sub view.
func TestCandidatesAccess(t *testing.T) {
	files := map[string]string{
		"pub/a.md":        "the secret word is swordfish\n",
		"pub/b.md":        "nothing\n",
		"internal/s.md":   "swordfish\n",
		"internal/t.md":   "swordfish again\n",
		"pub/lazy.md":     "",
		"internal/sub.md": "swordfish",
	}
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			foreign(t, store, files)
			ctx := context.Background()
			for _, fold := range []bool{false, true} {
				pub := mustNew(t, store)
				names := []string{"pub/a.md", "pub/b.md", "internal/s.md", "internal/t.md", "internal", "pub", ".", "nope", "/pub/a.md", "pub/a.md"}
				got, err := pub.Candidates(ctx, names, []string{"swordfish"}, fold)
				if err != nil || !slices.Equal(got, []string{"pub/a.md"}) {
					t.Errorf("public: Candidates = %q, %v; want [pub/a.md]", got, err)
				}
				staff := mustNew(t, store, chromafs.WithGroups("staff"))
				got, err = staff.Candidates(ctx, names, []string{"swordfish"}, fold)
				if err != nil || !slices.Equal(got, []string{"pub/a.md", "internal/s.md", "internal/t.md"}) {
					t.Errorf("staff: Candidates = %q, %v", got, err)
				}
				sub, err := staff.Sub("internal")
				if err != nil {
					t.Fatal(err)
				}
				got, err = sub.(*chromafs.FS).Candidates(ctx, []string{"s.md", "t.md", "internal/s.md", "x.md"}, []string{"again"}, fold)
				if err != nil || !slices.Equal(got, []string{"t.md"}) {
					t.Errorf("Sub(internal): Candidates = %q, %v; want [t.md]", got, err)
				}
			}
		})
	}
}

// TestCandidatesNoQuery: an empty scope, no literals, an empty literal and
// a store without Searcher send no search.
func TestCandidatesNoQuery(t *testing.T) {
	files := map[string]string{"a.md": "alpha\n", "b.md": "beta\n", "internal/c.md": "alpha\n"}
	mem := newMem(t, files, memstore.LoadOptions{ChunkSize: 3})
	fsys := mustNew(t, mem)
	ctx := context.Background()
	mem.ResetRequests()
	for _, tc := range []struct {
		names, lits []string
		want        []string
	}{
		{nil, []string{"alpha"}, []string{}},
		{[]string{"internal/c.md", "internal", "nope", "..", "."}, []string{"alpha"}, []string{}},
		{[]string{"b.md", "a.md", "internal/c.md"}, nil, []string{"b.md", "a.md"}},
		{[]string{"b.md", "a.md", "internal/c.md"}, []string{"x", ""}, []string{"b.md", "a.md"}},
	} {
		got, err := fsys.Candidates(ctx, tc.names, tc.lits, false)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Candidates(%q, %q) = %q, %v; want %q", tc.names, tc.lits, got, err, tc.want)
		}
	}
	if n := mem.Requests().Total(); n != 0 {
		t.Errorf("%d store requests, want 0: %+v", n, mem.Requests())
	}
	got, err := fsys.Candidates(ctx, []string{"a.md", "b.md"}, []string{"alpha"}, false)
	if err != nil || !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("Candidates(alpha) = %q, %v", got, err)
	}
	if n := mem.Requests().Search; n == 0 {
		t.Error("no Search request for a non-empty scope")
	}

	// A store without Searcher: every visible file.
	plain := mustNew(t, struct{ collection.Store }{mem})
	got, err = plain.Candidates(ctx, []string{"a.md", "b.md", "internal/c.md"}, []string{"alpha"}, false)
	if err != nil || !slices.Equal(got, []string{"a.md", "b.md"}) {
		t.Errorf("without Searcher: Candidates = %q, %v", got, err)
	}
}

// TestCandidatesLazy: lazy pointers are always candidates, and are not
// searched for.
func TestCandidatesLazy(t *testing.T) {
	mem := memstore.New("lazy")
	tree := `{"spec.json":{"isPublic":true,"url":"https://example.com/spec.json"},"a.md":{"isPublic":true}}`
	err := mem.Upsert(context.Background(), []collection.Record{
		{ID: "__path_tree__", Document: tree, Metadata: map[string]any{"_system": true}, System: true},
		{ID: "a", Document: "alpha", Metadata: map[string]any{"page_slug": "a.md", "chunk_index": 0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	fsys := mustNew(t, mem)
	mem.ResetRequests()
	got, err := fsys.Candidates(context.Background(), []string{"spec.json", "a.md"}, []string{"beta"}, true)
	if err != nil || !slices.Equal(got, []string{"spec.json"}) {
		t.Errorf("Candidates = %q, %v; want [spec.json]", got, err)
	}
	before := mem.Requests().Search
	got, err = fsys.Candidates(context.Background(), []string{"spec.json"}, []string{"beta"}, true)
	if n := mem.Requests().Search - before; err != nil || !slices.Equal(got, []string{"spec.json"}) || n != 0 {
		t.Errorf("Candidates = %q, %v after %d searches; want [spec.json] after none", got, err, n)
	}
}

// TestCandidatesRandom: random pages cut at random offsets, random group
// sets, random literals (many of them taken from the pages, across cuts)
// and random name sets: the contract holds for every call.
func TestCandidatesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "c", "A", "B", "ſ", "s", "S", "k", "K", "\u212A", "σ", "Σ", "ς", " ", "\n", "é", "É", "_"}
	groups := []string{"g1", "g2", "g3"}
	files := map[string]string{}
	acl := map[string][]string{}
	for i := range 60 {
		var b strings.Builder
		for range r.IntN(80) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		slug := fmt.Sprintf("d%d/p%02d.md", i%4, i)
		files[slug] = b.String()
		if r.IntN(3) > 0 {
			acl[slug] = []string{groups[r.IntN(len(groups))]}
		}
	}
	access := func(slug string) (bool, []string) {
		if g, ok := acl[slug]; ok {
			return false, g
		}
		return true, nil
	}
	iterations := map[string]int{"memstore": 300, "chroma": 60}
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			store := b.New(t)
			mem := memstore.New("random")
			if err := memstore.Load(mem, collection.DefaultLayout(), files, memstore.LoadOptions{
				ChunkSize: 5, Access: access, Shuffle: rand.New(rand.NewPCG(7, 8)),
			}); err != nil {
				t.Fatal(err)
			}
			if err := store.Upsert(context.Background(), mem.Records()); err != nil {
				t.Fatal(err)
			}
			slugs := slices.Sorted(func(yield func(string) bool) {
				for k := range files {
					if !yield(k) {
						return
					}
				}
			})
			for range iterations[b.Name] {
				var gs []string
				for _, g := range groups {
					if r.IntN(2) == 0 {
						gs = append(gs, g)
					}
				}
				fsys := mustNew(t, store, chromafs.WithGroups(gs...))
				var names []string
				for _, s := range slugs {
					if r.IntN(2) == 0 {
						names = append(names, s)
					}
				}
				names = append(names, "d1", "nope.md")
				var lits []string
				for range 1 + r.IntN(3) {
					if r.IntN(4) == 0 {
						var b strings.Builder
						for range 1 + r.IntN(4) {
							b.WriteString(alphabet[r.IntN(len(alphabet))])
						}
						lits = append(lits, b.String())
						continue
					}
					src := []rune(files[slugs[r.IntN(len(slugs))]])
					if len(src) == 0 {
						continue
					}
					i := r.IntN(len(src))
					j := min(len(src), i+1+r.IntN(12))
					lits = append(lits, string(src[i:j]))
				}
				fold := r.IntN(2) == 0
				got, err := fsys.Candidates(context.Background(), names, lits, fold)
				if err != nil {
					t.Fatal(err)
				}
				checkCandidates(t, fsys, names, lits, fold, got)
				if t.Failed() {
					t.Fatalf("groups %q", gs)
				}
			}
		})
	}
}

// TestCandidatesRegexAgreement checks, record by record, that Chroma
// (Rust's regex crate) and memstore (Go's regexp) select the same records
// for every regex that Candidates generates and for $contains, on
// documents full of case-folding traps.
func TestCandidatesRegexAgreement(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []rune("abcsSkKſ\u212AσΣςßẞÅåµμΜΩω\u2126İıiIéÉ_%.*[]()\\\"'$^| \n\t")
	var docs []string
	for range 400 {
		n := r.IntN(12)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		docs = append(docs, b.String())
	}
	docs = append(docs, "", "access_token", "ACCESS_TOKEN", "\u212Aelvin", "miſſion", "οδυσσευς", "ΟΔΥΣΣΕΥΣ")
	var recs []collection.Record
	slugs := []string{"p.md"}
	for i, d := range docs {
		recs = append(recs, collection.Record{ID: fmt.Sprint(i), Document: d, Metadata: map[string]any{"page_slug": "p.md", "chunk_index": i}})
	}
	mem := memstore.New("agree")
	chroma := testbackend.Chroma(t)
	for _, st := range []collection.Writer{mem, chroma} {
		if err := st.Upsert(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
	}
	litSets := [][]string{
		{"k"}, {"s"}, {"K"}, {"ſ"}, {"\u212A"}, {"σ"}, {"ς"}, {"Σσ"}, {"ß"}, {"ẞ"}, {"å"}, {"Å"}, {"µ"}, {"μ"}, {"ω"}, {"\u2126"},
		{"i"}, {"I"}, {"ı"}, {"İ"}, {"é"}, {"_%"}, {".*"}, {"[]"}, {"()"}, {`\`}, {`"'`}, {"$^|"}, {"a b"}, {"\t"}, {"a\nb"},
		{"access_token"}, {"kelvin"}, {"mission"}, {"ΟΔΥΣΣΕΥΣ"}, {"ab", "sk", "σς"}, {"abcsSkKſ"},
	}
	ctx := context.Background()
	ids := func(st collection.Store, f collection.TextFilter) []string {
		got, err := st.(collection.Searcher).Search(ctx, collection.DefaultLayout(), collection.Scope{Slugs: slugs}, f)
		if err != nil {
			t.Fatalf("%T.Search(%q): %v", st, f, err)
		}
		var out []string
		for _, c := range got {
			out = append(out, c.ID)
		}
		slices.Sort(out)
		return out
	}
	checked := 0
	for _, lits := range litSets {
		filters := []collection.TextFilter{{Contains: lits}}
		for _, fold := range []bool{false, true} {
			for _, re := range chromafs.PlanRegexes(lits, fold) {
				filters = append(filters, collection.TextFilter{Regexes: []string{re}})
			}
		}
		for _, f := range filters {
			want, got := ids(mem, f), ids(chroma, f)
			if !slices.Equal(got, want) {
				t.Errorf("filter %q: Chroma selects %q, Go %q", f, got, want)
			}
			checked++
		}
	}
	t.Logf("%d filters agree on %d documents", checked, len(docs))
}
