package adopt

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testcorpus/awkward"
	"github.com/chromafs/chromafs/internal/testenv"
)

// writerGenPages is the number of generated pages (gen.Pages) in the
// folder the writers test writes besides the awkward folder and the
// example docs.
const writerGenPages = 150

// writerFloors are the least fractions of pages that must come back
// byte-identical, per writer and split mode, over each folder (a little
// under what was measured: see BENCHMARKS.md, "Bring your own
// collection").
var writerFloors = map[string]map[string]float64{
	"langchain/default":        {"awkward": 0.25, "examples": 0.9, "generated": 0.85},
	"langchain/overlap0":       {"awkward": 0.25, "examples": 0.9, "generated": 0.85},
	"llamaindex/default":       {"awkward": 0.15, "examples": 0.75, "generated": 0.85},
	"llamaindex/overlap0":      {"awkward": 0.15, "examples": 0.75, "generated": 0.85},
	"llamaindex-text/default":  {"awkward": 0.25, "examples": 0.9, "generated": 0.85},
	"llamaindex-text/overlap0": {"awkward": 0.25, "examples": 0.9, "generated": 0.85},
}

// writerFolders returns the folders the writers test writes: name ->
// relative path -> content.
func writerFolders(t *testing.T) map[string]map[string]string {
	t.Helper()
	examples := map[string]string{}
	root := filepath.Join("..", "examples", "docs")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		examples[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	generated := map[string]string{}
	for slug, c := range gen.Pages(writerGenPages, 7) {
		if readable(slug) {
			generated[slug] = c
		}
	}
	return map[string]map[string]string{"awkward": awkward.Files(), "examples": examples, "generated": generated}
}

// readable reports whether every writer of the test reads the file:
// LangChain.js's loader is given .md, .mdx and .txt.
func readable(name string) bool {
	switch path.Ext(name) {
	case ".md", ".mdx", ".txt":
		return true
	}
	return false
}

// isJSSpace is JavaScript's white space and line terminators, what
// String.prototype.trim removes (U+FEFF included).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// TestWritersAdopt is adopt's acceptance test against the real writers:
// for each writer (LangChain.js, LlamaIndex.TS with its Markdown reader
// and with its text reader) and split mode (the defaults, overlap 0), it
// writes the awkward folder, the example docs and a generated site into
// the real Chroma with the real npm packages (testenv.WriteWith), reads
// the collection with Read through chromastore, maps every page to its
// file, and checks the promise of Exactness: no page marked Exact
// differs from its file, no page marked EdgesAssumed differs from it
// beyond white space at its two ends (JavaScript's, which trimming
// removes), so every page that differs is flagged. Every file with text
// must have its page. It logs, per writer, mode and folder, the fraction
// of pages byte-identical to their files, and fails when that falls under
// writerFloors. ADOPT_DEBUG=1 logs where each page that differs does.
func TestWritersAdopt(t *testing.T) {
	srv := testenv.Chroma(t)
	folders := writerFolders(t)
	dirs := map[string]string{}
	for name, files := range folders {
		dirs[name] = awkward.WriteDir(t, files)
	}
	for _, w := range []testenv.Writer{testenv.LangChain, testenv.LlamaIndex, testenv.LlamaIndexText} {
		for _, mode := range []testenv.SplitMode{testenv.DefaultSplit, testenv.NoOverlap} {
			wm := string(w) + "/" + string(mode)
			t.Run(wm, func(t *testing.T) {
				for _, name := range slices.Sorted(maps.Keys(folders)) {
					files, dir := folders[name], dirs[name]
					coll := testenv.WriteWith(t, srv.URL, w, mode, dir)
					res := readChroma(t, srv.URL, coll)
					st := checkAdopted(t, name, res, files, dir)
					f := float64(st.identical) / float64(st.pages)
					t.Logf("%s %s: %d pages, %d byte-identical (%.1f%%); exact %d (%d identical), edges-assumed %d (%d identical), inexact %d (%d identical); %d problems",
						wm, name, st.pages, st.identical, 100*f, st.by[Exact], st.same[Exact], st.by[EdgesAssumed], st.same[EdgesAssumed], st.by[Inexact], st.same[Inexact], len(res.Problems))
					if len(st.why) > 0 {
						t.Logf("%s %s: why not identical: %v", wm, name, st.why)
					}
					if floor := writerFloors[wm][name]; f < floor {
						t.Errorf("%s %s: %.3f of pages byte-identical, want at least %.2f", wm, name, f, floor)
					}
				}
			})
		}
	}
}

// readChroma reads the collection coll of the Chroma at base with Read.
func readChroma(t *testing.T, base, coll string) *Result {
	t.Helper()
	ctx := context.Background()
	c, err := chromastore.Open(ctx, chromastore.Config{URL: base, Collection: coll})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := Read(ctx, c, Options{})
	if err != nil {
		t.Fatalf("Read %s: %v", coll, err)
	}
	return res
}

type adoptStats struct {
	pages, identical int
	by, same         [3]int
	why              map[string]int // reasons of pages that differ
}

// checkAdopted checks res's pages against files (written under dir):
// every page is a file's, every readable file with text has a page, and
// no page is flagged more exact than it is.
func checkAdopted(t *testing.T, folder string, res *Result, files map[string]string, dir string) adoptStats {
	t.Helper()
	st := adoptStats{why: map[string]int{}}
	seen := map[string]bool{}
	for _, p := range res.Pages {
		rel, err := filepath.Rel(dir, p.Key)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("%s: page %s has key %q, not a file under %s", folder, p.Slug, p.Key, dir)
			continue
		}
		rel = filepath.ToSlash(rel)
		src, ok := files[rel]
		if !ok {
			t.Errorf("%s: page %s (key %q) is no file of the folder", folder, p.Slug, p.Key)
			continue
		}
		if p.Slug != rel {
			t.Errorf("%s: page of %s has slug %s", folder, rel, p.Slug)
		}
		seen[rel] = true
		got := string(p.Content)
		st.pages++
		st.by[p.Exactness]++
		if got == src {
			st.identical++
			st.same[p.Exactness]++
			continue
		}
		st.why[p.Exactness.String()+": "+reasonKind(p.Why)]++
		if os.Getenv("ADOPT_DEBUG") != "" {
			d := diffAt(got, src)
			t.Logf("DEBUG %s %s (%s, %s) at %d/%d: got %q file %q", folder, rel, p.Exactness, p.Why, d, len(src), around(got, d), around(src, d))
		}
		switch p.Exactness {
		case Exact:
			t.Errorf("%s: %s is marked exact but differs from its file at byte %d: %q, file %q", folder, rel, diffAt(got, src), around(got, diffAt(got, src)), around(src, diffAt(got, src)))
		case EdgesAssumed:
			if strings.TrimFunc(got, isJSSpace) != strings.TrimFunc(src, isJSSpace) {
				t.Errorf("%s: %s is marked edges-assumed (%s) but differs inside, at byte %d: %q, file %q", folder, rel, p.Why, diffAt(got, src), around(got, diffAt(got, src)), around(src, diffAt(got, src)))
			}
		}
	}
	for rel, content := range files {
		if readable(rel) && strings.TrimFunc(content, isJSSpace) != "" && !seen[rel] {
			t.Errorf("%s: %s has text but no page", folder, rel)
		}
	}
	for _, pr := range res.Problems {
		t.Logf("%s: problem: %s", folder, pr)
	}
	return st
}

// around returns s near byte i, for messages.
func around(s string, i int) string {
	a, b := max(0, i-20), min(len(s), i+20)
	return s[a:b]
}

// TestWritersReadopt checks that adopt follows a writer's incremental
// re-ingestion (LangChain's indexing API in its incremental cleanup mode
// does this): the example docs are written with the real writer and
// adopted; then one file is changed, one deleted and one added, the
// changed folder is written with the real writer into a second
// collection, and the first collection gets its chunks for the changed
// and the added file in place of the old ones (the chunks of the deleted
// file go). A second adopt must report exactly those three pages as
// changed, removed and added, and every other page unchanged; a third,
// every page unchanged.
func TestWritersReadopt(t *testing.T) {
	srv := testenv.Chroma(t)
	for _, w := range []testenv.Writer{testenv.LangChain, testenv.LlamaIndex} {
		t.Run(string(w), func(t *testing.T) {
			ctx := context.Background()
			files := writerFolders(t)["examples"]
			dir := awkward.WriteDir(t, files)
			coll := testenv.WriteWith(t, srv.URL, w, testenv.DefaultSplit, dir)
			c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: coll})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, rep := adoptAll(t, c, WriteOptions{})
			if len(rep.Added) != len(res.Pages) || len(rep.Changed)+len(rep.Removed)+len(rep.Unchanged) != 0 {
				t.Fatalf("first adopt: %+v", rep)
			}
			var pages []string
			for _, p := range res.Pages {
				pages = append(pages, p.Slug)
			}

			changed, removed, added := "concepts/projects.md", "guides/quickstart.md", "guides/new-page.md"
			for _, s := range []string{changed, removed} {
				if _, ok := files[s]; !ok || !slices.Contains(pages, s) {
					t.Fatalf("the example docs have no page %s", s)
				}
			}
			abs := func(s string) string { return filepath.Join(dir, filepath.FromSlash(s)) }
			old := files[changed]
			i := strings.Index(old, "\n\n") + 2
			if err := os.WriteFile(abs(changed), []byte(old[:i]+"A paragraph added by the second run.\n\n"+old[i:]), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(abs(removed)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(abs(added), []byte("# New page\n\nWritten between the two runs.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			coll2 := testenv.WriteWith(t, srv.URL, w, testenv.DefaultSplit, dir)
			keyOf := func(md map[string]any) string {
				for _, f := range []string{"source", "file_path"} {
					if s, ok := md[f].(string); ok {
						return s
					}
				}
				return ""
			}
			// Replace the chunks of the changed and removed files with the
			// second run's chunks of the changed and added files.
			var drop []string
			err = c.ScanRecords(ctx, func(b []collection.Record) error {
				for _, r := range b {
					if k := keyOf(r.Metadata); k == abs(changed) || k == abs(removed) {
						drop = append(drop, r.ID)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Delete(ctx, drop); err != nil {
				t.Fatal(err)
			}
			n := copyRecords(t, srv.URL, coll2, coll, func(md map[string]any) bool {
				k := keyOf(md)
				return k == abs(changed) || k == abs(added)
			})
			t.Logf("%s: replaced %d chunks by %d", w, len(drop), n)

			_, rep = adoptAll(t, c, WriteOptions{})
			t.Logf("second adopt: added %v, changed %v, removed %v, %d unchanged", rep.Added, rep.Changed, rep.Removed, len(rep.Unchanged))
			if !slices.Equal(rep.Added, []string{added}) || !slices.Equal(rep.Changed, []string{changed}) || !slices.Equal(rep.Removed, []string{removed}) {
				t.Errorf("second adopt: added %v, changed %v, removed %v; want [%s], [%s], [%s]", rep.Added, rep.Changed, rep.Removed, added, changed, removed)
			}
			var want []string
			for _, s := range pages {
				if s != changed && s != removed {
					want = append(want, s)
				}
			}
			if got := slices.Sorted(slices.Values(rep.Unchanged)); !slices.Equal(got, want) {
				t.Errorf("second adopt: unchanged %v, want %v", got, want)
			}
			_, rep = adoptAll(t, c, WriteOptions{})
			if len(rep.Added)+len(rep.Changed)+len(rep.Removed) != 0 || len(rep.Unchanged) != len(pages) {
				t.Errorf("third adopt: %+v, want %d pages unchanged", rep, len(pages))
			}
		})
	}
}

// copyRecords copies the records of collection from (ids, documents,
// metadata and embeddings, as the writer wrote them) whose metadata keep
// accepts into collection to, through Chroma's HTTP API, and returns
// their number.
func copyRecords(t *testing.T, base, from, to string, keep func(map[string]any) bool) int {
	t.Helper()
	prefix := base + "/api/v2/tenants/default_tenant/databases/default_database/collections/"
	id := func(name string) string {
		var coll struct{ ID string }
		if err := testenv.ChromaJSON(http.MethodGet, prefix+url.PathEscape(name), nil, &coll); err != nil {
			t.Fatalf("collection %s: %v", name, err)
		}
		return coll.ID
	}
	fromID, toID := id(from), id(to)
	var add struct {
		IDs        []string          `json:"ids"`
		Documents  []string          `json:"documents"`
		Metadatas  []map[string]any  `json:"metadatas"`
		Embeddings []json.RawMessage `json:"embeddings"`
	}
	for offset := 0; ; offset += 300 {
		var page struct {
			IDs        []string          `json:"ids"`
			Documents  []string          `json:"documents"`
			Metadatas  []map[string]any  `json:"metadatas"`
			Embeddings []json.RawMessage `json:"embeddings"`
		}
		body := map[string]any{"include": []string{"documents", "metadatas", "embeddings"}, "limit": 300, "offset": offset}
		if err := testenv.ChromaJSON(http.MethodPost, prefix+fromID+"/get", body, &page); err != nil {
			t.Fatal(err)
		}
		for i := range page.IDs {
			if keep(page.Metadatas[i]) {
				add.IDs = append(add.IDs, page.IDs[i])
				add.Documents = append(add.Documents, page.Documents[i])
				add.Metadatas = append(add.Metadatas, page.Metadatas[i])
				add.Embeddings = append(add.Embeddings, page.Embeddings[i])
			}
		}
		if len(page.IDs) < 300 {
			break
		}
	}
	if len(add.IDs) == 0 {
		t.Fatalf("no record of %s to copy", from)
	}
	if err := testenv.ChromaJSON(http.MethodPost, prefix+toID+"/add", add, nil); err != nil {
		t.Fatal(err)
	}
	return len(add.IDs)
}
