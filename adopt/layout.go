package adopt

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Layout says where a writer put, in a chunk's metadata, what adopt
// needs: the chunk's page and its place in the page.
type Layout struct {
	// Name names the layout in reports: one of the known layouts' names
	// (see Layouts) or "custom".
	Name string
	// PathFields name the page: the first of them that holds a non-empty
	// string in a chunk's metadata is the chunk's page key (a path or a
	// URL, made a slug by Slugs).
	PathFields []string
	// StartField and EndField hold a chunk's character offsets in its
	// page, in the unit of Rules.Unit, or are "".
	StartField, EndField string
	// NodeContentField, when set, holds a JSON object whose
	// start_char_idx and end_char_idx (Python) or startCharIdx and
	// endCharIdx (TypeScript) are the chunk's offsets (LlamaIndex's
	// "_node_content").
	NodeContentField string
	// DocField, when set, names the document a chunk's offsets count
	// from, when a writer reads one file as several documents
	// (LlamaIndex's Markdown reader makes one per heading, "ref_doc_id"
	// path_1, path_2, ...): the page's documents are put together one by
	// one and joined in the collection's order.
	DocField string
	// LineField holds the line of the chunk's first character, counted
	// from LineBase (1 for LangChain.js's locFrom, 0 for Chroma's docs
	// layout's line_no), or is "".
	LineField string
	LineBase  int
	// OrderField holds the chunk's index within its page, or is "".
	OrderField string
	// Rules say how the writer cut pages.
	Rules Rules
}

// The known layouts, from their writers' source.
var (
	// LangChainJS is what LangChain.js's RecursiveCharacterTextSplitter
	// and @langchain/community's Chroma store write: "source" (the
	// loader's path), loc.lines flattened to "locFrom"/"locTo" (1-based
	// lines), chunks trimmed and overlapping (chunkOverlap, 200 by
	// default), uuid ids.
	LangChainJS = Layout{Name: "langchain.js", PathFields: []string{"source"}, LineField: "locFrom", LineBase: 1,
		Rules: Rules{Trimmed: true, Overlap: true}}
	// LangChain is what LangChain's Python splitters and its Chroma
	// store write: "source", and "start_index" (code points) with
	// add_start_index=True; chunks stripped and overlapping.
	LangChain = Layout{Name: "langchain", PathFields: []string{"source"}, StartField: "start_index",
		Rules: Rules{Unit: CodePoints, Trimmed: true, Overlap: true}}
	// LlamaIndex is what LlamaIndex (Python and TypeScript) writes through
	// its Chroma vector store: "file_path" (or "file_name", or the
	// document's id), "ref_doc_id", and "_node_content", a JSON object
	// whose start_char_idx/end_char_idx (Python, code points) or
	// startCharIdx/endCharIdx (TypeScript, UTF-16 units) are offsets in
	// the document; sentence-splitter chunks, stripped and overlapping.
	LlamaIndex = Layout{Name: "llamaindex", PathFields: []string{"file_path", "file_name", "ref_doc_id", "document_id", "doc_id"},
		NodeContentField: "_node_content", DocField: "ref_doc_id", Rules: Rules{Unit: AutoUnit, Trimmed: true, Overlap: true}}
	// ChromaDocs is the layout of Chroma's own documentation collection:
	// "slug", "chunk_id" (the order) and "line_no" (0-based); chunks do
	// not overlap.
	ChromaDocs = Layout{Name: "chroma-docs", PathFields: []string{"slug"}, OrderField: "chunk_id", LineField: "line_no"}
	// Chromafs is chromafs's own layout (page_slug, chunk_index), as
	// other writers of the format write it, possibly without sizes.
	Chromafs = Layout{Name: "chromafs", PathFields: []string{"page_slug"}, OrderField: "chunk_index"}
)

// Layouts are the known layouts, most specific first: a chunk is of the
// first layout it fits.
var Layouts = []Layout{Chromafs, ChromaDocs, LlamaIndex, LangChainJS, LangChain}

// LayoutNamed returns the known layout of that name.
func LayoutNamed(name string) (Layout, bool) {
	for _, l := range Layouts {
		if l.Name == name {
			return l, true
		}
	}
	return Layout{}, false
}

// fits reports whether a chunk's metadata has the fields that mark the
// layout: a page, and what places the chunk for the layouts that record
// it (LangChain's Python layout needs only "source").
func (l Layout) fits(md map[string]any) bool {
	if l.key(md) == "" {
		return false
	}
	switch {
	case l.NodeContentField != "":
		_, ok := md[l.NodeContentField].(string)
		return ok
	case l.Name == LangChain.Name:
		return true
	case l.OrderField != "":
		_, ok := md[l.OrderField]
		return ok
	case l.LineField != "":
		_, ok := md[l.LineField]
		return ok
	}
	return true
}

// key returns the chunk's page key, or "".
func (l Layout) key(md map[string]any) string {
	for _, f := range l.PathFields {
		if s, ok := md[f].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// piece makes a Piece of a chunk of the layout. A position field that is
// present but not a usable number is a problem: the piece lacks that
// position, and why says so.
func (l Layout) piece(id, text string, md map[string]any, seq int) (p Piece, why string) {
	p = Piece{ID: id, Text: text, Start: -1, End: -1, Line: -1, Order: -1, Seq: seq}
	bad := func(field string, v any) {
		if why == "" {
			why = fmt.Sprintf("chunk %s: %s is %s, not a non-negative integer", id, field, describe(v))
		}
	}
	get := func(field string, base int) int {
		if field == "" {
			return -1
		}
		v, ok := md[field]
		if !ok || v == nil {
			return -1
		}
		n, ok := integer(v)
		if !ok || n-base < 0 {
			bad(field, v)
			return -1
		}
		return n - base
	}
	p.Start = get(l.StartField, 0)
	p.End = get(l.EndField, 0)
	p.Line = get(l.LineField, l.LineBase)
	p.Order = get(l.OrderField, 0)
	if l.NodeContentField != "" {
		if s, ok := md[l.NodeContentField].(string); ok {
			var nc struct {
				Start   *json.Number `json:"start_char_idx"`
				End     *json.Number `json:"end_char_idx"`
				StartTS *json.Number `json:"startCharIdx"`
				EndTS   *json.Number `json:"endCharIdx"`
			}
			err := json.Unmarshal([]byte(s), &nc)
			if nc.Start == nil {
				nc.Start = nc.StartTS
			}
			if nc.End == nil {
				nc.End = nc.EndTS
			}
			if err != nil {
				if why == "" {
					why = fmt.Sprintf("chunk %s: %s is not JSON: %v", id, l.NodeContentField, err)
				}
			} else {
				if nc.Start != nil {
					if n, ok := integer(*nc.Start); ok && n >= 0 {
						p.Start = n
					} else {
						bad(l.NodeContentField+".start_char_idx", *nc.Start)
					}
				}
				if nc.End != nil {
					if n, ok := integer(*nc.End); ok && n >= 0 {
						p.End = n
					} else {
						bad(l.NodeContentField+".end_char_idx", *nc.End)
					}
				}
			}
		}
	}
	return p, why
}

// integer converts a metadata number (json.Number, a Go integer or an
// integral float) to an int.
func integer(v any) (int, bool) {
	switch v := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 0); err == nil {
			return int(n), true
		}
		f, err := v.Float64()
		if err != nil {
			return 0, false
		}
		return integer(f)
	case int:
		return v, true
	case int64:
		return int(v), true
	case int32:
		return int(v), true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int(v), true
		}
	}
	return 0, false
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return strconv.Quote(v)
	case nil:
		return "null"
	}
	s := fmt.Sprint(v)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// metadataKeys returns the keys of md, sorted, for reports.
func metadataKeys(md map[string]any) string {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return strings.Join(keys, ",")
}
