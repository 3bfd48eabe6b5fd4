// Package validate checks a collection: the tree record against the
// chunks, chunk indexes, sizes and hashes, orphan chunks and bad slugs,
// and the compact tree index (package treeindex) against the tree record.
//
// # Findings
//
// A check produces findings, each an error (the collection serves wrong
// or no content for a page, or the tree is malformed) or a warning (the
// collection works but probably not as its writer meant, such as an entry
// without isPublic, which is treated as private). Report.OK is false when
// there is any error.
//
// Validation reads every record of the collection, so the store must
// implement collection.Scanner. It never writes.
//
// # Compact tree index
//
// A collection written by chromafs ingest has a compact index of its tree
// beside the tree record, which readers use instead of the JSON tree when
// the collection's tree version marker (collection.TreeVersionKey) names
// the index's stamp. Run decodes the index and reports an error for an
// index stamped with the tree record's version whose entries (every
// field) or metadata differ from the record's, and for an index that
// readers would use although it was made from another version of the
// tree; a warning for an index that does not decode or that readers
// ignore because it is stale. A collection without an index (written by
// another tool) has nothing to check.
//
// # Adopted collections
//
// Pages of a collection that another tool wrote and chromafs adopt made
// a tree for (tree entries with parts) are built from their chunks by id
// as readers build them, when the store implements
// collection.DocumentReader: a page whose chunks no longer build the
// size and hash the tree records is an error (adopt the collection
// again); a page adopt could not rebuild exactly is a warning that says
// which bytes were guessed.
//
// # Lazy pointers
//
// With Options.CheckPointers, Run also fetches every lazy pointer (tree
// entries with a url) through a pointer.Resolver, a few at a time, and
// reports an error for a pointer that cannot be fetched (unreachable, a
// status other than 2xx, past Options.PointerTimeout) or whose content
// differs from the size or sha256 hash the tree declares. A pointer
// without a declared size is a warning: readers cannot check that they
// got all of it.
package validate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// Severity says how bad a finding is.
type Severity int

const (
	// Warning marks a finding that does not stop pages from being served.
	Warning Severity = iota
	// Error marks a finding that makes a page or the tree unusable.
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Finding is one problem found.
type Finding struct {
	Severity Severity
	// Slug is the page concerned, or "" for the collection as a whole.
	Slug    string
	Message string
}

func (f Finding) String() string {
	if f.Slug == "" {
		return fmt.Sprintf("%s: %s", f.Severity, f.Message)
	}
	return fmt.Sprintf("%s: %s: %s", f.Severity, f.Slug, f.Message)
}

// Report is the result of a validation.
type Report struct {
	// Pages is the number of valid tree entries, Chunks the number of
	// records with a slug field.
	Pages, Chunks int
	// Findings in a stable order: collection-wide first, then by slug.
	Findings []Finding
}

// OK reports whether there is no error finding.
func (r *Report) OK() bool {
	for _, f := range r.Findings {
		if f.Severity == Error {
			return false
		}
	}
	return true
}

// Count returns the number of findings of the given severity.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Options configure Run.
type Options struct {
	// Layout of the collection; empty fields take collection.DefaultLayout()'s.
	Layout collection.Layout
	// Separator between chunks, as given to chromafs.WithSeparator.
	Separator string

	// CheckPointers fetches every lazy pointer and checks its content
	// against the tree's declared size and hash (see the package
	// documentation, section "Lazy pointers").
	CheckPointers bool
	// Resolver fetches the pointers; nil means the zero
	// pointer.HTTPResolver, the filesystem's default.
	Resolver pointer.Resolver
	// PointerConcurrency is the number of pointers fetched at a time
	// (default DefaultPointerConcurrency).
	PointerConcurrency int
	// PointerTimeout bounds each fetch, within ctx's deadline (default
	// DefaultPointerTimeout).
	PointerTimeout time.Duration
}

// Defaults of the pointer checks.
const (
	DefaultPointerConcurrency = 4
	DefaultPointerTimeout     = 30 * time.Second
)

// Store is what validation reads.
type Store interface {
	collection.Store
	collection.Scanner
}

// Run validates the collection behind store. It returns an error only
// when the collection cannot be read (for example an unreachable server);
// everything wrong with the collection's content is a finding.
func Run(ctx context.Context, store Store, opt Options) (*Report, error) {
	l := opt.Layout.WithDefaults()
	r := &Report{}
	add := func(s Severity, slug, format string, args ...any) {
		r.Findings = append(r.Findings, Finding{s, slug, fmt.Sprintf(format, args...)})
	}

	var t *tree.Tree
	var idScheme bool
	rec, err := collection.ReadTree(ctx, store, l.TreeID)
	switch {
	case errors.Is(err, collection.ErrNoTree):
		add(Error, "", "no path tree record %q", l.TreeID)
	case errors.Is(err, tree.ErrMalformed):
		// A manifest that does not parse, or shards that do not
		// assemble into the tree it declares.
		add(Error, "", "path tree: %v", err)
	case err != nil:
		return nil, fmt.Errorf("validate: read tree: %w", err)
	default:
		if sys, _ := rec.Metadata[collection.SystemKey].(bool); !sys {
			add(Warning, "", "tree record %q has no _system: true metadata marker", l.TreeID)
		}
		if _, ok := rec.Metadata[l.SlugField]; ok {
			add(Error, "", "tree record %q has a %s field, so slug queries can return it", l.TreeID, l.SlugField)
		}
		idScheme = rec.Metadata[collection.ChunkIDsKey] == collection.ChunkIDScheme
		t, err = tree.Parse(rec.Document)
		if err != nil {
			add(Error, "", "path tree: %v", err)
		}
	}
	if err := checkShards(ctx, store, l.TreeID, rec.Manifest, add); err != nil {
		return nil, err
	}
	if rec.Document != nil {
		if err := checkIndex(ctx, store, l.TreeID, rec, t, add); err != nil {
			return nil, err
		}
	}

	bySlug := make(map[string][]collection.Chunk)
	err = store.Scan(ctx, l, true, func(batch []collection.Chunk) error {
		for _, c := range batch {
			bySlug[c.Slug] = append(bySlug[c.Slug], c)
			r.Chunks++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("validate: scan chunks: %w", err)
	}

	whyNoIndex, err := explainNoIndex(ctx, store, l, bySlug)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	var pointers, adopted []*tree.Entry
	if t != nil {
		for _, p := range t.Problems() {
			add(Error, p.Slug, "tree entry skipped: %s", p.Reason)
			known[p.Slug] = true
		}
		entries := t.Entries()
		r.Pages = len(entries)
		for i := range entries {
			e := &entries[i]
			known[e.Slug] = true
			if !e.HasIsPublic {
				add(Warning, e.Slug, "no isPublic field: treated as private")
			}
			if !e.IsPublic && len(e.Groups) == 0 {
				add(Warning, e.Slug, "private page with no groups is visible to nobody")
			}
			chunks := bySlug[e.Slug]
			if idScheme {
				for _, c := range chunks {
					if c.Index != collection.NoIndex && c.ID != collection.ChunkID(e.Slug, c.Index) {
						add(Error, e.Slug, "chunk %d has id %q, not %q as the tree record's %s declares (reads fall back to slow slug queries; grep's coarse filter can miss the page)",
							c.Index, c.ID, collection.ChunkID(e.Slug, c.Index), collection.ChunkIDsKey)
						break
					}
				}
			}
			if e.Parts != "" {
				adopted = append(adopted, e)
				continue
			}
			if e.URL != "" {
				if opt.CheckPointers {
					pointers = append(pointers, e)
				}
				if len(chunks) > 0 {
					add(Warning, e.Slug, "lazy pointer to %s also has %d chunks, which are never read", pointer.RedactURL(e.URL), len(chunks))
				}
				continue
			}
			if msg := badIndexes(chunks, whyNoIndex, l.IndexField); msg != "" {
				add(Error, e.Slug, "%s", msg)
				continue
			}
			if _, err := collection.Assemble(e, chunks, opt.Separator); err != nil {
				add(Error, e.Slug, "%s", strings.TrimPrefix(err.Error(), collection.ErrCorruptPage.Error()+": "))
				continue
			}
		}
	}
	r.Findings = append(r.Findings, checkPointers(ctx, pointers, opt)...)
	found, err := checkAdopted(ctx, store, adopted)
	if err != nil {
		return nil, err
	}
	r.Findings = append(r.Findings, found...)
	var orphans []string
	for slug := range bySlug {
		if !known[slug] {
			orphans = append(orphans, slug)
		}
	}
	slices.Sort(orphans)
	for _, slug := range orphans {
		if t != nil {
			add(Error, slug, "%d orphan chunks: the page is not in the tree", len(bySlug[slug]))
		}
	}

	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return strings.Compare(a.Slug, b.Slug) })
	return r, nil
}

// checkAdopted checks the pages of a collection that another tool wrote
// (tree entries with parts, written by chromafs adopt): each page's
// chunks, fetched by id, must build the page whose size and hash the
// tree records (an error: the chunks changed since the collection was
// adopted); a page that is not exact is a warning that says what was
// guessed.
func checkAdopted(ctx context.Context, store Store, entries []*tree.Entry) ([]Finding, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	var out []Finding
	add := func(s Severity, slug, format string, args ...any) {
		out = append(out, Finding{s, slug, fmt.Sprintf(format, args...)})
	}
	dr, ok := store.(collection.DocumentReader)
	if !ok {
		add(Warning, "", "%d pages another tool wrote (chromafs adopt) are not checked: the store cannot fetch documents by id", len(entries))
	}
	recipes := make([]*collection.Recipe, len(entries))
	var ids []string
	for i, e := range entries {
		r, err := collection.ParseRecipe(e.Parts)
		if err != nil {
			add(Error, e.Slug, "%s", strings.TrimPrefix(err.Error(), collection.ErrCorruptPage.Error()+": "))
			continue
		}
		recipes[i] = r
		ids = append(ids, r.IDs()...)
		switch r.Exactness {
		case "edges-assumed":
			add(Warning, e.Slug, "reassembled from trimmed chunks: %s", r.Why)
		case "inexact":
			add(Warning, e.Slug, "reassembled inexactly, with guessed whitespace: %s", r.Why)
		}
	}
	if !ok || len(ids) == 0 {
		return out, nil
	}
	docs, err := dr.DocumentsByID(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("validate: fetch the chunks of adopted pages: %w", err)
	}
	for i, e := range entries {
		if recipes[i] == nil {
			continue
		}
		if _, err := collection.AssembleRecipe(e, recipes[i], docs); err != nil {
			add(Error, e.Slug, "%s", strings.TrimPrefix(err.Error(), collection.ErrCorruptPage.Error()+": "))
		}
	}
	return out, nil
}

// checkPointers fetches the pointers and returns their findings.
func checkPointers(ctx context.Context, entries []*tree.Entry, opt Options) []Finding {
	if len(entries) == 0 {
		return nil
	}
	res := opt.Resolver
	if res == nil {
		res = &pointer.HTTPResolver{}
	}
	workers := opt.PointerConcurrency
	if workers <= 0 {
		workers = DefaultPointerConcurrency
	}
	timeout := opt.PointerTimeout
	if timeout <= 0 {
		timeout = DefaultPointerTimeout
	}
	found := make([][]Finding, len(entries))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(entries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				found[i] = checkPointer(ctx, res, entries[i], timeout)
			}
		}()
	}
	for i := range entries {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []Finding
	for _, fs := range found {
		out = append(out, fs...)
	}
	return out
}

// checkPointer fetches one pointer and checks its content.
func checkPointer(ctx context.Context, res pointer.Resolver, e *tree.Entry, timeout time.Duration) []Finding {
	var out []Finding
	if e.Size < 0 {
		out = append(out, Finding{Warning, e.Slug, "lazy pointer: size not declared (readers cannot check that they get all of the content)"})
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	data, err := res.Fetch(ctx, e)
	if err == nil {
		err = pointer.Check(e, data)
	}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			msg += fmt.Sprintf(" (timeout %v)", timeout)
		}
		out = append(out, Finding{Error, e.Slug, "lazy pointer: " + msg})
	}
	return out
}

// checkShards reports tree shard records that the current manifest
// (manifest, nil for a tree in one record) does not name: they are left by
// an ingest that failed between writing them and writing their manifest,
// and `chromafs ingest --prune` deletes them.
func checkShards(ctx context.Context, store Store, treeID string, manifest *collection.Manifest, add func(Severity, string, string, ...any)) error {
	named := map[string]bool{}
	if manifest != nil {
		for _, id := range manifest.ShardIDs() {
			named[id] = true
		}
	}
	ids, err := store.IDs(ctx)
	if err != nil {
		return fmt.Errorf("validate: list record ids: %w", err)
	}
	stray := 0
	for _, id := range ids {
		if collection.IsShardID(treeID, id) && !named[id] {
			stray++
		}
	}
	if stray > 0 {
		what := fmt.Sprintf("%d tree shard records are", stray)
		if stray == 1 {
			what = "1 tree shard record is"
		}
		add(Warning, "", "%s not named by the tree's manifest (left by an interrupted ingest; ingest --prune deletes them)", what)
	}
	return nil
}

// maxExplained bounds the chunks without a valid index whose metadata Run
// fetches to say what is wrong with it.
const maxExplained = 1000

// explainNoIndex returns, for the chunks of bySlug that have no valid
// index (at most maxExplained of them), what their index field holds
// instead, by id, when the store can fetch records by id.
func explainNoIndex(ctx context.Context, store Store, l collection.Layout, bySlug map[string][]collection.Chunk) (map[string]string, error) {
	rr, ok := store.(collection.RecordReader)
	if !ok {
		return nil, nil
	}
	var ids []string
	for _, chunks := range bySlug {
		for _, c := range chunks {
			if c.Index == collection.NoIndex && len(ids) < maxExplained {
				ids = append(ids, c.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	recs, err := rr.RecordsByID(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("validate: read chunks without an index: %w", err)
	}
	why := make(map[string]string, len(recs))
	for id, r := range recs {
		v, ok := r.Metadata[l.IndexField]
		switch v := v.(type) {
		case nil:
			if ok {
				why[id] = "is null"
			} else {
				why[id] = "is missing"
			}
		case string:
			why[id] = fmt.Sprintf("is the string %q, not a number (store the index as an integer)", v)
		case bool:
			why[id] = fmt.Sprintf("is the boolean %v", v)
		default:
			why[id] = fmt.Sprintf("is %v, not a non-negative integer", v)
		}
	}
	return why, nil
}

// badIndexes describes the chunks of a page that have no valid index, or
// returns "" if there is none.
func badIndexes(chunks []collection.Chunk, why map[string]string, field string) string {
	var bad []string
	for _, c := range chunks {
		if c.Index != collection.NoIndex {
			continue
		}
		w, ok := why[c.ID]
		if !ok {
			w = "is not a non-negative integer"
		}
		bad = append(bad, fmt.Sprintf("chunk %q: %s %s", c.ID, field, w))
	}
	if len(bad) == 0 {
		return ""
	}
	slices.Sort(bad)
	what := fmt.Sprintf("%d chunks have", len(bad))
	if len(bad) == 1 {
		what = "1 chunk has"
	}
	more := ""
	if len(bad) > 3 {
		more = fmt.Sprintf("; and %d more", len(bad)-3)
		bad = bad[:3]
	}
	return fmt.Sprintf("%s no valid chunk index, so the page cannot be read: %s%s", what, strings.Join(bad, "; "), more)
}
