// Package adopt makes a filesystem of a collection that another tool
// wrote: LangChain (JavaScript or Python), LlamaIndex, Chroma's own docs
// layout, a pipeline of one's own, or chromafs's layout without the
// compact index. It reads every record once, recognises the writer's
// layout from the chunks' metadata, reassembles each page from its
// chunks, and says, page by page, how exact the reassembly is.
//
// Writers of this kind cut a page into chunks that overlap (LangChain's
// chunkOverlap, 200 characters by default) and trim whitespace at both
// ends of each chunk, and record where a chunk came from in different
// ways: a line number (LangChain.js's loc.lines), a character offset
// counted in UTF-16 units (JavaScript) or code points (Python), or only
// the page. [Assemble] puts a page together from such chunks: offsets
// where they exist, else the overlap, found in the text and checked
// against the line numbers, and otherwise a guess, never presented as
// exact (see [Exactness]).
//
// adopt never changes, re-embeds or deletes a record it did not write.
package adopt
