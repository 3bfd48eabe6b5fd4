package ingest

import (
	"bytes"
	"unicode/utf8"
)

// Chunk cuts content into chunks of about maxChunk bytes, as described in
// the package documentation: at line ends where it can, and inside a line
// (at a rune boundary) only when the line alone is longer than maxChunk,
// which sets splitLines. Joining the chunks with "" gives content back.
// Empty content is one empty chunk; otherwise no chunk is empty. A chunk
// is longer than maxChunk only when it is a single rune longer than
// maxChunk. A maxChunk below 1 is taken as 1.
func Chunk(content []byte, maxChunk int) (chunks []string, splitLines bool) {
	if len(content) == 0 {
		return []string{""}, false
	}
	maxChunk = max(maxChunk, 1)
	start, pos := 0, 0 // the current chunk is content[start:pos]
	for pos < len(content) {
		end := len(content)
		if i := bytes.IndexByte(content[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		if end-start <= maxChunk { // the line fits the current chunk
			pos = end
			continue
		}
		if pos > start {
			chunks = append(chunks, string(content[start:pos]))
			start = pos
		}
		if end-start > maxChunk { // the line alone is too long
			splitLines = true
			for end-start > maxChunk {
				n := runeCut(content[start:end], maxChunk)
				chunks = append(chunks, string(content[start:start+n]))
				start += n
			}
		}
		// The line, or what is left of it, starts the next chunk.
		pos = end
	}
	if pos > start {
		chunks = append(chunks, string(content[start:pos]))
	}
	return chunks, splitLines
}

// runeCut returns where to cut b, which is longer than size: at the last
// rune boundary at or before size, or after the first rune if that alone
// is longer than size. Where b is not valid UTF-8 it may cut at size.
func runeCut(b []byte, size int) int {
	for i := size; i > 0 && i > size-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	_, w := utf8.DecodeRune(b)
	return max(w, size)
}
