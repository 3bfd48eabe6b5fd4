package chromastore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Embedder is an embedding function: it embeds the documents that
// [Collection.Upsert] writes.
// Reads never embed. [HashEmbedding] is one; package
// github.com/chromafs/chromafs/chromastore/chromaembed adapts chroma-go's
// functions (its ONNX default among them) to it, so that this package
// does not link chroma-go's embedding stack: every process that reads a
// collection would pay its package initialisation.
type Embedder interface {
	// EmbedDocuments returns one vector per text, all of one dimension.
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	// Name is the function's name as Chroma's clients record it in a
	// collection's configuration, such as "default" or
	// "consistent_hash".
	Name() string
	// GetConfig is the configuration recorded beside the name.
	GetConfig() map[string]any
}

// hashName is the Name of the consistent-hash function.
const hashName = "consistent_hash"

// ErrUnknownEmbedding is wrapped by the error of [EmbeddingFunction] for
// a name that no function is registered under.
var ErrUnknownEmbedding = errors.New("unknown embedding function")

var registry = struct {
	sync.Mutex
	names []string // in registration order, "hash" first
	funcs map[string]func() (Embedder, error)
}{
	names: []string{"hash"},
	funcs: map[string]func() (Embedder, error){
		"hash": func() (Embedder, error) { return HashEmbedding(hashDim), nil },
	},
}

// RegisterEmbedding makes newFunc available to [EmbeddingFunction] under
// name (compared case-insensitively). Package chromaembed registers
// "default" when a program imports it. Registering a name twice, or an
// empty name, panics: it is a programming error, as in database/sql.
func RegisterEmbedding(name string, newFunc func() (Embedder, error)) {
	name = strings.ToLower(strings.TrimSpace(name))
	registry.Lock()
	defer registry.Unlock()
	if name == "" || newFunc == nil {
		panic("chromastore: RegisterEmbedding with an empty name or a nil function")
	}
	if _, dup := registry.funcs[name]; dup {
		panic("chromastore: RegisterEmbedding called twice for " + name)
	}
	registry.funcs[name] = newFunc
	registry.names = append(registry.names, name)
}

// EmbeddingNames returns the names that [EmbeddingFunction] accepts, the
// default ("hash") first.
func EmbeddingNames() []string {
	registry.Lock()
	defer registry.Unlock()
	return slices.Clone(registry.names)
}

// EmbeddingFunction returns the embedding function registered under name,
// for a command-line flag:
//
//   - "hash" (also ""): the consistent-hash function of chroma-go, 384
//     dimensions derived from a SHA-256 of the text ([HashEmbedding]). It
//     downloads nothing and is deterministic, but its vectors carry no
//     meaning: semantic search over them finds nothing useful.
//   - "default", when the program imports package chromaembed: chroma-go's
//     default ONNX function (all-MiniLM-L6-v2, 384 dimensions), the same
//     model as Chroma's Python default. It downloads the ONNX runtime and
//     the model into ~/.cache/chroma the first time it embeds, which fails
//     without internet access; the download happens on first use, not
//     here. The returned function has a Close method that releases the
//     runtime.
//   - "ngram": [NgramEmbedding] of 512 dimensions: feature-hashed words
//     and word pairs, which download nothing and give lexical similarity,
//     so that semantic search (chromafs search) finds the chunks that
//     share the query's words. The collection's configuration records it,
//     and search embeds queries with it.
//
// Any other name is an error wrapping [ErrUnknownEmbedding] that lists the
// valid ones.
func EmbeddingFunction(name string) (Embedder, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		key = "hash"
	}
	registry.Lock()
	f := registry.funcs[key]
	names := slices.Clone(registry.names)
	registry.Unlock()
	if f == nil {
		return nil, fmt.Errorf("chromastore: %w %q (valid: %s)", ErrUnknownEmbedding, name, strings.Join(names, ", "))
	}
	return f()
}

// hashDim is the dimension of the consistent-hash function by default.
const hashDim = 384

// HashEmbedding returns the consistent-hash embedding function of
// chroma-go (v0.4.0's ConsistentHashEmbeddingFunction, reimplemented
// here so that writing a collection does not link chroma-go) with dim
// dimensions (384, its default, when dim <= 0): deterministic vectors
// derived from a SHA-256 of the text, which download nothing and carry no
// meaning (see [EmbeddingFunction]'s "hash"). A small dimension makes
// Chroma ingest faster when nothing searches by vector, as is chromafs's
// case; a collection's dimension is fixed by its first vector, so every
// writer of a collection must use the same dim.
//
//	cfg := chromastore.Config{URL: u, Collection: "docs", Create: true,
//		Embedding: chromastore.HashEmbedding(4)}
func HashEmbedding(dim int) Embedder {
	if dim <= 0 {
		dim = hashDim
	}
	return hashEmbedding{dim: dim}
}

// hashEmbedding is chroma-go's consistent-hash function, vector for
// vector: the text's SHA-256 in lower-case hex (64 digits), each digit d
// giving d/15. chroma-go pads the digits to dim with
// fmt.Sprintf("%.*s", repeat*64, digits), which does not repeat them, so
// a vector holds the 64 digits (fewer when dim < 64), then the first
// dim%64 digits again, then zeros.
type hashEmbedding struct{ dim int }

func (h hashEmbedding) Name() string { return hashName }

func (h hashEmbedding) GetConfig() map[string]any { return map[string]any{"dim": h.dim} }

func (h hashEmbedding) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, err := h.embed(t)
		if err != nil {
			return nil, fmt.Errorf("failed to embed document: %w", err)
		}
		out[i] = v
	}
	return out, nil
}

func (h hashEmbedding) embed(text string) ([]float32, error) {
	if text == "" {
		return nil, errors.New("document must not be empty")
	}
	sum := sha256.Sum256([]byte(text))
	digits := hex.EncodeToString(sum[:])
	n := len(digits)
	padded := digits[:min(h.dim/n*n, n)] + digits[:h.dim%n]
	v := make([]float32, h.dim)
	for i := 0; i < len(padded); i++ {
		c := padded[i]
		d := c - '0'
		if c >= 'a' {
			d = c - 'a' + 10
		}
		v[i] = float32(d) / 15.0
	}
	return v, nil
}
