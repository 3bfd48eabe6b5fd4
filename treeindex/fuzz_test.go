package treeindex_test

import (
	"testing"

	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// FuzzDecode: Decode never panics, stays within its limits, and what it
// accepts is a valid tree that encodes to an index decoding to the same
// entries.
func FuzzDecode(f *testing.F) {
	es := genEntries(40, 5)
	for _, opt := range []treeindex.Options{{}, {Stored: true}} {
		p, err := treeindex.EncodeWith(es, "v", map[string]any{"k": true}, opt)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p)
		f.Add(unseal(p))
		f.Add(p[:len(p)/2])
	}
	empty, err := treeindex.Encode(nil, "", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(empty)
	f.Add([]byte("CFTI\x01\x00"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		// Without the checksum the fuzzer would rarely get past it:
		// seal what it makes, so that the decoder's checks are reached.
		for _, p := range [][]byte{payload, reseal(append([]byte(nil), payload...))} {
			lazy := fuzzLazy(t, p)
			ix, err := treeindex.Decode(p, tree.Limits{MaxBytes: 64 << 20})
			if err != nil {
				continue
			}
			if lazy != nil {
				// What Decode accepts, the lazy tree serves whole, also
				// when it reads the blocks from a document's text.
				if lazy.Err() != nil {
					t.Fatalf("lazy tree of a valid index: %v", lazy.Err())
				}
				sameEntries(t, lazy.Entries(), ix.Tree.Entries())
				h, err := treeindex.ReadDocument(treeindex.EncodeDocument(p))
				if err != nil {
					t.Fatalf("ReadDocument of a valid index: %v", err)
				}
				fromDoc, ok, err := h.Lazy(tree.Limits{MaxBytes: 64 << 20}, nil)
				if err != nil || !ok {
					t.Fatalf("Lazy of a document: %v %v", ok, err)
				}
				sameEntries(t, fromDoc.Tree.Entries(), ix.Tree.Entries())
			}
			if len(ix.Tree.Problems()) > 0 {
				t.Fatalf("accepted an index with problems: %v", ix.Tree.Problems())
			}
			again, err := treeindex.Encode(ix.Tree.Entries(), ix.Stamp, ix.Metadata)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			ix2, err := treeindex.Decode(again, tree.Limits{})
			if err != nil {
				t.Fatalf("decode the re-encoded index: %v", err)
			}
			sameEntries(t, ix2.Tree.Entries(), ix.Tree.Entries())
		}
	})
}

// fuzzLazy reads p as a lazy tree, if it is one, and uses all of it: it
// must not panic, whatever the blocks hold.
func fuzzLazy(t *testing.T, p []byte) *tree.Tree {
	// The same payload read from a document's text, blocks decoded from
	// it: no panic either.
	if h, err := treeindex.ReadDocument(treeindex.EncodeDocument(p)); err == nil {
		useLazy(h)
	}
	h, err := treeindex.ReadHeader(p)
	if err != nil {
		return nil
	}
	return useLazy(h)
}

// useLazy makes the lazy tree of h, if it is one, and uses all of it.
func useLazy(h *treeindex.Header) *tree.Tree {
	ix, ok, err := h.Lazy(tree.Limits{MaxBytes: 64 << 20}, nil)
	if err != nil || !ok {
		return nil
	}
	lz := ix.Tree
	for _, gs := range [][]string{nil, lz.Groups()} {
		v := lz.View(gs)
		v.Walk(func(n *tree.Node) bool {
			v.ModTime(n)
			v.ReadDir(n.Path)
			return true
		})
	}
	return lz
}
