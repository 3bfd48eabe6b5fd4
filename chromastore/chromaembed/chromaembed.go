// Package chromaembed adapts chroma-go's embedding functions to
// [chromastore.Embedder], and registers chroma-go's default ONNX function
// (all-MiniLM-L6-v2) as "default" for [chromastore.EmbeddingFunction]
// when a program imports it:
//
//	import _ "github.com/chromafs/chromafs/chromastore/chromaembed"
//
// It and package embedfn (which builds search's query embedders from
// chroma-go's registry of providers) are the only packages of chromafs
// that import chroma-go. chroma-go's
// embedding stack (its ONNX runtime and tokenizer bindings, purego, a
// struct validator, MIME sniffing, ...) costs every process that links it
// milliseconds of package initialisation, so it lives at this edge:
// chromastore and everything that reads a collection do without it, and
// only a program that embeds with chroma-go's functions pays for them.
package chromaembed

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/amikos-tech/chroma-go/pkg/embeddings"
	"github.com/amikos-tech/chroma-go/pkg/embeddings/ort"

	"github.com/chromafs/chromafs/chromastore"
)

func init() {
	chromastore.RegisterEmbedding("default", func() (chromastore.Embedder, error) { return Default(), nil })
}

// Adapt returns ef as a [chromastore.Embedder]. A Close method of ef
// (io.Closer) is kept.
func Adapt(ef embeddings.EmbeddingFunction) chromastore.Embedder {
	return adapted{ef}
}

type adapted struct{ ef embeddings.EmbeddingFunction }

func (a adapted) Name() string { return a.ef.Name() }

func (a adapted) GetConfig() map[string]any { return a.ef.GetConfig() }

func (a adapted) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return vectors(a.ef.EmbedDocuments(ctx, texts))
}

// Close closes the adapted function if it has a Close method.
func (a adapted) Close() error {
	if c, ok := a.ef.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

func vectors(embs []embeddings.Embedding, err error) ([][]float32, error) {
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(embs))
	for i, e := range embs {
		if e == nil {
			return nil, errors.New("the embedding function returned a nil vector")
		}
		out[i] = e.ContentAsFloat32()
	}
	return out, nil
}

// Default returns chroma-go's default ONNX embedding function
// (all-MiniLM-L6-v2, 384 dimensions, the same model as Chroma's Python
// default), created on first use: creating it downloads the ONNX runtime
// and the model into ~/.cache/chroma, which fails without internet
// access. Its Close method releases the runtime.
func Default() interface {
	chromastore.Embedder
	Close() error
} {
	return &lazyDefault{}
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

func (l *lazyDefault) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	ef, err := l.load()
	if err != nil {
		return nil, err
	}
	return vectors(ef.EmbedDocuments(ctx, texts))
}

func (l *lazyDefault) Name() string { return "default" }

func (l *lazyDefault) GetConfig() map[string]any { return map[string]any{} }

// Close releases the ONNX runtime if the function was used.
func (l *lazyDefault) Close() error {
	l.once.Do(func() { l.err = errors.New("embedding function is closed") })
	l.mu.Lock()
	closer := l.closer
	l.closer = nil
	l.mu.Unlock()
	if closer != nil {
		return closer()
	}
	return nil
}
