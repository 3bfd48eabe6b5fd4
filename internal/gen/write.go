package gen

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/tree"
)

// Defaults of [Options].
const (
	DefaultBatchSize = 4096
	DefaultWorkers   = 2
)

// Epoch is the earliest mod time Write gives a page; mod times spread
// over the three years after it.
var Epoch = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)

// Options control [Write]. The zero value is usable.
type Options struct {
	// Layout names the metadata fields and the tree record. Empty fields
	// are those of collection.DefaultLayout().
	Layout collection.Layout

	// MaxChunk is the chunk size in bytes (default
	// ingest.DefaultMaxChunk); pages are cut as ingest.Chunk cuts them.
	MaxChunk int

	// Access returns the access of a page (default Access).
	Access func(slug string) (isPublic bool, groups []string)

	// BatchSize is the number of records per Upsert call (default
	// DefaultBatchSize). The writer may split a call further.
	BatchSize int

	// Workers is the number of concurrent Upsert calls (default
	// DefaultWorkers).
	Workers int

	// Plain writes the tree as plain JSON instead of gzip-compressed
	// base64.
	Plain bool

	// TreeMaxBytes, when positive, shards a tree document larger than
	// this, as ingest.Options.TreeMaxBytes does.
	TreeMaxBytes int
}

// Stats describe what Write wrote.
type Stats struct {
	Pages  int   // pages written
	Chunks int   // chunk records written
	Bytes  int64 // total content size
	// TreeBytes is the size of the tree document, and TreeShards the
	// number of shards it was written in (0: one record).
	TreeBytes, TreeShards int
	// Elapsed is the duration of the whole Write.
	Elapsed time.Duration
}

func (s Stats) String() string {
	mean := int64(0)
	if s.Pages > 0 {
		mean = s.Bytes / int64(s.Pages)
	}
	return fmt.Sprintf("%d pages (%d chunks, %.1f MB, mean %d B), tree %.2f MB, in %v",
		s.Pages, s.Chunks, float64(s.Bytes)/1e6, mean, float64(s.TreeBytes)/1e6, s.Elapsed.Round(time.Millisecond))
}

// Write writes pages (slug -> content) into w in the layout that package
// ingest writes: each page cut by ingest.Chunk into chunks of about
// MaxChunk bytes at line ends, one record per chunk with id
// ingest.ChunkID(slug, i) and metadata holding the layout's slug and
// index fields; then, once every chunk is written, the tree (gzip-compressed
// and base64-encoded unless Options.Plain) with each page's access, size,
// sha256 hash, mod time, content type and chunk count, built by
// ingest.BuildTree and written by its Write: the same tree record,
// metadata, shards and tree version marker sequence as ingest.Run writes
// for the same tree. Chunk records go out in batches of Options.BatchSize,
// Options.Workers calls at a time, pages in slug order.
//
// Write is meant for an empty collection: it reads nothing and deletes
// nothing. In particular it does not mark a previous tree record dirty
// (ingest.MetaDirty) before its first chunk, as ingest.Run does: that
// marker only tells a later ingest.Run not to trust the previous tree's
// hashes after a run that failed part way, and an empty collection has no
// previous tree. Written over an ingested collection, a Write that fails
// before its tree record leaves that collection's tree naming chunks Write
// may have replaced; re-ingest it with ingest.Options.Force.
func Write(ctx context.Context, w collection.Writer, pages map[string]string, opt Options) (Stats, error) {
	start := time.Now()
	opt.Layout = opt.Layout.WithDefaults()
	l := &opt.Layout
	if opt.MaxChunk <= 0 {
		opt.MaxChunk = ingest.DefaultMaxChunk
	}
	if opt.Access == nil {
		opt.Access = Access
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.Workers <= 0 {
		opt.Workers = DefaultWorkers
	}

	slugs := make([]string, 0, len(pages))
	for slug := range pages {
		slugs = append(slugs, slug)
	}
	slices.Sort(slugs)

	var st Stats
	entries := make([]tree.Entry, 0, len(slugs))
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []collection.Record, opt.Workers)
	for range opt.Workers {
		g.Go(func() error {
			for batch := range batches {
				if err := w.Upsert(gctx, batch); err != nil {
					first, _ := batch[0].Metadata[l.SlugField].(string)
					return fmt.Errorf("gen: upsert %d chunks from page %q on: %w", len(batch), first, err)
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(batches)
		batch := make([]collection.Record, 0, opt.BatchSize)
		send := func() error {
			select {
			case batches <- batch:
			case <-gctx.Done():
				return gctx.Err()
			}
			batch = make([]collection.Record, 0, opt.BatchSize)
			return nil
		}
		for _, slug := range slugs {
			text := pages[slug]
			content := []byte(text)
			chunks, split := ingest.Chunk(content, opt.MaxChunk)
			recs, err := ingest.ChunkRecords(*l, slug, chunks)
			if err != nil {
				return fmt.Errorf("gen: page %q: %w", slug, err)
			}
			for _, r := range recs {
				batch = append(batch, r)
				if len(batch) == opt.BatchSize {
					if err := send(); err != nil {
						return err
					}
				}
			}
			public, groups := opt.Access(slug)
			entries = append(entries, ingest.PageEntry(slug, content, modTime(slug), public, groups, len(chunks), split))
			st.Chunks += len(chunks)
			st.Bytes += int64(len(text))
		}
		if len(batch) > 0 {
			return send()
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return st, err
	}

	// The tree goes last, so that it never names chunks not yet written;
	// it is built and written as ingest builds and writes it.
	tr, err := ingest.BuildTree(l.TreeID, entries, !opt.Plain, opt.TreeMaxBytes)
	if err != nil {
		return st, fmt.Errorf("gen: %w", err)
	}
	st.TreeShards = len(tr.Shards)
	if _, err := tr.Write(ctx, w, opt.BatchSize); err != nil {
		return st, fmt.Errorf("gen: %w", err)
	}
	st.Pages = len(entries)
	st.TreeBytes = len(tr.Doc)
	st.Elapsed = time.Since(start)
	return st, nil
}

// modTime returns a page's mod time: a whole second within three years of
// Epoch, derived from the slug.
func modTime(slug string) time.Time {
	h := fnv.New64a()
	h.Write([]byte(slug))
	return Epoch.Add(time.Duration(h.Sum64()%(3*365*86400)) * time.Second)
}
