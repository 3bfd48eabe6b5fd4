package treeindex_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// Benchmarks of the index against the JSON tree document it stands for,
// on generated entries (every field set, as ingest writes them). See
// BENCHMARKS.md, "Compact tree index", for the results and commands.

var benchCache sync.Map // "n/kind" -> []byte

func benchSizes() []int {
	if testing.Short() {
		return []int{1_000}
	}
	return []int{10_000, 100_000}
}

func benchData(b *testing.B, n int, kind string) []byte {
	key := fmt.Sprint(n, "/", kind)
	if v, ok := benchCache.Load(key); ok {
		return v.([]byte)
	}
	es := genEntries(n, 1)
	var out []byte
	var err error
	switch kind {
	case "json-gzip":
		out, err = tree.Encode(es, true)
	case "json":
		out, err = tree.Encode(es, false)
	case "index":
		out, err = treeindex.Encode(es, "v", nil)
		out = treeindex.EncodeDocument(out)
	case "index-stored":
		out, err = treeindex.EncodeWith(es, "v", nil, treeindex.Options{Stored: true})
	}
	if err != nil {
		b.Fatal(err)
	}
	benchCache.Store(key, out)
	return out
}

// BenchmarkDecode compares building a tree (with its first view, as a
// session does) from the JSON document (gzip+base64, as ingest writes it)
// and from the index record's document (base64, zstd).
func BenchmarkDecode(b *testing.B) {
	for _, n := range benchSizes() {
		for _, kind := range []string{"json-gzip", "index"} {
			b.Run(fmt.Sprintf("%d/%s", n, kind), func(b *testing.B) {
				doc := benchData(b, n, kind)
				b.ReportAllocs()
				for b.Loop() {
					var t *tree.Tree
					if kind == "index" {
						p, err := treeindex.DecodeDocument(doc)
						if err != nil {
							b.Fatal(err)
						}
						ix, err := treeindex.Decode(p, tree.Limits{})
						if err != nil {
							b.Fatal(err)
						}
						t = ix.Tree
					} else {
						var err error
						if t, err = tree.Parse(doc); err != nil {
							b.Fatal(err)
						}
					}
					t.View(nil)
				}
				b.ReportMetric(float64(len(doc)), "doc-bytes")
			})
		}
	}
}

// BenchmarkCodec inflates the raw blocks of an index (its stored form)
// compressed with zstd (what Encode writes) and with gzip at its best
// compression: the sizes and inflate times that chose the codec.
func BenchmarkCodec(b *testing.B) {
	for _, n := range benchSizes() {
		raw := benchData(b, n, "index-stored")
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(raw)
		zw.Close()
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))
		zs := enc.EncodeAll(raw, nil)
		dec, _ := zstd.NewReader(nil)
		b.Run(fmt.Sprintf("%d/gzip", n), func(b *testing.B) {
			defer b.ReportMetric(float64(gz.Len()), "bytes")
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				r, err := gzip.NewReader(bytes.NewReader(gz.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%d/zstd", n), func(b *testing.B) {
			defer b.ReportMetric(float64(len(zs)), "bytes")
			b.SetBytes(int64(len(raw)))
			buf := make([]byte, 0, len(raw))
			for b.Loop() {
				if _, err := dec.DecodeAll(zs, buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
