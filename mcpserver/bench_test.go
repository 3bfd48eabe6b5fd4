package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/memstore"
)

// genSite writes n generated pages (package internal/gen) into a new
// collection of a real Chroma, as foreign writers do: 1,000-byte chunks
// cut mid-line, shuffled, a compressed tree with sizes, hashes and chunk
// counts. access gives each page's access.
func genSite(tb testing.TB, n int, access func(string) (bool, []string)) (testbackend.Target, map[string]string) {
	tb.Helper()
	pages := gen.Pages(n, 1)
	mem := memstore.New("mcp-site")
	err := memstore.Load(mem, collection.DefaultLayout(), pages, memstore.LoadOptions{
		ChunkSize: 1000, Shuffle: rand.New(rand.NewPCG(1, 2)), Access: access, Compressed: true, WithSizes: true,
	})
	if err != nil {
		tb.Fatal(err)
	}
	store := testbackend.Chroma(tb)
	if err := store.Upsert(context.Background(), mem.Records()); err != nil {
		tb.Fatal(err)
	}
	return store, pages
}

// writeDir writes files to a new directory, for ripgrep.
func writeDir(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for slug, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(slug))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// near10K returns the visible page whose size is closest to 10,000 bytes.
func near10K(files map[string]string) string {
	best := ""
	for slug := range files {
		d := func(s string) int { return max(len(files[s])-10_000, 10_000-len(files[s])) }
		if best == "" || d(slug) < d(best) || d(slug) == d(best) && slug < best {
			best = slug
		}
	}
	return best
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per iteration since start (cpuTime), a
// figure that a busy machine's run queue does not inflate as it does the
// wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkMCP measures tool calls end to end through the SDK's client over
// in-memory transports, on a public user's session over 1,000 generated
// pages in a real Chroma (1,000-byte chunks cut mid-line; 900 pages, 3.8 MB
// visible), with every session of one chromafs.Shared and one page cache:
//
//   - ReadWarm: read of a page of about 10 KB that the cache holds.
//   - LsRoot: ls of /.
//   - ReadWarmRaw, LsRootRaw: the same calls from a lean client (one
//     request line written, the answer read and decoded once with
//     encoding/json; rawClient) over the same in-memory transport, which
//     separates the server's cost from the SDK client's; ReadWarmHTTP and
//     LsRootHTTP the SDK's client over streamable HTTP (a loopback port,
//     the SDK's handler as chromafs serve --mcp has it), ReadWarmHTTPRaw
//     and LsRootHTTPRaw the lean client over it.
//   - ReadWarmReplay, LsRootReplay: the SDK's client alone: the same calls
//     over the same in-memory transport, each answered with the server's
//     answer to the first (replayPipe), so that only the client's work and
//     the transport's remain.
//   - NewSession: a new MCP session (connect, initialize) for a group set
//     never seen before, the tree already parsed (chromafs.WithTreeMaxAge:
//     no request), up to its first answer (ls /); NewSessionTreeCheck the
//     same when New checks the tree record (the default: one get, no
//     parse).
//   - BashGrep/LITERAL: the bash tool's grep -rn LITERAL / in a session
//     whose pages are loaded (chromafs.FS.Preload), with the default output
//     cap (30,000 characters); BashGrepUncapped the same without a cap
//     (every line, about 400 KB for webhook). Against Ripgrep: rg -n
//     LITERAL DIR as a whole process over the same files on disk.
//
// ReadWarm, LsRoot and NewSession* report, besides the wall time, the
// process's CPU time per call (cpu-ns/op: the client's and the server's
// together), which a busy machine does not inflate.
func BenchmarkMCP(b *testing.B) {
	store, pages := genSite(b, 1000, gen.Access)
	public := map[string]string{}
	for slug, content := range pages {
		if pub, _ := gen.Access(slug); pub {
			public[slug] = content
		}
	}
	ctx := context.Background()
	sh := chromafs.NewShared(0)
	cache := cachepkg.NewMemory(1 << 30)
	open := func(ctx context.Context, treeMaxAge time.Duration, groups ...string) (*chromafs.FS, error) {
		return chromafs.New(ctx, store, chromafs.WithShared(sh), chromafs.WithCache(cache), chromafs.WithGroups(groups...), chromafs.WithTreeMaxAge(treeMaxAge))
	}
	fsys, err := open(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	if err := fsys.Preload(ctx); err != nil {
		b.Fatal(err)
	}
	srv := mcpserver.New(mcpserver.Config{MaxOutput: -1, FS: func(context.Context) (fs.FS, error) { return fsys, nil }})
	c := connectServer(b, srv)

	page := "/" + near10K(public)
	want := catN(public[page[1:]])
	b.Run("ReadWarm", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if got := c.text("read", map[string]any{"path": page}); got != want {
				b.Fatalf("read %s: %q", page, got)
			}
		}
		b.ReportMetric(float64(len(public[page[1:]])), "bytes")
	})
	b.Run("LsRoot", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if got := c.text("ls", map[string]any{"path": "/"}); !strings.Contains(got, "guides/") {
				b.Fatalf("ls /: %q", got)
			}
		}
	})
	// The same calls from a lean client (rawClient: one request written,
	// the answer read and decoded once), over the same in-memory transport
	// and over streamable HTTP; and the SDK's client over HTTP.
	url := httpServer(b, srv)
	readArgs := `{"path":` + strconv.Quote(page) + `}`
	for _, tc := range []struct {
		name string
		call func(tb testing.TB) func(tool, args string) string
	}{
		{"Raw", func(tb testing.TB) func(tool, args string) string { return rawPipe(tb, srv).text }},
		{"HTTP", func(tb testing.TB) func(tool, args string) string { return sdkText(tb, sdkHTTP(tb, url)) }},
		{"Replay", func(tb testing.TB) func(tool, args string) string {
			c, _ := replayPipe(tb, srv)
			return sdkText(tb, c)
		}},
		{"HTTPRaw", func(tb testing.TB) func(tool, args string) string { return rawHTTP(tb, url).text }},
	} {
		b.Run("ReadWarm"+tc.name, func(b *testing.B) {
			call := tc.call(b)
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				if got := call("read", readArgs); got != want {
					b.Fatalf("read %s: %q", page, got)
				}
			}
		})
		b.Run("LsRoot"+tc.name, func(b *testing.B) {
			call := tc.call(b)
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				if got := call("ls", `{"path":"/"}`); !strings.Contains(got, "guides/") {
					b.Fatalf("ls /: %q", got)
				}
			}
		})
	}
	for _, tc := range []struct {
		name       string
		treeMaxAge time.Duration
	}{{"NewSession", time.Hour}, {"NewSessionTreeCheck", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			var n atomic.Int64
			srv := mcpserver.New(mcpserver.Config{FS: func(ctx context.Context) (fs.FS, error) {
				return open(ctx, tc.treeMaxAge, fmt.Sprintf("unseen-%s-%d", tc.name, n.Add(1)))
			}})
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				ct, st := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st, nil)
				if err != nil {
					b.Fatal(err)
				}
				cs, err := client.Connect(ctx, ct, nil)
				if err != nil {
					b.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ls", Arguments: map[string]any{"path": "/"}})
				if err != nil || res.IsError {
					b.Fatalf("ls /: %v %+v", err, res)
				}
				b.StopTimer()
				cs.Close()
				ss.Wait()
				b.StartTimer()
			}
		})
	}
	dir := writeDir(b, public)
	capped := connect(b, fsys, mcpserver.Config{})
	for _, lit := range []string{"webhook", "webhook signature"} {
		for _, tc := range []struct {
			name string
			c    *client
		}{{"BashGrep", capped}, {"BashGrepUncapped", c}} {
			b.Run(tc.name+"/"+lit, func(b *testing.B) {
				cmd := "grep -rn '" + lit + "' /"
				var lines int
				for b.Loop() {
					lines = strings.Count(tc.c.text("bash", map[string]any{"command": cmd}), "\n")
				}
				b.ReportMetric(float64(lines), "lines")
			})
		}
		b.Run("Ripgrep/"+lit, func(b *testing.B) {
			if _, err := exec.LookPath("rg"); err != nil {
				if os.Getenv("CI") == "true" {
					b.Fatal("rg is not installed (make deps installs it)")
				}
				b.Skip("rg is not installed")
			}
			var lines int
			for b.Loop() {
				out, err := exec.Command("rg", "-n", "--no-config", lit, dir).Output()
				if err != nil {
					b.Fatal(err)
				}
				lines = bytes.Count(out, []byte{'\n'})
			}
			b.ReportMetric(float64(lines), "lines")
		})
	}
}

// sdkText returns a call of c's tools with arguments as a JSON object,
// decoded for the SDK's client before the call as a caller holds them.
func sdkText(tb testing.TB, c *client) func(tool, args string) string {
	decoded := map[string]map[string]any{}
	return func(tool, args string) string {
		m, ok := decoded[args]
		if !ok {
			if err := json.Unmarshal([]byte(args), &m); err != nil {
				tb.Fatal(err)
			}
			decoded[args] = m
		}
		return c.text(tool, m)
	}
}
