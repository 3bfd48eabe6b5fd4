package validate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/treeindex"
)

// maxIndexDiffs is the number of entries whose differences between the
// index and the JSON tree are reported one by one; a count says how many
// more there are.
const maxIndexDiffs = 10

// checkIndex checks the compact tree index (package treeindex) of the
// tree record treeID against the JSON tree rec parsed as t (nil when it
// did not parse). A collection without an index has nothing to check.
//
// Readers use the index instead of the JSON tree when the collection's
// tree version marker (collection.TreeVersionKey) names the index's
// stamp. So an index that readers would use and that does not hold the
// JSON tree's entries and metadata is an error: they would serve another
// tree than other readers of the collection. One that readers ignore (it
// does not decode, or was made from another version of the tree) is a
// warning: they read the JSON tree, after a warning of their own.
func checkIndex(ctx context.Context, store Store, treeID string, rec collection.TreeDoc, t *tree.Tree, add func(Severity, string, string, ...any)) error {
	id := treeindex.RecordID(treeID)
	doc, err := collection.ReadTree(ctx, store, id)
	switch {
	case errors.Is(err, collection.ErrNoTree):
		return nil
	case errors.Is(err, tree.ErrMalformed):
		add(Warning, "", "tree index %q: %v (readers ignore it and read the JSON tree)", id, err)
		return nil
	case err != nil:
		return fmt.Errorf("validate: read tree index: %w", err)
	}
	marker := ""
	if tv, ok := store.(collection.TreeVersioner); ok {
		if marker, err = tv.TreeVersion(ctx); err != nil {
			return fmt.Errorf("validate: read the tree version marker: %w", err)
		}
	}
	payload, err := treeindex.DecodeDocument(doc.Document)
	var ix *treeindex.Index
	if err == nil {
		ix, err = treeindex.Decode(payload, tree.Limits{})
	}
	if err != nil {
		add(Warning, "", "tree index %q does not decode (readers ignore it and read the JSON tree): %v", id, err)
		return nil
	}
	used := marker != "" && marker == ix.Stamp
	if ix.Stamp != rec.Version {
		if used {
			add(Error, "", "tree index %q was made from tree version %s, which the collection's %s names, but the tree record is version %s: readers serve the index's tree, not the tree record's",
				id, ix.Stamp, collection.TreeVersionKey, rec.Version)
		} else {
			add(Warning, "", "tree index %q was made from tree version %s, not the tree record's %s: readers ignore it (rewrite it with chromafs ingest)", id, ix.Stamp, rec.Version)
		}
		return nil
	}
	if marker != "" && marker != rec.Version {
		add(Warning, "", "the collection's %s names tree version %s, not the tree record's %s: readers ignore the tree index %q", collection.TreeVersionKey, marker, rec.Version, id)
	}
	// The stamp is the tree record's version: the index must hold what
	// the record holds, whether readers use it now or once the marker
	// names it.
	for _, k := range []string{collection.ChunkIDsKey, collection.LineAlignedKey, collection.TreeModTimeKey} {
		a, b := metaValue(rec.Metadata[k]), metaValue(ix.Metadata[k])
		if a != b {
			add(Error, "", "tree index %q has metadata %s = %s, the tree record %s", id, k, b, a)
		}
	}
	if t == nil {
		add(Error, "", "tree index %q is stamped with the version of a tree record that does not parse", id)
		return nil
	}
	got, want := ix.Tree.Entries(), t.Entries()
	diffs := 0
	report := func(slug, format string, args ...any) {
		diffs++
		if diffs <= maxIndexDiffs {
			add(Error, slug, format, args...)
		}
	}
	for i := range want {
		w := &want[i]
		g, ok := ix.Tree.Entry(w.Slug)
		if !ok {
			report(w.Slug, "in the tree record, not in the tree index %q", id)
		} else if d := entryDiff(g, w); d != "" {
			report(w.Slug, "the tree index %q differs from the tree record: %s", id, d)
		}
	}
	for i := range got {
		if _, ok := t.Entry(got[i].Slug); !ok {
			report(got[i].Slug, "in the tree index %q, not in the tree record", id)
		}
	}
	if diffs > maxIndexDiffs {
		add(Error, "", "tree index %q: %d more entries differ from the tree record", id, diffs-maxIndexDiffs)
	}
	return nil
}

// entryDiff names the first field in which the index's entry a differs
// from the JSON tree's b, or returns "".
func entryDiff(a, b *tree.Entry) string {
	switch {
	case a.IsPublic != b.IsPublic:
		return fmt.Sprintf("isPublic %v, not %v", a.IsPublic, b.IsPublic)
	case a.HasIsPublic != b.HasIsPublic:
		return fmt.Sprintf("isPublic present %v, not %v", a.HasIsPublic, b.HasIsPublic)
	case !slices.Equal(a.Groups, b.Groups):
		return fmt.Sprintf("groups %q, not %q", a.Groups, b.Groups)
	case a.Size != b.Size:
		return fmt.Sprintf("size %d, not %d", a.Size, b.Size)
	case !a.ModTime.Equal(b.ModTime):
		return fmt.Sprintf("modTime %s, not %s", fmtTime(a.ModTime), fmtTime(b.ModTime))
	case a.Hash != b.Hash:
		return fmt.Sprintf("hash %q, not %q", a.Hash, b.Hash)
	case a.ContentType != b.ContentType:
		return fmt.Sprintf("contentType %q, not %q", a.ContentType, b.ContentType)
	case a.URL != b.URL:
		return "url differs"
	case a.Chunks != b.Chunks:
		return fmt.Sprintf("chunks %d, not %d", a.Chunks, b.Chunks)
	case a.SplitLines != b.SplitLines:
		return fmt.Sprintf("splitLines %v, not %v", a.SplitLines, b.SplitLines)
	}
	return ""
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.Format(time.RFC3339Nano)
}

// metaValue formats a metadata value so that the same value read from a
// store and from the index's JSON compare equal (numbers as float64).
func metaValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case int:
		return fmt.Sprint(float64(v))
	case int64:
		return fmt.Sprint(float64(v))
	case float64:
		if v == math.Trunc(v) {
			return fmt.Sprint(v)
		}
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%v", v)
}
