package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testenv"
)

// buildIn builds a Go program into dir/name with the environment env
// added, and returns its path.
func buildIn(tb testing.TB, dir, name, pkg string, env ...string) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", p, pkg)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	syncFile(tb, p)
	return p
}

// syncFile writes the file p to disk. A binary that the linker has just
// written starts slower than one written back (BENCHMARKS.md, "Process
// start"), which would count against the binaries that a benchmark
// builds and not against CHROMAFS_BENCH_OLD.
func syncFile(tb testing.TB, p string) {
	tb.Helper()
	f, err := os.Open(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		tb.Fatal(err)
	}
}

// startBinaries builds an empty Go program and chromafs static
// (CGO_ENABLED=0, as make build does); chromafsBinary is the default
// build (dynamically linked where cgo is available).
func startBinaries(b *testing.B) (empty, static string) {
	b.Helper()
	dir := b.TempDir()
	src := filepath.Join(dir, "empty")
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module empty\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "empty-bin"), ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build empty: %v\n%s", err, out)
	}
	syncFile(b, filepath.Join(dir, "empty-bin"))
	return filepath.Join(dir, "empty-bin"), buildIn(b, dir, "chromafs-static", ".", "CGO_ENABLED=0")
}

// pairedRuns runs the commands once each per round, in order, for
// b.Loop's rounds, so that all of them meet the same load; it reports
// each one's median wall time (NAME-ms) and the median of its per-round
// ratio to the first command's (NAME/FIRST). before, if not nil, runs
// untimed ahead of each command i; check, if not nil, sees every output.
func pairedRuns(b *testing.B, tools []namedCmd, before func(i int), check func(i int, out []byte)) {
	b.Helper()
	times := make([][]float64, len(tools))
	for b.Loop() {
		for i, tool := range tools {
			if before != nil {
				before(i)
			}
			cmd := exec.Command(tool.args[0], tool.args[1:]...)
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			start := time.Now()
			out, err := cmd.Output()
			times[i] = append(times[i], float64(time.Since(start).Microseconds())/1000)
			if err != nil {
				b.Fatalf("%v: %v", tool.args, err)
			}
			if check != nil {
				check(i, out)
			}
		}
	}
	for i, tool := range tools {
		b.ReportMetric(median(times[i]), tool.name+"-ms")
		if i > 0 {
			ratios := make([]float64, len(times[i]))
			for j := range ratios {
				ratios[j] = times[i][j] / times[0][j]
			}
			b.ReportMetric(median(ratios), tool.name+"/"+tools[0].name)
		}
	}
}

type namedCmd struct {
	name string
	args []string
}

// logTrace runs tool once more with CHROMAFS_TRACE=1 and logs what it
// traced, when CHROMAFS_BENCH_TRACE is set.
func logTrace(b *testing.B, tool namedCmd) {
	b.Helper()
	if os.Getenv("CHROMAFS_BENCH_TRACE") == "" {
		return
	}
	cmd := exec.Command(tool.args[0], tool.args[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "CHROMAFS_TRACE=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	_ = cmd.Run()
	b.Logf("CHROMAFS_TRACE=1 %s:\n%s", tool.name, errb.String())
}

// withOld adds CHROMAFS_BENCH_OLD (another chromafs binary, to compare
// before and after a change) to tools as name, with args. Build it with
// go build -o and do not copy it: here a copy (a file written with
// write(2)) starts 1.5 ms faster than the file the linker wrote, which
// is what the other binaries of the comparison are; and one just built
// starts slower than one built minutes before (BENCHMARKS.md, "Process
// start").
func withOld(tools []namedCmd, name string, args ...string) []namedCmd {
	if old := os.Getenv("CHROMAFS_BENCH_OLD"); old != "" {
		tools = append(tools, namedCmd{name, append([]string{old}, args...)})
	}
	return tools
}

// BenchmarkProcessStart times `chromafs --help` as whole processes
// against an empty Go program built in the same run, in paired rounds:
// the cost of starting chromafs (the runtime and every linked package's
// initialisation) plus cobra's help. "static" is chromafs built with
// CGO_ENABLED=0, as make build builds it.
func BenchmarkProcessStart(b *testing.B) {
	empty, static := startBinaries(b)
	bin := chromafsBinary(b)
	syncFile(b, bin)
	tools := withOld([]namedCmd{
		{"empty", []string{empty}},
		{"chromafs", []string{bin, "--help"}},
		{"static", []string{static, "--help"}},
	}, "old", "--help")
	pairedRuns(b, tools, nil, nil)
}

// BenchmarkLsProcess times `chromafs ls /` on a collection that chromafs
// ingest wrote from a generated site of 1,131 pages (pages under
// internal/ private to staff) against curl fetching the tree record
// alone (the collection's id known), in paired rounds. "static" is
// chromafs built with CGO_ENABLED=0. Ingesting takes about half a minute.
func BenchmarkLsProcess(b *testing.B) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("curl is not installed")
	}
	srv := testenv.Chroma(b)
	coll := testenv.CollectionName(b)
	site := b.TempDir()
	for slug, c := range gen.Pages(1131, 1) {
		p := filepath.Join(site, filepath.FromSlash(slug))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	rules := filepath.Join(b.TempDir(), "rules")
	if err := os.WriteFile(rules, []byte("**  public\n"+gen.PrivateDir+"/**  private groups="+gen.PrivateGroup+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := chromafsBinary(b)
	syncFile(b, bin)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if out, err := exec.Command(bin, append(g, "ingest", "--no-progress", "--rules", rules, site)...).CombinedOutput(); err != nil {
		b.Fatalf("ingest: %v\n%s", err, out)
	}
	resp, err := http.Get(srv.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + coll)
	if err != nil {
		b.Fatal(err)
	}
	var col struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&col)
	resp.Body.Close()
	if err != nil || col.ID == "" {
		b.Fatalf("collection id: %v", err)
	}
	_, static := startBinaries(b)
	getURL := srv.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + col.ID + "/get"
	tools := withOld([]namedCmd{
		{"curl", []string{curl, "-sf", "-X", "POST", "-H", "Content-Type: application/json",
			"-d", `{"ids":["__path_tree__"],"include":["documents","metadatas"]}`, getURL}},
		{"chromafs", append(append([]string{bin}, g...), "ls", "/")},
		{"static", append(append([]string{static}, g...), "ls", "/")},
	}, "old", append(g, "ls", "/")...)
	logTrace(b, tools[1])
	var want []byte
	pairedRuns(b, tools, nil, func(i int, out []byte) {
		switch {
		case i == 0 && !bytes.Contains(out, []byte("__path_tree__")):
			b.Fatalf("curl printed %.200q", out)
		case i == 1:
			want = out
			if !strings.Contains(string(out), "\n") {
				b.Fatalf("ls / printed %q", out)
			}
		case i > 1 && !bytes.Equal(out, want):
			b.Fatalf("%s printed %q, chromafs %q", tools[i].name, out, want)
		}
	})
}
