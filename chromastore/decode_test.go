package chromastore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
)

// treeAnswer returns Chroma's answer to the get of a tree record whose
// document is n bytes of base64, as gzip+base64 trees are (gzip output is
// incompressible, so random bytes stand for it).
func treeAnswer(n int) []byte {
	raw := make([]byte, n*3/4)
	r := rand.NewChaCha8([32]byte{1})
	_, _ = r.Read(raw)
	doc := base64.StdEncoding.EncodeToString(raw)
	return fmt.Appendf(nil, `{"ids":["__path_tree__"],"embeddings":null,"documents":[%q],"uris":null,`+
		`"metadatas":[{"_system":true,"chromafs_chunk_ids":"slug#index","chromafs_tree":"gzip+base64","pages":%d}],`+
		`"include":["documents","metadatas"]}`, doc, n/80)
}

// chunkAnswer returns Chroma's answer to a get of PageSize chunks of about
// 1 KiB of markdown each (with the escapes that newlines and quotes need).
func chunkAnswer() []byte {
	var ids, docs, metas []string
	line := `Call **POST /v1/users** with "name" and <email>; see [auth](../auth.md).` + "\n"
	for i := range PageSize {
		slug := fmt.Sprintf("reference/api/users-%d.md", i/9)
		ids = append(ids, fmt.Sprintf("%q", collection.ChunkID(slug, i%9)))
		b, _ := json.Marshal(strings.Repeat(line, 1024/len(line)))
		docs = append(docs, string(b))
		metas = append(metas, fmt.Sprintf(`{"page_slug":%q,"chunk_index":%d}`, slug, i%9))
	}
	return fmt.Appendf(nil, `{"ids":[%s],"embeddings":null,"documents":[%s],"uris":null,"metadatas":[%s],"include":["documents","metadatas"]}`,
		strings.Join(ids, ","), strings.Join(docs, ","), strings.Join(metas, ","))
}

// v1Result is getResult as it was decoded with encoding/json.
type v1Result struct {
	IDs       []string         `json:"ids"`
	Documents []*string        `json:"documents"`
	Metadatas []map[string]any `json:"metadatas"`
}

// decodeV1 is the old decoding: encoding/json with UseNumber, streaming
// from the body, and the tree document copied out of its string.
func decodeV1(answer []byte) ([]byte, map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.UseNumber()
	var res v1Result
	if err := dec.Decode(&res); err != nil {
		return nil, nil, err
	}
	var doc string
	if res.Documents[0] != nil {
		doc = *res.Documents[0]
	}
	return []byte(doc), plainMetadata(res.Metadatas[0]), nil
}

// decodeV2 is the new decoding, as rest.do and Tree do it.
func decodeV2(answer []byte) ([]byte, map[string]any, error) {
	data, err := readBody(bytes.NewReader(answer), int64(len(answer)))
	if err != nil {
		return nil, nil, err
	}
	var res treeResult
	if err := res.decodeAnswer(data); err != nil {
		return nil, nil, err
	}
	return res.Documents[0], plainMetadata(res.Metadatas[0]), nil
}

// decodeV2Whole is decodeV2 without cutting long strings out.
func decodeV2Whole(answer []byte) ([]byte, map[string]any, error) {
	data, err := readBody(bytes.NewReader(answer), int64(len(answer)))
	if err != nil {
		return nil, nil, err
	}
	var res treeResult
	if err := jsonv2.Unmarshal(data, &res, decodeOptions); err != nil {
		return nil, nil, err
	}
	return res.Documents[0], plainMetadata(res.Metadatas[0]), nil
}

// decodeV2String is jsonv2 into getResult, the document a string copied
// into bytes: what rawString saves.
func decodeV2String(answer []byte) ([]byte, map[string]any, error) {
	data, err := readBody(bytes.NewReader(answer), int64(len(answer)))
	if err != nil {
		return nil, nil, err
	}
	var res getResult
	if err := jsonv2.Unmarshal(data, &res, decodeOptions); err != nil {
		return nil, nil, err
	}
	return []byte(res.document(0)), plainMetadata(res.metadata(0)), nil
}

func BenchmarkDecodeTreeAnswer(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"10k", 770_000}, {"100k", 7_540_000}} {
		answer := treeAnswer(size.n)
		for _, d := range []struct {
			name string
			fn   func([]byte) ([]byte, map[string]any, error)
		}{{"v1", decodeV1}, {"v2string", decodeV2String}, {"v2whole", decodeV2Whole}, {"v2", decodeV2}} {
			b.Run(size.name+"/"+d.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(answer)))
				for b.Loop() {
					if doc, _, err := d.fn(answer); err != nil || len(doc) < size.n {
						b.Fatalf("%d bytes, %v", len(doc), err)
					}
				}
			})
		}
	}
}

func BenchmarkDecodeChunkAnswer(b *testing.B) {
	answer := chunkAnswer()
	b.Run("v1", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(answer)))
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(answer))
			dec.UseNumber()
			var res v1Result
			if err := dec.Decode(&res); err != nil || len(res.IDs) != PageSize {
				b.Fatal(err)
			}
			for _, md := range res.Metadatas {
				if chunkIndex(md["chunk_index"]) < 0 {
					b.Fatal("no index")
				}
			}
		}
	})
	b.Run("v2", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(answer)))
		for b.Loop() {
			data, err := readBody(bytes.NewReader(answer), int64(len(answer)))
			if err != nil {
				b.Fatal(err)
			}
			var res getResult
			if err := jsonv2.Unmarshal(data, &res, decodeOptions); err != nil || len(res.IDs) != PageSize {
				b.Fatal(err)
			}
			for i := range res.IDs {
				if chunkIndex(res.metadata(i)["chunk_index"]) < 0 {
					b.Fatal("no index")
				}
			}
		}
	})
}

func TestDecodeSameAsV1(t *testing.T) {
	for _, answer := range [][]byte{
		treeAnswer(1000),
		[]byte(`{"ids":["t"],"documents":["{\"a\":{\"isPublic\":true}}\n\u00e9\ud83d\ude00"],"metadatas":[{"i":9007199254740993,"f":1.0,"e":1e3,"n":null,"s":"x","b":false,"a":[1,"y",2.5]}]}`),
		[]byte(`{"ids":["t"],"documents":[null],"metadatas":[null]}`),
		[]byte(`{"ids":["t"],"documents":[""],"metadatas":[{}]}`),
	} {
		doc1, md1, err1 := decodeV1(answer)
		doc2, md2, err2 := decodeV2(answer)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", answer, err1, err2)
		}
		if !bytes.Equal(doc1, doc2) || fmt.Sprintf("%#v", md1) != fmt.Sprintf("%#v", md2) {
			t.Errorf("%.200s:\nv1 %q %#v\nv2 %q %#v", answer, doc1, md1, doc2, md2)
		}
	}
	var res getResult
	if err := jsonv2.Unmarshal([]byte(`{"ids":["a"],"metadatas":[{"chunk_index":12345678901234567890123}]}`), &res, decodeOptions); err != nil {
		t.Fatal(err)
	}
	if v := res.metadata(0)["chunk_index"]; v != json.Number("12345678901234567890123") {
		t.Errorf("large integer decoded as %#v", v)
	}
	for _, bad := range []string{
		`{"ids":["a"],"metadatas":[[1]]}`,
		`{"ids":["a"],"metadatas":[{"a":}]}`,
		`{"ids":["a"],"documents":[1]}`,
		`{"ids":["a"],"metadatas":[{"a":"` + "\xff" + `"}]}`,
	} {
		var res treeResult
		if err := jsonv2.Unmarshal([]byte(bad), &res, decodeOptions); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestRawStringAliases checks what rawString relies on: a document
// without escapes is the answer's own bytes, not a copy.
func TestRawStringAliases(t *testing.T) {
	answer := treeAnswer(1000)
	var res treeResult
	if err := jsonv2.Unmarshal(answer, &res, decodeOptions); err != nil {
		t.Fatal(err)
	}
	doc := res.Documents[0]
	start := uintptr(unsafe.Pointer(unsafe.SliceData(answer)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(doc)))
	if p < start || p+uintptr(len(doc)) > start+uintptr(len(answer)) {
		t.Fatal("the document was copied out of the answer")
	}
	if cap(doc) != len(doc) {
		t.Errorf("the document's capacity reaches into the rest of the answer")
	}
}

func TestReadBody(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 1000)
	for _, n := range []int64{-1, 0, 1, 9999, 10000, 10001, maxPrealloc + 1} {
		for name, r := range map[string]func() io.Reader{
			"plain":   func() io.Reader { return bytes.NewReader(body) },
			"onebyte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(body)) },
			"dataerr": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(body)) },
		} {
			got, err := readBody(r(), n)
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("readBody(%s, %d) = %d bytes, %v", name, n, len(got), err)
			}
		}
	}
	boom := errors.New("boom")
	if _, err := readBody(io.MultiReader(bytes.NewReader(body), iotest.ErrReader(boom)), 10000); err != boom {
		t.Errorf("readBody of a failing reader: %v", err)
	}
	// A known length is allocated once.
	if n := testing.AllocsPerRun(10, func() { _, _ = readBody(bytes.NewReader(body), int64(len(body))) }); n > 2 {
		t.Errorf("readBody with a known length: %v allocations, want at most 2 (the reader and the buffer)", n)
	}
}

// treeAnswers are answers whose decoding by cutting strings out must
// agree with jsonv2's on the answer as it is.
func treeAnswers() []string {
	long := strings.Repeat("QUJD", 40) // 160 bytes: long for minLen 64
	return []string{
		`{"ids":["t"],"documents":["` + long + `"],"metadatas":[{"a":1}]}`,
		`{"ids":["t","u","v"],"documents":["` + long + `",null,"` + long + `x"],"metadatas":[null,{},{"k":"` + long + `"}]}`,
		`{"ids":["` + long + `"],"documents":["short"],"metadatas":[{"` + long + `":true}]}`, // cut elsewhere: decoded again
		`{"ids":["t"],"documents":["` + long + `"],"metadatas":[{"k":"` + long + `"}]}`,
		`{"ids":["t"],"documents":["` + long + `\"\n` + long + `"],"metadatas":[null]}`, // escapes: not cut
		`{"ids":["t"],"documents":["` + long + `\\"],"metadatas":[null]}`,
		`{"ids":["t"],"documents":["` + long + "é😀" + long + `"],"metadatas":[null]}`,
		`{"ids":["t"],"documents":["` + long + "\x01" + `"],"metadatas":[null]}`, // control: error
		`{"ids":["t"],"documents":["` + long + "\xff" + `"],"metadatas":[null]}`, // invalid UTF-8: error
		`{"ids":["t"],"documents":["` + long + `"`,                               // truncated
		`{"ids":["t"],"documents":["` + long,
		`{"ids":["t"],"documents":[` + long + `"],"metadatas":[null]}`,
		`{"ids":["t"],"documents":"` + long + `","metadatas":[null]}`,
		`{"ids":["t"],"documents":[""],"x":"` + long + `","metadatas":[null]}`,
		`{"ids":["t"],"documents":[""` + long + `"],"metadatas":[null]}`,
		`{"ids":["t"] "` + long + `"}`,
		`["` + long + `"]`,
		`"` + long + `"`,
		`{"ids":["t"],"documents":["` + long + `"],"documents":["` + long + `y"]}`,
	}
}

// checkTreeDecoding fails t if decoding answer with strings of at least
// minLen bytes cut out does not agree with plain jsonv2.
func checkTreeDecoding(t *testing.T, answer []byte, minLen int) {
	t.Helper()
	var plain, cut treeResult
	errPlain := jsonv2.Unmarshal(answer, &plain, decodeOptions)
	errCut := cut.decodeCutting(bytes.Clone(answer), minLen)
	if (errPlain == nil) != (errCut == nil) {
		t.Fatalf("%.300q: plain jsonv2: %v; cutting: %v", answer, errPlain, errCut)
	}
	if errPlain != nil {
		return
	}
	if p, c := fmt.Sprintf("%q %q %#v", plain.IDs, plain.Documents, plain.Metadatas),
		fmt.Sprintf("%q %q %#v", cut.IDs, cut.Documents, cut.Metadatas); p != c {
		t.Fatalf("%.300q:\nplain jsonv2 %.500s\ncutting      %.500s", answer, p, c)
	}
}

func TestCutLongStrings(t *testing.T) {
	for _, a := range treeAnswers() {
		for _, minLen := range []int{0, 64, 1 << 20} {
			checkTreeDecoding(t, []byte(a), minLen)
		}
	}
	// The document of a real-sized answer is cut, and aliases the answer.
	answer := treeAnswer(100_000)
	short, cuts := cutLongStrings(answer, longString)
	if len(cuts) != 1 || len(short) > 300 || len(cuts[0].text) != 100_000 {
		t.Fatalf("%d cuts, %d bytes left: %.300s", len(cuts), len(short), short)
	}
	var res treeResult
	if err := res.decodeAnswer(answer); err != nil {
		t.Fatal(err)
	}
	if d := res.Documents[0]; &d[0] != &answer[bytes.Index(answer, d)] || cap(d) != len(d) {
		t.Error("the cut document does not alias the answer")
	}

	for s, want := range map[string]int{
		`"abc"x`: 5, `"a\"b"x`: 6, `"a\\"x`: 5, `"a\\\"b"x`: 8, `"\"`: -1, `"abc`: -1, `"`: -1, `""`: 2, `"\\\\"`: 6,
	} {
		if got := stringEnd([]byte(s), 0); got != want {
			t.Errorf("stringEnd(%s) = %d, want %d", s, got, want)
		}
	}
	base := strings.Repeat("abcdefgh", 9) // 72 bytes: past the 32-byte loop
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"", true}, {base, true}, {base + "é", true}, {"\x7f~ ", true},
		{base + "\x1f", false}, {"\x00" + base, false}, {base[:40] + "\\" + base, false}, {base + "\\", false},
		{base + "\xff", false}, {"\xc3" + base, false}, {base[:33] + "\n" + base, false},
	} {
		if got := verbatim([]byte(tc.s)); got != tc.want {
			t.Errorf("verbatim(%q) = %v", tc.s, got)
		}
	}
}

func FuzzTreeAnswer(f *testing.F) {
	for _, a := range treeAnswers() {
		f.Add([]byte(a))
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		checkTreeDecoding(t, answer, 8)
	})
}

// TestStringChunkIndex: on a real Chroma, a chunk_index stored as a string
// ("0", "1") is not an index: Chunks, ChunksByID and Scan give it
// collection.NoIndex (which reading reports as a chunk without a valid
// index), while integers and integral floats are indexes.
func TestStringChunkIndex(t *testing.T) {
	ctx := context.Background()
	cfg := Config{URL: testenv.Chroma(t).URL, Collection: testenv.CollectionName(t), Create: true}
	c, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer DeleteCollection(ctx, cfg)
	l := collection.DefaultLayout()
	want := map[string]int{"s0": collection.NoIndex, "s1": collection.NoIndex, "i0": 0, "f1": 1, "neg": collection.NoIndex}
	values := map[string]any{"s0": "0", "s1": "1", "i0": 0, "f1": 1.0, "neg": -1}
	var recs []collection.Record
	for id, v := range values {
		recs = append(recs, collection.Record{ID: id, Document: id, Metadata: map[string]any{l.SlugField: "p.md", l.IndexField: v}})
	}
	if err := c.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	check := func(how string, chunks []collection.Chunk) {
		t.Helper()
		if len(chunks) != len(want) {
			t.Fatalf("%s: %d chunks, want %d", how, len(chunks), len(want))
		}
		for _, ch := range chunks {
			if ch.Index != want[ch.ID] {
				t.Errorf("%s: chunk %q (chunk_index %#v) has index %d, want %d", how, ch.ID, values[ch.ID], ch.Index, want[ch.ID])
			}
		}
	}
	chunks, err := c.Chunks(ctx, l, []string{"p.md"})
	if err != nil {
		t.Fatal(err)
	}
	check("Chunks", chunks)
	chunks, err = c.ChunksByID(ctx, l, []string{"s0", "s1", "i0", "f1", "neg"})
	if err != nil {
		t.Fatal(err)
	}
	check("ChunksByID", chunks)
	chunks = nil
	if err := c.Scan(ctx, l, false, func(b []collection.Chunk) error { chunks = append(chunks, b...); return nil }); err != nil {
		t.Fatal(err)
	}
	check("Scan", chunks)
}

// TestRawStringUnquote: a document with escapes decodes to what
// jsontext.AppendUnquote gives, whether its escapes are all short (the
// fast path) or some are \u escapes: control characters, quotes,
// backslashes, slashes, non-ASCII text and surrogate pairs, at the ends
// and side by side.
func TestRawStringUnquote(t *testing.T) {
	docs := []string{
		`"chromafs-tree-index/1\nAAAA"`,
		`"\n"`, `"a\\"`, `"\"\"\\\/\b\f\n\r\t"`, `"x\ty\r\nz"`,
		`"\u00e9t\u00e9"`, `"a\nb\u0001c"`, `"\ud83d\ude00 \n"`, `"é\n€\t😀"`,
		`"\\u0041"`, `"end\\"`,
	}
	if _, ok := unquoteShort([]byte(`chromafs-tree-index/1\nAAAA`)); !ok {
		t.Fatal("the first line of an index document is not unquoted by the short path")
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("ab\n\t\r\"\\/\x01\x1fé€😀 ")
	for range 300 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		q, err := jsontext.AppendQuote(nil, b.String())
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(q))
	}
	for _, doc := range docs {
		want, err := jsontext.AppendUnquote(nil, []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var s rawString
		if err := s.set(jsontext.Value(doc)); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if string(s) != string(want) {
			t.Fatalf("%s: got %q, want %q", doc, s, want)
		}
	}
}
