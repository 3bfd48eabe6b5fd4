// Benchmarks of the tree package. Measured with
//
//	go test -run XXX -bench . -benchmem -count 5 ./tree/
//
// on the project's 2-vCPU machine (Go 1.26) while other jobs shared it, so
// wall times vary by up to 1.5x between runs; the figures are the minimum
// of five. Documents are from GenEntries, in path order unless shuffled:
// "json" has every optional field (~238 bytes an entry, 24 MB for 100k),
// "legacy" only isPublic and groups (~60 bytes, as older writers make them).
//
//	                                    10k entries   100k entries
//	encoding/json into a map, json         40 ms        330 ms   (baseline)
//	encoding/json into a map, legacy       18 ms        174 ms   (baseline)
//	Parse json                            6.8 ms         97 ms
//	Parse legacy                          4.6 ms         42 ms
//	Parse json, gzip+base64                23 ms        206 ms   (compress/flate dominates)
//	Parse json, keys in random order       10 ms        128 ms   (sorting)
//	Parse + View, json                    8.3 ms         96 ms   (0.29x its baseline)
//	Parse + View, legacy                  5.2 ms         57 ms   (0.33x its baseline)
//	View, new group set (BenchmarkView)    61-85 µs     0.6 ms   (3 allocs; was 1.9-2.2 / 20-22 ms)
//	first View of a tree (All + rules)    2.7 ms         29 ms   (was 2.3 / 21 ms: builds All)
//	View, cached                          311 ns        351 ns
//	Lookup                                 47 ns        196 ns   (0 allocs)
//	ReadDir                                34 ns         51 ns   (0 allocs)
//
// Minimum wall times of single calls in a quieter moment (15-40 calls):
// Parse + View json 100k 87 ms, legacy 100k 65 ms; json 10k 7.8 ms, legacy
// 10k 4.3 ms.
//
// A parser on github.com/go-json-experiment/json/jsontext (Decoder.ReadValue,
// strings sliced from the document as here) was measured against this
// package's scanner, decoding into entries only (minimum wall time of 15-40
// calls, two sessions):
//
//	                     json 10k    json 100k    legacy 10k    legacy 100k
//	jsontext            8.4-13 ms    95-107 ms    3.3-6.0 ms     46-63 ms
//	this scanner        5.1-9.0 ms   50-62 ms     2.6-2.8 ms     20-40 ms
//
// so the package keeps its own scanner and the standard library only.
// Looking up a path by descending the tree (a binary search among the
// children of each directory) instead of hashing cost 400-1300 ns, 10-30x
// a hash lookup, so Lookup hashes. The open-addressing index builds in
// about 6 ms for 120k nodes where a map[string]int32 took 10 ms, and the
// view's allocations fell from 15 MB in 521 allocations to 12 MB in 9.

package tree

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

var benchSizes = []int{10_000, 100_000}

// benchDoc caches generated documents by size and encoding.
var benchDocs = map[string][]byte{}

func benchDoc(b *testing.B, n int, compressed, shuffled bool) []byte {
	return benchDocOf(b, n, compressed, shuffled, false)
}

// benchDocOf returns a generated document of n entries. legacy documents
// have isPublic and groups only, as older writers make them.
func benchDocOf(b *testing.B, n int, compressed, shuffled, legacy bool) []byte {
	key := fmt.Sprint(n, compressed, shuffled, legacy)
	if d, ok := benchDocs[key]; ok {
		return d
	}
	entries := GenEntries(n, 1)
	if legacy {
		for i := range entries {
			e := &entries[i]
			*e = Entry{Slug: e.Slug, IsPublic: e.IsPublic, HasIsPublic: true, Groups: e.Groups, Size: -1}
		}
	}
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

// Documents that the benchmarks parse: full entries (every optional field
// set) in path order as Encode writes them, legacy entries (isPublic and
// groups only), full entries gzip-compressed and base64-encoded, and full
// entries in random order (Parse must sort them).
var benchKinds = []struct {
	name                         string
	compressed, shuffled, legacy bool
}{
	{"json", false, false, false},
	{"legacy", false, false, true},
	{"gzip", true, false, false},
	{"shuffled", false, true, false},
}

// BenchmarkBaselineEncodingJSON decodes the plain documents with
// encoding/json into a map[string]struct: what Parse must beat.
func BenchmarkBaselineEncodingJSON(b *testing.B) {
	for _, k := range benchKinds {
		if k.compressed || k.shuffled {
			continue
		}
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				doc := benchDocOf(b, n, false, false, k.legacy)
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					var m map[string]baselineEntry
					if err := json.Unmarshal(doc, &m); err != nil || len(m) != n {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkParse(b *testing.B) {
	for _, k := range benchKinds {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				doc := benchDocOf(b, n, k.compressed, k.shuffled, k.legacy)
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

// BenchmarkParseView is the cost of a cold session: parse the document
// and build the view of a user with one group.
func BenchmarkParseView(b *testing.B) {
	for _, k := range benchKinds {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				doc := benchDocOf(b, n, k.compressed, k.shuffled, k.legacy)
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

// BenchmarkView builds pruned views of a parsed tree. public and groups
// prune directly, bypassing the cache, after a first view of the tree
// (which builds what every view of it shares); new goes through View with
// a group set that it has not seen, every iteration; first is the first
// view of a tree (a fresh Tree of the same entries each iteration); all
// builds the unpruned view; cached is a hit.
func BenchmarkView(b *testing.B) {
	for _, n := range benchSizes {
		t, err := Parse(benchDoc(b, n, false, false))
		if err != nil {
			b.Fatal(err)
		}
		t.prune(nil)
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
		b.Run(fmt.Sprintf("new/%d", n), func(b *testing.B) {
			groups := t.Groups()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// A subset of the groups, with at least one, that the
				// emptied cache has not seen.
				i++
				var set []string
				for j, g := range groups {
					if (i%(1<<len(groups)-1)+1)&(1<<j) != 0 {
						set = append(set, g)
					}
				}
				t.mu.Lock()
				t.views = nil
				t.mu.Unlock()
				if t.View(set) == nil {
					b.Fatal("no view")
				}
			}
		})
		b.Run(fmt.Sprintf("first/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fresh := &Tree{entries: t.entries, problems: t.problems, groups: t.groups}
				if fresh.View([]string{"billing"}).Files() == 0 {
					b.Fatal("empty view")
				}
			}
		})
		b.Run(fmt.Sprintf("all/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t.allOnce = sync.Once{}
				t.All()
			}
		})
		b.Run(fmt.Sprintf("cached/%d", n), func(b *testing.B) {
			t.View([]string{"beta", "billing"})
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
