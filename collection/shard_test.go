package collection_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testcorpus"
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
			manifest, shards, err := collection.ShardTree("__path_tree__", tc.doc, tc.max)
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
			m, ok, err := collection.ParseManifest(manifest)
			if err != nil || !ok {
				t.Fatalf("ParseManifest = %v, %v", ok, err)
			}
			if m.Shards != len(shards) || m.Size != int64(len(tc.doc)) {
				t.Fatalf("manifest %+v for %d shards of %d bytes", m, len(shards), len(tc.doc))
			}
			var joined []byte
			for i, s := range shards {
				if s.ID != m.ShardID(i) || !collection.IsShardID("__path_tree__", s.ID) || !s.System {
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

func TestParseManifest(t *testing.T) {
	good := `{"shards":2,"prefix":"t/shard/0123456789abcdef/","size":10,"sha256":"` + strings.Repeat("0", 64) + `"}`
	for _, tc := range []struct {
		doc         string
		sharded, ok bool
	}{
		{`{"a.md":{"isPublic":true}}`, false, true},
		{`H4sIAAAAAAAA`, false, true},
		{collection.ManifestHeader + "\n" + good, true, true},
		{collection.ManifestHeader + "\n{", true, false},
		{collection.ManifestHeader + "\n" + strings.Replace(good, `"shards":2`, `"shards":0`, 1), true, false},
		{collection.ManifestHeader + "\n" + strings.Replace(good, `"size":10`, `"size":-1`, 1), true, false},
		{collection.ManifestHeader + "\n" + strings.Replace(good, `"prefix":"t/shard/0123456789abcdef/"`, `"prefix":""`, 1), true, false},
	} {
		m, sharded, err := collection.ParseManifest([]byte(tc.doc))
		if sharded != tc.sharded || (err == nil) != tc.ok || err != nil && !errors.Is(err, tree.ErrMalformed) {
			t.Errorf("ParseManifest(%.50q) = %v, %v, %v", tc.doc, m, sharded, err)
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
		if got := collection.IsShardID("t", id); got != want {
			t.Errorf("IsShardID(%q) = %v", id, got)
		}
	}
}

// treeOnly hides every optional interface of a store but Tree and
// Chunks: ReadTree then reads shards one Tree call each.
type treeOnly struct{ collection.Store }

func TestReadTreeSharded(t *testing.T) {
	ctx := context.Background()
	st, doc, shards := testcorpus.ShardedStore(t, 500, 2048)
	if len(shards) < 5 {
		t.Fatalf("%d shards", len(shards))
	}
	raw, err := st.Tree(ctx, collection.DefaultLayout().TreeID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []collection.Store{st, treeOnly{st}} {
		rec, err := collection.ReadTree(ctx, s, collection.DefaultLayout().TreeID)
		if err != nil || !bytes.Equal(rec.Document, doc) {
			t.Fatalf("%T: ReadTree = %d bytes, %v; want the %d-byte document", s, len(rec.Document), err, len(doc))
		}
		if rec.Manifest == nil || rec.Manifest.Shards != len(shards) {
			t.Fatalf("%T: ReadTree returned manifest %+v; want one of %d shards", s, rec.Manifest, len(shards))
		}
		if !bytes.Equal(rec.RecordDocument, raw.Document) {
			t.Fatalf("%T: RecordDocument = %.60q; want the manifest document %.60q", s, rec.RecordDocument, raw.Document)
		}
		if rec.Version != collection.TreeVersionOf(doc) {
			t.Fatalf("%T: Version %s; want that of the whole document, %s", s, rec.Version, collection.TreeVersionOf(doc))
		}
	}
}

// TestReadTreeWhole: a tree in one record comes back as it is, with no
// manifest and its version.
func TestReadTreeWhole(t *testing.T) {
	ctx := context.Background()
	doc := []byte(`{"a.md":{"isPublic":true}}`)
	st := memstore.New(t.Name())
	md := map[string]any{collection.SystemKey: true}
	if err := st.Upsert(ctx, []collection.Record{{ID: "t", Document: string(doc), Metadata: md, System: true}}); err != nil {
		t.Fatal(err)
	}
	rec, err := collection.ReadTree(ctx, st, "t")
	if err != nil || !bytes.Equal(rec.Document, doc) || !bytes.Equal(rec.RecordDocument, doc) || rec.Manifest != nil {
		t.Fatalf("ReadTree = %+v, %v; want the document as it is, without manifest", rec, err)
	}
	if rec.Version != collection.TreeVersionOf(doc) || rec.Metadata[collection.SystemKey] != true {
		t.Fatalf("ReadTree: version %q, metadata %v", rec.Version, rec.Metadata)
	}
	if _, err := collection.ReadTree(ctx, st, "missing"); !errors.Is(err, collection.ErrNoTree) {
		t.Fatalf("ReadTree of a missing record = %v; want ErrNoTree", err)
	}
	bad := collection.ManifestHeader + "\n{\"shards\":"
	if err := st.Upsert(ctx, []collection.Record{{ID: "t", Document: bad, System: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := collection.ReadTree(ctx, st, "t"); !errors.Is(err, tree.ErrMalformed) {
		t.Fatalf("ReadTree of a bad manifest = %v; want tree.ErrMalformed", err)
	}
}

// TestReadTreeReplacedMeanwhile: a writer replaces a sharded tree (new
// shards, new manifest, old shards deleted) between a reader's fetch of
// the manifest and of the shards; the reader fetches the new manifest and
// reads the new tree, never a mix.
func TestReadTreeReplacedMeanwhile(t *testing.T) {
	ctx := context.Background()
	st, _, oldShards := testcorpus.ShardedStore(t, 300, 1024)
	newDoc, err := tree.Encode([]tree.Entry{{Slug: "new.md", HasIsPublic: true, IsPublic: true, Size: -1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	newDoc = append(newDoc, bytes.Repeat([]byte(" "), 3000)...) // JSON allows trailing spaces
	manifest, shards, err := collection.ShardTree(collection.DefaultLayout().TreeID, newDoc, 1024)
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
		recs := append(slices.Clone(shards), collection.Record{ID: collection.DefaultLayout().TreeID, Document: string(manifest), System: true})
		var old []string
		for _, s := range oldShards {
			old = append(old, s.ID)
		}
		if err := st.Upsert(context.Background(), recs); err != nil {
			return err
		}
		return st.Delete(context.Background(), old)
	})
	rec, err := collection.ReadTree(ctx, st, collection.DefaultLayout().TreeID)
	if err != nil || !bytes.Equal(rec.Document, newDoc) {
		t.Fatalf("ReadTree = %d bytes, %v; want the new %d-byte tree", len(rec.Document), err, len(newDoc))
	}
	if calls != 4 {
		t.Fatalf("%d tree reads; want 4 (manifest, shards, new manifest, new shards)", calls)
	}
}
