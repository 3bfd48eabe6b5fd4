package adopt

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// This file ports, for tests, the splitters whose chunks adopt
// reassembles, from their source:
//
//   - LangChain.js @langchain/textsplitters RecursiveCharacterTextSplitter
//     (text_splitter.ts: splitOnSeparator with keepSeparator, mergeSplits,
//     joinDocs's trim, createDocuments's loc.lines bookkeeping), lengths
//     in UTF-16 units as JavaScript counts them;
//   - LangChain (Python) langchain_text_splitters
//     RecursiveCharacterTextSplitter with add_start_index=True
//     (create_documents: start_index = text.find(chunk, max(0, index +
//     previous_chunk_len - chunk_overlap))), lengths in code points.
//
// JavaScript's text.split("") splits between UTF-16 units; the port
// splits between characters instead (the tests' text has no word longer
// than a chunk that holds a character outside the BMP).

type lcSplitter struct {
	size, overlap int
	length        func(string) int
}

func newJSSplitter(size, overlap int) *lcSplitter {
	return &lcSplitter{size, overlap, func(s string) int { return unitLen(s, UTF16) }}
}

func newPySplitter(size, overlap int) *lcSplitter {
	return &lcSplitter{size, overlap, utf8.RuneCountInString}
}

var lcSeparators = []string{"\n\n", "\n", " ", ""}

func (sp *lcSplitter) split(text string) []string { return sp.splitText(text, lcSeparators) }

func (sp *lcSplitter) splitText(text string, seps []string) []string {
	var final []string
	sep := seps[len(seps)-1]
	var next []string
	for i, s := range seps {
		if s == "" {
			sep = s
			break
		}
		if strings.Contains(text, s) {
			sep = s
			next = seps[i+1:]
			break
		}
	}
	splits := splitKeep(text, sep)
	var good []string
	for _, s := range splits {
		if sp.length(s) < sp.size {
			good = append(good, s)
			continue
		}
		if len(good) > 0 {
			final = append(final, sp.merge(good)...)
			good = nil
		}
		if len(next) == 0 {
			final = append(final, s)
		} else {
			final = append(final, sp.splitText(s, next)...)
		}
	}
	if len(good) > 0 {
		final = append(final, sp.merge(good)...)
	}
	return final
}

// splitKeep splits text before every occurrence of sep (keepSeparator:
// the separator starts the next split), dropping empty splits.
func splitKeep(text, sep string) []string {
	var out []string
	if sep == "" {
		for _, r := range text {
			out = append(out, string(r))
		}
		return out
	}
	out = append(out, regexp.MustCompile(regexp.QuoteMeta(sep)).Split(text, -1)...)
	// Re-attach the separator to the start of every split but the first.
	for i := 1; i < len(out); i++ {
		out[i] = sep + out[i]
	}
	kept := out[:0]
	for _, s := range out {
		if s != "" {
			kept = append(kept, s)
		}
	}
	return kept
}

func (sp *lcSplitter) merge(splits []string) []string {
	var docs, cur []string
	total := 0
	for _, d := range splits {
		n := sp.length(d)
		if total+n > sp.size {
			if len(cur) > 0 {
				if doc := strings.TrimSpace(strings.Join(cur, "")); doc != "" {
					docs = append(docs, doc)
				}
				for total > sp.overlap || (total+n > sp.size && total > 0) {
					total -= sp.length(cur[0])
					cur = cur[1:]
				}
			}
		}
		cur = append(cur, d)
		total += n
	}
	if doc := strings.TrimSpace(strings.Join(cur, "")); doc != "" {
		docs = append(docs, doc)
	}
	return docs
}

// jsPieces splits text as LangChain.js's createDocuments does and
// returns the chunks with their 0-based first lines (loc.lines.from - 1).
func jsPieces(sp *lcSplitter, text string) []Piece {
	// UTF-16 offsets of text's bytes, to turn strings.Index's byte
	// offsets into JavaScript's indexOf offsets.
	at16 := make([]int, len(text)+1)
	n := 0
	for i, r := range text {
		for j := i; j < i+utf8.RuneLen(r); j++ {
			at16[j] = n // continuation bytes: the character's offset
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	at16[len(text)] = n
	// byteAt returns the first byte at or after UTF-16 offset i16.
	byteAt := func(i16 int) int { return sort.SearchInts(at16, i16) }
	indexOf := func(chunk string, from16 int) int {
		from := byteAt(from16)
		if i := strings.Index(text[from:], chunk); i >= 0 {
			return at16[from+i]
		}
		return -1
	}
	newlines := func(a, b int) int { return strings.Count(text[byteAt(a):byteAt(b)], "\n") }
	var ps []Piece
	line := 1
	prev, prevAt := "", -1
	for i, chunk := range sp.split(text) {
		at := indexOf(chunk, prevAt+1)
		if i == 0 {
			line += newlines(0, at)
		} else {
			end := prevAt + sp.length(prev)
			if end < at {
				line += newlines(end, at)
			} else if end > at {
				line -= newlines(at, end)
			}
		}
		ps = append(ps, Piece{ID: idOf(i), Text: chunk, Start: -1, End: -1, Line: line - 1, Order: -1, Seq: i})
		line += strings.Count(chunk, "\n")
		prev, prevAt = chunk, at
	}
	return ps
}

// pyPieces splits text as LangChain's create_documents with
// add_start_index=True does: start_index in code points.
func pyPieces(sp *lcSplitter, text string) []Piece {
	var starts []int // byte offset of each code point
	for i := range text {
		starts = append(starts, i)
	}
	starts = append(starts, len(text))
	find := func(chunk string, from int) int {
		from = max(from, 0)
		if from >= len(starts) {
			return -1
		}
		i := strings.Index(text[starts[from]:], chunk)
		if i < 0 {
			return -1
		}
		b := starts[from] + i
		lo, hi := from, len(starts)-1
		for lo < hi { // the code point at byte b
			mid := (lo + hi) / 2
			if starts[mid] < b {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo
	}
	var ps []Piece
	index, prevLen := 0, 0
	for i, chunk := range sp.split(text) {
		index = find(chunk, index+prevLen-sp.overlap)
		ps = append(ps, Piece{ID: idOf(i), Text: chunk, Start: index, End: -1, Line: -1, Order: -1, Seq: i})
		prevLen = sp.length(chunk)
	}
	return ps
}

func idOf(i int) string { return fmt.Sprintf("c%03d", i) }
