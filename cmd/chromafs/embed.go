package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/search"
)

// embedHelper is the command that runs the embedding functions chromafs
// does not link (chroma-go's: ingest --embedding default, and search's
// query embedding): linking
// chroma-go's embedding stack would cost every chromafs process its
// package initialisation.
const embedHelper = "chromafs-embed"

// helperEmbeddings are the --embedding names that chromafs-embed runs.
var helperEmbeddings = []string{"default"}

// embeddingNames are the names --embedding accepts, "hash" first.
func embeddingNames() []string {
	names := chromastore.EmbeddingNames()
	for _, h := range helperEmbeddings {
		if !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	return names
}

// embeddingFunction returns the --embedding function name: one that
// chromafs-embed runs (started now, so that a missing helper fails before
// anything is written; the ONNX function downloads its model only when it
// first embeds), or else one of chromastore's, in this process.
func embeddingFunction(name string) (chromastore.Embedder, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if slices.Contains(helperEmbeddings, key) {
		bin, err := findEmbedHelper()
		if err != nil {
			return nil, err
		}
		return startEmbedder(bin, []string{key}, nil)
	}
	ef, err := chromastore.EmbeddingFunction(name)
	if errors.Is(err, chromastore.ErrUnknownEmbedding) {
		return nil, fmt.Errorf("unknown embedding function %q (valid: %s)", name, strings.Join(embeddingNames(), ", "))
	}
	return ef, err
}

// findEmbedHelper returns the path of chromafs-embed: $CHROMAFS_EMBED_BIN,
// else the one beside this executable, else the one on PATH.
func findEmbedHelper() (string, error) {
	if p := os.Getenv("CHROMAFS_EMBED_BIN"); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), embedHelper)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(embedHelper); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("semantic search and ingest --embedding default run in %s, which is neither beside chromafs nor on PATH (nor named by CHROMAFS_EMBED_BIN): install it with `go install github.com/chromafs/chromafs/cmd/%s@latest` (or `make build`, which puts it beside bin/chromafs)", embedHelper, embedHelper)
}

// procEmbedder is an embedding function that a chromafs-embed process
// runs; see that command for the protocol. Its calls are serialised; a
// call whose context ends kills the process, and later calls fail.
type procEmbedder struct {
	name   string
	config map[string]any

	mu   sync.Mutex // one request at a time
	cmd  *exec.Cmd
	in   io.WriteCloser
	enc  *json.Encoder
	dec  *json.Decoder
	err  error // set when the process is unusable
	done chan struct{}
	once sync.Once
	// closed is set by Close.
	closed atomic.Bool
}

type embedHello struct {
	Name   string         `json:"name"`
	Config map[string]any `json:"config"`
	Error  string         `json:"error"`
}

type embedAnswer struct {
	Vectors [][]float32 `json:"vectors"`
	Error   string      `json:"error"`
}

// startEmbedder starts bin with args, sends it setup (unless nil) and
// reads its hello.
func startEmbedder(bin string, args []string, setup any) (*procEmbedder, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", embedHelper, err)
	}
	p := &procEmbedder{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(bufio.NewReader(out)), done: make(chan struct{})}
	var h embedHello
	if setup != nil {
		err = p.enc.Encode(setup)
	}
	if err == nil {
		err = p.dec.Decode(&h)
	}
	if err != nil || h.Error != "" || h.Name == "" {
		p.Close()
		if err == nil && h.Error != "" {
			// The function's own error, as it would be in process.
			return nil, errors.New(h.Error)
		}
		if err == nil {
			err = errors.New("no function name in its first answer")
		}
		return nil, fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), err)
	}
	p.name, p.config = h.Name, h.Config
	if p.config == nil {
		p.config = map[string]any{} // recorded as {}, as chroma-go records it
	}
	return p, nil
}

func (p *procEmbedder) Name() string { return p.name }

// usable reports whether no call has found the process unusable (dead,
// or killed by a call whose context ended) and it has not been closed.
func (p *procEmbedder) usable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err == nil && !p.closed.Load()
}

func (p *procEmbedder) GetConfig() map[string]any { return p.config }

// EmbedDocuments sends texts to the process and returns its vectors.
func (p *procEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	type result struct {
		a   embedAnswer
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		if r.err = p.enc.Encode(struct {
			Texts []string `json:"texts"`
		}{texts}); r.err == nil {
			r.err = p.dec.Decode(&r.a)
		}
		ch <- r
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.err = fmt.Errorf("%s: %w", embedHelper, r.err)
			return nil, p.err
		}
		if r.a.Error != "" {
			return nil, errors.New(r.a.Error)
		}
		return r.a.Vectors, nil
	case <-ctx.Done():
		p.err = fmt.Errorf("%s: %w", embedHelper, ctx.Err())
		_ = p.cmd.Process.Kill()
		<-ch
		return nil, ctx.Err()
	}
}

// Close ends the process: it exits when its input ends, or is killed
// after a few seconds.
func (p *procEmbedder) Close() error {
	var err error
	p.once.Do(func() {
		p.closed.Store(true)
		p.in.Close()
		go func() {
			select {
			case <-p.done:
			case <-time.After(5 * time.Second):
				_ = p.cmd.Process.Kill()
			}
		}()
		err = p.cmd.Wait()
		close(p.done)
		var ee *exec.ExitError
		if errors.As(err, &ee) && p.err != nil {
			err = nil // killed by a cancelled call, already reported
		}
	})
	return err
}

// searchEmbeddings are the names search --embedding accepts: those of
// package embedfn's Providers, which chromafs-embed links (a test checks
// the two lists agree).
var searchEmbeddings = []string{"chroma_cloud", "cloudflare_workers_ai", "cohere", "consistent_hash", "default", "hash", "huggingface", "jina", "mistral", "ngram", "nomic", "ollama", "onnx_mini_lm_l6_v2", "openai", "ort", "together_ai", "voyageai"}

// querySetup is the first message of chromafs-embed -query: what
// embedfn.Build takes.
type querySetup struct {
	Spec     chromastore.EmbeddingSpec `json:"spec"`
	Dim      int                       `json:"dim"`
	Override string                    `json:"override"`
}

// queryEmbedder is search's query embedder: embedfn.Build(spec, dim,
// override) run by chromafs-embed -query. Its errors are Build's. A
// session keeps it for all its searches, so it outlives a process that
// dies (killed, crashed, or ended by a call whose context ended): a call
// that finds the process unusable starts a new one and tries again, once.
type queryEmbedder struct {
	bin   string
	setup querySetup

	mu     sync.Mutex
	p      *procEmbedder
	closed bool
}

// newQueryEmbedder starts the query embedder of a collection whose
// configuration says spec and whose embeddings have dim dimensions, with
// the function override names if not empty. Its error, when the function
// cannot be built (none recorded, an unknown one, a key not set) or
// chromafs-embed cannot be started, wraps search.ErrNoEmbedder: none of
// that passes with time, and it touches no network.
func newQueryEmbedder(spec chromastore.EmbeddingSpec, dim int, override string) (*queryEmbedder, error) {
	bin, err := findEmbedHelper()
	if err != nil {
		return nil, noEmbedderError{err}
	}
	q := &queryEmbedder{bin: bin, setup: querySetup{Spec: spec, Dim: dim, Override: override}}
	if q.p, err = q.start(); err != nil {
		return nil, noEmbedderError{err}
	}
	return q, nil
}

// noEmbedderError is newQueryEmbedder's error: its reason, which wraps
// search.ErrNoEmbedder as well.
type noEmbedderError struct{ reason error }

func (e noEmbedderError) Error() string   { return e.reason.Error() }
func (e noEmbedderError) Unwrap() []error { return []error{search.ErrNoEmbedder, e.reason} }

func (q *queryEmbedder) start() (*procEmbedder, error) {
	return startEmbedder(q.bin, []string{"-query"}, q.setup)
}

// process returns the running process, starting a new one in place of
// one that is unusable (or of old, which failed).
func (q *queryEmbedder) process(old *procEmbedder) (*procEmbedder, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil, fmt.Errorf("%s: closed", embedHelper)
	}
	if q.p != nil && q.p != old && q.p.usable() {
		return q.p, nil
	}
	if q.p != nil {
		_ = q.p.Close()
		q.p = nil
	}
	p, err := q.start()
	if err != nil {
		return nil, err
	}
	q.p = p
	return p, nil
}

// EmbedQuery embeds text as a query.
func (q *queryEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	var p *procEmbedder
	for attempt := 0; ; attempt++ {
		var err error
		if p, err = q.process(p); err != nil {
			return nil, err
		}
		vs, err := p.EmbedDocuments(ctx, []string{text})
		if err != nil {
			if attempt == 0 && ctx.Err() == nil && !p.usable() {
				continue // the process died: a new one tries again
			}
			return nil, err
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("%s: %d vectors for one query", embedHelper, len(vs))
		}
		return vs[0], nil
	}
}

// Close ends the process.
func (q *queryEmbedder) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.p == nil {
		return nil
	}
	return q.p.Close()
}
