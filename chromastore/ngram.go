package chromastore

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// NgramName is the name of the word n-gram embedding function
// ([NgramEmbedding]) as a collection's configuration records it.
const NgramName = "chromafs_ngram"

// ngramDim is the default dimension of [NgramEmbedding].
const ngramDim = 512

func init() {
	RegisterEmbedding("ngram", func() (Embedder, error) { return NgramEmbedding(0), nil })
}

// NgramEmbedding returns an embedding function of feature-hashed word
// n-grams, with dim dimensions (512 when dim <= 0): the text is cut into
// words (runs of letters and digits, lower-cased), every word and every
// pair of consecutive words is hashed (FNV-1a) to one dimension with a
// sign, and the vector is normalised to length 1. Texts that share words
// and word pairs are near in cosine and L2 distance, so it gives lexical
// similarity without a model, a download or a network call, and it is
// deterministic. It is chromafs's function for tests and for trying
// semantic search on a machine without a model; it knows no synonyms or
// paraphrases. [EmbeddingFunction] returns it as "ngram"; its Name is
// [NgramName] and its configuration {"dim": dim}, which a collection
// created with it records. It also embeds queries (EmbedQuery).
func NgramEmbedding(dim int) interface {
	Embedder
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
} {
	if dim <= 0 {
		dim = ngramDim
	}
	return ngram{dim: dim}
}

type ngram struct{ dim int }

func (n ngram) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = n.vector(t)
	}
	return out, nil
}

// EmbedQuery embeds a query as a document.
func (n ngram) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return n.vector(text), nil
}

func (n ngram) Name() string { return NgramName }

func (n ngram) GetConfig() map[string]any { return map[string]any{"dim": n.dim} }

// vector embeds one text. A text without words is the vector (1, 0, ...),
// so that every vector has length 1.
func (n ngram) vector(text string) []float32 {
	v := make([]float64, n.dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	add := func(feature string) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		x := h.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(n.dim)] += sign
	}
	for i, w := range words {
		add(w)
		if i > 0 {
			add(words[i-1] + " " + w)
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, n.dim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
