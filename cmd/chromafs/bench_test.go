package main

import (
	"bytes"
	"context"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// BenchmarkGrepProcess times whole processes on the independently written
// site of TestIndependentWriter (the Go distribution's docs, chunks cut
// mid-line): `chromafs grep -rn LITERAL /` against the collection (process
// start, collection lookup, tree fetch and parse, coarse query, prefetch
// of the candidates, matching) next to `rg -n LITERAL DIR` and
// `grep -rn LITERAL DIR` on a copy of the visible files on local disk.
// ChromafsRedis is the same process with a shared Redis page cache that
// earlier iterations filled (as earlier processes would have).
func BenchmarkGrepProcess(b *testing.B) {
	srv := testenv.Chroma(b)
	coll := testenv.CollectionName(b)
	src := goDocs(b)
	writeIndependent(b, srv.URL, coll, src)
	names, content := sourceFiles(b, src, func(p string) bool {
		return !strings.HasPrefix(p, "doc/initial/") && !strings.HasPrefix(p, "src/runtime/")
	})
	if len(names) == 0 {
		b.Fatal("no files")
	}
	dir := copyTree(b, content)
	bin := chromafsBinary(b)
	rdb := testenv.Redis(b)
	for _, lit := range []string{"garbage collector", "memory"} {
		tools := []struct {
			name string
			cmd  func() *exec.Cmd
		}{
			{"Chromafs", func() *exec.Cmd {
				return exec.Command(bin, "--chroma-url", srv.URL, "--collection", coll, "grep", "-rn", lit, "/")
			}},
			{"ChromafsRedis", func() *exec.Cmd {
				return exec.Command(bin, "--chroma-url", srv.URL, "--collection", coll, "--redis-url", rdb.URL, "grep", "-rn", lit, "/")
			}},
			{"Ripgrep", func() *exec.Cmd { return exec.Command("rg", "-n", "--no-config", "-uu", lit, dir) }},
			{"GNUGrep", func() *exec.Cmd { return exec.Command("grep", "-rn", lit, dir) }},
		}
		for _, tool := range tools {
			b.Run(lit+"/"+tool.name, func(b *testing.B) {
				if tool.name == "Ripgrep" {
					if _, err := exec.LookPath("rg"); err != nil {
						if os.Getenv("CI") == "true" {
							b.Fatal("rg is not installed (make deps installs it)")
						}
						b.Skip("rg is not installed")
					}
				}
				for b.Loop() {
					cmd := tool.cmd()
					cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
					if out, err := cmd.Output(); err != nil || len(out) == 0 {
						b.Fatalf("%v: %v (%d bytes)", cmd.Args, err, len(out))
					}
				}
			})
		}
	}
}

// manySite writes 1,100 generated pages into a Chroma collection in chunks
// of 1,000 bytes cut mid-line (shuffled, as foreign writers do), and the
// public pages to a directory. It returns the collection's name, the
// directory and the public pages.
func manySite(b *testing.B, url string) (coll, dir string, pages map[string][]byte) {
	b.Helper()
	all := gen.Pages(1100, 1)
	mem := memstore.New("many-bench")
	err := memstore.Load(mem, collection.DefaultLayout(), all, memstore.LoadOptions{
		ChunkSize: 1000, Shuffle: rand.New(rand.NewPCG(1, 2)), Access: gen.Access, Compressed: true, WithSizes: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	coll = testenv.CollectionName(b)
	store := testbackend.OpenChroma(b, chromastore.Config{URL: url, Collection: coll})
	if err := store.Upsert(context.Background(), mem.Records()); err != nil {
		b.Fatal(err)
	}
	pages = map[string][]byte{}
	for slug, content := range all {
		if pub, _ := gen.Access(slug); pub {
			pages[slug] = []byte(content)
		}
	}
	return coll, copyTree(b, pages), pages
}

// BenchmarkGrepManyProcess times whole processes searching 1,100 generated
// pages (chunks cut mid-line; 990 public pages, 4 MB) for a list of 80,660
// fixed strings (1 MB): `chromafs grep -rlF -f LIST /` cold, and with a
// Redis page cache that earlier iterations filled, against `grep -rlF -f`
// and `rg -lF -f` over the same public pages on local disk.
func BenchmarkGrepManyProcess(b *testing.B) {
	srv := testenv.Chroma(b)
	coll, dir, pages := manySite(b, srv.URL)
	bin := chromafsBinary(b)
	rdb := testenv.Redis(b)
	text := make(map[string]string, len(pages))
	for slug, b := range pages {
		text[slug] = string(b)
	}
	list := gen.PatternList(80_660, text)
	pf := filepath.Join(b.TempDir(), "patterns")
	if err := os.WriteFile(pf, []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	tools := []struct {
		name string
		cmd  func() *exec.Cmd
	}{
		{"GNUGrep", func() *exec.Cmd { return exec.Command("grep", "-rlF", "-f", pf, dir) }},
		{"Ripgrep", func() *exec.Cmd { return exec.Command("rg", "-lF", "--no-config", "-uu", "-f", pf, dir) }},
		{"Chromafs", func() *exec.Cmd { return exec.Command(bin, append(g, "grep", "-rlF", "-f", pf, "/")...) }},
		{"ChromafsRedis", func() *exec.Cmd {
			return exec.Command(bin, append(g, "--redis-url", rdb.URL, "grep", "-rlF", "-f", pf, "/")...)
		}},
	}
	for _, tool := range tools {
		b.Run(tool.name, func(b *testing.B) {
			if tool.name == "Ripgrep" {
				if _, err := exec.LookPath("rg"); err != nil {
					if os.Getenv("CI") == "true" {
						b.Fatal("rg is not installed (make deps installs it)")
					}
					b.Skip("rg is not installed")
				}
			}
			var files int
			for b.Loop() {
				cmd := tool.cmd()
				cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
				out, err := cmd.Output()
				if err != nil || len(out) == 0 {
					b.Fatalf("%v: %v (%d bytes)", cmd.Args[:4], err, len(out))
				}
				files = bytes.Count(out, []byte{'\n'})
			}
			b.ReportMetric(float64(files), "files")
		})
	}
}

// sharedSite writes a generated site of 1,131 pages into a new Chroma
// collection the way foreign writers do (chunks of 600 bytes cut
// mid-line, shuffled; the tree has sizes, hashes and chunk counts; about
// 7,600 chunks), with every fourth page (by slug) private to "staff",
// and copies the 848 public pages to a directory for rg and GNU grep.
func sharedSite(b testing.TB) (chromaURL, coll, dir string) {
	b.Helper()
	srv := testenv.Chroma(b)
	coll = testenv.CollectionName(b)
	pages := gen.Pages(1131, 11)
	slugs := slices.Sorted(maps.Keys(pages))
	hidden := map[string]bool{}
	for i, s := range slugs {
		if i%4 == 0 {
			hidden[s] = true
		}
	}
	mem := memstore.New("shared-site")
	err := memstore.Load(mem, collection.DefaultLayout(), pages, memstore.LoadOptions{
		ChunkSize: 600, Shuffle: rand.New(rand.NewPCG(1, 2)), Compressed: true, WithSizes: true,
		Access: func(slug string) (bool, []string) {
			if hidden[slug] {
				return false, []string{"staff"}
			}
			return true, nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	store := testbackend.OpenChroma(b, chromastore.Config{URL: srv.URL, Collection: coll})
	if err := store.Upsert(context.Background(), mem.Records()); err != nil {
		b.Fatal(err)
	}
	visible := map[string][]byte{}
	for s, c := range pages {
		if !hidden[s] {
			visible[s] = []byte(c)
		}
	}
	return srv.URL, coll, copyTree(b, visible)
}

// BenchmarkGrepProcessShared times `chromafs --redis-url … grep -rn
// LITERAL /` in a process whose every visible page an earlier process put
// in Redis, on the site of sharedSite, against `rg -n LITERAL DIR` on a
// copy of the visible files, in paired runs (one of each per round, so
// that both meet the same load): it reports the medians of each and the
// median of the per-round ratios. "chromafs-cold" is the same grep without
// Redis (Chroma's coarse queries and reads). With CHROMAFS_BENCH_OLD set
// to another chromafs binary, that binary runs in the same rounds as
// "old" (to compare before and after a change).
func BenchmarkGrepProcessShared(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg is not installed")
	}
	url, coll, dir := sharedSite(b)
	rdb := testenv.Redis(b)
	bin := chromafsBinary(b)
	g := []string{"--chroma-url", url, "--collection", coll}
	r := append(slices.Clone(g), "--redis-url", rdb.URL)
	if out, err := exec.Command(bin, append(r, "grep", "-rc", "", "/")...).Output(); err != nil || len(out) == 0 {
		b.Fatalf("filling Redis: %v", err)
	}
	// The last is a regular expression without a required literal: no
	// coarse filter, every page read from Redis and its lines selected
	// by the lazy DFA (grep -E reads the literals the same way).
	for _, lit := range []string{"webhook", "webhook signature", "[[:upper:]][[:lower:]]{9,}"} {
		b.Run(lit, func(b *testing.B) {
			tools := withOld([]namedCmd{
				{"rg", []string{"rg", "-n", "--no-config", "-uu", lit, dir}},
				{"chromafs-redis", append(append([]string{bin}, r...), "grep", "-rnE", lit, "/")},
				{"chromafs-cold", append(append([]string{bin}, g...), "grep", "-rnE", lit, "/")},
				// The first process for these literals: no coarse
				// answers shared in Redis yet.
				{"chromafs-first", append(append([]string{bin}, r...), "grep", "-rnE", lit, "/")},
			}, "old-redis", slices.Concat(r, []string{"grep", "-rnE", lit, "/"})...)
			logTrace(b, tools[1])
			var want []byte
			pairedRuns(b, tools, func(i int) {
				if tools[i].name == "chromafs-first" {
					dropSharedCoarse(b, rdb.URL)
				}
			}, func(i int, out []byte) {
				switch {
				case len(out) == 0:
					b.Fatalf("%v printed nothing", tools[i].args)
				case i == 1:
					want = out
				case i > 1 && !bytes.Equal(out, want):
					b.Fatalf("%s printed %d bytes, chromafs-redis %d", tools[i].name, len(out), len(want))
				}
			})
		})
	}
}

// dropSharedCoarse deletes the coarse filter's answers that processes
// shared in the Redis at url (keys holding "chromafs-coarse").
func dropSharedCoarse(b *testing.B, url string) {
	b.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	keys, err := c.Keys(ctx, "*chromafs-coarse*").Result()
	if err != nil {
		b.Fatal(err)
	}
	if len(keys) > 0 {
		if err := c.Del(ctx, keys...).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
