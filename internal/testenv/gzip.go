package testenv

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// Sizes of GzipPadded's padding: a deflate block refers back at most
// window bytes, and the padding repeats one compressed chunk.
const (
	window = 32 << 10
	chunk  = 1 << 20
)

var spaces = bytes.Repeat([]byte{' '}, chunk)

// spaceChunk is chunk spaces compressed after a window of spaces, ending
// with a sync flush: deflate blocks that refer only to the spaces before
// them, so that copies of it can follow each other in a stream whose
// last window is spaces.
var spaceChunk = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	w, err := flate.NewWriterDict(&b, flate.BestCompression, spaces[:window])
	if err != nil {
		panic(err)
	}
	w.Write(spaces)
	if err := w.Flush(); err != nil {
		panic(err)
	}
	return b.Bytes()
})

// GzipPadded returns a gzip member (RFC 1952) whose inflated text is
// parts in turn, with n spaces where a part is the empty string: a
// compression bomb when n is large. It takes little time whatever n is
// (copies of one compressed mebibyte of spaces make up most of the
// padding, instead of compressing it), so tests can build bombs of
// gigabytes; the stream is about n/1000 bytes, as a compressor's would be.
func GzipPadded(n int, parts ...string) []byte {
	var out bytes.Buffer
	out.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}) // deflate, no name, no time, fastest compression, unknown OS
	w, err := flate.NewWriter(&out, flate.BestSpeed)
	if err != nil {
		panic(err)
	}
	var crc uint32
	var size uint32 // mod 2^32, as ISIZE is
	write := func(p []byte) {
		w.Write(p)
		crc = crc32.Update(crc, crc32.IEEETable, p)
		size += uint32(len(p))
	}
	for _, p := range parts {
		if p != "" {
			write([]byte(p))
			continue
		}
		left := n
		if left >= window+chunk {
			// A window of spaces through the compressor, then copies of
			// spaceChunk: the compressor's window is spaces before and
			// after them, so what it writes next refers to spaces either
			// way.
			write(spaces[:window])
			left -= window
			if err := w.Flush(); err != nil {
				panic(err)
			}
			for ; left >= chunk; left -= chunk {
				out.Write(spaceChunk())
				crc = crc32.Update(crc, crc32.IEEETable, spaces)
				size += chunk
			}
		}
		for left > 0 {
			k := min(left, chunk)
			write(spaces[:k])
			left -= k
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	out.Write(binary.LittleEndian.AppendUint32(nil, crc))
	out.Write(binary.LittleEndian.AppendUint32(nil, size))
	return out.Bytes()
}
