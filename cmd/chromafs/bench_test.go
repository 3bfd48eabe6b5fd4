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

// manyPatternList returns n distinct fixed strings of about 1 MB for
// n = 80,660: random 12-letter words that occur nowhere, and one in 200
// a run of 2 to 4 words from a random line of a page (each in a few
// pages, as a list of identifiers or phrases to look for would be).
func manyPatternList(n int, pages map[string][]byte) []string {
	rng := rand.New(rand.NewPCG(uint64(n), 17))
	slugs := slices.Sorted(maps.Keys(pages))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	w := make([]byte, 12)
	for len(out) < n {
		var p string
		if len(out)%200 == 0 {
			lines := strings.Split(string(pages[slugs[rng.IntN(len(slugs))]]), "\n")
			words := strings.Fields(lines[rng.IntN(len(lines))])
			if len(words) < 4 {
				continue
			}
			k := rng.IntN(len(words) - 3)
			p = strings.Join(words[k:k+2+rng.IntN(3)], " ")
		} else {
			for i := range w {
				w[i] = byte('a' + rng.IntN(26))
			}
			p = string(w)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
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
	list := manyPatternList(80_660, pages)
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
