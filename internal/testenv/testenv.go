package testenv

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// ModulePath is the module whose root holds internal/testenv/chroma.
const ModulePath = "github.com/chromafs/chromafs"

// chromaKind runs `chroma run` from the npm package chromadb.
var chromaKind = kind{
	name:    "chroma",
	envURL:  "CHROMA_URL",
	envBin:  "CHROMA_BIN",
	scheme:  "http",
	install: "run `make deps` or `cd internal/testenv/chroma && npm ci`",
	args: func(dir string, port int) []string {
		return []string{"run", "--path", filepath.Join(dir, "data"), "--host", "127.0.0.1", "--port", fmt.Sprint(port)}
	},
	ready: chromaReady,
}

// redisKind runs Debian's redis-server in the foreground, without
// persistence.
var redisKind = kind{
	name:    "redis",
	envURL:  "REDIS_URL",
	envBin:  "REDIS_BIN",
	scheme:  "redis",
	install: "run `make deps` or `apt-get install -y redis-server`",
	args: func(dir string, port int) []string {
		return []string{
			"--port", fmt.Sprint(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--daemonize", "no",
			"--dir", dir, "--logfile", "",
		}
	},
	ready: redisReady,
}

// chromaReady asks Chroma's heartbeat endpoint at addr.
func chromaReady(ctx context.Context, addr string) error {
	return probeChromaURL(ctx, "http://"+addr)
}

// redisReady sends PING and expects +PONG.
func redisReady(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line = strings.TrimSpace(line); line != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// state is what Main cleans up.
var state struct {
	mu      sync.Mutex
	main    bool      // Main is running
	tmp     string    // parent of the shared servers' data directories
	servers []*Server // shared servers started here
	// collections are SharedCollectionName's, deleted by cleanup.
	collections []string
	dirs        []string // made by TempDir, removed by cleanup
	shutdown    bool     // cleanup has run
}

// TempDir makes a directory that lives as long as the test binary: Main
// removes it when the tests end (a test's own t.TempDir is removed when
// that test ends, too early for what several tests share, such as a
// binary built once). Without Main, the caller must remove it.
func TempDir(prefix string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	state.mu.Lock()
	state.dirs = append(state.dirs, dir)
	state.mu.Unlock()
	return dir, nil
}

// shared is a server started at most once per test binary.
type shared struct {
	once    sync.Once
	srv     *Server
	err     error
	started atomic.Pointer[Server] // srv, once it answers
}

var sharedChroma, sharedRedis shared

// Main runs the tests, stops every shared server that was started and
// removes their data, then exits with the tests' status. Call it from
// TestMain:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
func Main(m *testing.M) {
	state.mu.Lock()
	state.main = true
	state.mu.Unlock()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-sig
		if !ok {
			return
		}
		cleanup()
		fmt.Fprintf(os.Stderr, "testenv: %v: stopped the test servers\n", s)
		os.Exit(2)
	}()

	code := m.Run()
	signal.Stop(sig)
	close(sig)
	cleanup()
	os.Exit(code)
}

// cleanup stops the shared servers and removes their data.
func cleanup() {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.shutdown {
		return
	}
	state.shutdown = true
	for _, name := range state.collections {
		deleteCollection(name)
	}
	for _, s := range state.servers {
		if err := s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	for _, dir := range append(state.dirs, state.tmp) {
		if dir == "" {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: remove %s: %v\n", dir, err)
		}
	}
}

// Chroma returns the test binary's shared Chroma server, starting it on
// first use, or the server at CHROMA_URL. It skips the test (fails it
// under CI=true) when the chroma executable is not installed, and fails
// it when the server cannot be started. The caller must not stop it; see
// [NewChroma].
func Chroma(tb testing.TB) *Server {
	tb.Helper()
	return sharedServer(tb, &sharedChroma, chromaKind)
}

// Redis returns the test binary's shared Redis server, starting it on
// first use, or the server at REDIS_URL. It skips the test (fails it under
// CI=true) when redis-server is not installed, and fails it when the
// server cannot be started. The caller must not stop it; see [NewRedis].
func Redis(tb testing.TB) *Server {
	tb.Helper()
	return sharedServer(tb, &sharedRedis, redisKind)
}

// NewChroma starts a Chroma server for tb alone, for tests that stop or
// restart it. It ignores CHROMA_URL, and stops the server and removes its
// data when tb ends. It does not need [Main].
func NewChroma(tb testing.TB) *Server {
	tb.Helper()
	return privateServer(tb, chromaKind)
}

// NewRedis starts a Redis server for tb alone, for tests that stop or
// restart it. It ignores REDIS_URL, and stops the server when tb ends. It
// does not need [Main].
func NewRedis(tb testing.TB) *Server {
	tb.Helper()
	return privateServer(tb, redisKind)
}

func sharedServer(tb testing.TB, sh *shared, k kind) *Server {
	tb.Helper()
	sh.once.Do(func() {
		sh.srv, sh.err = startShared(k)
		if sh.err == nil {
			sh.started.Store(sh.srv)
		}
	})
	if sh.err != nil {
		fail(tb, sh.err)
	}
	return sh.srv
}

func startShared(k kind) (*Server, error) {
	if u := os.Getenv(k.envURL); u != "" {
		return external(k, u)
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	if !state.main {
		return nil, fmt.Errorf("testenv: the %s server is shared by the test binary: call testenv.Main(m) from TestMain, or use testenv.New%s", k.name, strings.ToUpper(k.name[:1])+k.name[1:])
	}
	if state.shutdown {
		return nil, errors.New("testenv: the test servers were already stopped")
	}
	k, bin, err := serverCommand(k)
	if err != nil {
		return nil, err
	}
	if state.tmp == "" {
		if state.tmp, err = os.MkdirTemp("", "chromafs-testenv-"); err != nil {
			return nil, fmt.Errorf("testenv: %w", err)
		}
	}
	s, err := launch(k, bin, state.tmp)
	if err != nil {
		return nil, err
	}
	state.servers = append(state.servers, s)
	return s, nil
}

// external returns the server at u after checking that it answers.
func external(k kind, u string) (*Server, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return nil, fmt.Errorf("testenv: %s=%q is not a URL", k.envURL, u)
	}
	addr := pu.Host
	if pu.Port() == "" {
		port := "80"
		switch pu.Scheme {
		case "https":
			port = "443"
		case "redis", "rediss":
			port = "6379"
		}
		addr = net.JoinHostPort(pu.Hostname(), port)
	}
	s := &Server{URL: strings.TrimRight(u, "/"), Addr: addr, kind: k, external: true}
	if k.name == "chroma" {
		// Probe through the URL, which may carry a path prefix or https.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := probeChromaURL(ctx, s.URL); err != nil {
			return nil, fmt.Errorf("testenv: %s=%s does not answer: %w", k.envURL, u, err)
		}
		return s, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := k.ready(ctx, addr); err != nil {
		return nil, fmt.Errorf("testenv: %s=%s does not answer: %w", k.envURL, u, err)
	}
	return s, nil
}

func probeChromaURL(ctx context.Context, base string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v2/heartbeat", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("heartbeat: %s", resp.Status)
	}
	return nil
}

func privateServer(tb testing.TB, k kind) *Server {
	tb.Helper()
	k, bin, err := serverCommand(k)
	if err != nil {
		fail(tb, err)
	}
	s, err := launch(k, bin, tb.TempDir())
	if err != nil {
		fail(tb, err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// missingError reports an executable that is not installed.
type missingError struct{ msg string }

func (e *missingError) Error() string { return e.msg }

// fail skips tb for a missing executable outside CI, and fails it
// otherwise.
func fail(tb testing.TB, err error) {
	tb.Helper()
	var me *missingError
	if errors.As(err, &me) && os.Getenv("CI") != "true" {
		tb.Skip(err)
	}
	tb.Fatal(err)
}

// findBin locates k's executable.
func findBin(k kind) (string, error) {
	if p := os.Getenv(k.envBin); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", &missingError{fmt.Sprintf("testenv: %s=%s is not an executable file: %s (or set %s to use a running server)", k.envBin, p, k.install, k.envURL)}
	}
	switch k.name {
	case "chroma":
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		p := filepath.Join(root, "internal", "testenv", "chroma", "node_modules", ".bin", "chroma")
		if !isExecutable(p) {
			return "", &missingError{fmt.Sprintf("testenv: Chroma is not installed (no %s): %s (or set CHROMA_URL to use a running server)", p, k.install)}
		}
		if _, err := exec.LookPath("node"); err != nil {
			return "", &missingError{"testenv: Chroma needs node in PATH (Node.js 20 or later)"}
		}
		return p, nil
	default:
		p, err := exec.LookPath("redis-server")
		if err != nil {
			return "", &missingError{fmt.Sprintf("testenv: redis-server is not in PATH: %s (or set REDIS_URL to use a running server)", k.install)}
		}
		return p, nil
	}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// RepoRoot returns the directory of the go.mod of [ModulePath], found by
// walking up from the working directory.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("testenv: %w", err)
	}
	for dir := wd; ; {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(string(b)) == ModulePath {
			return dir, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("testenv: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("testenv: no go.mod of module %s in %s or above", ModulePath, wd)
		}
		dir = parent
	}
}

// modulePath returns the module path of a go.mod file's text.
func modulePath(gomod string) string {
	for line := range strings.Lines(gomod) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

var (
	nameSeq  atomic.Uint64
	nameSalt = func() string {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		return hex.EncodeToString(b)
	}()
)

// MaxCollectionName is the length limit of [CollectionName]: the limit of
// Chroma before 1.0 (1.0 accepts 512 characters).
const MaxCollectionName = 63

// CollectionName returns a collection name for tb that no other test, in
// this or a concurrent test binary, uses: derived from the test's name,
// at most 63 characters of [a-zA-Z0-9-], starting and ending with a letter
// or digit. When tb ends without failing, the collection is deleted from
// the shared Chroma server if that server was started.
func CollectionName(tb testing.TB) string {
	tb.Helper()
	name := collectionName(tb.Name())
	tb.Cleanup(func() {
		if tb.Failed() {
			return
		}
		deleteCollection(name)
	})
	return name
}

// SharedCollectionName returns a collection name, unique as
// [CollectionName]'s and derived from base, for data that several tests
// of the binary share: written once by the first test that needs it and
// read by the others. The collection is deleted from the shared Chroma
// when [Main] ends, not when a test does.
func SharedCollectionName(base string) string {
	name := collectionName(base)
	state.mu.Lock()
	state.collections = append(state.collections, name)
	state.mu.Unlock()
	return name
}

// collectionName derives a unique collection name from s.
func collectionName(s string) string {
	suffix := fmt.Sprintf("%s%d", nameSalt, nameSeq.Add(1))
	var b strings.Builder
	dash := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	base := strings.Trim(b.String(), "-")
	if room := MaxCollectionName - 1 - len(suffix); len(base) > room {
		base = strings.TrimRight(base[:room], "-")
	}
	if base == "" {
		base = "t"
	}
	return base + "-" + suffix
}

// deleteCollection removes name from the default tenant and database of
// the shared Chroma, if it was started, ignoring every error.
func deleteCollection(name string) {
	srv := sharedChroma.started.Load()
	if srv == nil || !srv.Running() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := srv.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + url.PathEscape(name)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}
