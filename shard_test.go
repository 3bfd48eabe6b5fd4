package chromafs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// TestShardedTreeVersion: New reads a sharded tree whole, and its
// TreeVersion is that of the whole document.
func TestShardedTreeVersion(t *testing.T) {
	ctx := context.Background()
	st, doc, _ := testcorpus.ShardedStore(t, 500, 2048)
	fsys, err := chromafs.New(ctx, st, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	if fsys.TreeVersion() != collection.TreeVersionOf(doc) {
		t.Fatalf("TreeVersion %s; want that of the whole document, %s", fsys.TreeVersion(), collection.TreeVersionOf(doc))
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
		break_ func(*memstore.Store, []collection.Record)
		want   string
	}{
		{"missing shard", func(st *memstore.Store, shards []collection.Record) {
			if err := st.Delete(ctx, []string{shards[2].ID}); err != nil {
				t.Fatal(err)
			}
		}, "shard 2 of"},
		{"altered shard", func(st *memstore.Store, shards []collection.Record) {
			r := shards[1]
			r.Document = strings.Replace(r.Document, "p", "q", 1)
			if err := st.Upsert(ctx, []collection.Record{r}); err != nil {
				t.Fatal(err)
			}
		}, "sha256"},
		{"truncated shard", func(st *memstore.Store, shards []collection.Record) {
			r := shards[0]
			r.Document = r.Document[:len(r.Document)-1]
			if err := st.Upsert(ctx, []collection.Record{r}); err != nil {
				t.Fatal(err)
			}
		}, "the manifest declares"},
		{"bad manifest", func(st *memstore.Store, _ []collection.Record) {
			rec := collection.Record{ID: collection.DefaultLayout().TreeID, Document: collection.ManifestHeader + "\n{\"shards\":", System: true}
			if err := st.Upsert(ctx, []collection.Record{rec}); err != nil {
				t.Fatal(err)
			}
		}, "tree manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, shards := testcorpus.ShardedStore(t, 300, 1024)
			tc.break_(st, shards)
			_, err := chromafs.New(ctx, st, chromafs.WithShared(chromafs.NewShared(0)))
			if !errors.Is(err, tree.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v; want a malformed-tree error naming %q", err, tc.want)
			}
		})
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
		cfg := chromastore.Config{URL: srv.URL, Collection: base + name}
		if gate != nil {
			cfg.HTTPClient, cfg.CloudLimits = &http.Client{Transport: gate}, true
		}
		return testbackend.OpenChroma(t, cfg)
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
			sh := chromafs.WithShared(chromafs.NewShared(0))
			a, err := chromafs.New(ctx, sharded, sh, chromafs.WithGroups(groups...))
			if err != nil {
				t.Fatal(err)
			}
			b, err := chromafs.New(ctx, whole, sh, chromafs.WithGroups(groups...))
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
			if collection.IsShardID(collection.DefaultLayout().TreeID, id) {
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
