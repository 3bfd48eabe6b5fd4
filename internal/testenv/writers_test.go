package testenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/chromafs/chromafs/internal/testcorpus/awkward"
)

// record is one record of a collection as Chroma's HTTP API returns it.
type record struct {
	ID       string
	Document string
	Metadata map[string]any
}

// readCollection returns every record of the collection name at base,
// through Chroma's v2 HTTP API, in pages of 300.
func readCollection(t *testing.T, base, name string) []record {
	t.Helper()
	prefix := base + "/api/v2/tenants/default_tenant/databases/default_database/collections/"
	var coll struct{ ID string }
	if err := ChromaJSON(http.MethodGet, prefix+url.PathEscape(name), nil, &coll); err != nil {
		t.Fatalf("collection %s: %v", name, err)
	}
	var out []record
	for offset := 0; ; offset += 300 {
		var page struct {
			IDs       []string         `json:"ids"`
			Documents []string         `json:"documents"`
			Metadatas []map[string]any `json:"metadatas"`
		}
		body := map[string]any{"include": []string{"documents", "metadatas"}, "limit": 300, "offset": offset}
		if err := ChromaJSON(http.MethodPost, prefix+coll.ID+"/get", body, &page); err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
		for i, id := range page.IDs {
			out = append(out, record{id, page.Documents[i], page.Metadatas[i]})
		}
		if len(page.IDs) < 300 {
			return out
		}
	}
}

var (
	uuidV1 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

// jsTrim is JavaScript's String.prototype.trim: it removes white space
// and line terminators, U+FEFF included, from both ends.
func jsTrim(s string) string {
	return strings.TrimFunc(s, isJSSpace)
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// utf16Len is JavaScript's String length: UTF-16 code units.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// utf16Slice is JavaScript's s.slice(start, end), in UTF-16 code units;
// ok is false when the range is outside s.
func utf16Slice(s string, start, end int) (string, bool) {
	u := utf16.Encode([]rune(s))
	if start < 0 || end < start || end > len(u) {
		return "", false
	}
	return string(utf16.Decode(u[start:end])), true
}

// runeSlice slices s in code points, as Python does.
func runeSlice(s string, start, end int) (string, bool) {
	r := []rune(s)
	if start < 0 || end < start || end > len(r) {
		return "", false
	}
	return string(r[start:end]), true
}

// intField returns metadata field k as an int.
func intField(md map[string]any, k string) (int, bool) {
	n, ok := md[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n.String())
	return i, err == nil
}

func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// sample renders one record's metadata for the log, long values cut.
func sample(r record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id=%s document=%q", r.ID, cut(r.Document, 40))
	for _, k := range keys(r.Metadata) {
		fmt.Fprintf(&b, " %s=%s", k, cut(fmt.Sprint(r.Metadata[k]), 160))
	}
	return b.String()
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// v1Time returns the 60-bit timestamp of a version 1 uuid: LangChain.js's
// ids are uuid v1, made one after another, so their timestamps give the
// order in which the splitter produced the chunks.
func v1Time(id string) uint64 {
	h := strings.ReplaceAll(id, "-", "")
	low, _ := strconv.ParseUint(h[0:8], 16, 64)
	mid, _ := strconv.ParseUint(h[8:12], 16, 64)
	hi, _ := strconv.ParseUint(h[12:16], 16, 64)
	return (hi&0x0fff)<<48 | mid<<32 | low
}

// TestWritersLayout writes the awkward folder with each real writer
// (LangChain.js, LlamaIndex.TS with its default readers and with the plain
// text reader) and each split mode (the defaults, overlap 0) into the real
// Chroma, reads every record back through the HTTP API, and checks the
// layout each writer wrote field by field, against the files: see
// checkLangChain and checkLlamaIndex.
func TestWritersLayout(t *testing.T) {
	srv := Chroma(t)
	files := awkward.Files()
	dir := awkward.WriteDir(t, files)
	abs := map[string]string{} // absolute path -> content
	for name, content := range files {
		abs[filepath.Join(dir, filepath.FromSlash(name))] = content
	}
	for _, w := range []Writer{LangChain, LlamaIndex, LlamaIndexText} {
		for _, mode := range []SplitMode{DefaultSplit, NoOverlap} {
			t.Run(string(w)+"/"+string(mode), func(t *testing.T) {
				start := time.Now()
				rep := WriteWithReport(t, srv.URL, w, mode, dir)
				recs := readCollection(t, srv.URL, rep.Collection)
				if len(recs) != rep.Chunks || len(recs) == 0 {
					t.Fatalf("read %d records; the writer reported %d chunks", len(recs), rep.Chunks)
				}
				t.Logf("versions %v; %d files, %d chunks, chunk size %d, overlap %d, %v",
					rep.Versions, rep.Files, rep.Chunks, rep.ChunkSize, rep.ChunkOverlap, time.Since(start).Round(time.Millisecond))
				wantOverlap := rep.ChunkOverlap
				if want := map[SplitMode]int{DefaultSplit: 200, NoOverlap: 0}[mode]; wantOverlap != want {
					t.Errorf("chunk overlap %d, want %d", wantOverlap, want)
				}
				if w == LangChain {
					checkLangChain(t, recs, abs, mode)
				} else {
					checkLlamaIndex(t, recs, abs, w, mode)
				}
			})
		}
	}
}

// checkLangChain checks a collection of LangChain.js's Chroma store:
//   - metadata is exactly source (the absolute path of a file of the
//     folder), locFrom and locTo (integers, 1 <= locFrom <= locTo);
//   - ids are uuid v1;
//   - every chunk is non-empty and trimmed (JavaScript's trim), at most
//     1,000 UTF-16 code units;
//   - replaying the splitter's own placement (each chunk found with
//     indexOf after the start of the one before, in id order) finds
//     every chunk in its file at exactly the lines locFrom..locTo;
//   - the placed chunks cover every non-white-space character of every
//     file, and only files with no such character have no chunk;
//   - consecutive chunks overlap with the defaults and never with
//     overlap 0.
func checkLangChain(t *testing.T, recs []record, abs map[string]string, mode SplitMode) {
	t.Helper()
	bySource := map[string][]record{}
	for _, r := range recs {
		if got := keys(r.Metadata); !slices.Equal(got, []string{"locFrom", "locTo", "source"}) {
			t.Errorf("%s: metadata keys %v, want [locFrom locTo source]", r.ID, got)
			continue
		}
		src, _ := r.Metadata["source"].(string)
		if _, ok := abs[src]; !ok {
			t.Errorf("%s: source %q is not the absolute path of a file of the folder", r.ID, src)
			continue
		}
		if !uuidV1.MatchString(r.ID) {
			t.Errorf("id %q is not a uuid v1", r.ID)
		}
		if r.Document == "" || r.Document != jsTrim(r.Document) {
			t.Errorf("%s: chunk %q is empty or not trimmed", r.ID, cut(r.Document, 40))
		}
		if n := utf16Len(r.Document); n > 1000 {
			t.Errorf("%s: chunk of %d UTF-16 units, over the chunk size 1000", r.ID, n)
		}
		bySource[src] = append(bySource[src], r)
	}
	var overlaps, gaps, maxBytes, junctionWS int
	var misplaced []string
	for src, content := range abs {
		chunks := bySource[src]
		if strings.TrimFunc(content, isJSSpace) == "" {
			if len(chunks) != 0 {
				t.Errorf("%s has no text but %d chunks", src, len(chunks))
			}
			continue
		}
		if len(chunks) == 0 {
			t.Errorf("%s: no chunk", src)
			continue
		}
		periodic := isPeriodic(abs, src)
		slices.SortFunc(chunks, func(a, b record) int { return cmpU64(v1Time(a.ID), v1Time(b.ID)) })
		covered := make([]bool, len(content))
		prevStart, prevEnd := -1, -1
		for _, c := range chunks {
			i := strings.Index(content[prevStart+1:], c.Document)
			if i < 0 {
				t.Errorf("%s: chunk %s %q not found after byte %d", src, c.ID, cut(c.Document, 40), prevStart)
				break
			}
			start := prevStart + 1 + i
			end := start + len(c.Document)
			from, _ := intField(c.Metadata, "locFrom")
			to, _ := intField(c.Metadata, "locTo")
			wantFrom := 1 + strings.Count(content[:start], "\n")
			wantTo := wantFrom + strings.Count(c.Document, "\n")
			if from != wantFrom || to != wantTo {
				t.Errorf("%s: chunk %s at byte %d has lines %d-%d, want %d-%d", src, c.ID, start, from, to, wantFrom, wantTo)
			}
			switch {
			case periodic || prevEnd < 0:
			case prevEnd > start:
				overlaps++
			default:
				gaps++
				if strings.TrimFunc(content[prevEnd:start], isJSSpace) != "" {
					t.Errorf("%s: bytes %d-%d between chunks are not white space: %q", src, prevEnd, start, cut(content[prevEnd:start], 40))
				}
				if prevEnd < start {
					junctionWS++
				}
			}
			for k := start; k < end; k++ {
				covered[k] = true
			}
			maxBytes = max(maxBytes, len(c.Document))
			prevStart, prevEnd = start, end
		}
		full := true
		for k, r := range content {
			if !covered[k] && !isJSSpace(r) {
				full = false
				if !periodic {
					t.Errorf("%s: byte %d (%q) is in no chunk", src, k, r)
				}
				break
			}
		}
		if periodic && !full {
			misplaced = append(misplaced, filepath.Base(src))
		}
	}
	slices.Sort(misplaced)
	t.Logf("langchain %s: %d overlapping junctions, %d without overlap (%d of them drop white space), longest chunk %d bytes; periodic files placed by an earlier occurrence: %v",
		mode, overlaps, gaps, junctionWS, maxBytes, misplaced)
	switch {
	case mode == DefaultSplit && overlaps == 0:
		t.Errorf("no two consecutive chunks overlap with chunkOverlap 200")
	case mode == NoOverlap && overlaps != 0:
		t.Errorf("%d consecutive chunks overlap with chunkOverlap 0", overlaps)
	}
	// locFrom/locTo of a periodic file are those of the first occurrence
	// of each chunk after the previous chunk's start (the splitter's
	// indexOf), not of the text the chunk was cut from: placed by them,
	// the chunks leave text uncovered.
	if want := []string{"no-spaces.txt", "one-line.md", "repeated.md"}; !slices.Equal(misplaced, want) {
		t.Errorf("periodic files whose chunks' lines leave text uncovered: %v, want %v", misplaced, want)
	}
	for _, r := range recs[:1] {
		t.Logf("sample: %s", sample(r))
	}
}

// isPeriodic reports whether the file at absolute path p is one of
// awkward.Periodic.
func isPeriodic(abs map[string]string, p string) bool {
	for _, name := range awkward.Periodic {
		if strings.HasSuffix(p, string(filepath.Separator)+filepath.FromSlash(name)) {
			return true
		}
	}
	return false
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nodeContent is the part of LlamaIndex.TS's _node_content that the
// checks read. The TypeScript library writes camelCase keys
// (startCharIdx), not Python's snake_case (start_char_idx).
type nodeContent struct {
	ID            string `json:"id_"`
	Text          string `json:"text"`
	StartCharIdx  *int   `json:"startCharIdx"`
	EndCharIdx    *int   `json:"endCharIdx"`
	Relationships struct {
		Source struct {
			NodeID   string         `json:"nodeId"`
			Metadata map[string]any `json:"metadata"`
		} `json:"SOURCE"`
	} `json:"relationships"`
}

// llamaDocuments returns the texts of the documents that LlamaIndex.TS's
// readers make of a file, following @llamaindex/readers 3.1.22: the
// TextDecoder drops a leading byte order mark; TextFileReader returns the
// text; MarkdownReader (SimpleDirectoryReader's default for .md) removes
// [text](url) links (keeping text) and ![[...]] images, cuts the text at
// lines matching ^#+\s (a heading directly after another is appended to it
// without a newline between) and returns "\n\n" + heading + "\n" + the
// section's lines, each followed by "\n", or the lines alone before the
// first heading.
func llamaDocuments(content string, markdown bool) []string {
	content = strings.TrimPrefix(content, "\uFEFF")
	if !markdown {
		return []string{content}
	}
	content = mdLink.ReplaceAllString(content, "$1")
	content = mdImage.ReplaceAllString(content, "")
	type tup struct {
		header    string
		hasHeader bool
		text      string
	}
	var tups []tup
	var header, text string
	for _, line := range strings.Split(content, "\n") {
		if mdHeading.MatchString(line) {
			if header != "" {
				if text == "" {
					header += line + "\n"
					continue
				}
				tups = append(tups, tup{header, true, text})
			} else if text != "" {
				tups = append(tups, tup{"", false, text})
			}
			header, text = line, ""
		} else {
			text += line + "\n"
		}
	}
	tups = append(tups, tup{header, header != "", text})
	var out []string
	for _, tp := range tups {
		if tp.hasHeader {
			out = append(out, "\n\n"+tp.header+"\n"+tp.text)
		} else {
			out = append(out, tp.text)
		}
	}
	return out
}

// JavaScript's . matches anything but line terminators; \s is its white
// space class.
var (
	mdLink    = regexp.MustCompile(`\[([^\n\r\x{2028}\x{2029}]*?)\]\(([^\n\r\x{2028}\x{2029}]*?)\)`)
	mdImage   = regexp.MustCompile(`!\[\[([^\n\r\x{2028}\x{2029}]*)\]\]`)
	mdHeading = regexp.MustCompile(`^#+[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`)
)

// checkLlamaIndex checks a collection of LlamaIndex.TS's
// ChromaVectorStore:
//   - metadata is exactly file_path (the absolute path of a file of the
//     folder), file_name (its base name), document_id, doc_id and
//     ref_doc_id (all three file_path + "_" + the 1-based number of the
//     reader's document), _node_type "TextNode" and _node_content;
//   - ids are uuid v4; _node_content is JSON with id_ the record's id, an
//     empty text, relationships.SOURCE.nodeId the ref_doc_id, and
//     startCharIdx/endCharIdx;
//   - the offsets are UTF-16 code units into the reader's document (see
//     llamaDocuments): slicing there gives the chunk exactly, and on the
//     non-BMP text slicing by code points does not;
//   - every file has chunks, one set per document the reader made of it;
//   - chunks of a document overlap with the defaults and never with
//     overlap 0, chunks with the same text excepted: their offsets are
//     equal (the splitter takes indexOf's first occurrence), so the
//     repeated paragraphs are placed on top of each other and part of
//     that document is covered by no chunk's offsets.
func checkLlamaIndex(t *testing.T, recs []record, abs map[string]string, w Writer, mode SplitMode) {
	t.Helper()
	type placed struct {
		start, end int
		text       string
	}
	byDoc := map[string][]placed{}
	var notCodePoints, untrimmed int
	for _, r := range recs {
		want := []string{"_node_content", "_node_type", "doc_id", "document_id", "file_name", "file_path", "ref_doc_id"}
		if got := keys(r.Metadata); !slices.Equal(got, want) {
			t.Errorf("%s: metadata keys %v, want %v", r.ID, got, want)
			continue
		}
		fp, _ := r.Metadata["file_path"].(string)
		content, ok := abs[fp]
		if !ok {
			t.Errorf("%s: file_path %q is not the absolute path of a file of the folder", r.ID, fp)
			continue
		}
		if fn := r.Metadata["file_name"]; fn != filepath.Base(fp) {
			t.Errorf("%s: file_name %v, want %q", r.ID, fn, filepath.Base(fp))
		}
		if nt := r.Metadata["_node_type"]; nt != "TextNode" {
			t.Errorf("%s: _node_type %v, want TextNode", r.ID, nt)
		}
		ref, _ := r.Metadata["ref_doc_id"].(string)
		if r.Metadata["document_id"] != ref || r.Metadata["doc_id"] != ref {
			t.Errorf("%s: document_id %v, doc_id %v, ref_doc_id %v differ", r.ID, r.Metadata["document_id"], r.Metadata["doc_id"], ref)
		}
		n, err := strconv.Atoi(strings.TrimPrefix(ref, fp+"_"))
		if !strings.HasPrefix(ref, fp+"_") || err != nil || n < 1 {
			t.Errorf("%s: ref_doc_id %q, want %s_N", r.ID, ref, fp)
			continue
		}
		if !uuidV4.MatchString(r.ID) {
			t.Errorf("id %q is not a uuid v4", r.ID)
		}
		raw, _ := r.Metadata["_node_content"].(string)
		var nc nodeContent
		if err := json.Unmarshal([]byte(raw), &nc); err != nil {
			t.Errorf("%s: _node_content is not JSON: %v", r.ID, err)
			continue
		}
		if strings.Contains(raw, `"start_char_idx"`) {
			t.Errorf("%s: _node_content has Python's start_char_idx: %s", r.ID, cut(raw, 200))
		}
		if nc.ID != r.ID || nc.Text != "" || nc.Relationships.Source.NodeID != ref {
			t.Errorf("%s: _node_content id_ %q, text %q, SOURCE.nodeId %q; want the record's id, \"\", %q", r.ID, nc.ID, cut(nc.Text, 20), nc.Relationships.Source.NodeID, ref)
		}
		if nc.StartCharIdx == nil || nc.EndCharIdx == nil {
			t.Errorf("%s: _node_content has no startCharIdx/endCharIdx: %s", r.ID, cut(raw, 300))
			continue
		}
		docs := llamaDocuments(content, w == LlamaIndex && strings.HasSuffix(fp, ".md"))
		if n > len(docs) {
			t.Errorf("%s: ref_doc_id %q, but the reader makes %d documents of the file", r.ID, ref, len(docs))
			continue
		}
		doc := docs[n-1]
		start, end := *nc.StartCharIdx, *nc.EndCharIdx
		got, ok := utf16Slice(doc, start, end)
		if !ok || got != r.Document {
			t.Errorf("%s: %s [%d:%d] in UTF-16 units is %q, want the chunk %q", r.ID, ref, start, end, cut(got, 40), cut(r.Document, 40))
			continue
		}
		if cp, ok := runeSlice(doc, start, end); !ok || cp != r.Document {
			notCodePoints++
		}
		if r.Document != jsTrim(r.Document) {
			untrimmed++
		}
		byDoc[ref] = append(byDoc[ref], placed{start, end, r.Document})
	}
	if notCodePoints == 0 {
		t.Errorf("no chunk's offsets differ between UTF-16 units and code points: the non-BMP text did not test the unit")
	}
	// Every file has one set of chunks per document of the reader.
	for fp, content := range abs {
		docs := llamaDocuments(content, w == LlamaIndex && strings.HasSuffix(fp, ".md"))
		for i := range docs {
			if ref := fmt.Sprintf("%s_%d", fp, i+1); len(byDoc[ref]) == 0 {
				t.Errorf("%s: no chunk of document %d of %d", fp, i+1, len(docs))
			}
		}
		if ref := fmt.Sprintf("%s_%d", fp, len(docs)+1); len(byDoc[ref]) != 0 {
			t.Errorf("%s: chunks of a document %d; the reader makes %d", fp, len(docs)+1, len(docs))
		}
	}
	var overlaps, gaps, dups int
	var misplaced []string
	for ref, ps := range byDoc {
		sort.Slice(ps, func(i, j int) bool {
			return ps[i].start < ps[j].start || ps[i].start == ps[j].start && ps[i].end < ps[j].end
		})
		fp := ref[:strings.LastIndexByte(ref, '_')]
		n, _ := strconv.Atoi(ref[len(fp)+1:])
		periodic := isPeriodic(abs, fp)
		doc := utf16.Encode([]rune(llamaDocuments(abs[fp], w == LlamaIndex && strings.HasSuffix(fp, ".md"))[n-1]))
		covered := make([]bool, len(doc))
		for i, p := range ps {
			for k := p.start; k < p.end; k++ {
				covered[k] = true
			}
			if i == 0 {
				continue
			}
			switch prev := ps[i-1]; {
			case p.start == prev.start:
				dups++
			case periodic:
			case p.start < prev.end:
				overlaps++
			default:
				gaps++
				if s := string(utf16.Decode(doc[prev.end:p.start])); strings.TrimFunc(s, isJSSpace) != "" {
					t.Errorf("%s: units %d-%d between chunks are not white space: %q", ref, prev.end, p.start, cut(s, 40))
				}
			}
		}
		for k, c := range covered {
			if !c && !isJSSpace(rune(doc[k])) {
				if !periodic {
					t.Errorf("%s: UTF-16 unit %d is in no chunk", ref, k)
				}
				misplaced = append(misplaced, filepath.Base(fp))
				break
			}
		}
	}
	slices.Sort(misplaced)
	t.Logf("%s %s: %d overlapping junctions, %d without overlap, %d chunks at the offset of the one before, %d chunks untrimmed, %d chunks whose offsets are wrong as code points; periodic documents placed by a first occurrence: %v",
		w, mode, overlaps, gaps, dups, untrimmed, notCodePoints, misplaced)
	switch {
	case mode == DefaultSplit && overlaps == 0:
		t.Errorf("no two chunks of a document overlap with chunkOverlap 200")
	case mode == NoOverlap && overlaps != 0:
		t.Errorf("%d chunks overlap with chunkOverlap 0", overlaps)
	}
	// startCharIdx is the first occurrence of the chunk's text in the
	// document (indexOf from 0): every repeat of a periodic document is
	// placed at the start, leaving its end uncovered.
	if want := []string{"one-line.md", "repeated.md"}; dups == 0 || !slices.Equal(misplaced, want) {
		t.Errorf("%d chunks at the offset of the one before; periodic documents left uncovered %v, want %v", dups, misplaced, want)
	}
	for _, r := range recs[:1] {
		t.Logf("sample: %s", sample(r))
	}
}
