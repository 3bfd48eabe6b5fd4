package chromafs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adopt"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// overlapping cuts content as a splitter that trims and overlaps does
// (LangChain's RecursiveCharacterTextSplitter, roughly): windows of
// about size bytes ending at white space, each starting about overlap
// bytes before the end of the one before, at a word, trimmed. It returns
// the chunks and the 1-based line each starts on.
func overlapping(content string, size, overlap int) (chunks []string, lines []int) {
	isSpace := func(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }
	pos := 0
	for pos < len(content) {
		end := min(pos+size, len(content))
		if end < len(content) {
			for e := end; e > pos+size/2; e-- {
				if isSpace(content[e]) {
					end = e
					break
				}
			}
		}
		text := strings.TrimSpace(content[pos:end])
		if text != "" {
			lead := strings.Index(content[pos:end], text)
			chunks = append(chunks, text)
			lines = append(lines, 1+strings.Count(content[:pos+lead], "\n"))
		}
		if end == len(content) {
			break
		}
		next := max(end-overlap, pos+1)
		for next < end && !isSpace(content[next-1]) {
			next++ // start at a word
		}
		pos = next
	}
	return chunks, lines
}

// writeLangChainJS writes files into w as LangChain.js's Chroma store lays
// them out: source (an absolute path), locFrom and locTo, uuid-like ids.
func writeLangChainJS(t testing.TB, w collection.Writer, files map[string]string) {
	writeOverlapping(t, w, files, 240, 60)
}

// writeOverlapping is writeLangChainJS with chunks of about size bytes
// overlapping by about overlap, written in batches.
func writeOverlapping(t testing.TB, w collection.Writer, files map[string]string, size, overlap int) {
	t.Helper()
	var recs []collection.Record
	for _, p := range slices.Sorted(maps.Keys(files)) {
		chunks, lines := overlapping(files[p], size, overlap)
		for i, text := range chunks {
			recs = append(recs, collection.Record{
				ID:       fmt.Sprintf("9d0e%04x-1c2b-4f3a-8e7d-%012x", len(recs), i),
				Document: text,
				Metadata: map[string]any{"source": "/home/ci/site/" + p, "locFrom": lines[i], "locTo": lines[i] + strings.Count(text, "\n")},
			})
		}
	}
	for b := range slices.Chunk(recs, 2000) {
		if err := w.Upsert(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAdopted serves a collection that another tool wrote, after chromafs
// adopt: every page reads as adopt rebuilt it, through one read and
// through the bulk reads grep uses, on memstore and on Chroma; fstest
// checks the filesystem; a chunk changed since adopt makes its page an
// error that says to adopt again.
func TestAdopted(t *testing.T) {
	ctx := context.Background()
	files := testcorpus.Docs(t)
	for name, content := range files {
		if strings.TrimSpace(content) == "" {
			delete(files, name) // writers store no chunk of a blank file
		}
	}
	for _, backend := range []string{"memstore", "chroma"} {
		t.Run(backend, func(t *testing.T) {
			var st adopt.Target
			switch backend {
			case "memstore":
				st = memstore.New("adopted")
			case "chroma":
				srv := testenv.Chroma(t)
				c, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: testenv.CollectionName(t), Create: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				st = c
			}
			writeLangChainJS(t, st, files)
			res, err := adopt.Read(ctx, st, adopt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Layout.Name != adopt.LangChainJS.Name || len(res.Pages) != len(files) {
				t.Fatalf("adopt read %d pages of %s, want %d of langchain.js (problems %q)", len(res.Pages), res.Layout.Name, len(files), res.Problems)
			}
			rules, err := ingest.ParseRules(strings.NewReader("internal/** private groups=staff\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := adopt.Write(ctx, st, res, adopt.WriteOptions{Rules: rules}); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			identical := 0
			for _, p := range res.Pages {
				want[p.Slug] = string(p.Content)
				if string(p.Content) == files[p.Slug] {
					identical++
				}
			}
			t.Logf("%d of %d pages byte-identical to their source", identical, len(files))

			fsys, err := chromafs.New(ctx, st, chromafs.WithShared(chromafs.NewShared(0)), chromafs.WithGroups("staff"))
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range want {
				got, err := fs.ReadFile(fsys, name)
				if err != nil || string(got) != w {
					t.Errorf("ReadFile(%s) = %q, %v; want adopt's page %q", name, got, err, w)
				}
			}
			if backend == "chroma" {
				checkAdoptedQuery(t, fsys, st, res)
			}
			// A fresh session reads the pages in bulk, as grep does.
			fsys2, err := chromafs.New(ctx, st, chromafs.WithGroups("staff"))
			if err != nil {
				t.Fatal(err)
			}
			names := slices.Sorted(maps.Keys(want))
			got := map[string]string{}
			if err := fsys2.PrefetchEach(ctx, names, func(name string, data []byte) { got[name] = string(data) }); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) {
				t.Errorf("PrefetchEach gave %d pages, %d differ from adopt's", len(got), len(want)-countEqual(got, want))
			}
			if err := fstest.TestFS(fsys2, names...); err != nil {
				t.Error(err)
			}
			// Grep's coarse filter asks by the ids of the adopted pages'
			// chunks: a literal that no page holds leaves out every page,
			// and one that a page holds keeps it (adopt/coarse_test.go
			// checks it in every layout).
			cands, err := fsys2.Candidates(ctx, names, []string{"zzz-no-such-text"}, false)
			if err != nil || len(cands) != 0 {
				t.Errorf("Candidates(zzz-no-such-text) = %q, %v: want no page", cands, err)
			}
			line := strings.SplitAfter(want[names[0]], "\n")[0]
			cands, err = fsys2.Candidates(ctx, names, []string{strings.TrimSpace(line)}, false)
			if err != nil || !slices.Contains(cands, names[0]) || len(cands) == len(names) {
				t.Errorf("Candidates(%q) = %d of %d pages, %v: want %s among them, and not every page", strings.TrimSpace(line), len(cands), len(names), err, names[0])
			}

			// The other tool rewrites the first chunk of a page.
			first := res.Pages[0]
			if err := st.Upsert(ctx, []collection.Record{{ID: first.Parts[0].ID, Document: "rewritten", Metadata: map[string]any{"source": "/home/ci/site/" + first.Slug, "locFrom": 1, "locTo": 1}}}); err != nil {
				t.Fatal(err)
			}
			fsys3, err := chromafs.New(ctx, st, chromafs.WithGroups("staff"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = fs.ReadFile(fsys3, first.Slug)
			if !errors.Is(err, collection.ErrCorruptPage) || !strings.Contains(err.Error(), "adopt it again") {
				t.Errorf("ReadFile of a page whose chunk changed: %v, want ErrCorruptPage saying to adopt again", err)
			}
		})
	}
}

func countEqual(a, b map[string]string) int {
	n := 0
	for k, v := range a {
		if w, ok := b[k]; ok && w == v {
			n++
		}
	}
	return n
}

// checkAdoptedQuery ranks the chunks of an adopted collection by the
// vector of one of them (Chroma's hash embedding, which the collection
// was written with): that chunk comes first, at the lines where its text
// lies in its page; a public view never sees a chunk of a staff page.
func checkAdoptedQuery(t *testing.T, fsys *chromafs.FS, st adopt.Target, res *adopt.Result) {
	t.Helper()
	ctx := context.Background()
	embed := chromastore.HashEmbedding(0)
	for _, pg := range res.Pages {
		if len(pg.Parts) < 2 {
			continue
		}
		part := pg.Parts[1]
		docs, err := st.(collection.DocumentReader).DocumentsByID(ctx, []string{part.ID})
		if err != nil {
			t.Fatal(err)
		}
		vecs, err := embed.EmbedDocuments(ctx, []string{docs[part.ID]})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := fsys.Query(ctx, ".", vecs[0], 3)
		if err != nil || len(hits) == 0 {
			t.Fatalf("Query: %v, %v", hits, err)
		}
		h := hits[0]
		lines := strings.Split(string(pg.Content), "\n")
		if h.Name != pg.Slug || h.Text != docs[part.ID] || h.Index != 1 || h.Start < 1 || h.End > len(lines) ||
			!strings.Contains(strings.Join(lines[h.Start-1:h.End], "\n"), strings.TrimSpace(strings.SplitN(h.Text, "\n", 2)[0])) {
			t.Errorf("Query by the vector of %s's second chunk: first hit %+v", pg.Slug, h)
		}
		if strings.HasPrefix(pg.Slug, "internal/") {
			public, err := chromafs.New(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := public.Query(ctx, ".", vecs[0], 20)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if strings.HasPrefix(h.Name, "internal/") {
					t.Errorf("a public view's Query returned %s", h.Name)
				}
			}
		}
	}
}
