package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testenv"
)

// writtenWith opens coll and returns what it records of its embeddings.
func writtenWith(t *testing.T, url, coll string) (written string, spec chromastore.EmbeddingSpec, dim int) {
	t.Helper()
	c, err := chromastore.Open(context.Background(), chromastore.Config{URL: url, Collection: coll})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.WrittenWith(), c.Embedding(), c.Dimension()
}

// TestIngestEmbeddingSwitch: an ingest with another embedding function
// than the collection's is never reported as "unchanged". A function of
// another dimension is refused with a message naming both functions and
// the way out (--recreate), which then works; the next plain ingest keeps
// the new function; and the switch is recognised on a collection written
// before chromafs recorded the consistent-hash function.
func TestIngestEmbeddingSwitch(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	rules := "../../examples/access.rules"

	if out, errOut, code := cli(t, append(g, "ingest", "--rules", rules, docsDir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	if w, spec, dim := writtenWith(t, srv.URL, coll); w != chromastore.HashName || spec.Name != "" || dim != 384 {
		t.Fatalf("after ingest with the default: WrittenWith %q, configuration %q, dimension %d; want %s, none, 384", w, spec.Name, dim, chromastore.HashName)
	}

	refusal := func(t *testing.T) {
		t.Helper()
		out, errOut, code := cli(t, append(g, "ingest", "--embedding", "ngram", "--rules", rules, docsDir)...)
		if code != 2 || strings.Contains(out, "unchanged") {
			t.Fatalf("ingest --embedding ngram over hash: status %d, stdout %q; want 2 and no report", code, out)
		}
		for _, want := range []string{`collection "` + coll + `" was embedded with hash (384 dimensions)`, "--embedding ngram gives 512", "add --recreate", "--collection NAME"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("refusal %q does not say %q", errOut, want)
			}
		}
	}
	refusal(t)

	// A collection that chromafs ingest wrote before it recorded the
	// function in the metadata.
	c, err := chromastore.Open(context.Background(), chromastore.Config{URL: srv.URL, Collection: coll})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetMetadata(context.Background(), map[string]any{chromastore.EmbeddingKey: nil}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if w, _, _ := writtenWith(t, srv.URL, coll); w != chromastore.HashName {
		t.Fatalf("without %s: WrittenWith %q, want %s", chromastore.EmbeddingKey, w, chromastore.HashName)
	}
	refusal(t)

	out, errOut, code := cli(t, append(g, "ingest", "--recreate", "--embedding", "ngram", "--rules", rules, docsDir)...)
	if code != 0 || !strings.Contains(out, "11 added, 0 updated, 0 unchanged") || !strings.Contains(errOut, `deleting collection "`+coll+`" to write it again with ngram`) {
		t.Fatalf("ingest --recreate --embedding ngram: status %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if w, spec, dim := writtenWith(t, srv.URL, coll); w != chromastore.NgramName || spec.Name != chromastore.NgramName || dim != 512 {
		t.Fatalf("after --recreate: WrittenWith %q, configuration %q, dimension %d; want %s twice, 512", w, spec.Name, dim, chromastore.NgramName)
	}
	// Searchable as the README says.
	t.Setenv("CHROMAFS_EMBED_BIN", embedBinary(t))
	out, errOut, code = cli(t, append(g, "search", "-n", "3", "how do I rotate keys")...)
	if code != 0 || !strings.HasPrefix(out, "/guides/auth/api-keys.md:") {
		t.Fatalf("search after the switch: status %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	// Without --embedding, ingest keeps the collection's function.
	out, errOut, code = cli(t, append(g, "ingest", "--rules", rules, docsDir)...)
	if code != 0 || !strings.Contains(out, "0 added, 0 updated, 11 unchanged") || errOut != "" {
		t.Fatalf("plain ingest after the switch: status %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if w, _, _ := writtenWith(t, srv.URL, coll); w != chromastore.NgramName {
		t.Fatalf("after a plain ingest: WrittenWith %q, want %s", w, chromastore.NgramName)
	}
}

// TestIngestReembed: a function of the same dimension as the collection's
// re-embeds every chunk in place (a dry run says it would, and changes
// nothing), and the collection then records the new function.
func TestIngestReembed(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	ctx := context.Background()
	// Written with the ngram function in 384 dimensions, those of hash.
	c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: coll, Create: true, Embedding: chromastore.NgramEmbedding(384)})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ingest.RunDir(ctx, c, docsDir, ingest.Options{})
	c.Close()
	if err != nil || rep.Added != 11 {
		t.Fatalf("ingest with ngram(384): %v, %+v", err, rep)
	}
	if w, spec, dim := writtenWith(t, srv.URL, coll); w != chromastore.NgramName || spec.Name != chromastore.NgramName || dim != 384 {
		t.Fatalf("WrittenWith %q, configuration %q, dimension %d", w, spec.Name, dim)
	}
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	before := chunkEmbeddings(t, srv.URL, coll)

	out, errOut, code := cli(t, append(g, "ingest", "--dry-run", "--embedding", "hash", docsDir)...)
	if code != 0 || !strings.Contains(out, "would ingest") || !strings.Contains(out, "0 added, 11 updated, 0 unchanged") ||
		!strings.Contains(errOut, `would re-embed every chunk with hash: collection "`+coll+`" was embedded with ngram`) {
		t.Fatalf("dry run: status %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if w, _, _ := writtenWith(t, srv.URL, coll); w != chromastore.NgramName {
		t.Fatalf("after a dry run: WrittenWith %q", w)
	}
	if after := chunkEmbeddings(t, srv.URL, coll); !equalEmbeddings(before, after) {
		t.Fatal("a dry run changed the embeddings")
	}

	out, errOut, code = cli(t, append(g, "ingest", "--embedding", "hash", docsDir)...)
	if code != 0 || !strings.Contains(out, "0 added, 11 updated, 0 unchanged") ||
		!strings.Contains(errOut, `re-embedding every chunk with hash: collection "`+coll+`" was embedded with ngram`) {
		t.Fatalf("ingest --embedding hash: status %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if w, spec, _ := writtenWith(t, srv.URL, coll); w != chromastore.HashName || spec.Name != "" {
		t.Fatalf("after the re-embed: WrittenWith %q, configuration %q; want %s, none", w, spec.Name, chromastore.HashName)
	}
	// Every chunk now has the consistent-hash vector of its document.
	after := chunkEmbeddings(t, srv.URL, coll)
	hash := chromastore.HashEmbedding(0)
	if len(after) != len(before) || len(after) == 0 {
		t.Fatalf("%d chunks before, %d after", len(before), len(after))
	}
	for id, ce := range after {
		want, err := hash.EmbedDocuments(ctx, []string{ce.doc})
		if err != nil {
			t.Fatal(err)
		}
		if !close32(ce.vec, want[0]) {
			t.Errorf("chunk %s: its vector is not the hash of its document", id)
		}
	}
}

type chunkEmbedding struct {
	doc string
	vec []float32
}

// chunkEmbeddings reads every chunk's document and vector with a plain
// REST get (chromastore reads no vectors).
func chunkEmbeddings(t *testing.T, url, coll string) map[string]chunkEmbedding {
	t.Helper()
	c, err := chromastore.Open(context.Background(), chromastore.Config{URL: url, Collection: coll})
	if err != nil {
		t.Fatal(err)
	}
	id := c.CollectionID()
	c.Close()
	body, _ := json.Marshal(map[string]any{
		"where":   map[string]any{"chunk_index": map[string]any{"$gte": 0}},
		"include": []string{"documents", "embeddings"},
	})
	u := fmt.Sprintf("%s/api/v2/tenants/default_tenant/databases/default_database/collections/%s/get", url, id)
	resp, err := http.Post(u, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		IDs        []string    `json:"ids"`
		Documents  []string    `json:"documents"`
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("get embeddings: %s, %v", resp.Status, err)
	}
	m := make(map[string]chunkEmbedding, len(got.IDs))
	for i, id := range got.IDs {
		m[id] = chunkEmbedding{got.Documents[i], got.Embeddings[i]}
	}
	return m
}

func equalEmbeddings(a, b map[string]chunkEmbedding) bool {
	if len(a) != len(b) {
		return false
	}
	for id, x := range a {
		if y, ok := b[id]; !ok || x.doc != y.doc || !slices.Equal(x.vec, y.vec) {
			return false
		}
	}
	return true
}

// close32 compares vectors that went through Chroma's float32 storage.
func close32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return true
}
