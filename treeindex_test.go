package chromafs_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// indexFiles and indexRules make a collection whose pages have the access
// rules of the access tests (tree's TestPrune, the "staff" corpus):
// public pages, pages of one group, of two, of a group no user has, and a
// private page without groups.
var (
	indexFiles = map[string]string{
		"index.md":                       "# Home\n",
		"guides/auth/oauth.md":           "OAuth\nsteps\n",
		"guides/auth/internal.md":        "internal auth\n",
		"internal/billing/plans.md":      "plans\n",
		"internal/billing/raw/costs.csv": "a,b\n1,2\n",
		"internal/ops.md":                "ops\n",
		"internal/staff.md":              "staff only\n",
		"beta/new.md":                    "beta\n",
		"secret/none.md":                 "nobody\n",
		"big/page.txt":                   strings.Repeat("line of text\n", 100),
	}
	indexRules = `** public
guides/auth/internal.md groups=admin
internal/** groups=staff
internal/billing/plans.md groups=admin,billing
internal/billing/raw/** groups=billing
internal/ops.md groups=ops
beta/** groups=beta
secret/** private
`
	// indexGroupSets are the group sets of the access tests.
	indexGroupSets = [][]string{nil, {}, {"nobody", ""}, {"billing"}, {"admin"}, {"ops", "beta"}, {"staff"},
		{"admin", "billing", "ops", "beta", "staff"}}
)

func ingestIndexed(t *testing.T, dst ingest.Target, opt ingest.Options) {
	t.Helper()
	src := fstest.MapFS{}
	for slug, content := range indexFiles {
		src[slug] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	rules, err := ingest.ParseRules(strings.NewReader(indexRules))
	if err != nil {
		t.Fatal(err)
	}
	opt.Rules, opt.MaxChunk = rules, 256
	if _, err := ingest.Run(context.Background(), dst, src, opt); err != nil {
		t.Fatal(err)
	}
}

// jsonOnly hides the collection's tree version marker (its store does not
// implement collection.TreeVersioner) so that New reads the JSON tree.
type jsonOnly struct {
	collection.Store
	collection.IDReader
}

// noJSON fails every read of the JSON tree record: New can only use the
// index.
type noJSON struct {
	testbackend.Target
	treeID string
}

func (s noJSON) TreeVersion(ctx context.Context) (string, error) {
	return s.Target.(collection.TreeVersioner).TreeVersion(ctx)
}

func (s noJSON) Tree(ctx context.Context, id string) (collection.TreeRecord, error) {
	if id == s.treeID {
		return collection.TreeRecord{}, errors.New("the JSON tree was read")
	}
	return s.Target.Tree(ctx, id)
}

// sameFS checks that two filesystems show the same tree: every path,
// directory or file, with the same file info and entry.
func sameFS(t *testing.T, got, want fs.FS) {
	t.Helper()
	list := func(fsys fs.FS) []string {
		var out []string
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			e, _ := info.Sys().(*tree.Entry)
			out = append(out, fmt.Sprintf("%s %v %d %v %s %+v", p, info.IsDir(), info.Size(), info.Mode(), info.ModTime(), e))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	g, w := list(got), list(want)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("views differ:\n got %q\nwant %q", g, w)
	}
}

// TestIndexSameViews: New from the tree index (the JSON tree unreadable)
// and New from the JSON tree (the marker hidden) give the same view for
// every group set, on memstore and real Chroma, whole and sharded.
func TestIndexSameViews(t *testing.T) {
	ctx := context.Background()
	for _, b := range testbackend.Backends() {
		for _, sharded := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sharded=%v", b.Name, sharded), func(t *testing.T) {
				target := b.New(t)
				opt := ingest.Options{Compressed: true}
				if sharded {
					opt.TreeMaxBytes = collection.MinShardBytes
				}
				ingestIndexed(t, target, opt)
				treeID := collection.DefaultLayout().TreeID
				for _, groups := range indexGroupSets {
					viaIndex := chromafs.NewShared(0)
					ix, err := chromafs.New(ctx, noJSON{target, treeID}, chromafs.WithShared(viaIndex), chromafs.WithGroups(groups...))
					if err != nil {
						t.Fatalf("New from the index: %v", err)
					}
					js, err := chromafs.New(ctx, jsonOnly{target, target}, chromafs.WithShared(chromafs.NewShared(0)), chromafs.WithGroups(groups...))
					if err != nil {
						t.Fatal(err)
					}
					if chromafs.TreeDecodes(viaIndex) != 1 || chromafs.TreeParses(viaIndex) != 0 {
						t.Fatalf("%d decodes, %d parses", chromafs.TreeDecodes(viaIndex), chromafs.TreeParses(viaIndex))
					}
					if ix.TreeVersion() != js.TreeVersion() {
						t.Errorf("versions %s and %s", ix.TreeVersion(), js.TreeVersion())
					}
					sameFS(t, ix, js)
					if got, err := fs.ReadFile(ix, "index.md"); err != nil || string(got) != indexFiles["index.md"] {
						t.Errorf("ReadFile through the index: %q, %v", got, err)
					}
				}
			})
		}
	}
}

// TestIndexIgnored: an index made from another tree, a corrupt one and a
// missing one are ignored (with one warning for the first two) and the
// JSON tree is read.
func TestIndexIgnored(t *testing.T) {
	ctx := context.Background()
	treeID := collection.DefaultLayout().TreeID
	other, err := treeindex.Encode([]tree.Entry{{Slug: "other.md", IsPublic: true, Size: -1}}, "0123456789abcdef01234567", nil)
	if err != nil {
		t.Fatal(err)
	}
	static := func(doc string) func(*testing.T, collection.Store) string {
		return func(*testing.T, collection.Store) string { return doc }
	}
	for _, tc := range []struct {
		name  string
		doc   func(*testing.T, collection.Store) string // "" deletes the index record
		warns int
		// decodes is the number of decodes tried: the entries of an
		// index that passes its checksum and stamp are decoded, and
		// fail.
		decodes int64
	}{
		{"mismatched", static(string(treeindex.EncodeDocument(other))), 1, 0},
		{"corrupt", static(string(treeindex.EncodeDocument([]byte("CFTI\x01garbage")))), 1, 0},
		{"not an index", static(`{"a.md": {"isPublic": true}}`), 1, 0},
		{"missing", static(""), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testbackend.Backends()[0].New(t)
			ingestIndexed(t, s, ingest.Options{Compressed: true})
			id := treeindex.RecordID(treeID)
			doc := tc.doc(t, s)
			if doc == "" {
				if err := s.Delete(ctx, []string{id}); err != nil {
					t.Fatal(err)
				}
			} else if err := s.Upsert(ctx, []collection.Record{{ID: id, Document: doc, System: true}}); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			sh := chromafs.NewShared(0)
			got, err := chromafs.New(ctx, s, chromafs.WithShared(sh), chromafs.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(logs.String(), "level=WARN"); n != tc.warns || (n > 0 && !strings.Contains(logs.String(), "tree index ignored")) {
				t.Fatalf("%d warnings, want %d:\n%s", n, tc.warns, logs.String())
			}
			if chromafs.TreeParses(sh) != 1 || chromafs.TreeDecodes(sh) != tc.decodes {
				t.Fatalf("%d parses, %d decodes; want the JSON tree parsed", chromafs.TreeParses(sh), chromafs.TreeDecodes(sh))
			}
			sameFS(t, got, mustNew(t, jsonOnly{s, s}, chromafs.WithShared(chromafs.NewShared(0))))
		})
	}
}

// TestIndexBadBlock: an index whose checksum and stamp are right but
// whose entries are not (only a hostile or broken writer makes one) is
// read lazily, so its bad block is found when a listing first needs it:
// then a warning names it, its pages are served nowhere, and the next
// session reads the JSON tree.
func TestIndexBadBlock(t *testing.T) {
	ctx := context.Background()
	treeID := collection.DefaultLayout().TreeID
	for _, tc := range []struct{ name, from, to string }{
		{"unsorted", "\x04a.md\x00\x04b.md", "\x04b.md\x00\x04a.md"},
		{"invalid slug", "\x00\x04b.md", "\x00\x04b/.."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testbackend.Backends()[0].New(t)
			ingestIndexed(t, s, ingest.Options{Compressed: true})
			version, err := s.(collection.TreeVersioner).TreeVersion(ctx)
			if err != nil || version == "" {
				t.Fatalf("marker %q, %v", version, err)
			}
			p, err := treeindex.EncodeWith([]tree.Entry{{Slug: "a.md", IsPublic: true, Size: -1}, {Slug: "b.md", IsPublic: true, Size: -1}}, version, nil, treeindex.Options{Stored: true})
			if err != nil {
				t.Fatal(err)
			}
			// The block's paths follow the header: patch the last match.
			i := bytes.LastIndex(p, []byte(tc.from))
			if i < 0 {
				t.Fatalf("%q not in the index", tc.from)
			}
			body := append(append(bytes.Clone(p[:i]), tc.to...), p[i+len(tc.from):len(p)-4]...)
			body = binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
			doc := string(treeindex.EncodeDocument(body))
			if err := s.Upsert(ctx, []collection.Record{{ID: treeindex.RecordID(treeID), Document: doc, System: true}}); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			sh := chromafs.NewShared(0)
			logger := slog.New(slog.NewTextHandler(&logs, nil))
			got, err := chromafs.New(ctx, s, chromafs.WithShared(sh), chromafs.WithLogger(logger))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(logs.String(), "level=WARN"); n != 0 || chromafs.TreeDecodes(sh) != 1 {
				t.Fatalf("%d warnings and %d decodes before a listing:\n%s", n, chromafs.TreeDecodes(sh), logs.String())
			}
			ents, err := fs.ReadDir(got, ".")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if e.Name() == "a.md" || e.Name() == "b.md" || e.Name() == "b" {
					t.Fatalf("the root lists %q of the bad block", e.Name())
				}
			}
			if n := strings.Count(logs.String(), "level=WARN"); n != 1 || !strings.Contains(logs.String(), "compact tree index is unusable") {
				t.Fatalf("%d warnings, want 1:\n%s", n, logs.String())
			}
			again, err := chromafs.New(ctx, s, chromafs.WithShared(sh), chromafs.WithLogger(logger))
			if err != nil {
				t.Fatal(err)
			}
			if chromafs.TreeParses(sh) != 1 {
				t.Fatalf("%d parses; want the next session to parse the JSON tree", chromafs.TreeParses(sh))
			}
			sameFS(t, again, mustNew(t, jsonOnly{s, s}, chromafs.WithShared(chromafs.NewShared(0))))
		})
	}
}

// TestSharedCompactTree: with a Redis behind the cache, the first process
// (a Shared) stores the compact tree it read, and the next reads it from
// Redis without reading the collection's tree or index; for a collection
// without an index (a foreign writer's), the next still fetches the JSON
// tree (to learn its version) but does not parse it. A Redis that is down
// costs a warning and the JSON tree.
func TestSharedCompactTree(t *testing.T) {
	ctx := context.Background()
	srv := testenv.Redis(t)
	treeID := collection.DefaultLayout().TreeID
	for _, b := range testbackend.Backends() {
		for _, foreign := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/foreign=%v", b.Name, foreign), func(t *testing.T) {
				target := b.New(t)
				ingestIndexed(t, target, ingest.Options{Compressed: true})
				if foreign {
					if err := target.Delete(ctx, []string{treeindex.RecordID(treeID)}); err != nil {
						t.Fatal(err)
					}
				}
				rc := redisCache(t, srv.URL, t.Name()+":", rediscache.Options{})
				cache := func() chromafs.Option { return chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)) }
				first := chromafs.NewShared(0)
				want := mustNew(t, target, chromafs.WithShared(first), cache(), chromafs.WithGroups("staff"))
				if foreign && chromafs.TreeParses(first) != 1 || !foreign && chromafs.TreeDecodes(first) != 1 {
					t.Fatalf("first: %d parses, %d decodes", chromafs.TreeParses(first), chromafs.TreeDecodes(first))
				}
				var store collection.Store = noTrees{target}
				if foreign {
					store = target
				}
				second := chromafs.NewShared(0)
				got, err := chromafs.New(ctx, store, chromafs.WithShared(second), cache(), chromafs.WithGroups("staff"))
				if err != nil {
					t.Fatalf("second: %v", err)
				}
				if chromafs.TreeParses(second) != 0 || chromafs.TreeDecodes(second) != 1 {
					t.Fatalf("second: %d parses, %d decodes; want the shared compact tree", chromafs.TreeParses(second), chromafs.TreeDecodes(second))
				}
				sameFS(t, got, want)
				for _, groups := range indexGroupSets {
					sameFS(t, mustNew(t, store, chromafs.WithShared(second), cache(), chromafs.WithGroups(groups...)),
						mustNew(t, jsonOnly{target, target}, chromafs.WithShared(chromafs.NewShared(0)), chromafs.WithGroups(groups...)))
				}
			})
		}
	}
}

// noTrees fails every tree record read: New can only use the shared
// cache.
type noTrees struct{ testbackend.Target }

func (s noTrees) TreeVersion(ctx context.Context) (string, error) {
	return s.Target.(collection.TreeVersioner).TreeVersion(ctx)
}

func (noTrees) Tree(context.Context, string) (collection.TreeRecord, error) {
	return collection.TreeRecord{}, errors.New("a tree record was read")
}

// TestSharedCompactTreeRedisDown: a shared cache that fails costs one
// warning, and New reads the index as without it.
func TestSharedCompactTreeRedisDown(t *testing.T) {
	s := testbackend.Backends()[0].New(t)
	ingestIndexed(t, s, ingest.Options{Compressed: true})
	rc, err := rediscache.New("redis://127.0.0.1:1", rediscache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var logs bytes.Buffer
	sh := chromafs.NewShared(0)
	got, err := chromafs.New(context.Background(), s, chromafs.WithShared(sh), chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)),
		chromafs.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 || !strings.Contains(logs.String(), "shared cache failed") {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs.String())
	}
	if chromafs.TreeDecodes(sh) != 1 {
		t.Fatalf("%d decodes; want the index", chromafs.TreeDecodes(sh))
	}
	sameFS(t, got, mustNew(t, jsonOnly{s, s}, chromafs.WithShared(chromafs.NewShared(0))))
}

// recordCounter counts the gets of each tree record, and hides the tree
// version marker when noMarker is set (a collection of another writer).
type recordCounter struct {
	testbackend.Target
	noMarker bool
	mu       sync.Mutex
	gets     map[string]int
}

func (s *recordCounter) TreeVersion(ctx context.Context) (string, error) {
	if s.noMarker {
		return "", nil
	}
	return s.Target.(collection.TreeVersioner).TreeVersion(ctx)
}

func (s *recordCounter) Tree(ctx context.Context, id string) (collection.TreeRecord, error) {
	s.mu.Lock()
	s.gets[id]++
	s.mu.Unlock()
	return s.Target.Tree(ctx, id)
}

// TestIndexFetchedEarly: without a shared cache New fetches the index
// record while it looks the marker up; for a collection that had no
// marker the last time it does not, so that a collection of another
// writer costs one wasted get per Shared, not one per session.
func TestIndexFetchedEarly(t *testing.T) {
	treeID := collection.DefaultLayout().TreeID
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			target := b.New(t)
			ingestIndexed(t, target, ingest.Options{Compressed: true})
			want := mustNew(t, jsonOnly{target, target}, chromafs.WithShared(chromafs.NewShared(0)))
			for _, noMarker := range []bool{false, true} {
				s := &recordCounter{Target: target, noMarker: noMarker, gets: map[string]int{}}
				sh := chromafs.NewShared(0)
				for range 3 {
					sh.Drop(target.CollectionID())
					sameFS(t, mustNew(t, s, chromafs.WithShared(sh)), want)
				}
				// The early get of a New that found no marker is not
				// waited for: give it time to be counted.
				var index, json int
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
					s.mu.Lock()
					index, json = s.gets[treeindex.RecordID(treeID)], s.gets[treeID]
					s.mu.Unlock()
					if !noMarker || index > 0 || time.Now().After(deadline) {
						break
					}
				}
				if !noMarker && (index != 3 || json != 0) {
					t.Errorf("with a marker: %d gets of the index, %d of the JSON tree; want 3 and 0", index, json)
				}
				if noMarker && (index != 1 || json != 3) {
					t.Errorf("without a marker: %d gets of the index, %d of the JSON tree; want 1 and 3", index, json)
				}
			}
		})
	}
}
