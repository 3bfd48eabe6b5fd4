package collection_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// FuzzShardTree: for any UTF-8 document and limit, ShardTree either
// refuses the limit or gives shards of valid UTF-8 within it that join into
// the document, under a manifest within it, and ReadTree reads the same
// document back; ParseManifest never panics, and a document that is
// not a manifest is never taken for one.
func FuzzShardTree(f *testing.F) {
	f.Add([]byte(`{"a.md":{"isPublic":true}}`), 1024)
	f.Add(bytes.Repeat([]byte("é€😀x"), 700), 1025)
	f.Add([]byte(collection.ManifestHeader+"\n{}"), 2000)
	f.Fuzz(func(t *testing.T, doc []byte, max int) {
		if m, ok, err := collection.ParseManifest(doc); ok != bytes.HasPrefix(doc, []byte(collection.ManifestHeader)) || (err == nil) != (m != nil || !ok) {
			t.Fatalf("ParseManifest(%q) = %v, %v, %v", doc, m, ok, err)
		} else if err != nil && !errors.Is(err, tree.ErrMalformed) {
			t.Fatalf("ParseManifest error %v does not wrap tree.ErrMalformed", err)
		}
		if !utf8.Valid(doc) || max > 1<<16 || bytes.HasPrefix(doc, []byte(collection.ManifestHeader)) {
			return
		}
		manifest, shards, err := collection.ShardTree("t", doc, max)
		if err != nil {
			if max >= collection.MinShardBytes {
				t.Fatalf("ShardTree(%d bytes, %d): %v", len(doc), max, err)
			}
			return
		}
		var joined []byte
		for _, s := range shards {
			if len(s.Document) > max || !utf8.ValidString(s.Document) || s.Document == "" {
				t.Fatalf("shard %q: %d bytes (limit %d), valid %v", s.ID, len(s.Document), max, utf8.ValidString(s.Document))
			}
			joined = append(joined, s.Document...)
		}
		if len(shards) > 0 && (!bytes.Equal(joined, doc) || len(manifest) > max) {
			t.Fatalf("shards join into %d bytes of %d; manifest %d bytes", len(joined), len(doc), len(manifest))
		}
		if len(shards) == 0 && !bytes.Equal(manifest, doc) {
			t.Fatal("an unsharded document changed")
		}
		st := memstore.New("fuzz")
		recs := append(shards, collection.Record{ID: "t", Document: string(manifest), System: true})
		if err := st.Upsert(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		rec, err := collection.ReadTree(context.Background(), st, "t")
		if err != nil || !bytes.Equal(rec.Document, doc) {
			t.Fatalf("ReadTree = %d bytes, %v; want %d", len(rec.Document), err, len(doc))
		}
	})
}
