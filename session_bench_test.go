package chromafs_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/shell"
)

// requestLog wraps a store and records the coarse queries and the content
// reads that chromafs sends, so that a baseline can send the same ones.
type requestLog struct {
	testbackend.Target
	mu       sync.Mutex
	searches []loggedSearch
	gets     [][]string // slugs of each Chunks call
	byID     [][]string // ids of each ChunksByID call
}

type loggedSearch struct {
	scope  collection.Scope
	filter collection.TextFilter
}

func (r *requestLog) Search(ctx context.Context, l collection.Layout, sc collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	r.mu.Lock()
	r.searches = append(r.searches, loggedSearch{sc, f})
	r.mu.Unlock()
	return r.Target.Search(ctx, l, sc, f)
}

func (r *requestLog) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	r.mu.Lock()
	r.gets = append(r.gets, slugs)
	r.mu.Unlock()
	return r.Target.Chunks(ctx, l, slugs)
}

func (r *requestLog) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	r.mu.Lock()
	r.byID = append(r.byID, ids)
	r.mu.Unlock()
	return r.Target.ChunksByID(ctx, l, ids)
}

func (r *requestLog) ChunksEach(ctx context.Context, l collection.Layout, slugs []string, fn func([]collection.Chunk) error) error {
	r.mu.Lock()
	r.gets = append(r.gets, slugs)
	r.mu.Unlock()
	return chunksEach(ctx, r.Target, l, slugs, fn)
}

func (r *requestLog) ChunksByIDEach(ctx context.Context, l collection.Layout, ids []string, fn func([]collection.Chunk) error) error {
	r.mu.Lock()
	r.byID = append(r.byID, ids)
	r.mu.Unlock()
	return chunksByIDEach(ctx, r.Target, l, ids, fn)
}

// chunksEach reads through st's ChunksEach, or, from a store that
// answers whole, hands over its Chunks answer as one part.
func chunksEach(ctx context.Context, st testbackend.Target, l collection.Layout, slugs []string, fn func([]collection.Chunk) error) error {
	if pr, ok := st.(collection.PartReader); ok {
		return pr.ChunksEach(ctx, l, slugs, fn)
	}
	chunks, err := st.Chunks(ctx, l, slugs)
	if err != nil {
		return err
	}
	return fn(chunks)
}

// chunksByIDEach is chunksEach for reads by id.
func chunksByIDEach(ctx context.Context, st testbackend.Target, l collection.Layout, ids []string, fn func([]collection.Chunk) error) error {
	if pr, ok := st.(collection.PartReader); ok {
		return pr.ChunksByIDEach(ctx, l, ids, fn)
	}
	chunks, err := st.ChunksByID(ctx, l, ids)
	if err != nil {
		return err
	}
	return fn(chunks)
}

// replay sends the logged requests to store as chromafs sends them: the
// coarse queries together, then the reads, two at a time.
func (r *requestLog) replay(ctx context.Context, store testbackend.Target) error {
	l := collection.DefaultLayout()
	var g errgroup.Group
	for _, s := range r.searches {
		g.Go(func() error {
			_, err := store.Search(ctx, l, s.scope, s.filter)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	g.SetLimit(2)
	for _, slugs := range r.gets {
		g.Go(func() error {
			_, err := store.Chunks(ctx, l, slugs)
			return err
		})
	}
	for _, ids := range r.byID {
		g.Go(func() error {
			_, err := store.ChunksByID(ctx, l, ids)
			return err
		})
	}
	return g.Wait()
}

// busyStore wraps a store and measures the time during which at least one
// coarse query or content read is in flight (sent, not yet answered and
// decoded): what a grep waits for Chroma. A grep's wall time less that is
// its own time on the critical path, which Chroma's noise on a loaded
// machine does not enter.
type busyStore struct {
	testbackend.Target
	mu       sync.Mutex
	inFlight int
	since    time.Time
	busy     time.Duration
	first    time.Time // the first request sent
	last     time.Time // the last answer received
}

func (b *busyStore) enter() {
	b.mu.Lock()
	if b.inFlight == 0 {
		b.since = time.Now()
		if b.first.IsZero() {
			b.first = b.since
		}
	}
	b.inFlight++
	b.mu.Unlock()
}

func (b *busyStore) leave() {
	b.mu.Lock()
	b.inFlight--
	if b.inFlight == 0 {
		b.last = time.Now()
		b.busy += b.last.Sub(b.since)
	}
	b.mu.Unlock()
}

func (b *busyStore) Search(ctx context.Context, l collection.Layout, sc collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	b.enter()
	defer b.leave()
	return b.Target.Search(ctx, l, sc, f)
}

func (b *busyStore) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	b.enter()
	defer b.leave()
	return b.Target.Chunks(ctx, l, slugs)
}

func (b *busyStore) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	b.enter()
	defer b.leave()
	return b.Target.ChunksByID(ctx, l, ids)
}

// ChunksEach and ChunksByIDEach count as in flight until the last part
// is handed over: a part's consumer (chromafs's bulk read) only queues
// its pages and returns, and assembles them on goroutines of its own.
func (b *busyStore) ChunksEach(ctx context.Context, l collection.Layout, slugs []string, fn func([]collection.Chunk) error) error {
	b.enter()
	defer b.leave()
	return chunksEach(ctx, b.Target, l, slugs, fn)
}

func (b *busyStore) ChunksByIDEach(ctx context.Context, l collection.Layout, ids []string, fn func([]collection.Chunk) error) error {
	b.enter()
	defer b.leave()
	return chunksByIDEach(ctx, b.Target, l, ids, fn)
}

// recorded wraps a store and answers each coarse query and content read
// that it has answered once from memory (a copy of the first answer), so
// that a benchmark measures chromafs's own work without Chroma's.
type recorded struct {
	testbackend.Target
	mu      sync.Mutex
	answers map[string][]collection.Chunk
	parts   map[string][][]collection.Chunk // answers of ChunksEach and ChunksByIDEach
}

// eachAnswer hands over the parts of the answer to key, recorded from
// ask the first time, in the order they first came.
func (r *recorded) eachAnswer(key string, ask func(fn func([]collection.Chunk) error) error, fn func([]collection.Chunk) error) error {
	r.mu.Lock()
	parts, ok := r.parts[key]
	r.mu.Unlock()
	if !ok {
		err := ask(func(c []collection.Chunk) error {
			parts = append(parts, slices.Clone(c))
			return nil
		})
		if err != nil {
			return err
		}
		r.mu.Lock()
		if r.parts == nil {
			r.parts = map[string][][]collection.Chunk{}
		}
		r.parts[key] = parts
		r.mu.Unlock()
	}
	for _, p := range parts {
		if err := fn(slices.Clone(p)); err != nil {
			return err
		}
	}
	return nil
}

func (r *recorded) ChunksEach(ctx context.Context, l collection.Layout, slugs []string, fn func([]collection.Chunk) error) error {
	return r.eachAnswer(recordKey("chunks", slugs), func(fn func([]collection.Chunk) error) error {
		return chunksEach(ctx, r.Target, l, slugs, fn)
	}, fn)
}

func (r *recorded) ChunksByIDEach(ctx context.Context, l collection.Layout, ids []string, fn func([]collection.Chunk) error) error {
	return r.eachAnswer(recordKey("ids", ids), func(fn func([]collection.Chunk) error) error {
		return chunksByIDEach(ctx, r.Target, l, ids, fn)
	}, fn)
}

func (r *recorded) answer(key string, ask func() ([]collection.Chunk, error)) ([]collection.Chunk, error) {
	r.mu.Lock()
	chunks, ok := r.answers[key]
	r.mu.Unlock()
	if !ok {
		var err error
		if chunks, err = ask(); err != nil {
			return nil, err
		}
		r.mu.Lock()
		if r.answers == nil {
			r.answers = map[string][]collection.Chunk{}
		}
		r.answers[key] = chunks
		r.mu.Unlock()
	}
	return slices.Clone(chunks), nil
}

// recordKey names a request by its arguments; the cheapest way there is,
// since its cost counts as chromafs's in the benchmarks (fmt.Sprint of a
// thousand slugs took about 0.5 ms a grep).
func recordKey(kind string, lists ...[]string) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, l := range lists {
		b.WriteByte(1)
		for _, s := range l {
			b.WriteString(s)
			b.WriteByte(0)
		}
	}
	return b.String()
}

func (r *recorded) Search(ctx context.Context, l collection.Layout, sc collection.Scope, f collection.TextFilter) ([]collection.Chunk, error) {
	key := recordKey(fmt.Sprint("search", sc.Exclude, sc.IDsOnly), sc.Slugs, f.Contains, f.Regexes)
	return r.answer(key, func() ([]collection.Chunk, error) { return r.Target.Search(ctx, l, sc, f) })
}

func (r *recorded) Chunks(ctx context.Context, l collection.Layout, slugs []string) ([]collection.Chunk, error) {
	return r.answer(recordKey("chunks", slugs), func() ([]collection.Chunk, error) { return r.Target.Chunks(ctx, l, slugs) })
}

func (r *recorded) ChunksByID(ctx context.Context, l collection.Layout, ids []string) ([]collection.Chunk, error) {
	return r.answer(recordKey("ids", ids), func() ([]collection.Chunk, error) { return r.Target.ChunksByID(ctx, l, ids) })
}

// sessionSite writes 1,000 generated pages into a real Chroma collection
// in chunks of 1,000 bytes cut mid-line (shuffled, as foreign writers do;
// the tree records sizes, hashes and chunk counts), and the public pages
// to a directory for ripgrep.
func sessionSite(b *testing.B) (testbackend.Target, string) {
	b.Helper()
	pages := gen.Pages(1000, benchSeed)
	mem := memstore.New("session-bench")
	err := memstore.Load(mem, collection.DefaultLayout(), pages, memstore.LoadOptions{
		ChunkSize: 1000, Shuffle: rand.New(rand.NewPCG(1, 2)), Access: gen.Access, Compressed: true, WithSizes: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	store := testbackend.Chroma(b)
	if err := store.Upsert(context.Background(), mem.Records()); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for slug, content := range pages {
		if pub, _ := gen.Access(slug); !pub {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(slug))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return store, dir
}

// cpuTime is the CPU time (user and system) this process has used: a
// benchmark's CPU time per iteration is chromafs's own work (Chroma runs
// in another process), which a busy machine's run queue does not inflate
// as it does the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// shellGrep runs `grep -rn lit /` in sess and returns the lines printed.
func shellGrep(b *testing.B, sess *shell.Session, lit string, out *bytes.Buffer) int {
	out.Reset()
	status, err := sess.Run(context.Background(), "grep -rn '"+lit+"' /", out, out)
	if err != nil || status != 0 {
		b.Fatalf("grep -rn %s /: status %d, %v\n%s", lit, status, err, out.Bytes())
	}
	return bytes.Count(out.Bytes(), []byte{'\n'})
}

// BenchmarkSessionGrep measures, in one run, `grep -rn LITERAL /` through
// a shell.Session on a public user's FS over 1,000 generated pages in a
// real Chroma (1,000-byte chunks cut mid-line; 900 visible pages, 3.8 MB)
// against its baselines:
//
//   - Warm: after FS.Preload of the session; Repeat: without it, after the
//     same grep once (the coarse answers remembered, the candidates
//     cached). Baseline: Ripgrep, `rg -n LITERAL DIR` as a whole process
//     over the same files on disk.
//   - Cold: the first grep of a new session (a new Shared: nothing parsed,
//     remembered or cached; the session is made outside the timer), and
//     ColdPreload the same with FS.Preload started as the session starts.
//     Baseline: ChromaOnly, the requests such a grep sends to Chroma (its
//     coarse queries together, then its reads of the candidates two at a
//     time), sent through chromastore.
//     Cold also reports own-ns/op: its wall time while no store request
//     was in flight (busyStore), the part of the goal's "plus 10 ms".
//   - ColdLocal: Cold with the store's answers served from memory
//     (recorded from Chroma by one grep before the timer): chromafs's own
//     work on a cold grep, what Cold adds to ChromaOnly, without the noise
//     of Chroma's.
//   - Preload (once): FS.Preload of a new session into an empty cache.
//
// Cold, ColdPreload, ColdLocal and ChromaOnly also report the process's CPU time per
// grep (cpu-ns/op; see cpuTime).
func BenchmarkSessionGrep(b *testing.B) {
	store, dir := sessionSite(b)
	ctx := context.Background()
	newSession := func(b *testing.B, st collection.Store) (*chromafs.FS, *shell.Session) {
		fsys := newBenchFS(b, st, chromafs.WithShared(chromafs.NewShared(0)), chromafs.WithCache(cachepkg.NewMemory(1<<30)))
		return fsys, shell.New(fsys, shell.WithMaxOutput(-1))
	}
	for _, lit := range []string{"webhook", "webhook signature"} {
		var lines int
		b.Run(lit+"/Ripgrep", func(b *testing.B) {
			needTool(b, "rg")
			for b.Loop() {
				lines = runTool(b, dir, "rg", "-n", "--no-config", lit, dir)
			}
			b.ReportMetric(float64(lines), "lines")
		})
		b.Run(lit+"/Warm", func(b *testing.B) {
			fsys, sess := newSession(b, store)
			if err := fsys.Preload(ctx); err != nil {
				b.Fatal(err)
			}
			var out bytes.Buffer
			var got int
			for b.Loop() {
				got = shellGrep(b, sess, lit, &out)
			}
			b.ReportMetric(float64(got), "lines")
		})
		b.Run(lit+"/Repeat", func(b *testing.B) {
			_, sess := newSession(b, store)
			var out bytes.Buffer
			shellGrep(b, sess, lit, &out)
			var got int
			for b.Loop() {
				got = shellGrep(b, sess, lit, &out)
			}
			b.ReportMetric(float64(got), "lines")
		})
		b.Run(lit+"/Preload", func(b *testing.B) {
			if lit != "webhook" {
				b.Skip("once is enough")
			}
			for b.Loop() {
				fsys, _ := newSession(b, store)
				if err := fsys.Preload(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		log := &requestLog{Target: store}
		for _, preload := range []bool{false, true} {
			name := lit + "/Cold"
			if preload {
				name += "Preload"
			}
			b.Run(name, func(b *testing.B) {
				var out bytes.Buffer
				var got int
				var cpu, wall, busy, before, after time.Duration
				for b.Loop() {
					b.StopTimer()
					var st testbackend.Target = store
					if !preload && len(log.searches)+len(log.gets)+len(log.byID) == 0 {
						st = log
					}
					bs := &busyStore{Target: st}
					fsys, sess := newSession(b, bs)
					bs.busy, bs.first = 0, time.Time{} // New's tree read is outside the timer
					pctx, cancel := context.WithCancel(ctx)
					done := make(chan struct{})
					b.StartTimer()
					t0 := time.Now()
					start := cpuTime()
					if preload {
						go func() {
							defer close(done)
							fsys.Preload(pctx)
						}()
					} else {
						close(done)
					}
					got = shellGrep(b, sess, lit, &out)
					cpu += cpuTime() - start
					t1 := time.Now()
					wall += t1.Sub(t0)
					b.StopTimer()
					cancel()
					<-done
					bs.mu.Lock()
					busy += bs.busy
					if !preload {
						before += bs.first.Sub(t0)
						after += t1.Sub(bs.last)
					}
					bs.mu.Unlock()
					b.StartTimer()
				}
				b.ReportMetric(float64(got), "lines")
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
				if !preload {
					// The grep's wall time while no store request was in flight.
					b.ReportMetric(float64(wall-busy)/float64(b.N), "own-ns/op")
					// Of that, before the first request and after the last answer.
					b.ReportMetric(float64(before)/float64(b.N), "before-ns/op")
					b.ReportMetric(float64(after)/float64(b.N), "after-ns/op")
				}
			})
		}
		b.Run(lit+"/ColdLocal", func(b *testing.B) {
			rec := &recorded{Target: store}
			var out bytes.Buffer
			_, sess := newSession(b, rec)
			shellGrep(b, sess, lit, &out) // records the answers
			var got int
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				_, sess := newSession(b, rec)
				b.StartTimer()
				start := cpuTime()
				got = shellGrep(b, sess, lit, &out)
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(got), "lines")
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		})
		b.Run(lit+"/ChromaOnly", func(b *testing.B) {
			if len(log.searches)+len(log.gets)+len(log.byID) == 0 {
				b.Skip("no requests logged (run with the Cold benchmark)")
			}
			start := cpuTime()
			for b.Loop() {
				if err := log.replay(ctx, store); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(len(log.searches)), "searches")
			b.ReportMetric(float64(len(log.gets)+len(log.byID)), "reads")
		})
	}
}
