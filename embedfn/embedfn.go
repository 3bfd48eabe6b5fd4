// Package embedfn builds the function that embeds search queries for a
// Chroma collection, as Chroma's clients do: from the embedding function
// that the collection's configuration records (name and configuration,
// with API keys read from the environment variables the configuration
// names), through chroma-go's registry of embedding functions, or from a
// name the user gives instead.
//
// It is the one place that links chroma-go's providers, so that programs
// that do not search (and packages search, shell and mcpserver, which
// take a search.Embedder) do not. The providers linked are those of
// [Providers].
package embedfn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/amikos-tech/chroma-go/pkg/embeddings"
	// Providers that register themselves in chroma-go's registry. Google's
	// (google_genai) and Amazon's (amazon_bedrock) are left out: their SDKs
	// would more than double the program.
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/chromacloud"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/cloudflare"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/cohere"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/hf"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/jina"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/mistral"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/nomic"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/ollama"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/openai"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/together"
	_ "github.com/amikos-tech/chroma-go/pkg/embeddings/voyage"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/chromastore/chromaembed"
)

// ErrEmbedding is wrapped by every error of Build: an unknown name, a
// collection that records no function, a provider that cannot be set up
// (a missing API key, say).
var ErrEmbedding = errors.New("cannot build the embedding function")

// defaultNames are the names under which Chroma's clients record the
// default ONNX function (all-MiniLM-L6-v2), built by chromastore.
var defaultNames = []string{"default", "onnx_mini_lm_l6_v2", "ort"}

// keyVars are the environment variables from which providers read their
// API keys by default (chroma-go's defaults), for an --embedding that the
// collection's configuration does not record.
var keyVars = map[string]string{
	"openai":                "OPENAI_API_KEY",
	"cohere":                "COHERE_API_KEY",
	"huggingface":           "HF_API_KEY",
	"jina":                  "JINA_API_KEY",
	"mistral":               "MISTRAL_API_KEY",
	"nomic":                 "NOMIC_API_KEY",
	"together_ai":           "TOGETHER_API_KEY",
	"voyageai":              "VOYAGE_API_KEY",
	"chroma_cloud":          "CHROMA_API_KEY",
	"cloudflare_workers_ai": "CLOUDFLARE_API_TOKEN",
}

// Providers returns the names Build accepts, sorted: chromastore's
// ("hash", "default", "ngram") and those of chroma-go's registry.
func Providers() []string {
	names := slices.Concat(chromastore.EmbeddingNames(), embeddings.ListDense(), defaultNames)
	sort.Strings(names)
	return slices.Compact(names)
}

// Func is a query embedder (it implements search.Embedder).
type Func struct {
	name   string
	embed  func(ctx context.Context, text string) ([]float32, error)
	closer func() error
}

// Name is the embedding function's name.
func (f *Func) Name() string { return f.name }

// EmbedQuery embeds text as a query.
func (f *Func) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := f.embed(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("embedding function %q: %w", f.name, err)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("embedding function %q returned no vector", f.name)
	}
	return v, nil
}

// Close releases what the function holds (the ONNX runtime of
// "default").
func (f *Func) Close() error {
	if f.closer != nil {
		return f.closer()
	}
	return nil
}

// fromStore is a chromastore.Embedder as a Func: a query is embedded as a
// document.
func fromStore(name string, e chromastore.Embedder) *Func {
	f := &Func{name: name, embed: func(ctx context.Context, text string) ([]float32, error) {
		vs, err := e.EmbedDocuments(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("%d vectors for one text", len(vs))
		}
		return vs[0], nil
	}}
	if c, ok := e.(interface{ Close() error }); ok {
		f.closer = c.Close
	}
	return f
}

// Build returns the query embedder of a collection whose configuration
// says spec and whose embeddings have dim dimensions (0 if unknown): the
// function named by override when it is not empty, else the one spec
// records. An override that names the function spec records is built
// with spec's configuration (its model, the environment variable of its
// key); another registry name with an empty configuration, which
// providers complete from their own defaults or refuse with an error
// naming what is missing. "hash" is chroma-go's consistent-hash function
// of dim dimensions (meaningless for search, but it is what chromafs
// ingest writes by default).
//
// Errors wrap ErrEmbedding and say what is wrong (no function recorded,
// an unknown name, the environment variable of a key that is not set),
// not what to do about it: that depends on the program, which adds it (a
// command-line option, a lexical ranking).
func Build(spec chromastore.EmbeddingSpec, dim int, override string) (*Func, error) {
	name, cfg := spec.Name, spec.Config
	if override != "" {
		name = strings.TrimSpace(override)
		if name == "ngram" {
			name = chromastore.NgramName // so that the recorded dim is kept
		}
		if name != spec.Name {
			cfg = embeddings.EmbeddingFunctionConfig{}
			if v, ok := keyVars[name]; ok {
				cfg["api_key_env_var"] = v
			}
		}
	}
	if name == "" {
		return nil, fmt.Errorf("%w: the collection's configuration records no embedding function (chromafs ingest's default, the consistent hash, is not recorded)", ErrEmbedding)
	}
	switch {
	case name == "hash" || name == "consistent_hash":
		return fromStore(name, chromastore.HashEmbedding(dim)), nil
	case name == "ngram" || name == chromastore.NgramName:
		d, _ := embeddings.ConfigInt(embeddings.EmbeddingFunctionConfig(cfg), "dim")
		return fromStore(chromastore.NgramName, chromastore.NgramEmbedding(d)), nil
	case slices.Contains(defaultNames, name):
		f := fromStore(name, chromaembed.Default())
		embed := f.embed
		f.embed = func(ctx context.Context, text string) ([]float32, error) {
			v, err := embed(ctx, text)
			if err != nil && strings.Contains(err.Error(), "load the default ONNX embedding function") {
				return nil, fmt.Errorf("%w (%q needs the ONNX runtime and the all-MiniLM-L6-v2 model in ~/.cache/chroma, which it downloads on first use, with network access)", err, name)
			}
			return v, nil
		}
		return f, nil
	}
	if !embeddings.HasDense(name) {
		return nil, fmt.Errorf("%w: unknown embedding function %q; chromafs knows %s", ErrEmbedding, name, strings.Join(Providers(), ", "))
	}
	v, _ := cfg["api_key_env_var"].(string)
	if v != "" && os.Getenv(v) == "" {
		return nil, fmt.Errorf("%w: %q reads its API key from $%s, which is not set", ErrEmbedding, name, v)
	}
	ef, closer, err := embeddings.BuildDenseCloseable(name, embeddings.EmbeddingFunctionConfig(cfg))
	if err != nil {
		hint := ""
		if v != "" {
			hint = fmt.Sprintf("; its API key is read from $%s", v)
		}
		return nil, fmt.Errorf("%w: %q: %w%s", ErrEmbedding, name, err, hint)
	}
	return &Func{name: name, closer: closer, embed: func(ctx context.Context, text string) ([]float32, error) {
		e, err := ef.EmbedQuery(ctx, text)
		if err != nil {
			return nil, err
		}
		if e == nil || !e.IsDefined() {
			return nil, nil
		}
		return e.ContentAsFloat32(), nil
	}}, nil
}
