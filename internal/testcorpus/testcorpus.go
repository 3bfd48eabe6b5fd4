// Package testcorpus is the docs site that chromafs's tests serve, and the
// two ways they load it: with chromafs's ingest (line-aligned chunks,
// sizes and hashes in the tree) and the way foreign writers do (chunks cut
// mid-line, shuffled, a compressed tree without sizes). It is for tests
// only. Its subpackage awkward is a folder of content that is hard to chunk
// and reassemble (non-BMP text, CRLF, long lines, empty files), for the
// tests of collections written by other tools.
package testcorpus

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// Files is Docs plus edge cases: an empty file, a dotfile, an
// extensionless page, a deep page, Unicode names, a page of many chunks,
// and staff-only pages under internal/.
func Files(tb testing.TB) map[string]string {
	tb.Helper()
	files := Docs(tb)
	files["empty.md"] = ""
	files[".well-known/security.txt"] = "Contact: security@acme.example\n"
	files["deep/a/b/c/d/leaf.md"] = "# Leaf\nfive levels down\n"
	files["i18n/café/résumé.md"] = "# Résumé\nnaïve café\n"
	files["api/users"] = "no extension\n"
	files["internal/secret/plan.md"] = "# Plan\nthe access_token rotation plan\n"
	var big strings.Builder
	for i := range 400 {
		big.WriteString(strings.Repeat("line ", i%17))
		big.WriteString("end\n")
	}
	files["reference/big.md"] = big.String()
	return files
}

// Docs returns the files of the repository's examples/docs by slug.
func Docs(tb testing.TB) map[string]string {
	tb.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	docs := filepath.Join(root, "examples", "docs")
	files := map[string]string{}
	err = fs.WalkDir(os.DirFS(docs), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join(docs, filepath.FromSlash(p)))
		files[p] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// Access is the corpus's access rule: internal/ is for staff only.
func Access(slug string) (bool, []string) {
	if strings.HasPrefix(slug, "internal/") {
		return false, []string{"staff"}
	}
	return true, nil
}

// Visible returns the files a user with groups may see.
func Visible(files map[string]string, groups ...string) map[string]string {
	out := map[string]string{}
	for slug, content := range files {
		pub, gs := Access(slug)
		if pub || slices.ContainsFunc(gs, func(g string) bool { return slices.Contains(groups, g) }) {
			out[slug] = content
		}
	}
	return out
}

// HiddenDirs returns the directories of files that hold no file of want.
func HiddenDirs(files, want map[string]string) []string {
	dirs := map[string]bool{}
	for slug := range files {
		if _, ok := want[slug]; !ok {
			for d := path.Dir(slug); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
	}
	for slug := range want {
		for d := path.Dir(slug); d != "."; d = path.Dir(d) {
			delete(dirs, d)
		}
	}
	out := make([]string, 0, len(dirs))
	for d := range dirs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// ModTime is the mod time Ingest gives every page.
var ModTime = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// Foreign loads files as other writers do: 97-byte chunks cut mid-line,
// inserted in shuffled order, a gzip+base64 tree without sizes or hashes.
func Foreign(tb testing.TB, dst collection.Writer, files map[string]string) {
	tb.Helper()
	mem := memstore.New("foreign")
	err := memstore.Load(mem, collection.DefaultLayout(), files, memstore.LoadOptions{
		ChunkSize:  97,
		Shuffle:    rand.New(rand.NewPCG(1, 2)),
		Access:     Access,
		Compressed: true,
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := dst.Upsert(context.Background(), mem.Records()); err != nil {
		tb.Fatal(err)
	}
}

// Ingest loads files with chromafs's own ingest (256-byte line-aligned
// chunks, sizes, hashes, ModTime), internal/ private to staff.
func Ingest(tb testing.TB, dst ingest.Target, files map[string]string) {
	tb.Helper()
	ingestWith(tb, dst, files, ingest.Options{MaxChunk: 256, Compressed: true})
}

// IngestSharded writes files as Ingest does, but with the tree as plain
// JSON cut into shards of at most collection.MinShardBytes (see
// collection.ShardTree), and fails tb unless the tree took several shards.
func IngestSharded(tb testing.TB, dst ingest.Target, files map[string]string) {
	tb.Helper()
	r := ingestWith(tb, dst, files, ingest.Options{MaxChunk: 256, TreeMaxBytes: collection.MinShardBytes})
	if r.TreeShards < 2 {
		tb.Fatalf("tree of %d bytes written in %d shards; want several", r.TreeBytes, r.TreeShards)
	}
}

// ingestWith runs ingest with opt and the corpus's access rules.
func ingestWith(tb testing.TB, dst ingest.Target, files map[string]string, opt ingest.Options) *ingest.Report {
	tb.Helper()
	src := fstest.MapFS{}
	for slug, content := range files {
		src[slug] = &fstest.MapFile{Data: []byte(content), Mode: 0o644, ModTime: ModTime}
	}
	rules, err := ingest.ParseRules(strings.NewReader("** public\ninternal/** private groups=staff\n"))
	if err != nil {
		tb.Fatal(err)
	}
	opt.Rules = rules
	r, err := ingest.Run(context.Background(), dst, src, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// View is one filesystem that Views returns.
type View struct {
	Name string
	FS   *chromafs.FS
}

// Writer is one way to load files into a store.
type Writer struct {
	Name  string
	Write func(tb testing.TB, dst testbackend.Target, files map[string]string)
}

// Writers returns the two writers of Views: "ingest" (Ingest) and
// "foreign" (Foreign).
func Writers() []Writer {
	return []Writer{
		{"ingest", func(tb testing.TB, d testbackend.Target, f map[string]string) { Ingest(tb, d, f) }},
		{"foreign", func(tb testing.TB, d testbackend.Target, f map[string]string) { Foreign(tb, d, f) }},
	}
}

// Views returns, for each backend of testbackend.Backends (memstore, a
// real Chroma) and each of Writers, a public view of files.
func Views(t *testing.T, files map[string]string) []View {
	t.Helper()
	var out []View
	for _, b := range testbackend.Backends() {
		for _, w := range Writers() {
			store := b.New(t)
			w.Write(t, store, files)
			fsys, err := chromafs.New(context.Background(), store)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, View{b.Name + "/" + w.Name, fsys})
		}
	}
	return out
}

// UnsizedPage is a page of a collection written by another writer: no
// size or hash in the tree, content in two chunks, or (Broken) with its
// first chunk missing, or a lazy pointer (URL) that declares no size.
type UnsizedPage struct {
	Slug, Content, URL, ContentType string
	Broken                          bool
}

// WriteUnsized writes pages into dst with a tree that records no sizes.
func WriteUnsized(t testing.TB, dst collection.Writer, pages []UnsizedPage) {
	t.Helper()
	l := collection.DefaultLayout()
	var recs []collection.Record
	var entries []tree.Entry
	for _, p := range pages {
		entries = append(entries, tree.Entry{Slug: p.Slug, IsPublic: true, HasIsPublic: true, Size: -1, URL: p.URL, ContentType: p.ContentType})
		if p.URL != "" {
			continue
		}
		half := len(p.Content) / 2
		for i, text := range []string{p.Content[:half], p.Content[half:]} {
			if p.Broken && i == 0 {
				continue
			}
			recs = append(recs, collection.Record{ID: p.Slug + ":" + strconv.Itoa(i), Document: text,
				Metadata: map[string]any{l.SlugField: p.Slug, l.IndexField: i}})
		}
	}
	doc, err := tree.Encode(entries, false)
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs, collection.Record{ID: l.TreeID, Document: string(doc), System: true})
	if err := dst.Upsert(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
}

// ShardedStore writes the tree of n pages (d00/p0000.md ..., every third
// one private to group staff) into a memstore, sharded with document limit
// max, and returns the store, the tree document and the shards. The store
// holds no chunks.
func ShardedStore(tb testing.TB, n, max int) (*memstore.Store, []byte, []collection.Record) {
	tb.Helper()
	var entries []tree.Entry
	for i := range n {
		entries = append(entries, tree.Entry{Slug: fmt.Sprintf("d%02d/p%04d.md", i%7, i), HasIsPublic: true, IsPublic: i%3 != 0, Groups: []string{"staff"}, Size: -1})
	}
	doc, err := tree.Encode(entries, false)
	if err != nil {
		tb.Fatal(err)
	}
	treeID := collection.DefaultLayout().TreeID
	manifest, shards, err := collection.ShardTree(treeID, doc, max)
	if err != nil {
		tb.Fatal(err)
	}
	st := memstore.New(tb.Name())
	recs := append(slices.Clone(shards), collection.Record{ID: treeID, Document: string(manifest), System: true})
	if err := st.Upsert(context.Background(), recs); err != nil {
		tb.Fatal(err)
	}
	return st, doc, shards
}
