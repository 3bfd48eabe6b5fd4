package treeindex_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/chromafs/chromafs/tree"
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
		// A document of the earlier form (no checksum of its own), so
		// that the base64 decoder meets the broken bytes below.
		doc := base64.StdEncoding.AppendEncode([]byte(treeindex.DocumentHeader), payload)
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

// TestReadDocument: ReadDocument reads the header that ReadHeader reads
// from the decoded payload, and its blocks (decoded from the text when
// needed) give the same tree; a document whose text was altered fails its
// checksum; documents of the earlier form and with line breaks are read
// whole.
func TestReadDocument(t *testing.T) {
	for _, n := range []int{0, 1, 700, 3000} {
		es := genEntries(n, 21)
		payload, err := treeindex.Encode(es, "v", map[string]any{"k": "x"})
		if err != nil {
			t.Fatal(err)
		}
		want, err := treeindex.Decode(payload, tree.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		doc := treeindex.EncodeDocument(payload)
		b64 := base64.StdEncoding.EncodeToString(payload)
		forms := map[string][]byte{
			"current":     doc,
			"earlier":     []byte(treeindex.DocumentHeader + b64),
			"line breaks": []byte(treeindex.DocumentHeader + b64[:len(b64)/2/4*4] + "\r\n" + b64[len(b64)/2/4*4:]),
		}
		for name, d := range forms {
			h, err := treeindex.ReadDocument(d)
			if err != nil {
				t.Fatalf("%d entries, %s: %v", n, name, err)
			}
			if h.Stamp != "v" || h.Entries != n || h.Metadata["k"] != "x" {
				t.Fatalf("%d entries, %s: header %q %d %v", n, name, h.Stamp, h.Entries, h.Metadata)
			}
			ix, ok, err := h.Lazy(tree.Limits{}, nil)
			if err != nil || !ok {
				t.Fatalf("%d entries, %s: Lazy %v %v", n, name, ok, err)
			}
			sameEntries(t, ix.Tree.Entries(), want.Tree.Entries())
			if ix.Tree.Err() != nil {
				t.Fatal(ix.Tree.Err())
			}
			h, _ = treeindex.ReadDocument(d)
			eager, err := h.Decode(tree.Limits{})
			if err != nil {
				t.Fatalf("%d entries, %s: Decode: %v", n, name, err)
			}
			sameEntries(t, eager.Tree.Entries(), want.Tree.Entries())
		}
		// Any altered character of the text fails the document's checksum.
		for _, at := range []int{documentLine(doc), len(doc) / 2, len(doc) - 1} {
			d := bytes.Clone(doc)
			d[at] ^= 1
			if _, err := treeindex.ReadDocument(d); !errors.Is(err, treeindex.ErrCorrupt) {
				t.Fatalf("%d entries, byte %d altered: ReadDocument %v", n, at, err)
			}
			if _, err := treeindex.DecodeDocument(d); !errors.Is(err, treeindex.ErrCorrupt) {
				t.Fatalf("%d entries, byte %d altered: DecodeDocument %v", n, at, err)
			}
		}
		for _, bad := range [][]byte{nil, []byte("chromafs-tree-index/2 crc32c=zz\n"), []byte("{}"), doc[:len(doc)-3]} {
			if _, err := treeindex.ReadDocument(bad); !errors.Is(err, treeindex.ErrCorrupt) {
				t.Fatalf("ReadDocument(%.40q): %v", bad, err)
			}
		}
	}
}

// documentLine returns the length of a document's first line.
func documentLine(doc []byte) int { return bytes.IndexByte(doc, '\n') + 1 }
