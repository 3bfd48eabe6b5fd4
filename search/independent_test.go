package search_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/search"
)

// python returns the path of python3, skipping the test without it
// (failing it under CI=true).
func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is needed for the independent writer")
		}
		t.Skip("python3 not found")
	}
	return p
}

// TestIndependentNgram checks that scripts/independent_writer.py's
// reimplementation of the n-gram function gives chromastore's vectors,
// bit for bit, for ASCII text and for the Unicode cases where the two
// languages' case mappings and character classes could part.
func TestIndependentNgram(t *testing.T) {
	texts := []string{
		"", "   ", "How do I rotate the signing keys?",
		"Grüße aus der STRASSE, straße; ÉTÉ été",
		"ΣΑΣ σας İstanbul ıi 123 ٣٤ x²",
		"snake_case and kebab-case, tabs\tand\nnewlines",
		strings.Repeat("repeat after me ", 50),
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python(t), "-c", `
import json, sys
sys.path.insert(0, sys.argv[1])
import independent_writer as w
print(json.dumps([w.ngram_vector(t) for t in json.load(sys.stdin)]))
`, "../scripts")
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var got [][]float32
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want, _ := chromastore.NgramEmbedding(0).EmbedDocuments(context.Background(), texts)
	for i := range texts {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("%q: the Python vector differs from chromastore's", texts[i])
		}
	}
}

// TestIndependentSentence: on a collection that scripts/independent_writer.py
// wrote (chunks cut at random byte offsets, inserted shuffled, no line
// metadata, the n-gram function recorded in the configuration the way
// Chroma's clients record theirs), a sentence taken from a page finds
// that page first, with the line range of the chunks that hold it; every
// chunk hit's range is the one its offset in the page gives; the staff
// page never appears in a public view.
func TestIndependentSentence(t *testing.T) {
	py := python(t)
	pages := corpus(11)
	dir := t.TempDir()
	for name, content := range pages {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	url := testenv.Chroma(t).URL
	name := testenv.CollectionName(t)
	out, err := exec.Command(py, "../scripts/independent_writer.py", "--url", url, "--collection", name,
		"--private", "internal/=staff", "--seed", "7", "--chunk-min", "40", "--chunk-max", "300",
		"--embedding", "ngram", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("independent writer: %v\n%s", err, out)
	}
	store := testbackend.OpenChroma(t, chromastore.Config{URL: url, Collection: name})
	exhaustive(t, store)
	if spec := store.Embedding(); spec.Name != chromastore.NgramName {
		t.Fatalf("the configuration records %q, want %q", spec.Name, chromastore.NgramName)
	}
	eng := engine(t, store) // from the configuration
	staff, public := newFS(t, store, "staff"), newFS(t, store)
	ctx := context.Background()

	// Each chunk's lines, from its offset among its page's chunks.
	lines := map[string][][2]int{}
	for name, content := range pages {
		chunks, err := store.Chunks(ctx, collection.DefaultLayout(), []string{name})
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(chunks, func(a, b collection.Chunk) int { return a.Index - b.Index })
		off := 0
		for _, c := range chunks {
			if !strings.HasPrefix(content[off:], c.Text) {
				t.Fatalf("%s chunk %d is not at offset %d of the page", name, c.Index, off)
			}
			start := 1 + strings.Count(content[:off], "\n")
			lines[name] = append(lines[name], [2]int{start, start + strings.Count(strings.TrimSuffix(c.Text, "\n"), "\n")})
			off += len(c.Text)
		}
	}

	midLine := false
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		content := pages[name]
		n := 0
		for i, l := range strings.Split(content, "\n") {
			if w := len(strings.Fields(l)); w >= 8 && len(l) < 150 {
				n = i + 1
				break
			}
		}
		sentence := lineAt(content, n)
		vec, err := eng.Embedder.EmbedQuery(ctx, sentence)
		if err != nil {
			t.Fatal(err)
		}
		found, err := staff.Query(ctx, ".", vec, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := checkChunks(t, lines, found)
		for _, h := range found {
			if lines[h.Name][h.Index][0] != 1 && !strings.HasSuffix(h.Text, "\n") {
				midLine = true
			}
		}
		hits, err := eng.Search(ctx, staff, sentence, search.Options{Vectors: true, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Path != name || hits[0].Start > n || hits[0].End < n {
			t.Errorf("query of %s line %d: hits %v, want %s first with a range holding line %d", name, n, summaries(hits), name, n)
			continue
		}
		for _, h := range flat(hits) {
			if r := h.Path + ":" + itoa(h.Start) + "-" + itoa(h.End); !want[r] {
				t.Errorf("query of %s line %d: hit %s is not one of the merged chunk ranges %v", name, n, r, want)
			}
			checkRange(t, pages, h)
		}
		pub, err := eng.Search(ctx, public, sentence, search.Options{Vectors: true, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range pub {
			if strings.HasPrefix(h.Path, "internal/") {
				t.Errorf("public view: hit %s:%d-%d of a staff page", h.Path, h.Start, h.End)
			}
		}
	}
	if !midLine {
		t.Errorf("no chunk hit ends inside a line; the writer's random cuts are not covered")
	}
}
