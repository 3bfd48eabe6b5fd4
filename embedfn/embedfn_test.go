package embedfn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/embedfn"
)

// TestBuildErrors: a function that cannot be built is one error wrapping
// ErrEmbedding that names what is missing, and no option of a program
// (each program says what its user can do).
func TestBuildErrors(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("CHROMAFS_TEST_NO_KEY", "")
	for _, c := range []struct {
		name     string
		spec     chromastore.EmbeddingSpec
		override string
		want     []string
	}{
		{"nothing recorded", chromastore.EmbeddingSpec{}, "", []string{"records no embedding function"}},
		{"unknown override", chromastore.EmbeddingSpec{Name: chromastore.NgramName}, "bogus", []string{`unknown embedding function "bogus"`, "ngram", "openai"}},
		{"unknown recorded", chromastore.EmbeddingSpec{Name: "acme_embed"}, "", []string{`unknown embedding function "acme_embed"`}},
		{"recorded key variable unset", chromastore.EmbeddingSpec{Name: "openai", Config: map[string]any{"api_key_env_var": "CHROMAFS_TEST_NO_KEY", "model_name": "text-embedding-3-small"}}, "", []string{`"openai" reads its API key from $CHROMAFS_TEST_NO_KEY, which is not set`}},
		{"override key variable unset", chromastore.EmbeddingSpec{Name: chromastore.NgramName}, "openai", []string{"$OPENAI_API_KEY, which is not set"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := embedfn.Build(c.spec, 16, c.override)
			if err == nil {
				f.Close()
				t.Fatalf("built %q", f.Name())
			}
			if !errors.Is(err, embedfn.ErrEmbedding) {
				t.Errorf("%v does not wrap ErrEmbedding", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\ndoes not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("%v\nnames an option", err)
			}
		})
	}
}

// TestBuild: the functions that need no network give vectors of the
// dimension the collection's configuration (n-gram) or the collection
// (consistent hash) says, with or without an override of the same name.
func TestBuild(t *testing.T) {
	ngram := chromastore.EmbeddingSpec{Name: chromastore.NgramName, Config: map[string]any{"dim": float64(16)}}
	for _, c := range []struct {
		spec     chromastore.EmbeddingSpec
		override string
		name     string
		dim      int
	}{
		{ngram, "", chromastore.NgramName, 16},
		{ngram, "ngram", chromastore.NgramName, 16},
		{ngram, chromastore.NgramName, chromastore.NgramName, 16},
		{chromastore.EmbeddingSpec{}, "ngram", chromastore.NgramName, 512},
		{ngram, "hash", "hash", 24},
	} {
		f, err := embedfn.Build(c.spec, 24, c.override)
		if err != nil {
			t.Fatalf("%v %q: %v", c.spec, c.override, err)
		}
		v, err := f.EmbedQuery(context.Background(), "rotate the signing keys")
		if err != nil || f.Name() != c.name || len(v) != c.dim {
			t.Errorf("%v %q: %s, %d dimensions, %v; want %s and %d", c.spec, c.override, f.Name(), len(v), err, c.name, c.dim)
		}
		f.Close()
	}
}

// TestDefaultUnavailable: the default ONNX function, whose runtime and
// model cannot be fetched or stored (here the cache directory cannot be
// created, as it cannot be filled on a machine without network), fails
// its first query with an error that says what it needs (and names no
// option of a program); it downloads nothing when it is built.
func TestDefaultUnavailable(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".cache"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("CHROMAGO_ONNX_RUNTIME_PATH", "")
	f, err := embedfn.Build(chromastore.EmbeddingSpec{Name: "default"}, 384, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.EmbedQuery(context.Background(), "rotate keys")
	if err == nil {
		t.Fatal("the default function embedded a query without its model")
	}
	for _, w := range []string{"~/.cache/chroma", "network access"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v\ndoes not say %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("%v\nnames an option", err)
	}
}

// Build embeds a collection's queries with the function its
// configuration records.
func ExampleBuild() {
	spec := chromastore.EmbeddingSpec{Name: chromastore.NgramName, Config: map[string]any{"dim": 64}, Space: "l2"}
	f, err := embedfn.Build(spec, 64, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	v, err := f.EmbedQuery(context.Background(), "how do I rotate keys?")
	fmt.Println(f.Name(), len(v), err)
	// Output: chromafs_ngram 64 <nil>
}
