package gen

import (
	"cmp"
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/memstore"
)

// TestSameRecordsAsIngest writes the same pages with Write and with
// ingest.Run and checks that the two collections hold the same records,
// byte for byte and key for key (tree record, shards, chunks), and the same
// tree version marker.
func TestSameRecordsAsIngest(t *testing.T) {
	public := func(string) (bool, []string) { return true, nil }
	for _, tc := range []struct {
		name       string
		pages      int
		compressed bool
		maxBytes   int
		wantShards bool
	}{
		{"plain whole", 50, false, 0, false},
		{"compressed whole", 50, true, 0, false},
		{"plain sharded", 300, false, collection.MinShardBytes, true},
		{"compressed sharded", 300, true, 4 * collection.MinShardBytes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			pages := Pages(tc.pages, 7)

			g := memstore.New("gen")
			st, err := Write(ctx, g, pages, Options{Access: public, Plain: !tc.compressed, TreeMaxBytes: tc.maxBytes, BatchSize: 64})
			if err != nil {
				t.Fatal(err)
			}

			src := fstest.MapFS{}
			for slug, text := range pages {
				src[slug] = &fstest.MapFile{Data: []byte(text), ModTime: modTime(slug), Mode: 0o644}
			}
			in := memstore.New("ingest")
			rep, err := ingest.Run(ctx, in, src, ingest.Options{Compressed: tc.compressed, TreeMaxBytes: tc.maxBytes})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Skipped) > 0 || rep.Pages != st.Pages {
				t.Fatalf("ingest wrote %d pages, skipped %v; gen wrote %d", rep.Pages, rep.Skipped, st.Pages)
			}
			if (st.TreeShards > 0) != tc.wantShards || st.TreeShards != rep.TreeShards || st.TreeBytes != rep.TreeBytes {
				t.Fatalf("gen: tree of %d bytes in %d shards, ingest: %d bytes in %d shards (want shards: %v)",
					st.TreeBytes, st.TreeShards, rep.TreeBytes, rep.TreeShards, tc.wantShards)
			}

			gr, ir := sortedRecords(g), sortedRecords(in)
			if len(gr) != len(ir) {
				t.Fatalf("gen wrote %d records, ingest %d", len(gr), len(ir))
			}
			for i := range gr {
				if !reflect.DeepEqual(gr[i], ir[i]) {
					t.Fatalf("record %d differs:\n gen:    %+v\n ingest: %+v", i, clip(gr[i]), clip(ir[i]))
				}
			}
			tree, ok := g.Get(collection.DefaultLayout().TreeID)
			if !ok || !reflect.DeepEqual(tree.Metadata, ingest.TreeMetadata()) || !tree.System {
				t.Fatalf("tree record %+v, want System and metadata %v", clip(tree), ingest.TreeMetadata())
			}
			gv, _ := g.TreeVersion(ctx)
			iv, _ := in.TreeVersion(ctx)
			if gv == "" || gv != iv {
				t.Fatalf("tree version marker: gen %q, ingest %q", gv, iv)
			}
			rec, err := collection.ReadTree(ctx, g, collection.DefaultLayout().TreeID)
			if err != nil || collection.TreeVersionOf(rec.Document) != gv {
				t.Fatalf("ReadTree: version %q, marker %q, err %v", collection.TreeVersionOf(rec.Document), gv, err)
			}
		})
	}
}

// TestWriteClearsVersionMarker checks that Write goes through ingest's
// marker sequence: a collection whose previous tree's version marker is set
// has no marker while the new tree is written, so a Write that fails
// before its tree record leaves no marker naming the old tree.
func TestWriteClearsVersionMarker(t *testing.T) {
	ctx := context.Background()
	s := memstore.New("gen")
	pages := Pages(20, 1)
	if _, err := Write(ctx, s, pages, Options{}); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.TreeVersion(ctx); v == "" {
		t.Fatal("no tree version marker after Write")
	}
	// Fail the upsert of the tree record: the chunks go in one batch, the
	// tree record in the next upsert.
	boom := errors.New("boom")
	upserts := 0
	s.SetHook(func(_ context.Context, op string) error {
		if op == memstore.OpUpsert {
			upserts++
			if upserts == 2 {
				return boom
			}
		}
		return nil
	})
	_, err := Write(ctx, s, Pages(20, 2), Options{Workers: 1})
	s.SetHook(nil)
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want an error wrapping %v", err, boom)
	}
	if v, _ := s.TreeVersion(ctx); v != "" {
		t.Fatalf("tree version marker %q after a failed tree write, want none", v)
	}
}

func sortedRecords(s *memstore.Store) []collection.Record {
	rs := s.Records()
	slices.SortFunc(rs, func(a, b collection.Record) int { return cmp.Compare(a.ID, b.ID) })
	return rs
}

// clip shortens a record's document for an error message.
func clip(r collection.Record) collection.Record {
	if len(r.Document) > 80 {
		r.Document = r.Document[:80] + "..."
	}
	return r
}
