package adopt

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// coarseLayout is a writer of TestCoarseAdopted: how it writes a page,
// and the layout to adopt it with (nil: detected).
type coarseLayout struct {
	name   string
	write  writeFn
	layout *Layout
}

// Custom is the generic layout of TestCoarseAdopted's own pipeline:
// a path and an order, chunks that are not trimmed.
var custom = Layout{Name: "custom", PathFields: []string{"path"}, OrderField: "n"}

// coarseLayouts are the layouts of the adopt tests (read_test.go), with
// the splitters' overlap and without, and a pipeline of one's own that
// cuts pages into windows of bytes that meet (no gap, no overlap: the
// boundary queries decide) or overlap by a few bytes.
func coarseLayouts() []coarseLayout {
	js := func(overlap int) writeFn {
		return func(st *memstore.Store, p, src string) {
			var recs []collection.Record
			for i, pc := range jsPieces(newJSSplitter(120, overlap), src) {
				recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, i), Document: pc.Text, Metadata: map[string]any{
					"source": "/home/ci/site/" + p, "locFrom": pc.Line + 1, "locTo": pc.Line + 1 + strings.Count(pc.Text, "\n")}})
			}
			upsert(st, recs)
		}
	}
	py := func(overlap int) writeFn {
		return func(st *memstore.Store, p, src string) {
			var recs []collection.Record
			for i, pc := range pyPieces(newPySplitter(120, overlap), src) {
				recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, i), Document: pc.Text, Metadata: map[string]any{
					"source": "/home/ci/site/" + p, "start_index": pc.Start}})
			}
			upsert(st, recs)
		}
	}
	llama := func(overlap int) writeFn {
		return func(st *memstore.Store, p, src string) {
			var recs []collection.Record
			for i, pc := range pyPieces(newPySplitter(120, overlap), src) {
				start := len(utf16.Encode([]rune(string([]rune(src)[:pc.Start]))))
				nc, _ := json.Marshal(map[string]any{"id_": "n", "start_char_idx": start, "end_char_idx": start + len(utf16.Encode([]rune(pc.Text)))})
				recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, i), Document: pc.Text, Metadata: map[string]any{
					"file_path": "/home/ci/site/" + p, "file_name": p[strings.LastIndex(p, "/")+1:], "_node_content": string(nc),
					"_node_type": "TextNode", "document_id": "d-" + p, "doc_id": "d-" + p, "ref_doc_id": "d-" + p}})
			}
			upsert(st, recs)
		}
	}
	// windows cuts src into pieces of about size bytes (at rune
	// boundaries), each repeating the last overlap bytes of the one
	// before.
	windows := func(size, overlap int) writeFn {
		return func(st *memstore.Store, p, src string) {
			var recs []collection.Record
			for start := 0; start < len(src); {
				end := min(start+size, len(src))
				for end < len(src) && !utf8.RuneStart(src[end]) {
					end++
				}
				recs = append(recs, collection.Record{ID: fmt.Sprintf("%s-%d", p, len(recs)), Document: src[start:end],
					Metadata: map[string]any{"path": p, "n": len(recs)}})
				if end == len(src) {
					break
				}
				next := max(end-overlap, start+1)
				for !utf8.RuneStart(src[next]) {
					next++
				}
				start = next
			}
			upsert(st, recs)
		}
	}
	overlapping := custom
	overlapping.Rules.Overlap = true
	return []coarseLayout{
		{"langchain.js", js(30), nil},
		{"langchain.js-overlap0", js(0), nil},
		{"langchain", py(30), nil},
		{"langchain-overlap0", py(0), nil},
		{"llamaindex", llama(30), nil},
		{"llamaindex-overlap0", llama(0), nil},
		{"chroma-docs", writers["chroma-docs"], nil},
		{"custom", windows(64, 0), &custom},
		{"custom-overlap", windows(80, 12), &overlapping},
	}
}

// coarseDocs are the pages of TestCoarseAdopted: the layout tests' docs,
// the example docs, and generated pages with indented code, blank lines
// holding spaces, CRLF, text outside the BMP, no final newline and
// repeated paragraphs (corpus).
func coarseDocs(t *testing.T) map[string]string {
	docs := maps.Clone(readDocs)
	for p, c := range corpus(t) {
		name, ok := strings.CutPrefix(p, "gen/")
		if ok {
			var i int
			if _, err := fmt.Sscanf(name, "%03d.md", &i); err != nil || i >= 12 {
				continue
			}
		} else {
			name = "ex/" + p[strings.LastIndex(p, "docs/")+len("docs/"):]
		}
		if strings.TrimSpace(c) != "" {
			docs["c/"+name] = c
		}
	}
	return docs
}

// TestCoarseAdopted: grep's coarse filter (FS.Candidates) over adopted
// collections of every layout, on memstore and on Chroma, keeps every
// page that contains a literal, as reading every page says: literals cut
// across the junctions of the pages' chunks (one junction, or two around
// a short chunk), inside chunks, across gaps, with line breaks and spaces,
// and absent, exactly and with fold (in another case). And it is a
// filter: the absent literals leave out every page.
func TestCoarseAdopted(t *testing.T) {
	ctx := context.Background()
	all := coarseDocs(t)
	// Chroma gets a third of the pages, every kind among them (the
	// layout tests' docs, example docs, CRLF, no final newline,
	// repeated pages): writing and searching cost it more.
	few := map[string]string{}
	for i, p := range slices.Sorted(maps.Keys(all)) {
		if i%3 == 0 || readDocs[p] != "" {
			few[p] = all[p]
		}
	}
	for _, backend := range []string{"memstore", "chroma"} {
		docs := all
		if backend == "chroma" {
			docs = few
		}
		for _, cl := range coarseLayouts() {
			t.Run(backend+"/"+cl.name, func(t *testing.T) {
				mem := memstore.New(cl.name)
				for _, p := range slices.Sorted(maps.Keys(docs)) {
					cl.write(mem, p, docs[p])
				}
				var st Target = mem
				if backend == "chroma" {
					c, err := chromastore.Open(ctx, chromastore.Config{URL: testenv.Chroma(t).URL, Collection: testenv.CollectionName(t), Create: true})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { c.Close() })
					var recs []collection.Record
					if err := mem.ScanRecords(ctx, func(b []collection.Record) error { recs = append(recs, b...); return nil }); err != nil {
						t.Fatal(err)
					}
					if err := c.Upsert(ctx, recs); err != nil {
						t.Fatal(err)
					}
					st = c
				}
				res, err := Read(ctx, st, Options{Layout: cl.layout})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Write(ctx, st, res, WriteOptions{}); err != nil {
					t.Fatal(err)
				}
				checkCoarse(t, st, res, backend == "chroma")
			})
		}
	}
}

// checkCoarse compares FS.Candidates over the adopted collection st with
// what reading every page finds.
func checkCoarse(t *testing.T, st collection.Store, res *Result, short bool) {
	ctx := context.Background()
	reader, err := chromafs.New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(res.Pages))
	content := map[string]string{}
	for _, p := range res.Pages {
		b, err := fs.ReadFile(reader, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Slug)
		content[p.Slug] = string(b)
	}
	slices.Sort(names)
	rng := rand.New(rand.NewPCG(7, uint64(len(names))))
	runeAt := func(s string, i int) int { // the rune start at or before byte i
		for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
			i--
		}
		return i
	}
	cut := func(s string, from, n int) string {
		from = runeAt(s, max(0, min(from, len(s))))
		to := runeAt(s, max(from, min(from+n, len(s))))
		if to == from && from < len(s) {
			_, w := utf8.DecodeRuneInString(s[from:])
			to = from + w
		}
		return s[from:to]
	}
	// Literals around junctions, from the recipes.
	var lits []string
	for _, p := range res.Pages {
		c := content[p.Slug]
		r := p.Recipe()
		for i := 1; i < len(r.Parts); i++ {
			j := r.Offset(i) + r.Parts[i].Skip
			n := 2 + rng.IntN(24)
			lits = append(lits, cut(c, j-1-rng.IntN(n-1), n))
			if len(r.Parts[i].Gap) > 0 {
				lits = append(lits, cut(c, j-len(r.Parts[i].Gap)-1, len(r.Parts[i].Gap)+2))
			}
			if i+1 < len(r.Parts) && r.Parts[i].Len-r.Parts[i].Skip < 30 {
				// Across a short part, from the chunk before to the one after.
				lits = append(lits, cut(c, j-2, r.Parts[i].Len-r.Parts[i].Skip+len(r.Parts[i+1].Gap)+4))
			}
		}
		for range 2 {
			lits = append(lits, cut(c, rng.IntN(len(c)), 3+rng.IntN(20)))
		}
		if strings.HasSuffix(c, "\n") {
			lits = append(lits, cut(c, len(c)-4, 4))
		}
	}
	lits = slices.DeleteFunc(lits, func(l string) bool { return l == "" })
	rng.Shuffle(len(lits), func(i, j int) { lits[i], lits[j] = lits[j], lits[i] })
	limit := coarseLiterals
	if short {
		limit = 24 // Chroma: four searches a call, each a request or more
	}
	lits = lits[:min(limit, len(lits))]
	absent := []string{"zqxjzqxj", "qq\u00e9zz", "Zq\u65e5x"}
	type query struct {
		lits []string
		fold bool
	}
	var queries []query
	for i, l := range lits {
		queries = append(queries, query{[]string{l}, false})
		if i%3 == 0 {
			queries = append(queries, query{[]string{swapCase(l)}, true})
		}
		if i%5 == 0 && i+1 < len(lits) {
			queries = append(queries, query{[]string{l, lits[i+1]}, false})
		}
	}
	for _, a := range absent {
		queries = append(queries, query{[]string{a}, false}, query{[]string{strings.ToUpper(a)}, true})
	}
	fsys, err := chromafs.New(ctx, st, chromafs.WithShared(chromafs.NewShared(0)))
	if err != nil {
		t.Fatal(err)
	}
	dropped, matching, asked := 0, 0, 0
	start := time.Now()
	for _, q := range queries {
		got, err := fsys.Candidates(ctx, names, q.lits, q.fold)
		if err != nil {
			t.Fatalf("Candidates(%q, fold %v): %v", q.lits, q.fold, err)
		}
		kept := map[string]bool{}
		for _, n := range got {
			kept[n] = true
		}
		var alts []string
		for _, l := range q.lits {
			alts = append(alts, regexp.QuoteMeta(l))
		}
		expr := strings.Join(alts, "|")
		if q.fold {
			expr = "(?i)" + expr
		}
		re := regexp.MustCompile(expr)
		for _, n := range names {
			switch m := re.MatchString(content[n]); {
			case m && !kept[n]:
				t.Errorf("Candidates(%q, fold %v) left out %s, which contains it", q.lits, q.fold, n)
			case m:
				matching++
			case !kept[n]:
				dropped++
			}
			asked++
		}
		if slices.ContainsFunc(absent, func(a string) bool { return strings.EqualFold(a, q.lits[0]) }) && len(got) > 0 {
			t.Errorf("Candidates(%q, fold %v) = %q, want none: no page holds it", q.lits, q.fold, got)
		}
	}
	t.Logf("%d queries over %d pages in %v: %d page answers, %d matching, %d of the others left out", len(queries), len(names), time.Since(start), asked, matching, dropped)
}

// swapCase turns lower case into upper and upper into lower.
func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if u := strings.ToUpper(string(r)); u != string(r) && utf8.RuneCountInString(u) == 1 {
			r2, _ := utf8.DecodeRuneInString(u)
			return r2
		}
		if l := strings.ToLower(string(r)); utf8.RuneCountInString(l) == 1 {
			r2, _ := utf8.DecodeRuneInString(l)
			return r2
		}
		return r
	}, s)
}
