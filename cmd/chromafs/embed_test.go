package main

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/embedfn"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/search"
)

var builtEmbed = struct {
	once sync.Once
	path string
	err  error
	out  []byte
}{}

// embedBinary builds chromafs-embed once per test binary and returns its
// path.
func embedBinary(tb testing.TB) string {
	tb.Helper()
	builtEmbed.once.Do(func() {
		dir, err := testenv.TempDir("chromafs-embed-bin-")
		if err != nil {
			builtEmbed.err = err
			return
		}
		builtEmbed.path = filepath.Join(dir, embedHelper)
		builtEmbed.out, builtEmbed.err = exec.Command("go", "build", "-o", builtEmbed.path, "../chromafs-embed").CombinedOutput()
	})
	if builtEmbed.err != nil {
		tb.Fatalf("go build: %v\n%s", builtEmbed.err, builtEmbed.out)
	}
	return builtEmbed.path
}

// TestEmbedHelper runs the consistent-hash function in a chromafs-embed
// process (the protocol and process handling of --embedding default,
// whose ONNX function would download a model) and checks its vectors are
// the in-process function's.
func TestEmbedHelper(t *testing.T) {
	bin := embedBinary(t)
	ctx := context.Background()
	p, err := startEmbedder(bin, []string{"hash"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	local := chromastore.HashEmbedding(0)
	if p.Name() != local.Name() || p.GetConfig()["dim"] != float64(384) {
		t.Errorf("name %q config %v; want %q, dim 384", p.Name(), p.GetConfig(), local.Name())
	}
	texts := []string{"a", "some text", strings.Repeat("long line\n", 5000)}
	for range 3 {
		got, err := p.EmbedDocuments(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := local.EmbedDocuments(ctx, texts)
		if len(got) != len(want) {
			t.Fatalf("%d vectors for %d texts", len(got), len(texts))
		}
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("text %d: vectors differ", i)
			}
		}
	}
	// The function's own error is returned, and the process stays usable.
	if _, err := p.EmbedDocuments(ctx, []string{""}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty document: %v", err)
	}
	if _, err := p.EmbedDocuments(ctx, []string{"b"}); err != nil {
		t.Errorf("after an error: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := p.EmbedDocuments(ctx, []string{"c"}); err == nil {
		t.Errorf("embedded after Close")
	}

	// A cancelled call ends the process; later calls fail.
	p2, err := startEmbedder(bin, []string{"hash"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p2.EmbedDocuments(cctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	if _, err := p2.EmbedDocuments(ctx, []string{"x"}); err == nil {
		t.Errorf("call after a cancelled one succeeded")
	}
	p2.Close()

	if _, err := startEmbedder(bin, []string{"bogus"}, nil); err == nil || !strings.Contains(err.Error(), `unknown embedding function "bogus"`) {
		t.Errorf("unknown name: %v", err)
	}
}

// TestIngestEmbeddingFlag checks the names --embedding accepts and the
// error when chromafs-embed cannot be found; neither needs a server.
func TestIngestEmbeddingFlag(t *testing.T) {
	dir := t.TempDir()
	g := []string{"--chroma-url", "http://127.0.0.1:1", "--collection", "c"}
	_, errOut, code := cli(t, append(g, "ingest", "--embedding", "bogus", dir)...)
	if code != 2 || !strings.Contains(errOut, `unknown embedding function "bogus" (valid: hash, ngram, default)`) {
		t.Errorf("bogus: status %d, %q", code, errOut)
	}
	t.Setenv("CHROMAFS_EMBED_BIN", filepath.Join(dir, "no-such-helper"))
	_, errOut, code = cli(t, append(g, "ingest", "--embedding", "default", dir)...)
	if code != 2 || !strings.Contains(errOut, "start chromafs-embed") {
		t.Errorf("missing helper: status %d, %q", code, errOut)
	}
	t.Setenv("CHROMAFS_EMBED_BIN", "")
	t.Setenv("PATH", dir)
	if _, err := findEmbedHelper(); err == nil || !strings.Contains(err.Error(), "go install github.com/chromafs/chromafs/cmd/chromafs-embed@latest") {
		t.Errorf("no helper anywhere: %v", err)
	}
}

// TestQueryEmbedder runs search's query embedder in chromafs-embed
// -query and checks it gives embedfn.Build's vectors and errors, and that
// search --embedding lists embedfn's names.
func TestQueryEmbedder(t *testing.T) {
	if !slices.Equal(searchEmbeddings, embedfn.Providers()) {
		t.Errorf("searchEmbeddings = %q; embedfn.Providers() = %q", searchEmbeddings, embedfn.Providers())
	}
	t.Setenv("CHROMAFS_EMBED_BIN", embedBinary(t))
	ctx := context.Background()
	spec := chromastore.EmbeddingSpec{Name: chromastore.NgramName, Config: map[string]any{"dim": 16}, Space: "cosine"}
	for _, override := range []string{"", "hash"} {
		q, err := newQueryEmbedder(spec, 16, override)
		if err != nil {
			t.Fatalf("override %q: %v", override, err)
		}
		f, err := embedfn.Build(spec, 16, override)
		if err != nil {
			t.Fatal(err)
		}
		got, err := q.EmbedQuery(ctx, "how do I rotate a key")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := f.EmbedQuery(ctx, "how do I rotate a key")
		if len(got) != 16 || !slices.Equal(got, want) {
			t.Errorf("override %q: %v, in process %v", override, got, want)
		}
		if err := q.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	_, err := newQueryEmbedder(chromastore.EmbeddingSpec{}, 16, "")
	_, want := embedfn.Build(chromastore.EmbeddingSpec{}, 16, "")
	if err == nil || want == nil || err.Error() != want.Error() || !errors.Is(err, search.ErrNoEmbedder) {
		t.Errorf("no function: %v; in process %v; want the same, wrapping search.ErrNoEmbedder", err, want)
	}
}

// TestQueryEmbedderRestart: a session keeps its query embedder, whose
// chromafs-embed process may die (killed here) or be ended by a call whose
// context ends; the next query starts a new process and is answered.
func TestQueryEmbedderRestart(t *testing.T) {
	t.Setenv("CHROMAFS_EMBED_BIN", embedBinary(t))
	ctx := context.Background()
	spec := chromastore.EmbeddingSpec{Name: chromastore.NgramName, Config: map[string]any{"dim": 16}}
	q, err := newQueryEmbedder(spec, 16, "")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	want, err := q.EmbedQuery(ctx, "rotate the keys")
	if err != nil {
		t.Fatal(err)
	}
	pid := func() int {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.p.cmd.Process.Pid
	}
	first := pid()
	// Killed, and gone, before the next query.
	q.mu.Lock()
	p := q.p
	q.mu.Unlock()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = p.cmd.Process.Wait()
	got, err := q.EmbedQuery(ctx, "rotate the keys")
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("after the helper was killed: %v, %v; want the same vector as before", got, err)
	}
	if pid() == first {
		t.Errorf("the dead process %d is still the embedder's", first)
	}
	// A call whose context ends kills the process: that call fails, the
	// next one is answered by a new process.
	second := pid()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := q.EmbedQuery(cctx, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled query: %v, want context.Canceled", err)
	}
	if got, err := q.EmbedQuery(ctx, "rotate the keys"); err != nil || !slices.Equal(got, want) {
		t.Errorf("after a cancelled query: %v, %v", got, err)
	}
	if pid() == second {
		t.Errorf("the process that a cancelled query killed is still the embedder's")
	}
	if err := q.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := q.EmbedQuery(ctx, "x"); err == nil {
		t.Errorf("a query after Close was answered")
	}
}
