package memstore

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

var loadFiles = map[string]string{
	"index.md":       "# Home\n\nWelcome.\n",
	"auth/oauth.mdx": strings.Repeat("OAuth line with ünïcödé and emoji 🔑\n", 20),
	"api/users":      "GET /users\nPOST /users\n",
	"empty.txt":      "",
	"guide/long.md":  strings.Repeat("x", 300) + "\n" + strings.Repeat("é", 100),
}

// readBack reassembles every page of s the way the filesystem does.
func readBack(t *testing.T, s *Store, l collection.Layout, sep string) map[string]string {
	t.Helper()
	var all []collection.Chunk
	err := s.Scan(context.Background(), l, true, func(cs []collection.Chunk) error {
		all = append(all, cs...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	bySlug := map[string][]collection.Chunk{}
	for _, c := range all {
		bySlug[c.Slug] = append(bySlug[c.Slug], c)
	}
	out := map[string]string{}
	for slug, cs := range bySlug {
		sort.Slice(cs, func(i, j int) bool { return cs[i].Index < cs[j].Index })
		var texts []string
		for i, c := range cs {
			if c.Index != i {
				t.Fatalf("%s: chunk %d has index %d", slug, i, c.Index)
			}
			texts = append(texts, c.Text)
		}
		out[slug] = strings.Join(texts, sep)
	}
	return out
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		opt  LoadOptions
	}{
		{"whole pages", LoadOptions{}},
		{"small chunks", LoadOptions{ChunkSize: 7}},
		{"tiny chunks", LoadOptions{ChunkSize: 1}},
		{"shuffled", LoadOptions{ChunkSize: 16, Shuffle: rand.New(rand.NewPCG(1, 2))}},
		{"compressed with sizes", LoadOptions{ChunkSize: 50, Compressed: true, WithSizes: true}},
		{"newline separator", LoadOptions{ChunkSize: 40, Separator: "\n"}},
		{"newline separator whole", LoadOptions{Separator: "\n"}},
		{"access", LoadOptions{Access: func(slug string) (bool, []string) {
			if strings.HasPrefix(slug, "auth/") {
				return false, []string{"staff"}
			}
			return true, nil
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New("c")
			l := collection.Layout{SlugField: "slug", IndexField: "i", TreeID: "tree"}
			tt.opt.ModTime = time.Date(2024, 5, 6, 7, 8, 9, 500, time.FixedZone("X", 3600))
			if err := Load(s, l, loadFiles, tt.opt); err != nil {
				t.Fatal(err)
			}
			got := readBack(t, s, l, tt.opt.Separator)
			for slug, want := range loadFiles {
				if got[slug] != want {
					t.Errorf("%s reads back as %q, want %q", slug, got[slug], want)
				}
			}
			if len(got) != len(loadFiles) {
				t.Errorf("read back %d pages, want %d", len(got), len(loadFiles))
			}
			var n int
			for _, r := range s.Records() {
				if r.ID == "tree" {
					continue
				}
				n++
				if tt.opt.ChunkSize > 0 && tt.opt.Separator == "" && len(r.Document) > max(tt.opt.ChunkSize, utf8.UTFMax) {
					t.Errorf("chunk %s has %d bytes, more than %d", r.ID, len(r.Document), tt.opt.ChunkSize)
				}
				if !utf8.ValidString(r.Document) {
					t.Errorf("chunk %s cut a rune: %q", r.ID, r.Document)
				}
				if len(r.Metadata) != 2 {
					t.Errorf("chunk %s metadata %v", r.ID, r.Metadata)
				}
			}
			tr, err := s.Tree(context.Background(), "tree")
			if err != nil {
				t.Fatal(err)
			}
			if tr.Metadata["_system"] != true {
				t.Errorf("tree metadata = %v", tr.Metadata)
			}
			rec, _ := s.Get("tree")
			if !rec.System {
				t.Error("tree record is not a System record")
			}
			if compressed := !strings.HasPrefix(string(tr.Document), "{"); compressed != tt.opt.Compressed {
				t.Errorf("tree document %.20q: compressed=%v, want %v", tr.Document, compressed, tt.opt.Compressed)
			}
			parsed, err := tree.Parse(tr.Document)
			if err != nil {
				t.Fatal(err)
			}
			if p := parsed.Problems(); len(p) != 0 {
				t.Errorf("tree problems: %v", p)
			}
			var chunkTotal int
			for slug, content := range loadFiles {
				e, ok := parsed.Entry(slug)
				if !ok {
					t.Errorf("no tree entry for %s", slug)
					continue
				}
				wantPublic, wantGroups := true, []string(nil)
				if tt.opt.Access != nil {
					wantPublic, wantGroups = tt.opt.Access(slug)
				}
				if e.IsPublic != wantPublic || !e.HasIsPublic || !slices.Equal(e.Groups, wantGroups) {
					t.Errorf("%s: access %v/%v %v, want %v %v", slug, e.IsPublic, e.HasIsPublic, e.Groups, wantPublic, wantGroups)
				}
				if !e.ModTime.Equal(time.Date(2024, 5, 6, 6, 8, 9, 0, time.UTC)) {
					t.Errorf("%s: mod time %v", slug, e.ModTime)
				}
				if tt.opt.WithSizes {
					if e.Size != int64(len(content)) || !strings.HasPrefix(e.Hash, "sha256:") || e.Chunks == 0 {
						t.Errorf("%s: size %d hash %q chunks %d", slug, e.Size, e.Hash, e.Chunks)
					}
					chunkTotal += e.Chunks
				} else if e.Size != -1 || e.Hash != "" || e.Chunks != 0 {
					t.Errorf("%s: size %d hash %q chunks %d written without WithSizes", slug, e.Size, e.Hash, e.Chunks)
				}
			}
			if tt.opt.WithSizes && chunkTotal != n {
				t.Errorf("tree counts %d chunks, store has %d", chunkTotal, n)
			}
		})
	}
}

func TestLoadShuffles(t *testing.T) {
	s := New("c")
	if err := Load(s, collection.DefaultLayout(), loadFiles, LoadOptions{ChunkSize: 8, Shuffle: rand.New(rand.NewPCG(3, 4))}); err != nil {
		t.Fatal(err)
	}
	var prev string
	sorted := true
	for _, r := range s.Records()[:s.Len()-1] {
		slug := r.Metadata["page_slug"].(string)
		if slug < prev {
			sorted = false
		}
		prev = slug
	}
	if sorted {
		t.Fatal("shuffled load inserted chunks page by page")
	}
	if last := s.Records()[s.Len()-1]; last.ID != collection.DefaultLayout().TreeID {
		t.Fatalf("last record %q, want the tree", last.ID)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		content string
		size    int
		sep     string
		want    []string
	}{
		{"", 0, "", []string{""}},
		{"", 4, "", []string{""}},
		{"abcdef", 0, "", []string{"abcdef"}},
		{"abcdef", 4, "", []string{"abcd", "ef"}},
		{"abcdefgh", 4, "", []string{"abcd", "efgh"}},
		{"aéb", 2, "", []string{"a", "é", "b"}},
		{"🔑🔑", 2, "", []string{"🔑", "🔑"}},
		{"🔑🔑", 5, "", []string{"🔑", "🔑"}},
		{"a\nb\nc", 3, "\n", []string{"a\nb", "c"}},
		{"a\nb\nc", 1, "\n", []string{"a", "b", "c"}},
		{"long\nx", 2, "\n", []string{"long", "x"}},
		{"a\n", 1, "\n", []string{"a", ""}},
		{"a, b", 0, ", ", []string{"a, b"}},
	}
	for _, tt := range tests {
		got := cut(tt.content, tt.size, tt.sep)
		if !slices.Equal(got, tt.want) {
			t.Errorf("cut(%q, %d, %q) = %q, want %q", tt.content, tt.size, tt.sep, got, tt.want)
		}
	}
}

func FuzzCut(f *testing.F) {
	f.Add("hello\nworld\n", 3, "")
	f.Add("ünï\ncödé", 2, "\n")
	f.Add("\xff\x80\x80abc", 2, "")
	f.Fuzz(func(t *testing.T, content string, size int, sep string) {
		size = size % 64
		chunks := cut(content, size, sep)
		if got := strings.Join(chunks, sep); got != content {
			t.Fatalf("cut(%q, %d, %q) = %q joins to %q", content, size, sep, chunks, got)
		}
		if sep == "" && size > 0 {
			for _, c := range chunks {
				if len(c) > max(size, utf8.UTFMax) {
					t.Fatalf("chunk %q longer than %d", c, size)
				}
			}
		}
	})
}
