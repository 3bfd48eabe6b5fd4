package chromaembed_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/amikos-tech/chroma-go/pkg/embeddings"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/chromastore/chromaembed"
)

// TestHashEmbeddingMatchesChromaGo checks that chromastore's own
// consistent-hash function gives chroma-go's vectors, so that collections
// written before and after it replaced chroma-go's hold the same vectors.
func TestHashEmbeddingMatchesChromaGo(t *testing.T) {
	ctx := context.Background()
	texts := []string{"x", "some text", "ünïcödé ✓", "line one\nline two\n", string(make([]byte, 5000))}
	for _, dim := range []int{1, 4, 63, 64, 65, 100, 128, 200, 384, 1000} {
		theirs, err := embeddings.NewConsistentHashEmbeddingFunctionFromConfig(embeddings.EmbeddingFunctionConfig{"dim": dim})
		if err != nil {
			t.Fatal(err)
		}
		ours := chromastore.HashEmbedding(dim)
		want, err := chromaembed.Adapt(theirs).EmbedDocuments(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ours.EmbedDocuments(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("dim %d, text %d: got %v, chroma-go %v", dim, i, got[i], want[i])
			}
		}
		if ours.Name() != theirs.Name() || fmt.Sprint(ours.GetConfig()) != fmt.Sprint(map[string]any(theirs.GetConfig())) {
			t.Errorf("dim %d: name %q config %v, chroma-go %q %v", dim, ours.Name(), ours.GetConfig(), theirs.Name(), theirs.GetConfig())
		}
	}
}

// TestDefaultRegistered checks that importing the package registers
// "default", and that the function is created without downloading
// anything (that happens on first use).
func TestDefaultRegistered(t *testing.T) {
	names := chromastore.EmbeddingNames()
	if !slices.Equal(names, []string{"hash", "ngram", "default"}) {
		t.Errorf("EmbeddingNames() = %q", names)
	}
	for _, name := range []string{"default", " Default "} {
		ef, err := chromastore.EmbeddingFunction(name)
		if err != nil || ef.Name() != "default" || len(ef.GetConfig()) != 0 {
			t.Fatalf("%q: %v, %v", name, ef, err)
		}
		c, ok := ef.(io.Closer)
		if !ok {
			t.Fatalf("%q: not closable", name)
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close of an unused function: %v", err)
		}
		// Closed before use: embedding fails without loading the runtime.
		if _, err := ef.EmbedDocuments(context.Background(), []string{"x"}); err == nil {
			t.Errorf("a closed function embedded")
		}
	}
}

// ExampleAdapt writes a collection with one of chroma-go's embedding
// functions.
func ExampleAdapt() {
	ef := chromaembed.Adapt(embeddings.NewConsistentHashEmbeddingFunction())
	cfg := chromastore.Config{URL: "http://localhost:8000", Collection: "docs", Create: true, Embedding: ef}
	v, err := ef.EmbedDocuments(context.Background(), []string{"hello"})
	fmt.Println(cfg.Embedding.Name(), len(v[0]), err)
	// Output: consistent_hash 384 <nil>
}
