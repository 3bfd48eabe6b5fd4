package chromafs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
)

// TestSoak runs goroutines (200 with CHROMAFS_SOAK set, 50 in the brief
// default run; see testenv.SoakWorkers) that each create sessions (random
// groups) and do random ls, cat and grep against a real Chroma and a real
// Redis, sharing one two-tier cache whose memory tier is smaller than the
// site. It requires zero errors and zero wrong results, every kind of
// operation run, the memory tier within its bound, and that 200 concurrent
// first reads of one page cost one content request.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test skipped with -short")
	}
	ctx := context.Background()
	pages := gen.Pages(300, 5)
	coll := &countingColl{Collection: testbackend.Chroma(t)}
	if _, err := gen.Write(ctx, coll.Collection, pages, gen.Options{}); err != nil {
		t.Fatal(err)
	}
	rc := redisCache(t, testenv.Redis(t).URL, t.Name()+":", rediscache.Options{})
	if err := rc.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	const bound = 512 << 10 // the site is about 1.2 MB
	front := cachepkg.NewMemory(bound)
	cache := cachepkg.NewTiered(front, rc)
	var logs testenv.LogBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	groupSets := [][]string{nil, {gen.PrivateGroup}, {"other"}, {gen.PrivateGroup, "other"}}
	newFS := func(groups []string) (*chromafs.FS, error) {
		return chromafs.New(ctx, coll, chromafs.WithGroups(groups...), chromafs.WithCache(cache),
			chromafs.WithTreeMaxAge(time.Second), chromafs.WithLogger(log))
	}

	// Dedup: 200 sessions read one uncached page at once.
	target := gen.Large(300)[0]
	before := coll.content.Load()
	var wg sync.WaitGroup
	var burstErr atomic.Value
	start := make(chan struct{})
	for range 200 {
		wg.Go(func() {
			fsys, err := newFS(nil)
			if err == nil {
				<-start
				var got []byte
				got, err = fs.ReadFile(fsys, target)
				if err == nil && string(got) != pages[target] {
					err = fmt.Errorf("wrong content of %s", target)
				}
			}
			if err != nil {
				burstErr.Store(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if err, _ := burstErr.Load().(error); err != nil {
		t.Fatal(err)
	}
	if n := coll.content.Load() - before; n != 1 {
		t.Fatalf("200 concurrent first reads of %s made %d content requests; want 1", target, n)
	}

	slugs := make([]string, 0, len(pages))
	dirs := map[string]bool{".": true}
	for s := range pages {
		slugs = append(slugs, s)
		for d := path.Dir(s); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	slices.Sort(slugs)
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	literals := []string{"access_token", "Chroma collection", "retry", "zzz-nothing"}

	var ops, failures atomic.Int64
	var kinds [3]atomic.Int64 // ls, cat, grep
	var firstFailure atomic.Value
	fail := func(err error) {
		if failures.Add(1) == 1 {
			firstFailure.Store(err)
		}
	}
	workers := testenv.SoakWorkers(200)
	deadline := time.Now().Add(testenv.SoakDuration(t))
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for time.Now().Before(deadline) {
				groups := groupSets[r.IntN(len(groupSets))]
				fsys, err := newFS(groups)
				if err != nil {
					fail(err)
					continue
				}
				isVisible := func(slug string) bool {
					pub, gs := gen.Access(slug)
					return pub || slices.ContainsFunc(gs, func(g string) bool { return slices.Contains(groups, g) })
				}
				kind := r.IntN(3)
				kinds[kind].Add(1)
				switch kind {
				case 0: // ls
					d := dirList[r.IntN(len(dirList))]
					if _, err := fs.ReadDir(fsys, d); err != nil && !errors.Is(err, fs.ErrNotExist) {
						fail(fmt.Errorf("ReadDir(%s): %w", d, err))
					}
				case 1: // cat
					s := slugs[r.IntN(len(slugs))]
					got, err := fs.ReadFile(fsys, s)
					switch {
					case !isVisible(s):
						if !errors.Is(err, fs.ErrNotExist) {
							fail(fmt.Errorf("hidden %s: %v", s, err))
						}
					case err != nil:
						fail(fmt.Errorf("ReadFile(%s): %w", s, err))
					case string(got) != pages[s]:
						fail(fmt.Errorf("ReadFile(%s): wrong content", s))
					}
				case 2: // grep
					lit := literals[r.IntN(len(literals))]
					_, err := grepx.Search(ctx, fsys, grepx.Query{Patterns: []string{lit}, Recursive: true, Mode: grepx.FilesWithMatches},
						func(f *grepx.File) error {
							if f.Err != nil {
								return f.Err
							}
							if !isVisible(f.Path) || !strings.Contains(pages[f.Path], lit) {
								return fmt.Errorf("grep %q: wrong result %s", lit, f.Path)
							}
							return nil
						})
					if err != nil {
						fail(err)
					}
				}
				ops.Add(1)
			}
		})
	}
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d of %d operations failed; first: %v", n, ops.Load(), firstFailure.Load())
	}
	if kinds[0].Load() == 0 || kinds[1].Load() == 0 || kinds[2].Load() == 0 {
		t.Fatalf("operations run: %d ls, %d cat, %d grep; want each kind", kinds[0].Load(), kinds[1].Load(), kinds[2].Load())
	}
	if b := front.Bytes(); b > bound {
		t.Fatalf("memory tier holds %d bytes, bound %d", b, bound)
	}
	if w := strings.Count(logs.String(), "\n"); w > 0 {
		// Under the race detector 200 goroutines slow the client enough
		// for some Redis calls to reach their deadline; reads then fall
		// back to Chroma (which is what this test checks they do without
		// an error). Without it, a warning is a failure.
		if !raceEnabled {
			t.Fatalf("%d warnings logged:\n%s", w, logs.String())
		}
		t.Logf("%d cache warnings under the race detector", w)
	}
	t.Logf("%d operations (%d ls, %d cat, %d grep) by %d goroutines in %v, %d content requests to Chroma, memory tier %d bytes (bound %d)",
		ops.Load(), kinds[0].Load(), kinds[1].Load(), kinds[2].Load(), workers, testenv.SoakDuration(t), coll.content.Load(), front.Bytes(), bound)
}
