package tree

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

var benchSizes = []int{10_000, 100_000}

// benchDoc caches generated documents by size and encoding.
var benchDocs = map[string][]byte{}

func benchDoc(b *testing.B, n int, compressed, shuffled bool) []byte {
	key := fmt.Sprint(n, compressed, shuffled)
	if d, ok := benchDocs[key]; ok {
		return d
	}
	entries := GenEntries(n, 1)
	doc, err := Encode(entries, compressed)
	if err != nil {
		b.Fatal(err)
	}
	if shuffled {
		// Encode sorts; write the entries in a random order instead.
		r := rand.New(rand.NewPCG(2, 3))
		r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
		doc = []byte{'{'}
		for i, e := range entries {
			one, err := Encode([]Entry{e}, false)
			if err != nil {
				b.Fatal(err)
			}
			if i > 0 {
				doc = append(doc, ',')
			}
			doc = append(doc, one[1:len(one)-2]...) // strip "{" and "}\n"
		}
		doc = append(doc, '}')
	}
	benchDocs[key] = doc
	return doc
}

// baselineEntry is what encoding/json decodes an entry into.
type baselineEntry struct {
	IsPublic    bool     `json:"isPublic"`
	Groups      []string `json:"groups"`
	Size        int64    `json:"size"`
	ModTime     string   `json:"modTime"`
	Hash        string   `json:"hash"`
	ContentType string   `json:"contentType"`
	URL         string   `json:"url"`
	Chunks      int      `json:"chunks"`
	SplitLines  bool     `json:"splitLines"`
}

// BenchmarkBaselineEncodingJSON decodes the plain document with
// encoding/json into a map[string]struct: what Parse must beat.
func BenchmarkBaselineEncodingJSON(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			doc := benchDoc(b, n, false, false)
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				var m map[string]baselineEntry
				if err := json.Unmarshal(doc, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for _, tc := range []struct {
		name                 string
		compressed, shuffled bool
	}{{"json", false, false}, {"gzip", true, false}, {"json-shuffled", false, true}} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", tc.name, n), func(b *testing.B) {
				doc := benchDoc(b, n, tc.compressed, tc.shuffled)
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					t, err := Parse(doc)
					if err != nil || t.Len() != n {
						b.Fatal(err, t.Len())
					}
				}
			})
		}
	}
}

// BenchmarkParseView is the cost of a cold session: parse the plain
// document and build the view of a user with one group.
func BenchmarkParseView(b *testing.B) {
	for _, tc := range []struct {
		name       string
		compressed bool
	}{{"json", false}, {"gzip", true}} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", tc.name, n), func(b *testing.B) {
				doc := benchDoc(b, n, tc.compressed, false)
				b.ReportAllocs()
				for b.Loop() {
					t, err := Parse(doc)
					if err != nil {
						b.Fatal(err)
					}
					if t.View([]string{"billing"}).Files() == 0 {
						b.Fatal("empty view")
					}
				}
			})
		}
	}
}

// BenchmarkView builds pruned views of a parsed tree (uncached).
func BenchmarkView(b *testing.B) {
	for _, n := range benchSizes {
		t, err := Parse(benchDoc(b, n, false, false))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("public/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t.prune(nil)
			}
		})
		b.Run(fmt.Sprintf("groups/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t.prune([]string{"billing", "beta"})
			}
		})
		b.Run(fmt.Sprintf("all/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				newView(t.entries, nil)
			}
		})
		b.Run(fmt.Sprintf("cached/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t.View([]string{"beta", "billing", "beta"})
			}
		})
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			t, err := Parse(benchDoc(b, n, false, false))
			if err != nil {
				b.Fatal(err)
			}
			v := t.View(nil)
			var paths []string
			v.Walk(func(n *Node) bool { paths = append(paths, n.Path); return true })
			rand.New(rand.NewPCG(4, 5)).Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := v.Lookup(paths[i%len(paths)]); !ok {
					b.Fatal("missing")
				}
				i++
			}
		})
	}
}

func BenchmarkReadDir(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			t, err := Parse(benchDoc(b, n, false, false))
			if err != nil {
				b.Fatal(err)
			}
			v := t.View(nil)
			var dirs []string
			v.Walk(func(n *Node) bool {
				if n.IsDir {
					dirs = append(dirs, n.Path)
				}
				return true
			})
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := v.ReadDir(dirs[i%len(dirs)]); !ok {
					b.Fatal("missing")
				}
				i++
			}
		})
	}
}
