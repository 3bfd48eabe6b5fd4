package search_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/embedfn"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/search"
)

// maxChunk is the chunk size of the test collections: small, so that
// pages have many chunks and the long lines are cut inside.
const maxChunk = 256

// word returns a made-up word, distinct for each n.
func word(n int) string {
	const letters = "bcdfghjklmnpqrstvwxz"
	const vowels = "aeiou"
	var b strings.Builder
	for {
		b.WriteByte(letters[n%len(letters)])
		n /= len(letters)
		b.WriteByte(vowels[n%len(vowels)])
		n /= len(vowels)
		if n == 0 {
			return b.String()
		}
	}
}

// corpus returns pages of made-up sentences: short lines, blank lines,
// and lines longer than maxChunk, which ingest cuts inside.
func corpus(seed uint64) map[string]string {
	r := rand.New(rand.NewPCG(seed, 1))
	names := []string{
		"guides/auth/oauth.md", "guides/auth/tokens.md", "guides/start.md",
		"reference/api.md", "reference/cli.md", "reference/config/env.md",
		"notes/ops.md", "notes/faq.md", "index.md", "internal/runbook.md",
	}
	pages := map[string]string{}
	for _, name := range names {
		var b strings.Builder
		lines := 30 + r.IntN(40)
		for range lines {
			n := 6 + r.IntN(14)
			if r.IntN(8) == 0 {
				n = 60 + r.IntN(90) // a long line
			}
			if r.IntN(10) == 0 {
				n = 0 // a blank line
			}
			for i := range n {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(word(r.IntN(3000)))
			}
			b.WriteByte('\n')
		}
		pages[name] = b.String()
	}
	return pages
}

// counter counts the requests to Chroma's query endpoint and all requests.
type counter struct {
	queries, all atomic.Int64
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.all.Add(1)
	if strings.HasSuffix(req.URL.Path, "/query") {
		c.queries.Add(1)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// exhaustive makes Chroma's index of store search its whole graph
// (ef_search 1000, more than the test collections' records); see
// testenv.SetEfSearch.
func exhaustive(t testing.TB, store *chromastore.Collection) {
	t.Helper()
	testenv.SetEfSearch(t, testenv.Chroma(t).URL, store.CollectionID(), 1000)
}

// collectionOf ingests pages (with rules, if any) into a new Chroma
// collection embedded with the n-gram function, and returns it with the
// counter of its requests. With foreign, the chunks are then rewritten
// without collection.LineKey, as a writer other than chromafs ingest
// leaves them.
func collectionOf(t testing.TB, pages map[string]string, rules string, foreign bool) (*chromastore.Collection, *counter) {
	t.Helper()
	ctx := context.Background()
	cnt := &counter{}
	store := testbackend.OpenChroma(t, chromastore.Config{
		URL:        testenv.Chroma(t).URL,
		Embedding:  chromastore.NgramEmbedding(0),
		HTTPClient: &http.Client{Transport: cnt},
	})
	src := fstest.MapFS{}
	for name, content := range pages {
		src[name] = &fstest.MapFile{Data: []byte(content)}
	}
	opt := ingest.Options{MaxChunk: maxChunk}
	if rules != "" {
		rs, err := ingest.ParseRules(strings.NewReader(rules))
		if err != nil {
			t.Fatal(err)
		}
		opt.Rules = rs
	}
	if _, err := ingest.Run(ctx, store, src, opt); err != nil {
		t.Fatal(err)
	}
	if foreign {
		// The same records, written into a new collection without
		// collection.LineKey (new records rather than updates of these,
		// which Chroma 1.0's index does not always find again).
		l := collection.DefaultLayout()
		tr, err := store.Tree(ctx, l.TreeID)
		if err != nil {
			t.Fatal(err)
		}
		var recs []collection.Record
		err = store.Scan(ctx, l, true, func(cs []collection.Chunk) error {
			for _, c := range cs {
				recs = append(recs, collection.Record{ID: c.ID, Document: c.Text,
					Metadata: map[string]any{l.SlugField: c.Slug, l.IndexField: c.Index}})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		cnt = &counter{}
		store = testbackend.OpenChroma(t, chromastore.Config{
			URL:        testenv.Chroma(t).URL,
			Embedding:  chromastore.NgramEmbedding(0),
			HTTPClient: &http.Client{Transport: cnt},
		})
		if err := store.Upsert(ctx, recs); err != nil {
			t.Fatal(err)
		}
		treeRec := collection.Record{ID: l.TreeID, Document: string(tr.Document), Metadata: tr.Metadata, System: true}
		if err := store.Upsert(ctx, []collection.Record{treeRec}); err != nil {
			t.Fatal(err)
		}
	}
	exhaustive(t, store)
	if got := store.Embedding(); got.Name != chromastore.NgramName {
		t.Fatalf("collection configuration records embedding function %q, want %q", got.Name, chromastore.NgramName)
	}
	return store, cnt
}

// engine is the search engine of store, built as chromafs search builds
// it: from the collection's configuration.
func engine(t testing.TB, store *chromastore.Collection) *search.Engine {
	t.Helper()
	spec := store.Embedding()
	ef, err := embedfn.Build(spec, store.Dimension(), "")
	if err != nil {
		t.Fatal(err)
	}
	return &search.Engine{Embedder: ef, Space: spec.Space}
}

// chunkLines returns, for each page and chunk index, the lines the
// chunk covers in the source page, cut as ingest cuts it.
func chunkLines(pages map[string]string) map[string][][2]int {
	out := map[string][][2]int{}
	for name, content := range pages {
		chunks, _ := ingest.Chunk([]byte(content), maxChunk)
		off := 0
		for _, c := range chunks {
			start := 1 + strings.Count(content[:off], "\n")
			out[name] = append(out[name], [2]int{start, start + strings.Count(strings.TrimSuffix(c, "\n"), "\n")})
			off += len(c)
		}
	}
	return out
}

// checkChunks checks each chunk hit's lines against the source, and
// returns the ranges that merging them must give: per page, the unions
// of the ranges that overlap or touch.
func checkChunks(t *testing.T, lines map[string][][2]int, found []chromafs.QueryHit) map[string]bool {
	t.Helper()
	byPage := map[string][][2]int{}
	for _, h := range found {
		want := lines[h.Name][h.Index]
		if h.Start != want[0] || h.End != want[1] {
			t.Errorf("%s chunk %d: lines %d-%d, the source has it on %d-%d", h.Name, h.Index, h.Start, h.End, want[0], want[1])
		}
		byPage[h.Name] = append(byPage[h.Name], [2]int{h.Start, h.End})
	}
	merged := map[string]bool{}
	for name, rs := range byPage {
		slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
		cur := rs[0]
		for _, r := range rs[1:] {
			if r[0] <= cur[1]+1 {
				cur[1] = max(cur[1], r[1])
				continue
			}
			merged[fmt.Sprintf("%s:%d-%d", name, cur[0], cur[1])] = true
			cur = r
		}
		merged[fmt.Sprintf("%s:%d-%d", name, cur[0], cur[1])] = true
	}
	return merged
}

// checkRange checks that the first line of hit's text is line Start of
// its page: the end of it (the whole line, for a chunk that starts at a
// line's start), its start (for a chunk cut inside it), or a piece of it
// for a hit inside one line or a first chunk inside one line that a
// search.Gap follows.
func checkRange(t *testing.T, pages map[string]string, h search.Hit) {
	t.Helper()
	first, rest, multi := strings.Cut(h.Text, "\n")
	line := lineAt(pages[h.Path], h.Start)
	piece := !multi || strings.HasPrefix(rest, search.Gap)
	if piece && !strings.Contains(line, first) || !piece && !strings.HasSuffix(line, first) && !strings.HasPrefix(line, first) {
		t.Errorf("%s:%d-%d: text starts with %.60q, line %d is %.60q", h.Path, h.Start, h.End, first, h.Start, line)
	}
}

// lineAt returns line n (1-based) of content, without its newline.
func lineAt(content string, n int) string {
	return strings.Split(content, "\n")[n-1]
}

func newFS(t testing.TB, store collection.Store, groups ...string) *chromafs.FS {
	t.Helper()
	fsys, err := chromafs.New(context.Background(), store, chromafs.WithGroups(groups...))
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestSentence: a sentence taken from a page finds that page first, with
// a range that holds the sentence's line, on a collection that chromafs
// ingest wrote and on one without line metadata.
func TestSentence(t *testing.T) {
	pages := corpus(1)
	for _, foreign := range []bool{false, true} {
		t.Run(fmt.Sprintf("foreign=%v", foreign), func(t *testing.T) {
			store, _ := collectionOf(t, pages, "", foreign)
			fsys := newFS(t, store)
			eng := engine(t, store)
			for _, name := range slices.Sorted(maps.Keys(pages)) {
				content := pages[name]
				// The first line of at least 8 words that is not long.
				n := 0
				for i, l := range strings.Split(content, "\n") {
					if w := len(strings.Fields(l)); w >= 8 && len(l) < maxChunk/2 {
						n = i + 1
						break
					}
				}
				if n == 0 {
					t.Fatalf("%s has no sentence to search for", name)
				}
				hits, err := eng.Search(context.Background(), fsys, lineAt(content, n), search.Options{Vectors: true, K: 5})
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) == 0 || hits[0].Path != name || hits[0].Start > n || hits[0].End < n {
					t.Errorf("query of %s line %d: hits %v, want %s first with a range holding line %d", name, n, summaries(hits), name, n)
					continue
				}
				checkRange(t, pages, hits[0])
			}
		})
	}
}

// flat returns each range of hits as a Hit of its own: a page's hit, then
// its More, in order.
func flat(hits []search.Hit) []search.Hit {
	var out []search.Hit
	for _, h := range hits {
		out = append(out, search.Hit{Path: h.Path, Start: h.Start, End: h.End, Score: h.Score, Text: h.Text})
		for _, r := range h.More {
			out = append(out, search.Hit{Path: h.Path, Start: r.Start, End: r.End, Score: r.Score, Text: r.Text})
		}
	}
	return out
}

func summaries(hits []search.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d-%d %.2f", h.Path, h.Start, h.End, h.Score))
	}
	return out
}

// TestLineRanges checks the range of every hit of 50 queries against the
// source pages, whose chunks are cut at line ends and, in long lines,
// inside lines; a collection without line metadata gives the same hits.
func TestLineRanges(t *testing.T) {
	pages := corpus(2)
	ingested, _ := collectionOf(t, pages, "", false)
	foreign, foreignCount := collectionOf(t, pages, "", true)
	fsIngested, fsForeign := newFS(t, ingested), newFS(t, foreign)
	_ = foreignCount
	eng := engine(t, ingested)
	r := rand.New(rand.NewPCG(3, 4))
	names := slices.Sorted(maps.Keys(pages))
	lines := chunkLines(pages)
	midLine := 0
	for q := range 50 {
		name := names[r.IntN(len(names))]
		words := strings.Fields(pages[name])
		i := r.IntN(len(words) - 6)
		query := strings.Join(words[i:i+3+r.IntN(8)], " ")
		k := 1 + r.IntN(12)
		vec, err := eng.Embedder.EmbedQuery(context.Background(), query)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			fsys  *chromafs.FS
			count *counter
		}{{fsIngested, nil}, {fsForeign, foreignCount}} {
			found, err := c.fsys.Query(context.Background(), ".", vec, k)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != k {
				t.Errorf("query %d %q: %d chunks, want %d", q, query, len(found), k)
			}
			want := checkChunks(t, lines, found)
			for _, h := range found {
				if !strings.HasSuffix(h.Text, "\n") || lines[h.Name][h.Index][0] == lines[h.Name][max(h.Index-1, 0)][1] && h.Index > 0 {
					midLine++
				}
			}
			hits, err := eng.Search(context.Background(), c.fsys, query, search.Options{Vectors: true, K: k})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, h := range flat(hits) {
				got[fmt.Sprintf("%s:%d-%d", h.Path, h.Start, h.End)] = true
				checkRange(t, pages, h)
			}
			if !maps.Equal(got, want) {
				t.Errorf("query %d %q: hits %v, want the merged chunk ranges %v", q, query, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
		}
	}
	if midLine == 0 {
		t.Errorf("no hit starts or ends inside a line; the test does not cover chunks cut inside lines")
	}
}

// TestAccess: the best match of a query is a private page. Its group sees
// it first; others see the best public chunks, k of them (the filter is
// the query's, not a cut of a larger answer), with as many requests as a
// query whose best match is public; a view with no visible page sends
// nothing.
func TestAccess(t *testing.T) {
	pages := corpus(5)
	secret := "the vault rotation key lives in the northern annex cabinet"
	pages["internal/runbook.md"] = pages["internal/runbook.md"] + secret + "\n"
	rules := "**/* public\ninternal/** private groups=staff\n"
	store, cnt := collectionOf(t, pages, rules, false)
	eng := engine(t, store)
	staff, public := newFS(t, store, "staff"), newFS(t, store)

	hits, err := eng.Search(context.Background(), staff, secret, search.Options{Vectors: true, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Path != "internal/runbook.md" {
		t.Fatalf("staff: hits %v, want internal/runbook.md first", summaries(hits))
	}

	count := func(query string) (int64, []chromafs.QueryHit) {
		t.Helper()
		vec, err := eng.Embedder.EmbedQuery(context.Background(), query)
		if err != nil {
			t.Fatal(err)
		}
		before := cnt.all.Load()
		found, err := public.Query(context.Background(), ".", vec, 7)
		if err != nil {
			t.Fatal(err)
		}
		return cnt.all.Load() - before, found
	}
	nPrivate, found := count(secret)
	for _, h := range found {
		if strings.HasPrefix(h.Name, "internal/") {
			t.Errorf("public view: hit %s:%d-%d of a private page", h.Name, h.Start, h.End)
		}
	}
	if len(found) != 7 {
		t.Errorf("public view: %d chunks, want k = 7 of the public pages", len(found))
	}
	nPublic, _ := count(lineAt(pages["guides/start.md"], 3))
	if nPrivate != nPublic || nPrivate != 1 {
		t.Errorf("public view: %d requests for a query whose best match is private, %d for one whose best match is public; want 1 and 1", nPrivate, nPublic)
	}
	hits, err = eng.Search(context.Background(), public, secret, search.Options{Vectors: true, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.HasPrefix(h.Path, "internal/") {
			t.Errorf("public view: hit %s", h.Path)
		}
	}
	if _, err := eng.Search(context.Background(), public, secret, search.Options{Vectors: true, Path: "internal"}); err == nil {
		t.Errorf("public view: search of /internal succeeded; want an error (no such directory)")
	}

	// A view that sees no page sends no query and finds nothing.
	hidden, hcnt := collectionOf(t, map[string]string{"a.md": secret + "\n", "b/c.md": secret + "\n"}, "**/* private groups=staff\n", false)
	hiddenFS, hiddenEngine := newFS(t, hidden), engine(t, hidden)
	before := hcnt.all.Load()
	hits, err = hiddenEngine.Search(context.Background(), hiddenFS, secret, search.Options{Vectors: true})
	if err != nil || len(hits) != 0 {
		t.Errorf("view of no page: hits %v, error %v; want none and no error", summaries(hits), err)
	}
	if n := hcnt.all.Load() - before; n != 0 {
		t.Errorf("view of no page: %d requests, want 0", n)
	}
}

// TestEmptyPage: an empty page takes no part in a search. Its one chunk
// is an empty document, stored with a zero vector, which lies at the same
// distance from every query (a score of 0.5 in L2) and would rank above
// the weak matches of a query that shares few words with any page.
func TestEmptyPage(t *testing.T) {
	pages := map[string]string{
		"empty.md": "",
		"long.md": strings.Repeat("The deployment guide explains clusters, nodes and rolling upgrades.\n", 4) +
			"Rotate the signing keys of the webhook every month.\n" +
			strings.Repeat("Backups are taken nightly and kept for thirty days.\n", 4),
	}
	store, cnt := collectionOf(t, pages, "", false)
	fsys := newFS(t, store)
	hits, err := engine(t, store).Search(context.Background(), fsys, "signing keys of the webhook", search.Options{Vectors: true, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Path != "long.md" {
		t.Fatalf("hits %v, want long.md first", summaries(hits))
	}
	for _, h := range hits {
		if h.Path == "empty.md" {
			t.Errorf("the empty page is a hit: %v", summaries(hits))
		}
	}
	before := cnt.all.Load()
	if hits, err := engine(t, store).Search(context.Background(), fsys, "signing keys", search.Options{Vectors: true, K: 5, Path: "empty.md"}); err != nil || len(hits) != 0 {
		t.Errorf("a search within the empty page: %v, %v; want no hits", summaries(hits), err)
	}
	if n := cnt.all.Load() - before; n != 0 {
		t.Errorf("a search within the empty page: %d requests, want none (its scope is empty)", n)
	}
}
