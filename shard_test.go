package chromafs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

func TestShardTree(t *testing.T) {
	ascii := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16,000 bytes
	// Multi-byte runes placed so that plain cuts would split them.
	var mixed []byte
	for i := 0; len(mixed) < 9000; i++ {
		mixed = append(mixed, string([]rune("aé€😀")[:1+i%4])...)
		mixed = append(mixed, "é€😀"...)
	}
	for _, tc := range []struct {
		name       string
		doc        []byte
		max        int
		wantShards int // 0: stored whole; -1: any number > 1
		wantErr    bool
	}{
		{"no limit", ascii, 0, 0, false},
		{"fits exactly", ascii, len(ascii), 0, false},
		{"one byte over", ascii, len(ascii) - 1, 2, false},
		{"even pieces", ascii, 4000, 4, false},
		{"uneven pieces", ascii, 3000, 6, false},
		{"utf-8 at every cut", mixed, 1024, -1, false},
		{"limit below the minimum", ascii, 100, 0, true},
		{"empty", nil, 1024, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest, shards, err := chromafs.ShardTree("__path_tree__", tc.doc, tc.max)
			if tc.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantShards == 0 {
				if len(shards) != 0 || !bytes.Equal(manifest, tc.doc) {
					t.Fatalf("%d shards, manifest %.40q; want the document whole", len(shards), manifest)
				}
				return
			}
			if tc.wantShards > 0 && len(shards) != tc.wantShards || len(shards) < 2 {
				t.Fatalf("%d shards; want %d", len(shards), tc.wantShards)
			}
			if len(manifest) > tc.max {
				t.Fatalf("manifest of %d bytes over the limit %d", len(manifest), tc.max)
			}
			m, ok, err := chromafs.ParseTreeManifest(manifest)
			if err != nil || !ok {
				t.Fatalf("ParseTreeManifest = %v, %v", ok, err)
			}
			if m.Shards != len(shards) || m.Size != int64(len(tc.doc)) {
				t.Fatalf("manifest %+v for %d shards of %d bytes", m, len(shards), len(tc.doc))
			}
			var joined []byte
			for i, s := range shards {
				if s.ID != m.ShardID(i) || !chromafs.IsTreeShardID("__path_tree__", s.ID) || !s.System {
					t.Fatalf("shard %d: id %q, system %v", i, s.ID, s.System)
				}
				if len(s.Document) > tc.max || len(s.Document) == 0 || !utf8.ValidString(s.Document) {
					t.Fatalf("shard %d: %d bytes, valid UTF-8 %v", i, len(s.Document), utf8.ValidString(s.Document))
				}
				if _, ok := s.Metadata["page_slug"]; ok {
					t.Fatalf("shard %d has a slug field", i)
				}
				joined = append(joined, s.Document...)
			}
			if !bytes.Equal(joined, tc.doc) {
				t.Fatal("shards do not join into the document")
			}
			if _, err := tree.Parse(manifest); !errors.Is(err, tree.ErrMalformed) {
				t.Fatalf("a reader that knows no shards parses the manifest with %v; want a malformed-tree error", err)
			}
		})
	}
}

func TestParseTreeManifest(t *testing.T) {
	good := `{"shards":2,"prefix":"t/shard/0123456789abcdef/","size":10,"sha256":"` + strings.Repeat("0", 64) + `"}`
	for _, tc := range []struct {
		doc         string
		sharded, ok bool
	}{
		{`{"a.md":{"isPublic":true}}`, false, true},
		{`H4sIAAAAAAAA`, false, true},
		{chromafs.TreeManifestHeader + "\n" + good, true, true},
		{chromafs.TreeManifestHeader + "\n{", true, false},
		{chromafs.TreeManifestHeader + "\n" + strings.Replace(good, `"shards":2`, `"shards":0`, 1), true, false},
		{chromafs.TreeManifestHeader + "\n" + strings.Replace(good, `"size":10`, `"size":-1`, 1), true, false},
		{chromafs.TreeManifestHeader + "\n" + strings.Replace(good, `"prefix":"t/shard/0123456789abcdef/"`, `"prefix":""`, 1), true, false},
	} {
		m, sharded, err := chromafs.ParseTreeManifest([]byte(tc.doc))
		if sharded != tc.sharded || (err == nil) != tc.ok || err != nil && !errors.Is(err, tree.ErrMalformed) {
			t.Errorf("ParseTreeManifest(%.50q) = %v, %v, %v", tc.doc, m, sharded, err)
		}
	}
	for id, want := range map[string]bool{
		"t/shard/0123456789abcdef/0":  true,
		"t/shard/0123456789abcdef/17": true,
		"t/shard/0123456789abcdef/":   false,
		"t/shard/0123456789abcdef/x":  false,
		"t/shard/0123/0":              false,
		"u/shard/0123456789abcdef/0":  false,
		"t#0":                         false,
	} {
		if got := chromafs.IsTreeShardID("t", id); got != want {
			t.Errorf("IsTreeShardID(%q) = %v", id, got)
		}
	}
}

// treeOnly hides every optional interface of a store but Tree and
// Chunks: ReadTree then reads shards one Tree call each.
type treeOnly struct{ chromafs.Store }

// shardedStore writes a tree of n pages into a memstore, sharded with
// limit max, and returns the store, the tree document and the shards.
func shardedStore(t *testing.T, n, max int) (*memstore.Store, []byte, []chromafs.Record) {
	t.Helper()
	var entries []tree.Entry
	for i := range n {
		entries = append(entries, tree.Entry{Slug: fmt.Sprintf("d%02d/p%04d.md", i%7, i), HasIsPublic: true, IsPublic: i%3 != 0, Groups: []string{"staff"}, Size: -1})
	}
	doc, err := tree.Encode(entries, false)
	if err != nil {
		t.Fatal(err)
	}
	manifest, shards, err := chromafs.ShardTree(chromafs.DefaultLayout.TreeID, doc, max)
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New(t.Name())
	recs := append(slices.Clone(shards), chromafs.Record{ID: chromafs.DefaultLayout.TreeID, Document: string(manifest), System: true})
	if err := st.Upsert(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return st, doc, shards
}

func TestReadTreeSharded(t *testing.T) {
	ctx := context.Background()
	st, doc, shards := shardedStore(t, 500, 2048)
	if len(shards) < 5 {
		t.Fatalf("%d shards", len(shards))
	}
	for _, s := range []chromafs.Store{st, treeOnly{st}} {
		rec, err := chromafs.ReadTree(ctx, s, chromafs.DefaultLayout.TreeID)
		if err != nil || !bytes.Equal(rec.Document, doc) {
			t.Fatalf("%T: ReadTree = %d bytes, %v; want the %d-byte document", s, len(rec.Document), err, len(doc))
		}
		if _, ok, _ := chromafs.ParseTreeManifest(rec.Manifest); !ok {
			t.Fatalf("%T: ReadTree returned no manifest", s)
		}
	}
	fsys, err := chromafs.New(ctx, st, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	if fsys.TreeVersion() != chromafs.TreeVersionOf(doc) {
		t.Fatalf("TreeVersion %s; want that of the whole document, %s", fsys.TreeVersion(), chromafs.TreeVersionOf(doc))
	}
	names, err := fs.Glob(fsys, "d0?/*.md")
	if err != nil || len(names) != 500 {
		t.Fatalf("Glob: %d names, %v; want 500", len(names), err)
	}
}

func TestReadTreeBrokenShards(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		break_ func(*memstore.Store, []chromafs.Record)
		want   string
	}{
		{"missing shard", func(st *memstore.Store, shards []chromafs.Record) {
			if err := st.Delete(ctx, []string{shards[2].ID}); err != nil {
				t.Fatal(err)
			}
		}, "shard 2 of"},
		{"altered shard", func(st *memstore.Store, shards []chromafs.Record) {
			r := shards[1]
			r.Document = strings.Replace(r.Document, "p", "q", 1)
			if err := st.Upsert(ctx, []chromafs.Record{r}); err != nil {
				t.Fatal(err)
			}
		}, "sha256"},
		{"truncated shard", func(st *memstore.Store, shards []chromafs.Record) {
			r := shards[0]
			r.Document = r.Document[:len(r.Document)-1]
			if err := st.Upsert(ctx, []chromafs.Record{r}); err != nil {
				t.Fatal(err)
			}
		}, "the manifest declares"},
		{"bad manifest", func(st *memstore.Store, _ []chromafs.Record) {
			rec := chromafs.Record{ID: chromafs.DefaultLayout.TreeID, Document: chromafs.TreeManifestHeader + "\n{\"shards\":", System: true}
			if err := st.Upsert(ctx, []chromafs.Record{rec}); err != nil {
				t.Fatal(err)
			}
		}, "tree manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, shards := shardedStore(t, 300, 1024)
			tc.break_(st, shards)
			chromafs.ResetTreeCache()
			_, err := chromafs.New(ctx, st)
			if !errors.Is(err, tree.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v; want a malformed-tree error naming %q", err, tc.want)
			}
		})
	}
}

// TestReadTreeReplacedMeanwhile: a writer replaces a sharded tree (new
// shards, new manifest, old shards deleted) between a reader's fetch of
// the manifest and of the shards; the reader fetches the new manifest and
// reads the new tree, never a mix.
func TestReadTreeReplacedMeanwhile(t *testing.T) {
	ctx := context.Background()
	st, _, oldShards := shardedStore(t, 300, 1024)
	newDoc, err := tree.Encode([]tree.Entry{{Slug: "new.md", HasIsPublic: true, IsPublic: true, Size: -1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	newDoc = append(newDoc, bytes.Repeat([]byte(" "), 3000)...) // JSON allows trailing spaces
	manifest, shards, err := chromafs.ShardTree(chromafs.DefaultLayout.TreeID, newDoc, 1024)
	if err != nil || len(shards) < 2 {
		t.Fatalf("%d shards, %v", len(shards), err)
	}
	calls := 0
	st.SetHook(func(_ context.Context, op string) error {
		if op != memstore.OpTree {
			return nil
		}
		// The second call reads the shards: the manifest is read by now.
		if calls++; calls != 2 {
			return nil
		}
		recs := append(slices.Clone(shards), chromafs.Record{ID: chromafs.DefaultLayout.TreeID, Document: string(manifest), System: true})
		var old []string
		for _, s := range oldShards {
			old = append(old, s.ID)
		}
		if err := st.Upsert(context.Background(), recs); err != nil {
			return err
		}
		return st.Delete(context.Background(), old)
	})
	rec, err := chromafs.ReadTree(ctx, st, chromafs.DefaultLayout.TreeID)
	if err != nil || !bytes.Equal(rec.Document, newDoc) {
		t.Fatalf("ReadTree = %d bytes, %v; want the new %d-byte tree", len(rec.Document), err, len(newDoc))
	}
	if calls != 4 {
		t.Fatalf("%d tree reads; want 4 (manifest, shards, new manifest, new shards)", calls)
	}
}

// shardCorpus is the test corpus with enough pages for a compressed tree
// well over 16 KiB.
func shardCorpus(t *testing.T) map[string]string {
	files := corpus(t)
	for i := range 700 {
		files[fmt.Sprintf("bulk/%02d/page-%04d.md", i%13, i)] = fmt.Sprintf("# page %d\n\nthe access_token of page %d\nline end\n", i, i)
		if i%50 == 0 {
			files[fmt.Sprintf("internal/bulk/secret-%04d.md", i)] = fmt.Sprintf("secret access_token %d\n", i)
		}
	}
	return files
}

// TestShardedTreeReadsBackIdentical is issue 6's acceptance: the same
// files ingested into real Chroma with a 16 KiB tree limit (through a gate
// that refuses any request over Chroma Cloud's limits, documents over
// 16 KiB included) and without read back identical: the same tree
// version, listings, file infos, contents and grep results, for every
// group set. Re-ingesting a change replaces the shards and leaves no stale
// one; re-ingesting without the limit removes them.
func TestShardedTreeReadsBackIdentical(t *testing.T) {
	ctx := context.Background()
	srv := testenv.Chroma(t)
	files := shardCorpus(t)
	src := fstest.MapFS{}
	for slug, content := range files {
		src[slug] = &fstest.MapFile{Data: []byte(content), Mode: 0o644, ModTime: testcorpus.ModTime}
	}
	rules, err := ingest.ParseRules(strings.NewReader("** public\ninternal/** private groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}
	base := testenv.CollectionName(t)
	open := func(name string, gate *cloudGate) *chromastore.Collection {
		cfg := chromastore.Config{URL: srv.URL, Collection: base + name, Create: true}
		if gate != nil {
			cfg.HTTPClient, cfg.CloudLimits = &http.Client{Transport: gate}, true
		}
		c, err := chromastore.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	gate := &cloudGate{base: http.DefaultTransport, maxDoc: chromastore.CloudMaxDocumentBytes}
	sharded, whole := open("-sharded", gate), open("-whole", nil)
	opt := ingest.Options{Rules: rules, Compressed: true, Prune: true}
	rw, err := ingest.Run(ctx, whole, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.TreeMaxBytes = chromastore.CloudMaxDocumentBytes
	rs, err := ingest.Run(ctx, sharded, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rs.TreeShards < 2 || rw.TreeShards != 0 || rs.TreeBytes != rw.TreeBytes {
		t.Fatalf("sharded: %d bytes in %d shards; whole: %d bytes in %d", rs.TreeBytes, rs.TreeShards, rw.TreeBytes, rw.TreeShards)
	}
	t.Logf("tree of %d bytes in %d shards", rs.TreeBytes, rs.TreeShards)

	compare := func(t *testing.T) {
		for _, groups := range [][]string{nil, {"staff"}, {"sales"}} {
			chromafs.ResetTreeCache()
			a, err := chromafs.New(ctx, sharded, chromafs.WithGroups(groups...))
			if err != nil {
				t.Fatal(err)
			}
			b, err := chromafs.New(ctx, whole, chromafs.WithGroups(groups...))
			if err != nil {
				t.Fatal(err)
			}
			if a.TreeVersion() != b.TreeVersion() {
				t.Fatalf("tree versions differ: %s and %s", a.TreeVersion(), b.TreeVersion())
			}
			if got, want := describe(t, a), describe(t, b); got != want {
				t.Fatalf("groups %v: the sharded collection reads back differently:\n%.2000s\nwant\n%.2000s", groups, got, want)
			}
			q := grepx.Query{Patterns: []string{"access_token"}, Recursive: true}
			if got, want := searchText(t, a, q), searchText(t, b, q); got != want || want == "" {
				t.Fatalf("groups %v: grep differs", groups)
			}
			if got, want := readBack(t, a), visible(files, groups); !maps.Equal(got, want) {
				t.Fatalf("groups %v: %d files read back, not the %d files written", groups, len(got), len(want))
			}
		}
	}
	t.Run("first", compare)
	countShards := func() int {
		ids, err := sharded.IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, id := range ids {
			if chromafs.IsTreeShardID(chromafs.DefaultLayout.TreeID, id) {
				n++
			}
		}
		return n
	}
	if n := countShards(); n != rs.TreeShards {
		t.Fatalf("%d shard records after the first ingest; want %d", n, rs.TreeShards)
	}

	// A change: new shards replace the old ones.
	src["bulk/00/page-0000.md"] = &fstest.MapFile{Data: []byte("changed\n"), Mode: 0o644, ModTime: testcorpus.ModTime.Add(time.Hour)}
	delete(src, "bulk/01/page-0001.md")
	files["bulk/00/page-0000.md"] = "changed\n"
	delete(files, "bulk/01/page-0001.md")
	if rs, err = ingest.Run(ctx, sharded, src, opt); err != nil {
		t.Fatal(err)
	}
	opt.TreeMaxBytes = 0
	if _, err := ingest.Run(ctx, whole, src, opt); err != nil {
		t.Fatal(err)
	}
	t.Run("after a change", compare)
	if n := countShards(); n != rs.TreeShards {
		t.Fatalf("%d shard records after re-ingest; want %d (stale shards left)", n, rs.TreeShards)
	}
	if len(gate.refused) > 0 {
		t.Fatalf("%d requests broke a Cloud limit, first: %s", len(gate.refused), gate.refused[0])
	}

	// Without the limit the tree is one record again and the shards go.
	plain, err := chromastore.Open(ctx, chromastore.Config{URL: srv.URL, Collection: base + "-sharded"})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := ingest.Run(ctx, plain, src, opt); err != nil {
		t.Fatal(err)
	}
	if n := countShards(); n != 0 {
		t.Fatalf("%d shard records after ingesting without a limit; want 0", n)
	}
	t.Run("unsharded again", compare)
}

// describe lists every file and directory of fsys with its FileInfo.
func describe(t *testing.T, fsys fs.FS) string {
	t.Helper()
	var b strings.Builder
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %s\n", p, fi.Mode(), fi.Size(), fi.ModTime().UTC().Format(time.RFC3339))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// readBack reads every file of fsys.
func readBack(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
