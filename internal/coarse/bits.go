package coarse

import "encoding/binary"

// Bits is an immutable record of the answers for one key: bit i of known
// says that entry i of the tree (tree.Tree.Entries) was asked, bit i of
// hit that it may contain a literal. A nil *Bits knows nothing.
type Bits struct {
	known, hit []uint64
}

// Has reports whether entry i was asked and, if so, its answer.
func (b *Bits) Has(i int) (known, hit bool) {
	if b == nil || i>>6 >= len(b.known) {
		return false, false
	}
	m := uint64(1) << (i & 63)
	return b.known[i>>6]&m != 0, b.hit[i>>6]&m != 0
}

// With returns a copy of b (which may be nil), for a tree of entries
// entries, that also records the answers for the entries asked; hit
// reports the answer of asked[k].
func (b *Bits) With(entries int, asked []int, hit func(k int) bool) *Bits {
	words := (entries + 63) >> 6
	out := &Bits{known: make([]uint64, words), hit: make([]uint64, words)}
	if b != nil {
		copy(out.known, b.known)
		copy(out.hit, b.hit)
	}
	for k, i := range asked {
		m := uint64(1) << (i & 63)
		out.known[i>>6] |= m
		if hit(k) {
			out.hit[i>>6] |= m
		} else {
			out.hit[i>>6] &^= m
		}
	}
	return out
}

// Merge returns the answers of b and o together (b's where both know a
// page); either may be nil.
func (b *Bits) Merge(o *Bits) *Bits {
	if o == nil {
		return b
	}
	if b == nil {
		return o
	}
	n := max(len(b.known), len(o.known))
	out := &Bits{known: make([]uint64, n), hit: make([]uint64, n)}
	for i := range n {
		var bk, bh, ok, oh uint64
		if i < len(b.known) {
			bk, bh = b.known[i], b.hit[i]
		}
		if i < len(o.known) {
			ok, oh = o.known[i], o.hit[i]
		}
		out.known[i] = bk | ok
		out.hit[i] = bh&bk | oh&ok&^bk
	}
	return out
}

// Encode is b as bytes: known and hit, 8 bytes a word, little-endian.
func (b *Bits) Encode() []byte {
	out := make([]byte, 0, 16*len(b.known))
	for _, w := range b.known {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	for _, w := range b.hit {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	return out
}

// Decode decodes what Encode made for a tree of entries entries; nil
// when v does not have that shape.
func Decode(v []byte, entries int) *Bits {
	words := (entries + 63) >> 6
	if len(v) != 16*words {
		return nil
	}
	b := &Bits{known: make([]uint64, words), hit: make([]uint64, words)}
	for i := range words {
		b.known[i] = binary.LittleEndian.Uint64(v[8*i:])
		b.hit[i] = binary.LittleEndian.Uint64(v[8*(words+i):])
	}
	return b
}
