package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/loadtest"
	"github.com/chromafs/chromafs/internal/testenv"
)

// serveProc is a `chromafs serve` process of the built binary.
type serveProc struct {
	urls   map[string]string // by kind: mcp, http, webdav, admin
	cmd    *exec.Cmd
	stderr *lockedBuffer
	stop   func() // SIGTERM, and the process must exit 0
	killed bool
}

// startServeProc runs the built binary's `chromafs serve` with args and
// env and waits for the URLs of kinds; the process is stopped with
// SIGTERM when stop is called (or t ends) and must then exit 0, unless
// kill ended it first.
func startServeProc(t *testing.T, env []string, kinds []string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(chromafsBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env = append(append(os.Environ(), "CHROMAFS_GROUPS=", "CHROMAFS_REDIS_URL="), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, stderr: &lockedBuffer{}, urls: map[string]string{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stop = sync.OnceFunc(func() {
		if p.killed {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve: %v\n%s", err, p.stderr.String())
		}
	})
	t.Cleanup(p.stop)
	sc := bufio.NewScanner(stdout)
	for len(p.urls) < len(kinds) && sc.Scan() {
		for _, k := range kinds {
			if u, ok := strings.CutPrefix(sc.Text(), "chromafs: "+k+" on "); ok {
				p.urls[k] = u
			}
		}
	}
	if len(p.urls) < len(kinds) {
		t.Fatalf("serve printed %v, want %v:\n%s", p.urls, kinds, p.stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p
}

// kill ends the process with SIGKILL, as a crash or the OOM killer
// would.
func (p *serveProc) kill(t *testing.T) {
	t.Helper()
	p.killed = true
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
}

// admin is the base URL of the process's admin listener.
func (p *serveProc) admin() string { return strings.TrimSuffix(p.urls["admin"], "/metrics") }

var toolCallsLine = regexp.MustCompile(`^chromafs_mcp_tool_calls_total\{(.*)\} (\d+)$`)

// scrapeToolCalls reads chromafs_mcp_tool_calls_total from the process's
// /metrics, summed over site and outcome, by tool.
func (p *serveProc) scrapeToolCalls(t *testing.T) map[string]int64 {
	t.Helper()
	code, text := getURL(t, p.admin()+"/metrics")
	if code != 200 {
		t.Fatalf("%s/metrics: %d", p.admin(), code)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(text, "\n") {
		m := toolCallsLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		tool := regexp.MustCompile(`tool="([^"]*)"`).FindStringSubmatch(m[1])
		n, err := strconv.ParseInt(m[2], 10, 64)
		if tool == nil || err != nil {
			t.Fatalf("/metrics line %q", line)
		}
		out[tool[1]] += n
	}
	return out
}

// runLoadtest runs `chromafs loadtest --json args...` in process and
// decodes its summary, whatever its status (0 or 1: the caller checks
// the summary; 2 fails the test).
func runLoadtest(t *testing.T, args ...string) *loadtest.Summary {
	out, errOut, code := cli(t, append([]string{"loadtest", "--json"}, args...)...)
	if code != 0 && code != 1 {
		t.Errorf("loadtest %q: status %d\n%s", args, code, errOut)
		return nil
	}
	var sum loadtest.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Errorf("loadtest --json: %v\n%s", err, out)
		return nil
	}
	return &sum
}

// TestFleet is issue 27's fleet acceptance test: three `serve --mcp
// --mcp-stateless --admin` processes share a real Redis Cluster of 3
// masters over one real Chroma collection (through a content counter).
// After a warm-up, loadtest round-robins over them (a few seconds in CI,
// CHROMAFS_SOAK for the 30 s): no error, no content request to
// Chroma (the cluster serves every page), and the tool calls each
// process's /metrics counted during the run add up, tool by tool, to
// loadtest's. Then one process is killed (SIGKILL) a third of the way
// into a second run: only the requests in flight on it fail (transport
// errors, at most one per concurrent session), the run goes on against
// the other two, and the dead URL's later sessions run on the others.
func TestFleet(t *testing.T) {
	cl := testenv.NewRedisCluster(t, 3)
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	if _, errOut, code := cli(t, "--chroma-url", srv.URL, "--collection", coll, "ingest", docsDir); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	counter := newContentCounter(t, srv.URL)
	env := []string{"CHROMAFS_REDIS_URL=" + patientRedis(cl.URL)}
	var procs []*serveProc
	var urls []string
	for range 3 {
		p := startServeProc(t, env, []string{"mcp", "admin"}, "--chroma-url", counter.srv.URL, "--collection", coll,
			"--mcp", "127.0.0.1:0", "--mcp-stateless", "--admin", "127.0.0.1:0")
		procs = append(procs, p)
		urls = append(urls, p.urls["mcp"])
	}
	const conc = 6
	d := testenv.SoakDuration(t)
	if os.Getenv("CHROMAFS_SOAK") == "" {
		d = 3 * time.Second
	}

	// Warm-up: every word of the built-in script on every process.
	n := 3 * len(loadtest.Words)
	warm := runLoadtest(t, append([]string{"-c", "3", "--count", strconv.Itoa(n), "--timeout", "30s"}, urls...)...)
	if warm == nil || warm.Sessions.OK != int64(n) || len(warm.Errors) != 0 {
		t.Fatalf("warm-up: %+v", warm)
	}
	if counter.content.Load() == 0 {
		t.Fatal("the warm-up read no page from Chroma")
	}

	before := make([]map[string]int64, len(procs))
	for i, p := range procs {
		before[i] = p.scrapeToolCalls(t)
	}
	c0 := counter.content.Load()
	sum := runLoadtest(t, append([]string{"-c", strconv.Itoa(conc), "--duration", d.String(), "--timeout", "30s"}, urls...)...)
	if sum == nil {
		t.FailNow()
	}
	content := counter.content.Load() - c0
	t.Logf("fleet run: %d sessions (%.1f/s), %d calls (%.1f/s), session p99 %.1f ms; %d content requests to Chroma",
		sum.Sessions.OK, sum.SessionsPerSecond, sum.Calls.OK, sum.CallsPerSecond, sum.SessionLatency.P99, content)
	if len(sum.Errors) != 0 || sum.Sessions.Failed != 0 || sum.Calls.Failed != 0 || sum.Sessions.OK < conc {
		t.Errorf("fleet run: sessions %+v, calls %+v, errors %v", sum.Sessions, sum.Calls, sum.ErrorExamples)
	}
	if content != 0 {
		t.Errorf("fleet run: %d content requests to Chroma after the warm-up; want 0 (the Redis Cluster holds every page)", content)
	}
	for i, u := range sum.PerURL {
		if u.Sessions.OK < sum.Sessions.OK/3 || u.Sessions.OK > sum.Sessions.OK/3+1 || u.Refused != 0 {
			t.Errorf("process %d: %+v of %d sessions", i, u, sum.Sessions.OK)
		}
	}
	// /metrics agrees with loadtest, tool by tool.
	delta := map[string]int64{}
	for i, p := range procs {
		for tool, v := range p.scrapeToolCalls(t) {
			delta[tool] += v - before[i][tool]
		}
	}
	for tool, ts := range sum.Tools {
		if delta[tool] != ts.Calls.Started {
			t.Errorf("%s: the processes' /metrics counted %d calls during the run, loadtest %d", tool, delta[tool], ts.Calls.Started)
		}
	}
	for tool, v := range delta {
		if _, ok := sum.Tools[tool]; !ok && v != 0 {
			t.Errorf("%s: the processes' /metrics counted %d calls, loadtest none", tool, v)
		}
	}
	if len(sum.Tools) < 5 {
		t.Errorf("tools called: %v", sum.Tools)
	}

	// One process killed a third of the way into a run.
	kd := max(d, 3*time.Second)
	c0 = counter.content.Load()
	done := make(chan *loadtest.Summary, 1)
	go func() {
		done <- runLoadtest(t, append([]string{"-c", strconv.Itoa(conc), "--duration", kd.String(), "--timeout", "30s"}, urls...)...)
	}()
	time.Sleep(kd / 3)
	procs[2].kill(t)
	killedAt := time.Now()
	sum = <-done
	if sum == nil {
		t.FailNow()
	}
	t.Logf("run with a kill: sessions %+v, errors %v, per URL %+v, %v after the kill", sum.Sessions, sum.ErrorExamples, sum.PerURL, time.Since(killedAt))
	for kind, v := range sum.Errors {
		if kind != loadtest.KindTransport || v > conc {
			t.Errorf("with a process killed: %d errors of kind %s (want transport errors only, at most %d: one per session in flight): %s", v, kind, conc, sum.ErrorExamples[kind])
		}
	}
	if sum.Sessions.Failed > conc || sum.Sessions.Failed != sum.Errors[loadtest.KindTransport] {
		t.Errorf("with a process killed: sessions %+v, errors %v", sum.Sessions, sum.Errors)
	}
	// The run went on against the other two, and the dead URL's turns
	// went to them, spread evenly.
	a, b := sum.PerURL[0].Sessions.OK, sum.PerURL[1].Sessions.OK
	if k := sum.PerURL[2]; k.Refused == 0 || a+b < 2*k.Sessions.Started || a > b*5/4+conc || b > a*5/4+conc {
		t.Errorf("with a process killed: per URL %+v", sum.PerURL)
	}
	if n := counter.content.Load() - c0; n != 0 {
		t.Errorf("with a process killed: %d content requests to Chroma; want 0", n)
	}
}
