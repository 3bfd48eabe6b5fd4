package chromastore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/amikos-tech/chroma-go/pkg/embeddings"
	"github.com/amikos-tech/chroma-go/pkg/embeddings/ort"
)

// hashName is the Name of chroma-go's consistent-hash function.
const hashName = "consistent_hash"

// EmbeddingNames are the names that [EmbeddingFunction] accepts; the first
// is the default.
var EmbeddingNames = []string{"hash", "default"}

// EmbeddingFunction returns the embedding function with the given name,
// for a command-line flag:
//
//   - "hash" (also ""): chroma-go's consistent-hash function, 384
//     dimensions derived from a SHA-256 of the text. It downloads nothing
//     and is deterministic, but its vectors carry no meaning: semantic
//     search over them finds nothing useful. chromafs itself never
//     searches by vector.
//   - "default": chroma-go's default ONNX function (all-MiniLM-L6-v2, 384
//     dimensions), the same model as Chroma's Python default. It downloads
//     the ONNX runtime and the all-MiniLM-L6-v2 model into ~/.cache/chroma
//     the first time it embeds, which fails without internet access. The
//     download happens on first use, not here. The returned function has a
//     Close method that releases the runtime.
//
// Any other name is an error that lists the valid ones.
func EmbeddingFunction(name string) (embeddings.EmbeddingFunction, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "hash":
		return HashEmbedding(hashDim), nil
	case "default":
		return &lazyDefault{}, nil
	}
	return nil, fmt.Errorf("chromastore: unknown embedding function %q (valid: %s)", name, strings.Join(EmbeddingNames, ", "))
}

// hashDim is the dimension of chroma-go's consistent-hash function by
// default.
const hashDim = 384

// HashEmbedding returns chroma-go's consistent-hash embedding function
// with dim dimensions (384, its default, when dim <= 0): deterministic
// vectors derived from a SHA-256 of the text, which download nothing and
// carry no meaning (see [EmbeddingFunction]'s "hash"). A small dimension
// makes Chroma ingest faster when nothing searches by vector, as is
// chromafs's case; a collection's dimension is fixed by its first vector,
// so every writer of a collection must use the same dim.
//
// It is for Config.Embedding, so that callers need not import chroma-go:
//
//	cfg := chromastore.Config{URL: u, Collection: "docs", Create: true,
//		Embedding: chromastore.HashEmbedding(4)}
func HashEmbedding(dim int) embeddings.EmbeddingFunction {
	if dim <= 0 {
		dim = hashDim
	}
	// chroma-go v0.4.0 takes the dimension only from a config ("dim", a
	// positive int) and never fails on one.
	ef, err := embeddings.NewConsistentHashEmbeddingFunctionFromConfig(embeddings.EmbeddingFunctionConfig{"dim": dim})
	if err != nil {
		panic(fmt.Sprintf("chromastore: consistent-hash function of %d dimensions: %v", dim, err))
	}
	return ef
}

// lazyDefault is chroma-go's default ONNX embedding function, created on
// first use because creating it downloads a model.
type lazyDefault struct {
	once   sync.Once
	ef     *ort.DefaultEmbeddingFunction
	err    error
	mu     sync.Mutex
	closer func() error // set by load, taken by Close
}

func (l *lazyDefault) load() (*ort.DefaultEmbeddingFunction, error) {
	l.once.Do(func() {
		var closer func() error
		l.ef, closer, l.err = ort.NewDefaultEmbeddingFunction()
		l.mu.Lock()
		l.closer = closer
		l.mu.Unlock()
		if l.err != nil {
			l.err = fmt.Errorf("load the default ONNX embedding function (it downloads a model on first use): %w", l.err)
		}
	})
	return l.ef, l.err
}

func (l *lazyDefault) EmbedDocuments(ctx context.Context, texts []string) ([]embeddings.Embedding, error) {
	ef, err := l.load()
	if err != nil {
		return nil, err
	}
	return ef.EmbedDocuments(ctx, texts)
}

func (l *lazyDefault) EmbedQuery(ctx context.Context, text string) (embeddings.Embedding, error) {
	ef, err := l.load()
	if err != nil {
		return nil, err
	}
	return ef.EmbedQuery(ctx, text)
}

func (l *lazyDefault) Name() string { return "default" }

func (l *lazyDefault) GetConfig() embeddings.EmbeddingFunctionConfig {
	return embeddings.EmbeddingFunctionConfig{}
}

func (l *lazyDefault) DefaultSpace() embeddings.DistanceMetric { return embeddings.L2 }

func (l *lazyDefault) SupportedSpaces() []embeddings.DistanceMetric {
	return []embeddings.DistanceMetric{embeddings.L2, embeddings.COSINE, embeddings.IP}
}

// Close releases the ONNX runtime if the function was used.
func (l *lazyDefault) Close() error {
	l.once.Do(func() { l.err = fmt.Errorf("embedding function is closed") })
	l.mu.Lock()
	closer := l.closer
	l.closer = nil
	l.mu.Unlock()
	if closer != nil {
		return closer()
	}
	return nil
}
