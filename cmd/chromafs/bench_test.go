package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
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
