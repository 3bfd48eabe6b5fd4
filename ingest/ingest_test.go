package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

var (
	ctx    = context.Background()
	mtime  = time.Date(2025, 3, 4, 5, 6, 7, 890, time.FixedZone("CET", 3600))
	mtimeU = time.Date(2025, 3, 4, 4, 6, 7, 0, time.UTC)
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, content := range files {
		m[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o644, ModTime: mtime}
	}
	return m
}

// checkCollection reads a collection back the way chromafs does and checks
// that it is consistent: the tree names exactly the pages of want, each
// page's chunks have indexes 0..n-1 with n the entry's chunk count, join
// to the content and match the entry's size; and there is no other
// record than those chunks and the tree.
// isIndexRecord reports whether id is the tree index record of treeID or
// one of its shards.
func isIndexRecord(treeID, id string) bool {
	return id == treeindex.RecordID(treeID) || collection.IsShardID(treeindex.RecordID(treeID), id)
}

// checkIndex checks that the collection's tree index is stamped with the
// JSON tree's version, carries its metadata, and holds the same entries
// as want, the JSON tree.
func checkIndex(t *testing.T, s collection.Store, treeID string, want *tree.Tree) {
	t.Helper()
	jrec, err := collection.ReadTree(ctx, s, treeID)
	if err != nil {
		t.Fatal(err)
	}
	irec, err := collection.ReadTree(ctx, s, treeindex.RecordID(treeID))
	if err != nil {
		t.Fatalf("tree index: %v", err)
	}
	if irec.Metadata[MetaSystem] != true || irec.Metadata[treeindex.StampKey] != jrec.Version {
		t.Errorf("tree index metadata %v; tree version %s", irec.Metadata, jrec.Version)
	}
	p, err := treeindex.DecodeDocument(irec.Document)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := treeindex.Decode(p, tree.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Stamp != jrec.Version || ix.Metadata[collection.ChunkIDsKey] != collection.ChunkIDScheme || ix.Metadata[MetaLineAligned] != true {
		t.Errorf("index stamp %s metadata %v; tree version %s", ix.Stamp, ix.Metadata, jrec.Version)
	}
	if got := ix.Tree.Entries(); !reflect.DeepEqual(got, want.Entries()) {
		for i := range got {
			if !reflect.DeepEqual(got[i], want.Entries()[i]) {
				t.Errorf("the index's entries differ from the JSON tree's: %#v, want %#v", got[i], want.Entries()[i])
				break
			}
		}
	}
}

func checkCollection(t *testing.T, s *memstore.Store, l collection.Layout, want map[string]string) *tree.Tree {
	t.Helper()
	rec, err := s.Tree(ctx, l.TreeID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Metadata[MetaSystem] != true || rec.Metadata[MetaWriter] != WriterName || rec.Metadata[MetaLineAligned] != true {
		t.Errorf("tree metadata = %v", rec.Metadata)
	}
	if r, _ := s.Get(l.TreeID); !r.System {
		t.Error("tree record is not a System record")
	}
	tr, err := tree.Parse(rec.Document)
	if err != nil {
		t.Fatal(err)
	}
	if p := tr.Problems(); len(p) > 0 {
		t.Errorf("tree problems: %v", p)
	}
	var slugs []string
	for _, e := range tr.Entries() {
		slugs = append(slugs, e.Slug)
	}
	if wantSlugs := slices.Sorted(maps.Keys(want)); !slices.Equal(slugs, wantSlugs) {
		t.Fatalf("tree pages = %q, want %q", slugs, wantSlugs)
	}
	byPage := map[string][]collection.Chunk{}
	lines := map[string]int{} // collection.LineKey by record id
	checkIndex(t, s, l.TreeID, tr)
	for _, r := range s.Records() {
		if r.ID == l.TreeID || isIndexRecord(l.TreeID, r.ID) {
			continue
		}
		if len(r.Metadata) != 3 {
			t.Errorf("record %s: metadata %v, want only slug, index and first line", r.ID, r.Metadata)
		}
		slug, _ := r.Metadata[l.SlugField].(string)
		idx, _ := r.Metadata[l.IndexField].(int)
		lines[r.ID], _ = r.Metadata[collection.LineKey].(int)
		if _, ok := want[slug]; !ok {
			t.Errorf("record %s belongs to %q, not a page of the tree", r.ID, slug)
		}
		if r.ID != ChunkID(slug, idx) {
			t.Errorf("record id %q, want %q", r.ID, ChunkID(slug, idx))
		}
		byPage[slug] = append(byPage[slug], collection.Chunk{ID: r.ID, Slug: slug, Index: idx, Text: r.Document})
	}
	for slug, content := range want {
		e, _ := tr.Entry(slug)
		cs := byPage[slug]
		sort.Slice(cs, func(i, j int) bool { return cs[i].Index < cs[j].Index })
		var b strings.Builder
		for i, c := range cs {
			if c.Index != i {
				t.Errorf("%s: chunk indexes %v", slug, cs)
				break
			}
			// The chunk's first byte lies on the line after the newlines
			// before it.
			if want := 1 + strings.Count(b.String(), "\n"); lines[c.ID] != want {
				t.Errorf("%s: chunk %d records first line %d, want %d", slug, i, lines[c.ID], want)
			}
			b.WriteString(c.Text)
		}
		if b.String() != content {
			t.Errorf("%s reads %q, want %q", slug, b.String(), content)
		}
		if e.Chunks != len(cs) || e.Size != int64(len(content)) {
			t.Errorf("%s: entry says %d chunks, %d bytes; store has %d chunks of %d bytes", slug, e.Chunks, e.Size, len(cs), len(content))
		}
	}
	return tr
}

var docs = map[string]string{
	"index.md":            "# Docs\n\nWelcome.\n",
	"auth/oauth.mdx":      strings.Repeat("Use the access_token field.\n", 10),
	"api/users.json":      `{"users": []}`,
	"internal/runbook.md": "Restart with `systemctl restart x`.\n",
	"Makefile":            "all:\n\tgo build ./...\n",
	"empty.txt":           "",
	"long/line.md":        strings.Repeat("é", 200) + "\nend\n",
	"日本/ページ.md":           "こんにちは\n",
}

func TestRun(t *testing.T) {
	rules, err := ParseRules(strings.NewReader("internal/** private groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := collection.Layout{SlugField: "slug", IndexField: "idx", TreeID: "tree"}
	for _, compressed := range []bool{false, true} {
		t.Run(fmt.Sprint("compressed=", compressed), func(t *testing.T) {
			s := memstore.New("c")
			var progress []string
			r, err := Run(ctx, s, mapFS(docs), Options{
				Layout: l, MaxChunk: 64, Rules: rules, Compressed: compressed, BatchSize: 7,
				Progress: func(done, total int) { progress = append(progress, fmt.Sprint(done, "/", total)) },
			})
			if err != nil {
				t.Fatal(err)
			}
			tr := checkCollection(t, s, l, docs)
			if r.Pages != len(docs) || r.Added != len(docs) || r.Updated+r.Unchanged+r.Removed+r.Deleted != 0 || len(r.Skipped) != 0 {
				t.Errorf("report:\n%s", r)
			}
			if r.Chunks != s.Len()-2 { // the tree and its index
				t.Errorf("report says %d chunks, store has %d", r.Chunks, s.Len()-2)
			}
			if last := s.Records()[s.Len()-1]; last.ID != "tree" {
				t.Errorf("last record written is %q, want the tree", last.ID)
			}
			if got := s.Requests(); got.Upsert < (r.Chunks+6)/7+1 {
				t.Errorf("%d upserts for %d chunks in batches of 7", got.Upsert, r.Chunks)
			}
			if want := "0/8 1/8 2/8 3/8 4/8 5/8 6/8 7/8 8/8"; strings.Join(progress, " ") != want {
				t.Errorf("progress %q, want %q", progress, want)
			}
			doc, _ := s.Get("tree")
			if isJSON := strings.HasPrefix(doc.Document, "{"); isJSON == compressed {
				t.Errorf("tree document starts %.10q, compressed=%v", doc.Document, compressed)
			}

			e, _ := tr.Entry("internal/runbook.md")
			if e.IsPublic || !e.HasIsPublic || !slices.Equal(e.Groups, []string{"staff"}) {
				t.Errorf("runbook access %v %v", e.IsPublic, e.Groups)
			}
			e, _ = tr.Entry("index.md")
			if !e.IsPublic || len(e.Groups) != 0 {
				t.Errorf("index access %v %v", e.IsPublic, e.Groups)
			}
			if !e.ModTime.Equal(mtimeU) || e.ModTime.Location() != time.UTC {
				t.Errorf("mod time %v, want %v", e.ModTime, mtimeU)
			}
			if sum := sha256.Sum256([]byte(docs["index.md"])); e.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Errorf("hash %q", e.Hash)
			}
			if e, _ := tr.Entry("long/line.md"); !e.SplitLines {
				t.Error("long/line.md: SplitLines not set")
			}
			if e, _ := tr.Entry("auth/oauth.mdx"); e.SplitLines || e.Chunks != 5 {
				t.Errorf("auth/oauth.mdx: SplitLines %v, %d chunks (want 5 chunks of two 28-byte lines)", e.SplitLines, e.Chunks)
			}
			if e, _ := tr.Entry("empty.txt"); e.Chunks != 1 || e.Size != 0 {
				t.Errorf("empty.txt: %d chunks, size %d", e.Chunks, e.Size)
			}
			types := map[string]string{
				"index.md":       "text/markdown; charset=utf-8",
				"auth/oauth.mdx": "text/markdown; charset=utf-8",
				"api/users.json": "application/json",
				"Makefile":       "text/plain; charset=utf-8",
				"empty.txt":      "text/plain; charset=utf-8",
			}
			for slug, want := range types {
				if e, _ := tr.Entry(slug); e.ContentType != want {
					t.Errorf("%s: content type %q, want %q", slug, e.ContentType, want)
				}
			}
		})
	}
}

func TestContentType(t *testing.T) {
	tests := []struct{ slug, content, want string }{
		{"a.md", "# x", "text/markdown; charset=utf-8"},
		{"a.MDX", "# x", "text/markdown; charset=utf-8"},
		{"a.html", "x", "text/html; charset=utf-8"},
		{"a.json", "{}", "application/json"},
		{"a.svg", "<svg/>", "image/svg+xml"},
		{"Makefile", "all:\n", "text/plain; charset=utf-8"},
		{"page", "<!DOCTYPE html><html></html>", "text/html; charset=utf-8"},
		{"a.unknownext", "plain words", "text/plain; charset=utf-8"},
		{".hidden", "", "text/plain; charset=utf-8"},
	}
	for _, tt := range tests {
		if got := ContentType(tt.slug, []byte(tt.content)); got != tt.want {
			t.Errorf("ContentType(%q) = %q, want %q", tt.slug, got, tt.want)
		}
	}
}

func TestReingest(t *testing.T) {
	s := memstore.New("c")
	l := collection.DefaultLayout()
	v1 := map[string]string{
		"keep.md":    "unchanged\n",
		"shrink.md":  strings.Repeat("line of text\n", 20), // 260 bytes: 5 chunks of 64
		"grow.md":    "short\n",
		"gone.md":    strings.Repeat("bye\n", 40),
		"private.md": "secret\n",
	}
	opt := Options{MaxChunk: 64, BatchSize: 3}
	r, err := Run(ctx, s, mapFS(v1), opt)
	if err != nil {
		t.Fatal(err)
	}
	checkCollection(t, s, l, v1)
	if r.Added != 5 {
		t.Fatalf("first run:\n%s", r)
	}

	// Unchanged run: nothing but the tree and its index is written.
	s.ResetRequests()
	r, err = Run(ctx, s, mapFS(v1), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Unchanged != 5 || r.Added+r.Updated+r.Removed+r.Chunks+r.Deleted != 0 {
		t.Fatalf("identical run:\n%s", r)
	}
	if got := s.Requests(); got.Upsert != 2 || got.Delete != 0 || got.ChunkIDs != 0 { // the index and the tree
		t.Fatalf("identical run made requests %+v", got)
	}
	checkCollection(t, s, l, v1)

	v2 := map[string]string{
		"keep.md":    "unchanged\n",
		"shrink.md":  "now short\n",
		"grow.md":    strings.Repeat("grown line\n", 30),
		"new.md":     "new page\n",
		"private.md": "secret\n",
	}
	rules, _ := ParseRules(strings.NewReader("private.md private groups=ops\n"))
	opt.Rules = rules
	r, err = Run(ctx, s, mapFS(v2), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Pages: 5, Added: 1, Updated: 2, Unchanged: 2, Removed: 1,
		Chunks:  1 + 6 + 1, // shrink.md, grow.md (330 bytes), new.md
		Deleted: 4 + 3,     // shrink.md#1..4, gone.md's 3 chunks
	}
	if r.Pages != want.Pages || r.Added != want.Added || r.Updated != want.Updated || r.Unchanged != want.Unchanged ||
		r.Removed != want.Removed || r.Chunks != want.Chunks || r.Deleted != want.Deleted {
		t.Fatalf("second run:\n%s\nwant\n%s", r, &want)
	}
	tr := checkCollection(t, s, l, v2) // no stale chunk remains
	if e, _ := tr.Entry("private.md"); e.IsPublic || !slices.Equal(e.Groups, []string{"ops"}) {
		t.Fatalf("unchanged page did not get its new access: %v %v", e.IsPublic, e.Groups)
	}
}

func TestReingestForeignCollection(t *testing.T) {
	s := memstore.New("c")
	files := map[string]string{"a.md": strings.Repeat("abc\n", 30), "b.md": "bee\n"}
	// Another writer: ids "<slug>:<i>", cuts at arbitrary offsets, hashes.
	if err := memstore.Load(s, collection.DefaultLayout(), files, memstore.LoadOptions{ChunkSize: 10, WithSizes: true}); err != nil {
		t.Fatal(err)
	}
	r, err := Run(ctx, s, mapFS(files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Updated != 2 || r.Unchanged != 0 || r.Chunks != 2 || r.Deleted != 13 {
		t.Fatalf("report:\n%s", r)
	}
	checkCollection(t, s, collection.DefaultLayout(), files)
}

func TestReingestStrayChunks(t *testing.T) {
	// A previous run that failed before writing its tree left chunks of a
	// page that the tree does not name, with more chunks than now.
	s := memstore.New("c")
	stray := []collection.Record{}
	for i := range 4 {
		stray = append(stray, collection.Record{ID: ChunkID("a.md", i), Document: "old",
			Metadata: map[string]any{"page_slug": "a.md", "chunk_index": i}})
	}
	if err := s.Upsert(ctx, stray); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"a.md": "new\n"}
	r, err := Run(ctx, s, mapFS(files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != 1 || r.Deleted != 3 {
		t.Fatalf("report:\n%s", r)
	}
	checkCollection(t, s, collection.DefaultLayout(), files)
}

func TestForce(t *testing.T) {
	s := memstore.New("c")
	files := map[string]string{"a.md": "a\n"}
	if _, err := Run(ctx, s, mapFS(files), Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := Run(ctx, s, mapFS(files), Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Updated != 1 || r.Chunks != 1 {
		t.Fatalf("report:\n%s", r)
	}
}

func TestSkipped(t *testing.T) {
	files := mapFS(map[string]string{
		"ok.md":                "fine\n",
		`back\slash.md`:        "x",
		"ctrl\x01.md":          "x",
		"c1\u0085.md":          "x",
		"bad\xffname.md":       "x",
		"binary.png":           "\x89PNG\r\n\x1a\n\xff\xfe",
		".git/config":          "[core]\n",
		"sub/.git":             "gitdir: ../x\n",
		"drafts/wip.md":        "x",
		"notes.tmp":            "x",
		"deep/er/notes.tmp":    "x",
		"build/out.md":         "x",
		"sub/build/in.md":      "kept: build/ is anchored",
		"sub/page.md":          "page\n",
		"bad\\dir/anything.md": "x",
	})
	files["link.md"] = &fstest.MapFile{Data: []byte("ok.md"), Mode: fs.ModeSymlink | 0o777}
	files["fifo"] = &fstest.MapFile{Mode: fs.ModeNamedPipe | 0o644}
	files["dev"] = &fstest.MapFile{Mode: fs.ModeDevice | 0o644}

	s := memstore.New("c")
	r, err := Run(ctx, s, files, Options{Exclude: []string{"drafts/", "*.tmp", "/build"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Skip{
		{`back\slash.md`, "name contains a backslash"},
		{`bad\dir`, "name contains a backslash"},
		{"bad\xffname.md", "name is not valid UTF-8"},
		{"binary.png", "content is not valid UTF-8 text"},
		{"c1\u0085.md", "name contains a control character"},
		{"ctrl\x01.md", "name contains a control character"},
		{"dev", "not a regular file (device)"},
		{"fifo", "not a regular file (named pipe)"},
		{"link.md", "symbolic link"},
	}
	got := slices.Clone(r.Skipped)
	slices.SortFunc(got, func(a, b Skip) int { return strings.Compare(a.Path, b.Path) })
	if !slices.Equal(got, want) {
		t.Errorf("skipped:\n%v\nwant\n%v", got, want)
	}
	if r.Excluded != 4 {
		t.Errorf("excluded %d, want 4 (drafts/, 2 × *.tmp, /build)", r.Excluded)
	}
	checkCollection(t, s, collection.DefaultLayout(), map[string]string{
		"ok.md": "fine\n", "sub/page.md": "page\n", "sub/build/in.md": "kept: build/ is anchored",
	})
	str := r.String()
	for _, want := range []string{`skipped "bad\xffname.md": name is not valid UTF-8`, "skipped link.md: symbolic link", "4 excluded"} {
		if !strings.Contains(str, want) {
			t.Errorf("report %q lacks %q", str, want)
		}
	}
}

func TestBadExclude(t *testing.T) {
	_, err := Run(ctx, memstore.New("c"), mapFS(nil), Options{Exclude: []string{"[a"}})
	if err == nil || !strings.Contains(err.Error(), `"[a"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestDryRun(t *testing.T) {
	s := memstore.New("c")
	v1 := map[string]string{"a.md": strings.Repeat("aaa\n", 40), "b.md": "b\n"}
	if _, err := Run(ctx, s, mapFS(v1), Options{MaxChunk: 32}); err != nil {
		t.Fatal(err)
	}
	before := s.Records()
	v2 := map[string]string{"a.md": "a\n", "c.md": "c\n"}
	s.ResetRequests()
	dry, err := Run(ctx, s, mapFS(v2), Options{MaxChunk: 32, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(); got.Upsert != 0 || got.Delete != 0 {
		t.Fatalf("dry run wrote: %+v", got)
	}
	if !slices.EqualFunc(before, s.Records(), func(a, b collection.Record) bool {
		return a.ID == b.ID && a.Document == b.Document
	}) {
		t.Fatal("dry run changed the store")
	}
	if !strings.HasPrefix(dry.String(), "dry run: ") || !strings.Contains(dry.String(), "to write") {
		t.Errorf("dry run report:\n%s", dry)
	}
	real, err := Run(ctx, s, mapFS(v2), Options{MaxChunk: 32})
	if err != nil {
		t.Fatal(err)
	}
	dry.DryRun, dry.Elapsed, real.Elapsed = false, 0, 0
	if dry.String() != real.String() {
		t.Fatalf("dry run predicted\n%s\nbut the run did\n%s", dry, real)
	}
	checkCollection(t, s, collection.DefaultLayout(), v2)
}

func TestFailureMidway(t *testing.T) {
	v1 := map[string]string{"a.md": "one\n", "b.md": "two\n"}
	v2 := map[string]string{}
	for i := range 20 {
		v2[fmt.Sprintf("p%02d.md", i)] = strings.Repeat(fmt.Sprintln("page", i), 10)
	}
	boom := errors.New("boom")
	tests := []struct {
		op          string
		n           int  // the nth call of op fails
		treeWritten bool // the failure comes after the tree is written
	}{
		{memstore.OpUpsert, 2, false},
		{memstore.OpChunkIDs, 2, false},
		{memstore.OpDelete, 1, true}, // deleting the chunks of a.md and b.md
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			s := memstore.New("c")
			if _, err := Run(ctx, s, mapFS(v1), Options{}); err != nil {
				t.Fatal(err)
			}
			oldTree, _ := s.Get(collection.DefaultLayout().TreeID)
			calls := 0
			s.SetHook(func(_ context.Context, op string) error {
				if op == tt.op {
					if calls++; calls == tt.n {
						return boom
					}
				}
				return nil
			})
			opt := Options{MaxChunk: 40, BatchSize: 10}
			_, err := Run(ctx, s, mapFS(v2), opt)
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), " of 20 files (") {
				t.Errorf("error does not say how far it got: %v", err)
			}
			newTree, _ := s.Get(collection.DefaultLayout().TreeID)
			if changed := newTree.Document != oldTree.Document; changed != tt.treeWritten {
				t.Fatalf("tree changed: %v, want %v", changed, tt.treeWritten)
			}
			if want := map[bool]string{false: "tree not updated", true: "tree updated"}[tt.treeWritten]; !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q: %v", want, err)
			}
			s.SetHook(nil)
			opt.Prune = tt.treeWritten // the chunks of a.md and b.md are orphans
			r, err := Run(ctx, s, mapFS(v2), opt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.treeWritten && r.Orphans != 2 {
				t.Errorf("pruned %d orphans, want 2", r.Orphans)
			}
			checkCollection(t, s, collection.DefaultLayout(), v2)
		})
	}
}

func TestRevertAfterFailure(t *testing.T) {
	s := memstore.New("c")
	v1 := map[string]string{"a.md": "old\n", "b.md": "b\n"}
	v2 := map[string]string{"a.md": "new content\n", "b.md": "b\n"}
	if _, err := Run(ctx, s, mapFS(v1), Options{}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	s.SetHook(func(_ context.Context, op string) error {
		if op == memstore.OpChunkIDs { // after a.md's new chunk is written
			return boom
		}
		return nil
	})
	if _, err := Run(ctx, s, mapFS(v2), Options{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	s.SetHook(nil)
	if rec, _ := s.Tree(ctx, collection.DefaultLayout().TreeID); rec.Metadata[MetaDirty] != true {
		t.Fatalf("failed run left tree metadata %v", rec.Metadata)
	}
	// a.md's content is back to what the (old) tree says, but its chunk
	// holds the failed run's text: the dirty tree must not be trusted.
	r, err := Run(ctx, s, mapFS(v1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Updated != 2 || r.Unchanged != 0 {
		t.Fatalf("report:\n%s", r)
	}
	checkCollection(t, s, collection.DefaultLayout(), v1)
	if rec, _ := s.Tree(ctx, collection.DefaultLayout().TreeID); rec.Metadata[MetaDirty] != false {
		t.Fatalf("new tree metadata %v", rec.Metadata)
	}
	r, err = Run(ctx, s, mapFS(v1), Options{})
	if err != nil || r.Unchanged != 2 {
		t.Fatalf("clean tree not trusted: %v\n%s", err, r)
	}
}

func TestPrune(t *testing.T) {
	s := memstore.New("c")
	files := map[string]string{"a.md": "a\n"}
	if err := s.Upsert(ctx, []collection.Record{
		{ID: "orphan-1", Document: "x", Metadata: map[string]any{"page_slug": "old.md", "chunk_index": 0}},
		{ID: "unrelated", Document: "y", Metadata: map[string]any{"other": true}},
	}); err != nil {
		t.Fatal(err)
	}
	r, err := Run(ctx, s, mapFS(files), Options{Prune: true, DryRun: true})
	if err != nil || r.Orphans != 1 || s.Len() != 2 {
		t.Fatalf("dry run: %v, %v, %d records", r, err, s.Len())
	}
	r, err = Run(ctx, s, mapFS(files), Options{Prune: true})
	if err != nil || r.Orphans != 1 || r.Deleted != 1 {
		t.Fatalf("run: %v, %v", r, err)
	}
	if _, ok := s.Get("unrelated"); !ok {
		t.Fatal("prune deleted a record without a slug field")
	}
	if _, ok := s.Get("orphan-1"); ok {
		t.Fatal("prune kept the orphan")
	}
	_, err = Run(ctx, noScan{s}, mapFS(files), Options{Prune: true})
	if err == nil || !strings.Contains(err.Error(), "cannot scan") {
		t.Fatalf("prune without a scanner: %v", err)
	}
}

// noScan hides the Scanner methods of a store.
type noScan struct{ Target }

func TestFailingTarget(t *testing.T) {
	s := memstore.New("c")
	boom := errors.New("unreachable")
	s.SetFailure(boom)
	_, err := Run(ctx, s, mapFS(docs), Options{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `read tree record "__path_tree__"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestMalformedTree(t *testing.T) {
	s := memstore.New("c")
	if err := s.Upsert(ctx, []collection.Record{{ID: collection.DefaultLayout().TreeID, Document: "{not json"}}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(ctx, s, mapFS(docs), Options{})
	if !errors.Is(err, tree.ErrMalformed) || s.Len() != 1 {
		t.Fatalf("err = %v, %d records", err, s.Len())
	}
}

func TestCancelled(t *testing.T) {
	s := memstore.New("c")
	cctx, cancel := context.WithCancel(ctx)
	var n int
	_, err := Run(cctx, s, mapFS(docs), Options{Progress: func(done, total int) {
		if n++; n == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, ok := s.Get(collection.DefaultLayout().TreeID); ok {
		t.Fatal("cancelled run wrote a tree")
	}
}

func TestTreeIDCollision(t *testing.T) {
	s := memstore.New("c")
	_, err := Run(ctx, s, mapFS(map[string]string{"x": "x"}), Options{Layout: collection.Layout{TreeID: "x#0"}})
	if err == nil || !strings.Contains(err.Error(), "tree record's id") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write("guide/start.md", "# Start\n")
	write("internal/ops.md", "ops\n")
	write(".access", "internal/** private groups=ops\n")
	write(".git/HEAD", "ref: refs/heads/main\n")
	if err := os.Symlink("guide/start.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	rules, err := LoadRules(filepath.Join(dir, ".access"))
	if err != nil {
		t.Fatal(err)
	}
	s := memstore.New("c")
	r, err := RunDir(ctx, s, dir, Options{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	want := []Skip{{".access", "access rules file"}, {"link.md", "symbolic link"}}
	if !slices.Equal(r.Skipped, want) {
		t.Errorf("skipped %v, want %v", r.Skipped, want)
	}
	tr := checkCollection(t, s, collection.DefaultLayout(), map[string]string{"guide/start.md": "# Start\n", "internal/ops.md": "ops\n"})
	e, _ := tr.Entry("internal/ops.md")
	if e.IsPublic || !e.ModTime.Equal(mtimeU) {
		t.Errorf("internal/ops.md: public %v, mod time %v", e.IsPublic, e.ModTime)
	}
}

func TestReportString(t *testing.T) {
	r := &Report{Pages: 3, Added: 1, Updated: 1, Unchanged: 1, Removed: 2, Chunks: 4, Deleted: 5,
		Skipped: []Skip{{"a\nb", "name contains a control character"}}}
	want := `3 pages (1 added, 1 updated, 1 unchanged), 2 removed
4 chunks written, 5 records deleted
skipped "a\nb": name contains a control character`
	if r.String() != want {
		t.Fatalf("String() =\n%s\nwant\n%s", r, want)
	}
}
