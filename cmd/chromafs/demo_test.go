package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/testenv"
)

// demo is a copy of what `make demo`, `make stop-demo` and `make clean`
// use (the Makefile, scripts/demo.sh and examples/), in a temp dir, so that
// the tests neither clobber a developer's .chroma-demo and bin/ nor use
// port 8000: its CHROMA_URL names a free loopback port.
type demo struct {
	dir   string // the copy's root
	state string // its .chroma-demo
	data  string // the data directory the script passes to chroma run
	url   string
	env   []string
}

// newDemo copies the demo's files and finds what it runs: the chroma
// executable (missing: skipped, or failed under CI=true), make and a
// chromafs binary built from this package. When the test ends, every
// process that serves the copy's data directory is stopped, and the test
// fails if the script left one running.
func newDemo(t *testing.T) *demo {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	chroma := os.Getenv("CHROMA_BIN")
	if chroma == "" {
		chroma = filepath.Join(root, "internal", "testenv", "chroma", "node_modules", ".bin", "chroma")
	}
	missing := func(msg string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if fi, err := os.Stat(chroma); err != nil || fi.Mode().Perm()&0o111 == 0 {
		missing("the demo needs Chroma (" + chroma + "): run `make deps-chroma`")
	}
	for _, tool := range []string{"node", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing("the demo tests need " + tool + " in PATH")
		}
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(root, "Makefile"), filepath.Join(dir, "Makefile"))
	copyFile(t, filepath.Join(root, "scripts", "demo.sh"), filepath.Join(dir, "scripts", "demo.sh"))
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	d := &demo{
		dir:   dir,
		state: filepath.Join(dir, ".chroma-demo"),
		data:  filepath.Join(dir, ".chroma-demo", "data"),
		url:   "http://127.0.0.1:" + strconv.Itoa(freeLoopbackPort(t)),
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CHROMA") || k == "MAKEFLAGS" || k == "MFLAGS" || k == "MAKELEVEL" {
			continue // the developer's Chroma, collection, state dir...
		}
		d.env = append(d.env, kv)
	}
	d.env = append(d.env, "CHROMA_URL="+d.url, "CHROMA_BIN="+chroma, "CHROMAFS_DEMO_BIN="+chromafsBinary(t),
		"CHROMAFS_EMBED_BIN="+embedBinary(t)) // the demo's search embeds its query there
	t.Cleanup(func() {
		if pids := d.procs(t); len(pids) > 0 {
			d.run(t, nil, "scripts/demo.sh", "stop")
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("Chroma left running at the end (pids %v)", pids)
		}
	})
	return d
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// run runs a command in the copy with d's environment and extra after it
// (later entries win), and returns its combined output and status.
func (d *demo) run(t *testing.T, extra []string, name string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = d.dir
	cmd.Env = append(append([]string{}, d.env...), extra...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out.String())
	}
	return out.String(), code
}

// procs returns the live processes whose command line passes the copy's
// data directory as --path (relative to their working directory, or
// absolute), as the script's chroma run does: read from /proc here,
// independently of the script's own search.
func (d *demo) procs(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("the demo tests read /proc: %v", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		for i := 0; i+1 < len(args); i++ {
			if args[i] != "--path" {
				continue
			}
			dir := args[i+1]
			if !filepath.IsAbs(dir) {
				cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
				if err != nil {
					break
				}
				dir = filepath.Join(strings.TrimSuffix(cwd, " (deleted)"), dir)
			}
			if filepath.Clean(dir) == d.data && !zombie(pid) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// zombie reports whether pid has exited and waits for its parent to reap
// it (or has gone).
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	s = s[strings.LastIndexByte(s, ')')+1:]
	return strings.HasPrefix(strings.TrimSpace(s), "Z")
}

// noCurlPath returns a PATH of one directory with a link to every
// executable of this PATH but curl and wget.
func noCurlPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	seen := map[string]bool{"curl": true, "wget": true}
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if seen[e.Name()] {
				continue
			}
			seen[e.Name()] = true
			if err := os.Symlink(filepath.Join(p, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

var stoppedPid = regexp.MustCompile(`(?m)^stopped Chroma \(pid ([0-9]+)\)$`)

// TestDemoLifecycle: the demo runs without curl on PATH; deleting its
// state directory under its running Chroma (what `make clean` did before
// it stopped the demo) neither breaks the next demo nor hides the Chroma
// from `make stop-demo`; `make clean` after `make demo` stops the Chroma,
// and a demo after it works.
func TestDemoLifecycle(t *testing.T) {
	d := newDemo(t)
	demoOK := func(step string, extra ...string) int {
		t.Helper()
		out, code := d.run(t, extra, "scripts/demo.sh")
		if code != 0 || !strings.Contains(out, "example-docs: 11 pages") || strings.Contains(out, "readonly") {
			t.Fatalf("%s: scripts/demo.sh: status %d\n%s", step, code, out)
		}
		pids := d.procs(t)
		if len(pids) != 1 {
			t.Fatalf("%s: %d processes serve %s, want 1: %v", step, len(pids), d.data, pids)
		}
		return pids[0]
	}
	stopped := func(step, out string, pid int) {
		t.Helper()
		m := stoppedPid.FindAllStringSubmatch(out, -1)
		if len(m) != 1 || m[0][1] != strconv.Itoa(pid) {
			t.Errorf("%s: output does not say 'stopped Chroma (pid %d)':\n%s", step, pid, out)
		}
		if left := d.procs(t); len(left) > 0 {
			t.Fatalf("%s: Chroma still running: %v\n%s", step, left, out)
		}
	}

	path := noCurlPath(t)
	if _, err := exec.LookPath(filepath.Join(path, "curl")); err == nil {
		t.Fatal("curl is still on the test's PATH")
	}
	pid := demoOK("without curl", "PATH="+path)

	// The data directory deleted under the running Chroma: the demo
	// restarts it rather than writing to a deleted database.
	if err := os.RemoveAll(d.state); err != nil {
		t.Fatal(err)
	}
	out, code := d.run(t, nil, "scripts/demo.sh")
	if code != 0 || !strings.Contains(out, "lost its data directory") || !strings.Contains(out, fmt.Sprintf("stopped Chroma (pid %d)", pid)) || strings.Contains(out, "readonly") {
		t.Fatalf("demo after rm -rf .chroma-demo: status %d\n%s", code, out)
	}
	if pids := d.procs(t); len(pids) != 1 || pids[0] == pid {
		t.Fatalf("demo after rm -rf .chroma-demo: Chroma processes %v, want one new one (old: %d)", pids, pid)
	} else {
		pid = pids[0]
	}

	// The same, then make stop-demo: no pid file, no directory, and it
	// still finds the Chroma and says so.
	if err := os.RemoveAll(d.state); err != nil {
		t.Fatal(err)
	}
	out, code = d.run(t, nil, "make", "--no-print-directory", "stop-demo")
	if code != 0 {
		t.Fatalf("make stop-demo: status %d\n%s", code, out)
	}
	stopped("make stop-demo after rm -rf .chroma-demo", out, pid)
	if out, code = d.run(t, nil, "make", "--no-print-directory", "stop-demo"); code != 0 || !strings.Contains(out, "no demo Chroma is running") {
		t.Errorf("make stop-demo with nothing running: status %d\n%s", code, out)
	}

	// make clean without make stop-demo first.
	pid = demoOK("demo before make clean")
	out, code = d.run(t, nil, "make", "--no-print-directory", "clean")
	if code != 0 {
		t.Fatalf("make clean: status %d\n%s", code, out)
	}
	stopped("make clean", out, pid)
	if _, err := os.Stat(d.state); !os.IsNotExist(err) {
		t.Errorf("make clean left %s (%v)", d.state, err)
	}
	pid = demoOK("demo after make clean")
	out, _ = d.run(t, nil, "scripts/demo.sh", "stop")
	stopped("scripts/demo.sh stop", out, pid)
}

// TestDemoStopLeavesOtherChroma: stop-demo does not stop a Chroma that
// answers at CHROMA_URL but was not started by the demo, and says so.
func TestDemoStopLeavesOtherChroma(t *testing.T) {
	srv := testenv.Chroma(t)
	d := newDemo(t)
	out, code := d.run(t, []string{"CHROMA_URL=" + srv.URL}, "make", "--no-print-directory", "stop-demo")
	if code != 0 || !strings.Contains(out, "not the demo's") || !strings.Contains(out, "left running") {
		t.Errorf("make stop-demo with another Chroma at %s: status %d\n%s", srv.URL, code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v2/heartbeat", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the other Chroma no longer answers: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the other Chroma's heartbeat: %s", resp.Status)
	}
}

// TestDemoStartFailure: when Chroma cannot start, the demo ends with
// status 1 within seconds, quotes the log's end without terminal colour
// codes, and leaves no process and no pid file behind.
func TestDemoStartFailure(t *testing.T) {
	d := newDemo(t)
	// A port taken by a server that is not Chroma.
	notChroma := &http.Server{Handler: http.NotFoundHandler(), ReadHeaderTimeout: 5 * time.Second}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = notChroma.Serve(l) }()
	t.Cleanup(func() { notChroma.Close() })

	fake := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const colour = `printf '\033[31mboom: cannot bind\033[0m\n'`
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"port taken", []string{"CHROMA_URL=http://" + l.Addr().String()}, "is taken by a server that is not Chroma"},
		{"chroma exits", []string{"CHROMA_BIN=" + fake("exits", colour+"; exit 3")}, "Chroma exited while starting"},
		{"chroma never answers", []string{"CHROMAFS_DEMO_WAIT=1", "CHROMA_BIN=" + fake("hangs", colour+"; while :; do sleep 0.1; done")}, "did not answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			out, code := d.run(t, tc.extra, "scripts/demo.sh")
			took := time.Since(start)
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Errorf("status %d, output lacks %q:\n%s", code, tc.want, out)
			}
			if took > 15*time.Second {
				t.Errorf("took %v", took)
			}
			if strings.Contains(out, "\x1b") {
				t.Errorf("output has terminal escapes: %q", out)
			}
			if strings.HasPrefix(tc.name, "chroma") && !strings.Contains(out, "boom: cannot bind") {
				t.Errorf("output does not quote the log:\n%s", out)
			}
			if pids := d.procs(t); len(pids) > 0 {
				t.Errorf("left running: %v", pids)
			}
			if _, err := os.Stat(filepath.Join(d.state, "pid")); !os.IsNotExist(err) {
				t.Errorf("pid file left behind (%v)", err)
			}
		})
	}
}
