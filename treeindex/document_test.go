package treeindex_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/chromafs/chromafs/treeindex"
)

// TestDecodeDocumentParts: DecodeDocument, which decodes a large
// document in parts at once, accepts and returns exactly what one
// base64 decode of the whole does, for valid documents of sizes around
// the parts' boundaries and for documents broken anywhere.
func TestDecodeDocumentParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	r := rand.New(rand.NewPCG(7, 8))
	whole := func(doc []byte) ([]byte, bool) {
		b64 := doc[len(treeindex.DocumentHeader):]
		out := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
		n, err := base64.StdEncoding.Decode(out, b64)
		return out[:n], err == nil
	}
	for _, size := range []int{0, 1, 2, 3, 100, 600 << 10, 600<<10 + 1, 600<<10 + 2} {
		payload := make([]byte, size)
		for i := range payload {
			payload[i] = byte(r.Uint32())
		}
		doc := treeindex.EncodeDocument(payload)
		got, err := treeindex.DecodeDocument(doc)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("size %d: %d bytes back, %v", size, len(got), err)
		}
		if size < 1000 {
			continue
		}
		b64 := len(doc) - len(treeindex.DocumentHeader)
		broken := map[string][]byte{}
		for _, at := range []int{0, b64/3 - 1, b64 / 3, b64 - 1, r.IntN(b64)} {
			for _, c := range []byte{'!', '=', '\n', 'A'} {
				d := bytes.Clone(doc)
				d[len(treeindex.DocumentHeader)+at] = c
				broken[string(rune(c))+"@"+string(rune('0'+at%10))] = d
			}
		}
		// Padding where a middle part ends.
		third := b64 / 3 &^ 3
		d := bytes.Clone(doc)
		copy(d[len(treeindex.DocumentHeader)+third-2:], "==")
		broken["padding at a part's end"] = d
		broken["trailing"] = append(bytes.Clone(doc), 'A')
		broken["trailing group"] = append(bytes.Clone(doc), "AAAA"...)
		for name, d := range broken {
			want, ok := whole(d)
			got, err := treeindex.DecodeDocument(d)
			if ok != (err == nil) || ok && !bytes.Equal(got, want) {
				t.Fatalf("size %d, %s: DecodeDocument gave %d bytes, %v; one decode %d bytes, ok %v", size, name, len(got), err, len(want), ok)
			}
			if err != nil && !errors.Is(err, treeindex.ErrCorrupt) {
				t.Fatalf("size %d, %s: %v does not wrap ErrCorrupt", size, name, err)
			}
		}
	}
}
