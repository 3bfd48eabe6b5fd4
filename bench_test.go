package chromafs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// Benchmarks of the filesystem on generated collections (package
// internal/gen) in a real Chroma server, with baselines that isolate
// Chroma's share: a bare tree fetch (TreeFetch) and a bare chunk get
// (ChromaGet), both through chromastore, and the same gets as raw HTTP
// (Raw*), which leave out chromastore's decoding. The Mem* benchmarks run
// on a memstore holding the same tree record, which leaves only
// chromafs's own cost. See BENCHMARKS.md for how to run them and the
// results.
//
// Each collection is generated and written once per test binary (and
// reused across runs on a CHROMA_URL server; see chromaColl). With -short
// the 10k collection is replaced by a 1k one and the 100k one is skipped,
// so that CI's smoke run stays cheap; without -short, a collection that
// would not be written within -timeout is skipped (see writeBudget).

// benchSeed is the seed of every generated collection.
const benchSeed = 1

// benchSize is one collection size.
type benchSize struct {
	name  string
	pages int
}

func benchSizes() []benchSize {
	if testing.Short() {
		return []benchSize{{"1k", 1_000}, {"100k", 100_000}}
	}
	return []benchSize{{"10k", 10_000}, {"100k", 100_000}}
}

// forSizes runs fn as a sub-benchmark per collection size, skipping the
// 100k collection under -short.
func forSizes(b *testing.B, fn func(b *testing.B, sz benchSize)) {
	for _, sz := range benchSizes() {
		b.Run(sz.name, func(b *testing.B) {
			if testing.Short() && sz.pages > 10_000 {
				b.Skip("skipped with -short: the collection takes minutes to write")
			}
			fn(b, sz)
		})
	}
}

// benchDim: benchmark collections get 4-dimensional consistent-hash vectors
// instead of chromastore's default 384: chromafs never searches by
// vector, and the small dimension makes Chroma ingest 1 KB chunks about
// 1.3 to 1.6 times faster here (fewer JSON floats, cheaper HNSW inserts).
// Reads are unaffected: gets by id and by metadata do not return vectors.
const benchDim = 4

// binaryStart approximates when the test binary started, for the
// timeout check of writeBudget.
var binaryStart = time.Now()

// writeBudget returns why writing a collection of n pages would likely
// outlast the test binary's -timeout, or "": a local Chroma ingests 1 KB
// chunks of text at about 500 to 600 per second on 2 cores, so a 100k
// collection (460k chunks) takes about 15 minutes, longer than go test's
// default -timeout of 10m.
func writeBudget(n int) string {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return ""
	}
	timeout, ok := f.Value.(flag.Getter).Get().(time.Duration)
	if !ok || timeout <= 0 {
		return ""
	}
	need := time.Duration(n) * 10 * time.Millisecond // ~5 chunks a page at 500/s
	if left := timeout - time.Since(binaryStart); left < 2*need {
		return fmt.Sprintf("writing %d pages into Chroma may take up to %v and only %v of -timeout %v is left; run with -timeout 60m",
			n, need, left.Round(time.Second), timeout)
	}
	return ""
}

// benchCompleteKey marks, in a collection's metadata, a collection whose
// every record (the tree last) was written.
const benchCompleteKey = "chromafs_bench_complete"

// benchColl is a generated collection in Chroma.
type benchColl struct {
	store *chromastore.Collection
	url   string        // the server's URL
	setup time.Duration // time to generate and write it; 0 when reused
}

var benchColls = struct {
	sync.Mutex
	chroma map[int]*benchColl
	mem    map[string]*memstore.Store
}{chroma: map[int]*benchColl{}, mem: map[string]*memstore.Store{}}

// genFingerprint identifies the generator's output, so that a collection
// written by an older generator is never reused: a digest of a small
// site's records as gen.Write writes them.
var genFingerprint = sync.OnceValue(func() string {
	st := memstore.New("fingerprint")
	if _, err := gen.Write(context.Background(), st, gen.Pages(300, benchSeed), gen.Options{Workers: 1}); err != nil {
		panic(err)
	}
	h := sha256.New()
	for _, r := range st.Records() {
		fmt.Fprintf(h, "%q %q %v %v\n", r.ID, r.Document, r.Metadata, r.System)
	}
	return hex.EncodeToString(h.Sum(nil))[:10]
})

// chromaColl returns the Chroma collection of n generated pages, writing
// it on first use. The collection's name is derived from n and the
// generator's fingerprint, and it is marked complete once written: on a
// server given by CHROMA_URL a later run reuses it instead of writing it
// again (a collection left incomplete by an interrupted run is deleted
// and written again). On a server that testenv starts, it goes away with
// the server's data directory.
func chromaColl(b *testing.B, n int) *benchColl {
	b.Helper()
	srv := testenv.Chroma(b)
	benchColls.Lock()
	defer benchColls.Unlock()
	if c, ok := benchColls.chroma[n]; ok {
		return c
	}
	ctx := context.Background()
	cfg := chromastore.Config{
		URL:        srv.URL,
		Collection: fmt.Sprintf("chromafs-bench-%d-%s", n, genFingerprint()),
		Create:     true,
		Embedding:  chromastore.HashEmbedding(benchDim),
	}
	start := time.Now()
	store, err := chromastore.Open(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	c := &benchColl{store: store, url: srv.URL}
	if store.Metadata()[benchCompleteKey] == true {
		b.Logf("reusing collection %s", cfg.Collection)
		benchColls.chroma[n] = c
		return c
	}
	if why := writeBudget(n); why != "" {
		store.Close()
		b.Skip(why)
	}
	if cnt, err := store.Count(ctx); err != nil {
		b.Fatal(err)
	} else if cnt > 0 { // left incomplete: start again
		store.Close()
		if err := chromastore.DeleteCollection(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		if store, err = chromastore.Open(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		c.store = store
	}
	genStart := time.Now()
	pages := gen.Pages(n, benchSeed) // not kept: a big live heap would slow every later benchmark's GC
	genTime := time.Since(genStart)
	stats, err := gen.Write(ctx, store, pages, gen.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := store.SetMetadata(ctx, map[string]any{benchCompleteKey: true}); err != nil {
		b.Fatal(err)
	}
	c.setup = time.Since(start)
	b.Logf("wrote %s into Chroma collection %s: %v in all (generation %v), %.0f chunks/s",
		stats, cfg.Collection, c.setup.Round(time.Millisecond), genTime.Round(time.Millisecond),
		float64(stats.Chunks)/stats.Elapsed.Seconds())
	benchColls.chroma[n] = c
	return c
}

// memColl returns a memstore holding the tree record of the collection
// that chromaColl writes (with plain set, the same tree as plain JSON)
// and the chunks of largePage(n), and nothing else: the benchmarks read
// nothing else, memstore's chunk query scans every record, and the whole
// collection (about 1 GB of heap at 100k pages) would slow every later
// benchmark's garbage collection.
func memColl(b *testing.B, n int, plain bool) *memstore.Store {
	b.Helper()
	benchColls.Lock()
	defer benchColls.Unlock()
	key := fmt.Sprint(n, plain)
	if st, ok := benchColls.mem[key]; ok {
		return st
	}
	keep := map[string]bool{largePage(n): true}
	st := memstore.New("bench-" + key)
	w := slimWriter{Store: st, keep: keep}
	if _, err := gen.Write(context.Background(), w, gen.Pages(n, benchSeed), gen.Options{Plain: plain}); err != nil {
		b.Fatal(err)
	}
	benchColls.mem[key] = st
	return st
}

// slimWriter writes the tree record and the chunks of the pages in keep
// into a memstore, and drops every other record.
type slimWriter struct {
	*memstore.Store
	keep map[string]bool
}

func (w slimWriter) Upsert(ctx context.Context, records []collection.Record) error {
	var kept []collection.Record
	for _, r := range records {
		if slug, _ := r.Metadata[collection.DefaultLayout().SlugField].(string); r.System || w.keep[slug] {
			kept = append(kept, r)
		}
	}
	return w.Store.Upsert(ctx, kept)
}

// newBenchFS returns a public user's filesystem over store.
func newBenchFS(b *testing.B, store collection.Store, opts ...chromafs.Option) *chromafs.FS {
	b.Helper()
	fsys, err := chromafs.New(context.Background(), store, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return fsys
}

// largePage is the 8 KiB page that the Cat benchmarks read.
func largePage(n int) string { return gen.Large(n)[0] }

// benchSessionCold creates sessions with an empty parsed-tree cache: a
// tree fetch, a parse and a prune for a public user; then, when given,
// what first does with the session.
func benchSessionCold(b *testing.B, store collection.Store, first ...func(*chromafs.FS) error) {
	ctx := context.Background()
	sh := chromafs.NewShared(0)
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		sh.Reset()
		fsys, err := chromafs.New(ctx, store, chromafs.WithShared(sh))
		if err != nil {
			b.Fatal(err)
		}
		if len(fsys.Problems()) > 0 {
			b.Fatal(fsys.Problems())
		}
		for _, f := range first {
			if err := f(fsys); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkSessionCold: New with no parsed tree cached.
func BenchmarkSessionCold(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		benchSessionCold(b, chromaColl(b, sz.pages).store)
	})
}

// BenchmarkMemSessionCold: SessionCold on a memstore, chromafs's own
// share (the tree record is handed over in memory).
func BenchmarkMemSessionCold(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		benchSessionCold(b, memColl(b, sz.pages, false))
	})
}

// BenchmarkMemSessionColdFirst: MemSessionCold and the first things a
// user does: list the root and stat one page (a lazy tree decodes the
// blocks those need).
func BenchmarkMemSessionColdFirst(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		page := largePage(sz.pages)
		benchSessionCold(b, memColl(b, sz.pages, false), func(fsys *chromafs.FS) error {
			if ents, err := fs.ReadDir(fsys, "."); err != nil || len(ents) == 0 {
				return fmt.Errorf("ReadDir(.): %d entries, %v", len(ents), err)
			}
			_, err := fs.Stat(fsys, page)
			return err
		})
	})
}

// BenchmarkMemSessionColdPlain: MemSessionCold with the tree written as
// plain JSON rather than gzip+base64, which shows the decompression's
// share.
func BenchmarkMemSessionColdPlain(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		benchSessionCold(b, memColl(b, sz.pages, true))
	})
}

// BenchmarkSessionWarmTree: New with the parsed tree cached; it still
// fetches the tree record (and hashes it to find its version).
func BenchmarkSessionWarmTree(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		store := chromaColl(b, sz.pages).store
		ctx := context.Background()
		newBenchFS(b, store) // parse and cache the tree
		b.ReportAllocs()
		for b.Loop() {
			if _, err := chromafs.New(ctx, store); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSessionReuse creates sessions with WithTreeMaxAge, so that the
// tree fetched by an earlier session is reused without a request, each
// for a group set not seen before (so that every iteration prunes the
// tree anew): the cost of a session on a server.
func BenchmarkSessionReuse(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		store := chromaColl(b, sz.pages).store
		ctx := context.Background()
		newBenchFS(b, store, chromafs.WithTreeMaxAge(time.Hour)) // fetch and parse the tree
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			groups := []string{gen.PrivateGroup, fmt.Sprintf("g%d", i)}
			if _, err := chromafs.New(ctx, store, chromafs.WithTreeMaxAge(time.Hour), chromafs.WithGroups(groups...)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTreeFetch is the baseline of the session benchmarks: the tree
// record's get alone.
func BenchmarkTreeFetch(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		store := chromaColl(b, sz.pages).store
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			rec, err := store.Tree(ctx, collection.DefaultLayout().TreeID)
			if err != nil || len(rec.Document) == 0 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOpenStat opens and stats an 8 KiB page (metadata only).
func BenchmarkOpenStat(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		fsys := newBenchFS(b, chromaColl(b, sz.pages).store)
		name := largePage(sz.pages)
		b.ReportAllocs()
		for b.Loop() {
			f, err := fsys.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			fi, err := f.Stat()
			if err != nil || fi.Size() != gen.LargeSize {
				b.Fatal(fi, err)
			}
			f.Close()
		}
	})
}

// BenchmarkReadDir lists gen.WideDir, which holds 2% of the pages.
func BenchmarkReadDir(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		fsys := newBenchFS(b, chromaColl(b, sz.pages).store)
		entries, err := fsys.ReadDir(gen.WideDir)
		if err != nil || len(entries) < sz.pages/50 {
			b.Fatalf("ReadDir(%s): %d entries, %v", gen.WideDir, len(entries), err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := fsys.ReadDir(gen.WideDir); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(entries)), "entries")
	})
}

// BenchmarkGlob matches */*/*.md over the whole tree.
func BenchmarkGlob(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		fsys := newBenchFS(b, chromaColl(b, sz.pages).store)
		const pattern = "*/*/*.md"
		m, err := fsys.Glob(pattern)
		if err != nil || len(m) == 0 {
			b.Fatal(len(m), err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := fsys.Glob(pattern); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(m)), "matches")
	})
}

// benchCatCold reads an 8 KiB page with an empty page cache: the cache is
// cleared before each read, outside the timer.
func benchCatCold(b *testing.B, store collection.Store, n int) {
	ctx := context.Background()
	cache := cachepkg.NewMemory(0)
	fsys := newBenchFS(b, store, chromafs.WithCache(cache))
	name := largePage(n)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := cache.Clear(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		data, err := fs.ReadFile(fsys, name)
		if err != nil || len(data) != gen.LargeSize {
			b.Fatal(len(data), err)
		}
	}
}

// BenchmarkCatCold reads an 8 KiB page that is not cached.
func BenchmarkCatCold(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		benchCatCold(b, chromaColl(b, sz.pages).store, sz.pages)
	})
}

// BenchmarkMemCatCold: CatCold on a memstore.
func BenchmarkMemCatCold(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		benchCatCold(b, memColl(b, sz.pages, false), sz.pages)
	})
}

// BenchmarkChromaGet is the baseline of CatCold: the get of the page's
// chunks alone, as FS sends it.
func BenchmarkChromaGet(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		store := chromaColl(b, sz.pages).store
		ctx := context.Background()
		slugs := []string{largePage(sz.pages)}
		b.ReportAllocs()
		for b.Loop() {
			chunks, err := store.Chunks(ctx, collection.DefaultLayout(), slugs)
			if err != nil || len(chunks) < gen.LargeSize/1024 {
				b.Fatal(len(chunks), err)
			}
		}
	})
}

// BenchmarkChromaGetByID is the baseline of CatCold on a collection that
// declares collection.ChunkIDScheme (as ingest and gen write it): the get of
// the page's chunks by id alone, as FS sends it.
func BenchmarkChromaGetByID(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		store := chromaColl(b, sz.pages).store
		ctx := context.Background()
		slug := largePage(sz.pages)
		var ids []string
		for i := range gen.LargeSize / 1024 * 2 {
			ids = append(ids, collection.ChunkID(slug, i))
		}
		chunks, err := store.ChunksByID(ctx, collection.DefaultLayout(), ids)
		if err != nil {
			b.Fatal(err)
		}
		ids = ids[:len(chunks)]
		b.ReportAllocs()
		for b.Loop() {
			chunks, err := store.ChunksByID(ctx, collection.DefaultLayout(), ids)
			if err != nil || len(chunks) != len(ids) {
				b.Fatal(len(chunks), err)
			}
		}
	})
}

// rawGet sends a get request to Chroma and reads the answer without
// decoding it: the server's and the transport's share of a get.
func rawGet(b *testing.B, c *benchColl, body string) {
	u := c.url + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + c.store.CollectionID() + "/get"
	var n int64
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(u, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status, err)
		}
	}
	b.ReportMetric(float64(n), "resp-bytes")
}

// BenchmarkRawTreeGet is TreeFetch without chromastore: the HTTP get of
// the tree record, its answer read but not decoded.
func BenchmarkRawTreeGet(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		rawGet(b, chromaColl(b, sz.pages), `{"ids":["`+collection.DefaultLayout().TreeID+`"],"include":["documents","metadatas"]}`)
	})
}

// BenchmarkRawChunkGet is ChromaGet without chromastore: the HTTP get of
// the page's chunks by their page_slug metadata, as chromastore asks.
func BenchmarkRawChunkGet(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		q, _ := json.Marshal(map[string]any{
			"where":   map[string]any{collection.DefaultLayout().SlugField: map[string]any{"$in": []string{largePage(sz.pages)}}},
			"include": []string{"documents", "metadatas"},
			"limit":   300,
		})
		rawGet(b, chromaColl(b, sz.pages), string(q))
	})
}

// BenchmarkRawChunkGetByID gets the same chunks by their ids
// ("<slug>#<i>", which ingest and gen write and the tree's chunk count
// bounds) instead of by metadata: an alternative read path.
func BenchmarkRawChunkGetByID(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		c := chromaColl(b, sz.pages)
		fsys := newBenchFS(b, c.store)
		fi, err := fs.Stat(fsys, largePage(sz.pages))
		if err != nil {
			b.Fatal(err)
		}
		var ids []string
		for i := range fi.Sys().(*tree.Entry).Chunks {
			ids = append(ids, ingest.ChunkID(largePage(sz.pages), i))
		}
		q, _ := json.Marshal(map[string]any{"ids": ids, "include": []string{"documents", "metadatas"}})
		rawGet(b, c, string(q))
	})
}

// benchCatWarm reads an 8 KiB page that is in the page cache.
func benchCatWarm(b *testing.B, store collection.Store, n int) {
	fsys := newBenchFS(b, store)
	name := largePage(n)
	if _, err := fs.ReadFile(fsys, name); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		data, err := fs.ReadFile(fsys, name)
		if err != nil || len(data) != gen.LargeSize {
			b.Fatal(len(data), err)
		}
	}
}

// BenchmarkCatWarm reads a cached 8 KiB page.
func BenchmarkCatWarm(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		benchCatWarm(b, chromaColl(b, sz.pages).store, sz.pages)
	})
}

// BenchmarkCatRedis reads the 8 KiB page from a shared Redis cache: the
// session's memory tier is emptied before each read (outside the timer),
// so every read is a Redis GET, as in a new process whose predecessors
// read the page.
func BenchmarkCatRedis(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		ctx := context.Background()
		rc, err := rediscache.New(testenv.Redis(b).URL, rediscache.Options{Prefix: "bench:"})
		if err != nil {
			b.Fatal(err)
		}
		defer rc.Close()
		front := cachepkg.NewMemory(0)
		fsys := newBenchFS(b, memColl(b, sz.pages, false), chromafs.WithCache(cachepkg.NewTiered(front, rc)))
		name := largePage(sz.pages)
		if _, err := fs.ReadFile(fsys, name); err != nil { // into Redis
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			_ = front.Clear(ctx)
			b.StartTimer()
			data, err := fs.ReadFile(fsys, name)
			if err != nil || len(data) != gen.LargeSize {
				b.Fatal(len(data), err)
			}
		}
	})
}

// BenchmarkMemCatWarm: CatWarm on a memstore.
func BenchmarkMemCatWarm(b *testing.B) {
	forSizes(b, func(b *testing.B, sz benchSize) {
		benchCatWarm(b, memColl(b, sz.pages, false), sz.pages)
	})
}

// TestBenchCollection checks, on a small site, that a generated
// collection in Chroma reads back through chromafs exactly as generated
// and that the pages the benchmarks use exist, so that the benchmarks
// measure what they claim to.
func TestBenchCollection(t *testing.T) {
	srv := testenv.Chroma(t)
	ctx := context.Background()
	store := testbackend.OpenChroma(t, chromastore.Config{URL: srv.URL, Embedding: chromastore.HashEmbedding(benchDim)})
	const n = 200
	pages := gen.Pages(n, benchSeed)
	if _, err := gen.Write(ctx, store, pages, gen.Options{BatchSize: 500}); err != nil {
		t.Fatal(err)
	}
	for _, groups := range [][]string{nil, {gen.PrivateGroup}} {
		fsys, err := chromafs.New(ctx, store, chromafs.WithGroups(groups...))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names = append(names, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for slug := range pages {
			if pub, gs := gen.Access(slug); pub || slices.ContainsFunc(gs, func(g string) bool { return slices.Contains(groups, g) }) {
				want = append(want, slug)
			}
		}
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Fatalf("groups %v: %d files, want %d", groups, len(names), len(want))
		}
		if err := fsys.Prefetch(ctx, names); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			data, err := fs.ReadFile(fsys, name)
			if err != nil || string(data) != pages[name] {
				t.Fatalf("ReadFile(%s) = %d bytes, %v; want %d bytes", name, len(data), err, len(pages[name]))
			}
		}
		if _, err := fs.Stat(fsys, largePage(n)); err != nil {
			t.Fatal(err)
		}
		if m, err := fs.Glob(fsys, "*/*/*.md"); err != nil || len(m) == 0 {
			t.Fatalf("Glob = %d matches, %v", len(m), err)
		}
		_, err = fs.Stat(fsys, gen.PrivateDir)
		if hidden := groups == nil; hidden != errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("groups %v: Stat(%s) error = %v", groups, gen.PrivateDir, err)
		}
	}
}
