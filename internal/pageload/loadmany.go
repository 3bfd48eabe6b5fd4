package pageload

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/tree"
)

// A bulk read of pages (loadMany) assembles and checks each page as soon
// as its chunks are in, on a few goroutines, rather than once the whole
// answer is: a store that answers in parts (collection.PartReader;
// chromastore's reads are several requests in flight) hands each part
// over as it comes in, so that when the last part arrives only its own
// pages are left to assemble, hash and hand over.
//
// A page is assembled early only when the tree records its chunk count
// and a sha256 hash and that many chunks have come in (with their ids,
// when read by id): its content is then checked as every page's is (size,
// chunk count, indexes, hash), and handed over if it passes. Chunks that
// come in for such a page afterwards (a store that repeats a page in two
// parts, or a record under another page's id) make the page's result what
// it would have been had the whole answer been waited for: it is
// assembled again from every chunk, or read again by slug, and is neither
// cached nor counted as loaded unless that succeeds. Content already
// handed over was checked against the tree's hash.

// pageState is where a page of a bulk read is.
type pageState uint8

const (
	gathering pageState = iota // its chunks are coming in
	early                      // assembled (or queued to be) before the read ended
	tainted                    // early, then more chunks came: settled after the read
	settled                    // queued to be assembled from its final chunks
)

// bulkLoad is one loadMany's read of pages: their chunks as they come in,
// the assembling goroutines and their results.
type bulkLoad struct {
	l      *Loader
	pages  []*tree.Node
	keys   []string       // the pages' cache keys
	at     map[string]int // page index by slug
	byID   bool           // the read is by chunk id
	loaded func(i int, data []byte)

	mu     sync.Mutex
	state  []pageState
	chunks [][]collection.Chunk // by page; frozen once early
	late   map[int][]collection.Chunk
	data   [][]byte
	errs   []error
	done   []bool // data or errs holds the page's result
	handed []bool
	stored []bool // put into the cache

	jobs chan job
	wg   sync.WaitGroup
}

// job is a page to assemble: early, from the chunks in so far, or from
// its final chunks.
type job struct {
	i     int
	final bool
}

// newBulkLoad prepares the read of pages, whose cache keys are keys, with
// workers goroutines to assemble them.
func newBulkLoad(l *Loader, pages []*tree.Node, keys []string, loaded func(int, []byte), workers int) *bulkLoad {
	b := &bulkLoad{
		l:      l,
		pages:  pages,
		keys:   keys,
		at:     make(map[string]int, len(pages)),
		byID:   l.c.ByID != nil,
		loaded: loaded,
		state:  make([]pageState, len(pages)),
		chunks: make([][]collection.Chunk, len(pages)),
		data:   make([][]byte, len(pages)),
		errs:   make([]error, len(pages)),
		done:   make([]bool, len(pages)),
		handed: make([]bool, len(pages)),
		stored: make([]bool, len(pages)),
		// A page is queued at most twice (early, then settled).
		jobs: make(chan job, 2*len(pages)),
	}
	// One backing array sized by the chunk counts the tree records (a
	// page with more chunks than recorded grows its own slice).
	total := 0
	for i, n := range pages {
		b.at[n.Path] = i
		total += max(n.Entry.Chunks, 0)
	}
	all := make([]collection.Chunk, total)
	off := 0
	for i, n := range pages {
		k := max(n.Entry.Chunks, 0)
		b.chunks[i] = all[off : off : off+k]
		off += k
	}
	for range max(1, min(workers, len(pages))) {
		b.wg.Add(1)
		go b.work()
	}
	return b
}

// earlyOK reports whether page i may be assembled from its chunks before
// the read ends: they are as many as the tree records, the tree has a
// hash to check them against, and, read by id, each has its page's id.
func (b *bulkLoad) earlyOK(i int) bool {
	n, c := b.pages[i], b.chunks[i]
	return n.Entry.Chunks > 0 && len(c) == n.Entry.Chunks && strings.HasPrefix(n.Entry.Hash, "sha256:") &&
		(!b.byID || idsMatch(n.Path, c))
}

// add takes in a part of the answer: chunks of other pages are left out
// (a record that another page's id points at is not handed out), and the
// pages it completes are queued.
func (b *bulkLoad) add(chunks []collection.Chunk) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var touched []int
	for _, c := range chunks {
		i, ok := b.at[c.Slug]
		if !ok {
			continue
		}
		switch b.state[i] {
		case gathering:
			b.chunks[i] = append(b.chunks[i], c)
			touched = append(touched, i)
		case early, tainted:
			if b.late == nil {
				b.late = map[int][]collection.Chunk{}
			}
			b.late[i] = append(b.late[i], c)
			b.state[i] = tainted
		}
	}
	slices.Sort(touched) // walk order, which matching follows
	for k, i := range touched {
		if (k == 0 || touched[k-1] != i) && b.state[i] == gathering && b.earlyOK(i) {
			b.state[i] = early
			b.jobs <- job{i: i}
		}
	}
	return nil
}

// work assembles queued pages and hands over those that pass the checks.
func (b *bulkLoad) work() {
	defer b.wg.Done()
	for j := range b.jobs {
		b.mu.Lock()
		if !j.final && b.state[j.i] != early {
			b.mu.Unlock()
			continue // tainted before it was assembled: settled later
		}
		n, chunks := b.pages[j.i], b.chunks[j.i]
		b.mu.Unlock()
		data, err := b.l.assemble(n, chunks)
		b.mu.Lock()
		if !j.final && b.state[j.i] != early {
			b.mu.Unlock()
			continue
		}
		b.data[j.i], b.errs[j.i], b.done[j.i] = data, err, true
		give := err == nil && !b.handed[j.i] && b.loaded != nil
		b.handed[j.i] = b.handed[j.i] || give
		b.mu.Unlock()
		if err == nil {
			b.l.learnSize(n, len(data))
		}
		if give {
			b.loaded(j.i, data)
		}
	}
}

// settle queues every page not assembled early (or given more chunks
// after it was) to be assembled from its final chunks, after reading
// again by slug, when the read was by id, those that did not come back
// exactly as the tree expects.
func (b *bulkLoad) settle(ctx context.Context) error {
	b.mu.Lock()
	var refetch []int
	for i, n := range b.pages {
		st := b.state[i]
		if st == early {
			continue
		}
		if st == tainted {
			// The early result is superseded by the final one.
			b.chunks[i] = append(slices.Clip(b.chunks[i]), b.late[i]...)
			b.data[i], b.errs[i], b.done[i] = nil, nil, false
		}
		got := b.chunks[i]
		if b.byID && !(len(got) > 0 && len(got) == n.Entry.Chunks && idsMatch(n.Path, got)) {
			refetch = append(refetch, i)
			b.chunks[i] = nil
			b.state[i] = gathering
			continue
		}
		b.state[i] = settled
		b.jobs <- job{i: i, final: true}
	}
	b.mu.Unlock()
	if len(refetch) == 0 {
		return nil
	}
	slugs := make([]string, len(refetch))
	again := make(map[string]int, len(refetch))
	for k, i := range refetch {
		slugs[k] = b.pages[i].Path
		again[slugs[k]] = i
	}
	chunks, err := b.l.c.Store.Chunks(ctx, b.l.c.Layout, slugs)
	if err != nil {
		return fmt.Errorf("fetch chunks: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range chunks {
		if i, ok := again[c.Slug]; ok {
			b.chunks[i] = append(b.chunks[i], c)
		}
	}
	for _, i := range refetch {
		b.state[i] = settled
		b.jobs <- job{i: i, final: true}
	}
	return nil
}

// load reads the pages' chunks, handing each part to add, settles the
// pages left, and puts the pages it assembled into the cache: those
// assembled by the time the read is over at once, while the others are
// being assembled, and the others when they are. It returns the bytes
// it put, the read's error, and the first page's.
func (b *bulkLoad) load(ctx context.Context) (size int64, readErr, pageErr error) {
	err := b.readParts(ctx)
	if err == nil {
		err = b.settle(ctx)
	}
	size = b.store(ctx)
	close(b.jobs)
	b.wg.Wait()
	size += b.store(ctx)
	if err == nil {
		err = ctx.Err() // nothing was stored
	}
	for _, e := range b.errs {
		if e != nil {
			return size, err, e
		}
	}
	return size, err, nil
}

// store puts the pages assembled since the last call into the cache, and
// returns their bytes. It is called once the read is over (no page's
// result changes after that but by its pending job). When ctx has ended
// (a grep that stopped early), nothing is put, as a read that fails puts
// nothing: a shared tier would only fail and warn.
func (b *bulkLoad) store(ctx context.Context) int64 {
	if ctx.Err() != nil {
		return 0
	}
	b.mu.Lock()
	values := map[string][]byte{}
	var size int64
	for i, d := range b.done {
		if d && !b.stored[i] && b.errs[i] == nil && (b.state[i] == early || b.state[i] == settled) {
			b.stored[i] = true
			values[b.keys[i]] = b.data[i]
			size += int64(len(b.data[i]))
		}
	}
	b.mu.Unlock()
	if len(values) == 0 {
		return 0
	}
	if err := b.l.c.Cache.PutMany(ctx, values); err != nil {
		b.l.c.Log.Warn("chromafs: page cache write failed", "err", err)
	}
	return size
}

func (b *bulkLoad) readParts(ctx context.Context) error {
	c := &b.l.c
	parts, streams := c.Store.(collection.PartReader)
	if b.byID {
		var ids []string
		for _, n := range b.pages {
			for i := range n.Entry.Chunks {
				ids = append(ids, collection.ChunkID(n.Path, i))
			}
		}
		if len(ids) == 0 {
			return nil
		}
		var err error
		if streams {
			err = parts.ChunksByIDEach(ctx, c.Layout, ids, b.add)
		} else {
			var chunks []collection.Chunk
			if chunks, err = c.ByID.ChunksByID(ctx, c.Layout, ids); err == nil {
				err = b.add(chunks)
			}
		}
		if err != nil {
			return fmt.Errorf("fetch chunks by id: %w", err)
		}
		return nil
	}
	slugs := make([]string, len(b.pages))
	for i, n := range b.pages {
		slugs[i] = n.Path
	}
	var err error
	if streams {
		err = parts.ChunksEach(ctx, c.Layout, slugs, b.add)
	} else {
		var chunks []collection.Chunk
		if chunks, err = c.Store.Chunks(ctx, c.Layout, slugs); err == nil {
			err = b.add(chunks)
		}
	}
	if err != nil {
		return fmt.Errorf("fetch chunks: %w", err)
	}
	return nil
}

// assemblers is the number of goroutines that assemble the pages of a
// bulk read that a caller waits for (a grep's prefetch): one per core,
// as matching takes each page as soon as it is handed over.
func assemblers() int { return runtime.GOMAXPROCS(0) }
