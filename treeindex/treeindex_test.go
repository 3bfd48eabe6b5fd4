package treeindex_test

import (
	"encoding/binary"

	"bytes"
	"errors"
	"fmt"
	"github.com/klauspost/compress/zstd"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// genEntries returns n valid entries like the ones ingest writes: nested
// slugs, 10% private with one or two groups, every field set, some with
// a URL, nanosecond times, foreign hashes or split lines.
func genEntries(n int, seed uint64) []tree.Entry {
	r := rand.New(rand.NewPCG(seed, 7))
	sections := []string{"guides", "api", "reference", "sdk", "tutorials", "concepts", "deploy", "security"}
	topics := []string{"auth", "billing", "webhooks", "users", "projects", "storage", "v1", "v2"}
	words := []string{"oauth", "setup", "getting", "started", "overview", "tokens", "rate", "limits",
		"errors", "pagination", "quickstart", "migration", "config", "install", "keys", "scopes", "héllo"}
	groups := []string{"admin", "billing", "enterprise", "beta", "internal", "support"}
	types := []string{"text/markdown", "application/json", "text/plain", ""}
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	seen := map[string]bool{}
	var es []tree.Entry
	for len(es) < n {
		var b strings.Builder
		depth := 1 + r.IntN(5)
		for d := 0; d < depth-1; d++ {
			switch d {
			case 0:
				b.WriteString(sections[r.IntN(len(sections))])
			case 1:
				b.WriteString(topics[r.IntN(len(topics))])
			default:
				b.WriteString(words[r.IntN(len(words))] + "s")
			}
			b.WriteByte('/')
		}
		fmt.Fprintf(&b, "%s-%d.md", words[r.IntN(len(words))], len(es))
		slug := b.String()
		if seen[slug] {
			continue
		}
		seen[slug] = true
		e := tree.Entry{Slug: slug, IsPublic: true, HasIsPublic: true, Groups: []string{}}
		if r.IntN(10) == 0 {
			e.IsPublic = false
			e.Groups = []string{groups[r.IntN(len(groups))]}
			if r.IntN(3) == 0 {
				e.Groups = append(e.Groups, groups[r.IntN(len(groups))])
			}
		}
		e.Size = r.Int64N(40000)
		e.Chunks = int(e.Size/1500) + 1
		e.ModTime = time.Unix(base+r.Int64N(3*365*86400), 0).UTC()
		if r.IntN(50) == 0 {
			e.ModTime = e.ModTime.Add(time.Duration(r.IntN(1e9)))
		}
		e.Hash = fmt.Sprintf("sha256:%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
		switch r.IntN(40) {
		case 0:
			e.Hash = "md5:0123"
		case 1:
			e.Hash = ""
			e.Size = -1
			e.ModTime = time.Time{}
			e.Chunks = 0
		case 2:
			e.URL = "https://example.com/" + slug
		case 3:
			e.SplitLines = true
		case 4:
			e.Groups = nil
		case 5:
			e.HasIsPublic = false
			e.IsPublic = false
		case 6:
			e.Parts = fmt.Sprintf(`{"v":1,"p":[["c-%d",0,""],["ünï-%d",%d,"\n"]],"t":"\n"}`, len(es), len(es), len(es)%200)
		}
		e.ContentType = types[r.IntN(len(types))]
		es = append(es, e)
	}
	return es
}

// sameEntries reports the first difference between two entry lists.
func sameEntries(t *testing.T, got, want []tree.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("entry %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	meta := map[string]any{"chromafs_chunk_ids": "slug#index", "chromafs_line_aligned": true, "n": 3.0}
	for _, tc := range []struct {
		name string
		n    int
		opt  treeindex.Options
	}{
		{"empty", 0, treeindex.Options{}},
		{"one", 1, treeindex.Options{}},
		{"zstd", 9000, treeindex.Options{}},
		{"stored", 5000, treeindex.Options{Stored: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := genEntries(tc.n, 1)
			want := tree.New(es).Entries()
			payload, err := treeindex.EncodeWith(es, "v123", meta, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := treeindex.EncodeWith(es, "v123", meta, tc.opt)
			if !bytes.Equal(payload, again) {
				t.Error("two encodings of the same entries differ")
			}
			doc := treeindex.EncodeDocument(payload)
			p2, err := treeindex.DecodeDocument(doc)
			if err != nil || !bytes.Equal(p2, payload) {
				t.Fatalf("DecodeDocument: %v", err)
			}
			ix, err := treeindex.Decode(payload, tree.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if ix.Stamp != "v123" || !reflect.DeepEqual(ix.Metadata, meta) {
				t.Errorf("stamp %q metadata %v", ix.Stamp, ix.Metadata)
			}
			sameEntries(t, ix.Tree.Entries(), want)
		})
	}
}

func TestEncodeRefusesInvalid(t *testing.T) {
	for _, es := range [][]tree.Entry{
		{{Slug: "../x", Size: -1}},
		{{Slug: "a", Size: -1}, {Slug: "a/b", Size: -1}},
		{{Slug: "a", Size: -1}, {Slug: "a", Size: -1}},
	} {
		if _, err := treeindex.Encode(es, "v", nil); err == nil {
			t.Errorf("Encode(%v) succeeded", es)
		}
	}
}

// corruptions of a valid payload and the errors they must give.
func TestDecodeCorrupt(t *testing.T) {
	es := genEntries(6000, 2)
	good, err := treeindex.Encode(es, "v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := treeindex.EncodeWith(es[:50], "v1", nil, treeindex.Options{Stored: true})
	if err != nil {
		t.Fatal(err)
	}
	dup := append(genEntries(3, 3), genEntries(3, 3)[0])
	dupPayload := encodeUnchecked(t, dup)
	cases := []struct {
		name    string
		payload []byte
		want    error
		msg     string
	}{
		{"empty", nil, treeindex.ErrCorrupt, "bad magic"},
		{"json", []byte(`{"a":{}}`), treeindex.ErrCorrupt, "bad magic"},
		{"newer", append([]byte("CFTI\x03"), good[5:]...), treeindex.ErrCorrupt, "format version 3"},
		{"truncated", good[:len(good)/2], treeindex.ErrCorrupt, ""},
		{"trailing", reseal(append(unseal(good), 0)), treeindex.ErrCorrupt, "follow the header"},
		{"codec", reseal(append(append([]byte(nil), good[:5]...), append([]byte{9}, unseal(good)[6:]...)...)), treeindex.ErrCorrupt, "unknown codec"},
		{"flipped block byte", reseal(flip(unseal(good), len(good)-100)), treeindex.ErrCorrupt, "block"},
		{"flipped byte", flip(stored, len(stored)-len(stored)/3), treeindex.ErrCorrupt, "checksum mismatch"},
		{"slug out of order", dupPayload, treeindex.ErrCorrupt, "out of path order"},
		{"duplicate slug", pathsPayload([]string{"a/b.md", "a/b.md"}, 0), treeindex.ErrCorrupt, "duplicate slug"},
		{"clash", pathsPayload([]string{"a/b", "a/b/c.md"}, 0), treeindex.ErrCorrupt, "clash"},
		{"unsorted", pathsPayload([]string{"a/c.md", "a/b.md"}, 0), treeindex.ErrCorrupt, "out of path order"},
		{"dir after its sibling", pathsPayload([]string{"a/b.md", "a/b/c.md"}, 0), treeindex.ErrCorrupt, "out of path order"},
		{"dot dot", pathsPayload([]string{"a/../b.md"}, 0), treeindex.ErrCorrupt, ".. element"},
		{"dot dot, front-coded", pathsPayload([]string{"a/x.md", "a/y/../z"}, 2), treeindex.ErrCorrupt, ".. element"},
		{"dot dot cut by the shared prefix", pathsPayload([]string{"a/.-x", "a/../y"}, 3), treeindex.ErrCorrupt, ".. element"},
		{"dot element", pathsPayload([]string{"a/-", "a/./y"}, 2), treeindex.ErrCorrupt, ". element"},
		{"empty element", pathsPayload([]string{"a", "b//c"}, 0), treeindex.ErrCorrupt, "empty element"},
		{"absolute", pathsPayload([]string{"/a"}, 0), treeindex.ErrCorrupt, "absolute"},
		{"control character", pathsPayload([]string{"a/b", "a/c\x01"}, 2), treeindex.ErrCorrupt, "control character"},
		{"invalid UTF-8 cut by the prefix", pathsPayload([]string{"a/\xc3\xa9", "a/\xc3\xff"}, 3), treeindex.ErrCorrupt, "invalid UTF-8"},
		{"empty slug", pathsPayload([]string{""}, 0), treeindex.ErrCorrupt, "empty slug"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := treeindex.Decode(tc.payload, tree.Limits{})
			if !errors.Is(err, tc.want) || !errors.Is(err, tree.ErrMalformed) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Decode: %v; want an error wrapping %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
	if _, err := treeindex.DecodeDocument([]byte("chromafs-tree-index/1\n!!!")); !errors.Is(err, treeindex.ErrCorrupt) {
		t.Errorf("DecodeDocument of bad base64: %v", err)
	}
	if _, err := treeindex.DecodeDocument([]byte(`{"a":{}}`)); !errors.Is(err, treeindex.ErrCorrupt) {
		t.Errorf("DecodeDocument of JSON: %v", err)
	}
}

// encodeUnchecked builds a stored payload of entries in the given order,
// without Encode's validation, as a hostile writer could.
func encodeUnchecked(t *testing.T, es []tree.Entry) []byte {
	t.Helper()
	// Encode each entry alone and splice the blocks: simplest is to
	// encode with distinct slugs and patch the bytes of one slug.
	renamed := make([]tree.Entry, len(es))
	copy(renamed, es)
	last := &renamed[len(renamed)-1]
	orig := last.Slug
	last.Slug = strings.Repeat("z", len(orig))
	p, err := treeindex.EncodeWith(renamed, "v", nil, treeindex.Options{Stored: true})
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(p, []byte(last.Slug))
	if i < 0 {
		t.Fatal("slug not found")
	}
	// The last path is front-coded against the one before; write it
	// whole: it shares nothing with "zzz...".
	copy(p[i:], orig)
	return reseal(unseal(p))
}

// unseal drops a payload's checksum, reseal appends it.
func unseal(p []byte) []byte { return bytes.Clone(p[:len(p)-4]) }

func reseal(p []byte) []byte {
	return binary.LittleEndian.AppendUint32(p, crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)))
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x5a
	return c
}

// TestBomb: an index whose one block claims to inflate to far more than
// the limits allow fails before inflating, and a block that inflates to
// more than it declares fails too.
func TestBomb(t *testing.T) {
	es := genEntries(2000, 4)
	good, err := treeindex.Encode(es, "v", nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := treeindex.ReadHeader(good)
	if err != nil {
		t.Fatal(err)
	}
	if h.Entries != 2000 || h.Stamp != "v" {
		t.Fatalf("header %+v", h)
	}
	// Tight limits: the first block's raw bytes exceed BaseBytes plus 0
	// entries' allowance only when BaseBytes is... use MaxBytes.
	_, err = treeindex.Decode(good, tree.Limits{MaxBytes: 1000})
	if !errors.Is(err, tree.ErrTooLarge) || !strings.Contains(err.Error(), "Limits.MaxBytes") {
		t.Fatalf("Decode with MaxBytes 1000: %v", err)
	}
	_, err = treeindex.Decode(good, tree.Limits{BytesPerEntry: 1})
	if err != nil {
		t.Fatalf("a normal index within 1 byte per entry beyond BaseBytes: %v", err)
	}
	bomb := zeroBomb(t, 64<<20)
	start := time.Now()
	_, err = treeindex.Decode(bomb, tree.Limits{})
	if !errors.Is(err, tree.ErrTooLarge) && !errors.Is(err, treeindex.ErrCorrupt) {
		t.Fatalf("bomb: %v", err)
	}
	t.Logf("bomb of %d bytes: %v after %v", len(bomb), err, time.Since(start))
}

// handPayload builds a zstd payload of one block by hand: declared
// entries and raw size, and the given encoded bytes.
func handPayload(entries, raw int, enc []byte) []byte {
	var h []byte
	h = binary.AppendUvarint(h, 0) // stamp
	h = binary.AppendUvarint(h, 2) // metadata
	h = append(h, "{}"...)         //
	h = binary.AppendUvarint(h, 0) // groups
	h = binary.AppendUvarint(h, 0) // content types
	h = binary.AppendUvarint(h, 1) // rules
	h = append(h, 3, 0)            // public
	h = binary.AppendUvarint(h, uint64(entries))
	h = binary.AppendUvarint(h, 1) // blocks
	h = binary.AppendUvarint(h, uint64(entries))
	h = binary.AppendUvarint(h, uint64(raw))
	h = binary.AppendUvarint(h, uint64(len(enc)))
	p := append([]byte("CFTI\x01\x01"), binary.AppendUvarint(nil, uint64(len(h)))...)
	p = append(p, h...)
	return reseal(append(p, enc...))
}

// pathsPayload builds a stored payload of one block holding public
// entries with the given paths, in the given order, each sharing shared
// bytes (at most those of the path before) with the path before it: an
// index no Encode writes, as a hostile writer could.
func pathsPayload(paths []string, shared int) []byte {
	var block []byte
	prev := ""
	for _, p := range paths {
		n := min(shared, len(prev), len(p))
		for n > 0 && p[:n] != prev[:n] {
			n--
		}
		block = binary.AppendUvarint(block, uint64(n))
		block = binary.AppendUvarint(block, uint64(len(p)-n))
		block = append(block, p[n:]...)
		prev = p
	}
	for range paths {
		block = append(block, 0, 0, 0, 0, 0) // flags, rule, size+1, chunks, type
	}
	var h []byte
	h = binary.AppendUvarint(h, 1) // stamp
	h = append(h, 'v')
	h = binary.AppendUvarint(h, 2) // metadata
	h = append(h, "{}"...)
	h = binary.AppendUvarint(h, 0) // groups
	h = binary.AppendUvarint(h, 0) // content types
	h = binary.AppendUvarint(h, 1) // rules
	h = append(h, 3, 0)            // public
	h = binary.AppendUvarint(h, uint64(len(paths)))
	h = binary.AppendUvarint(h, 1) // blocks
	h = binary.AppendUvarint(h, uint64(len(paths)))
	h = binary.AppendUvarint(h, uint64(len(block)))
	h = binary.AppendUvarint(h, uint64(len(block)))
	p := append([]byte("CFTI\x01\x00"), binary.AppendUvarint(nil, uint64(len(h)))...)
	p = append(p, h...)
	return reseal(append(p, block...))
}

// TestPathsPayload: pathsPayload makes indexes that decode when their
// paths are valid and in order, so that TestDecodeCorrupt's failures are
// the paths'.
func TestPathsPayload(t *testing.T) {
	ix, err := treeindex.Decode(pathsPayload([]string{"a/b.md", "a/b/c.md", "a/c.md", "b"}, 3), tree.Limits{})
	if err == nil {
		t.Fatalf("decoded an unsorted index: %v", ix.Tree.Entries())
	}
	ix, err = treeindex.Decode(pathsPayload([]string{"a/b/c.md", "a/b.md", "a/c.md", "a-b", "b", "\xc3\xa9/x"}, 3), tree.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ix.Tree.Entries() {
		got = append(got, e.Slug)
	}
	if want := []string{"a/b/c.md", "a/b.md", "a/c.md", "a-b", "b", "\xc3\xa9/x"}; !slices.Equal(got, want) {
		t.Fatalf("slugs %q, want %q", got, want)
	}
}

// zeroBomb returns a payload whose block is size zero bytes, compressed.
func zeroBomb(t *testing.T, size int) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	z := enc.EncodeAll(make([]byte, size), nil)
	return handPayload(1, min(size, 16<<20), z)
}

// TestBombs: blocks that claim or hold more than the limits allow fail
// before or while inflating, within a bounded size.
func TestBombs(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	small := enc.EncodeAll(make([]byte, 8<<20), nil)
	for _, tc := range []struct {
		name    string
		payload []byte
		want    error
		msg     string
	}{
		{"declares 8 MiB for one entry", handPayload(1, 8<<20, small), tree.ErrTooLarge, "Limits.BytesPerEntry"},
		{"declares 100 bytes, holds 8 MiB", handPayload(1, 100, small), treeindex.ErrCorrupt, "block 0"},
		{"declares 1 GiB", handPayload(1, 1<<30, small), treeindex.ErrCorrupt, "raw bytes"},
		{"declares a billion entries", handPayload(1e9, 100, small), treeindex.ErrCorrupt, "entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := treeindex.Decode(tc.payload, tree.Limits{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Decode: %v; want %v with %q", err, tc.want, tc.msg)
			}
		})
	}
}
