package chromafs

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

var (
	errIsDir  = errors.New("is a directory")
	errNotDir = errors.New("not a directory")
)

// cacheKey identifies one version of one page of one collection. A lazy
// pointer without a hash is keyed by its URL and the tree version.
func (s *session) cacheKey(n *tree.Node) string {
	v := n.Entry.Hash
	if v == "" {
		v = "t:" + s.version
		if n.Entry.URL != "" {
			v = "u:" + n.Entry.URL + "\x00" + v
		}
	}
	return s.store.CollectionID() + "\x00" + v + "\x00" + s.sep + "\x00" + n.Path
}

// load returns a page's content from the cache or the store. Concurrent
// loads of one page cost one fetch. The returned slice is shared and must
// not be modified.
func (s *session) load(ctx context.Context, n *tree.Node) ([]byte, error) {
	if n.Entry.URL != "" && s.resolver == nil {
		return nil, fmt.Errorf("%w: %s", pointer.ErrLazy, redact(n.Entry.URL))
	}
	key := s.cacheKey(n)
	if data, ok := s.cacheGet(ctx, key); ok {
		s.learnSize(n, len(data))
		return data, nil
	}
	// Concurrent loads of one page, in any session of its Shared, share
	// one fetch. The fetch runs detached from the cancellation of the
	// caller that started it (keeping its deadline), so that one reader
	// giving up does not fail the others; each caller still stops waiting
	// when its own context ends.
	s.fg.enter()
	defer s.fg.leave()
	fkey := key + "\x00" + s.layout.SlugField + "\x00" + s.layout.IndexField
	ch := s.shared.pageFlight.DoChan(fkey, func() (any, error) {
		fctx := context.WithoutCancel(ctx)
		if d, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			fctx, cancel = context.WithDeadline(fctx, d)
			defer cancel()
		}
		if data, ok := s.cacheGet(fctx, key); ok {
			return data, nil
		}
		if n.Entry.URL != "" {
			data, err := s.resolve(fctx, n)
			if err != nil {
				return nil, err
			}
			s.cachePut(fctx, key, data)
			return data, nil
		}
		chunks, err := s.fetch(fctx, []*tree.Node{n})
		if err != nil {
			return nil, err
		}
		data, err := assemble(n, chunks[n.Path], s.sep)
		if err != nil {
			return nil, err
		}
		s.cachePut(fctx, key, data)
		return data, nil
	})
	var res singleflight.Result
	select {
	case res = <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if res.Err != nil {
		return nil, res.Err
	}
	data := res.Val.([]byte)
	if res.Shared {
		// Another session's fetch: its cache may not be this one.
		if local, ok := s.cache.(cachepkg.Local); !ok || !local.HasLocal(key) {
			s.cachePut(ctx, key, data)
		}
	}
	s.learnSize(n, len(data))
	return data, nil
}

// learnSize remembers the size of a page whose tree entry has none, for
// Stat.
func (s *session) learnSize(n *tree.Node, size int) {
	if n.Entry.Size >= 0 {
		return
	}
	if _, ok := s.sizes.Load(n.Path); !ok {
		s.sizes.Store(n.Path, int64(size))
	}
}

func (s *session) cacheGet(ctx context.Context, key string) ([]byte, bool) {
	data, ok, err := s.cache.Get(ctx, key)
	if err != nil {
		s.log.Warn("chromafs: page cache read failed; reading from the store", "err", err)
		return nil, false
	}
	return data, ok
}

func (s *session) cachePut(ctx context.Context, key string, data []byte) {
	if err := s.cache.Put(ctx, key, data); err != nil {
		s.log.Warn("chromafs: page cache write failed", "err", err)
	}
}

// fetch returns the chunks of pages, by slug. Pages whose chunk ids are
// known (the collection declares collection.ChunkIDScheme and the tree records the
// chunk count) are read by id, a direct lookup; if that does not give
// exactly the chunks the tree expects, or for any other page, they are
// read by slug, which filters the collection's metadata.
func (s *session) fetch(ctx context.Context, pages []*tree.Node) (map[string][]collection.Chunk, error) {
	out := make(map[string][]collection.Chunk, len(pages))
	var slugs []string
	var refetch []*tree.Node
	if s.byID != nil {
		var ids []string
		for _, n := range pages {
			for i := range n.Entry.Chunks {
				ids = append(ids, collection.ChunkID(n.Path, i))
			}
		}
		if len(ids) > 0 {
			chunks, err := s.byID.ChunksByID(ctx, s.layout, ids)
			if err != nil {
				return nil, fmt.Errorf("fetch chunks by id: %w", err)
			}
			groupBySlug(out, pages, chunks)
		}
	}
	for _, n := range pages {
		if got, ok := out[n.Path]; ok && len(got) == n.Entry.Chunks && idsMatch(n.Path, got) {
			continue
		}
		delete(out, n.Path)
		slugs = append(slugs, n.Path)
		refetch = append(refetch, n)
	}
	if len(slugs) == 0 {
		return out, nil
	}
	chunks, err := s.store.Chunks(ctx, s.layout, slugs)
	if err != nil {
		return nil, fmt.Errorf("fetch chunks: %w", err)
	}
	groupBySlug(out, refetch, chunks)
	return out, nil
}

// groupBySlug adds to out the chunks of each of pages, in one backing
// array sized by the chunk counts the tree records (a page with more
// chunks than recorded grows its own slice). Chunks of other pages are
// left out: a record that another page's id points at is not handed out.
func groupBySlug(out map[string][]collection.Chunk, pages []*tree.Node, chunks []collection.Chunk) {
	at := make(map[string]int, len(pages))
	total := 0
	for i, n := range pages {
		at[n.Path] = i
		total += max(n.Entry.Chunks, 0)
	}
	all := make([]collection.Chunk, total)
	byPage := make([][]collection.Chunk, len(pages))
	off := 0
	for i, n := range pages {
		k := max(n.Entry.Chunks, 0)
		byPage[i] = all[off : off : off+k]
		off += k
	}
	for _, c := range chunks {
		if i, ok := at[c.Slug]; ok {
			byPage[i] = append(byPage[i], c)
		}
	}
	for i, n := range pages {
		if len(byPage[i]) > 0 {
			out[n.Path] = byPage[i]
		}
	}
}

// idsMatch reports whether every chunk has the id collection.ChunkID gives for its
// page and index.
func idsMatch(slug string, chunks []collection.Chunk) bool {
	for _, c := range chunks {
		if c.Slug != slug || c.ID != collection.ChunkID(slug, c.Index) {
			return false
		}
	}
	return true
}

func assemble(n *tree.Node, chunks []collection.Chunk, sep string) ([]byte, error) {
	return collection.Assemble(n.Entry, chunks, sep)
}

// pointerPrefetch bounds the lazy pointers that one Prefetch fetches at
// a time.
const pointerPrefetch = 4

// Prefetch loads the named pages into the cache with as few store
// requests as possible. Names that are not visible files are ignored, so
// that a caller cannot learn anything from the result about hidden pages.
// Lazy pointers among them are fetched through the resolver, up to
// pointerPrefetch (4) at a time, while the store is read (with no
// resolver they are skipped). It returns the first error met; pages
// loaded before it stay cached.
//
// Prefetch implements fscap.PrefetchFS, through which grepx and search
// find it by type assertion, as io/fs finds fs.ReadFileFS; other callers
// rarely need it.
func (fsys *FS) Prefetch(ctx context.Context, names []string) error {
	return fsys.PrefetchEach(ctx, names, nil)
}

// PrefetchEach is Prefetch that also hands over each page it loads: it
// calls loaded, when not nil, with the name (as given in names) and the
// content of each page as soon as that page is assembled and checked
// against the tree (size, chunk count, hash), before the rest of the
// pages and before the cache has it, so that a caller can work on one
// page while the next is assembled. loaded may be called from several
// goroutines at once (lazy pointers load concurrently) and must not keep
// Prefetch waiting long. The content is shared, as ReadFileShared's, and
// must not be modified. Pages that are already cached, not visible, or
// fail to load are not handed over; read them with ReadFile.
//
// It implements fscap.PrefetchEachFS, through which grepx finds it.
func (fsys *FS) PrefetchEach(ctx context.Context, names []string, loaded func(name string, data []byte)) (retErr error) {
	s := fsys.s
	local, _ := s.cache.(cachepkg.Local)
	var want, pointers []*tree.Node
	var keys, wantNames, pointerNames []string
	for _, name := range names {
		// No fs.ValidPath check, as in Candidates: the view holds only
		// valid, clean paths, which an invalid name never matches.
		n, ok := s.view.Lookup(fsys.full(name))
		if !ok || n.IsDir || (n.Entry.URL != "" && s.resolver == nil) {
			continue
		}
		key := s.cacheKey(n)
		if local != nil && local.HasLocal(key) {
			continue
		}
		if n.Entry.URL != "" {
			pointers = append(pointers, n)
			pointerNames = append(pointerNames, name)
			continue
		}
		want = append(want, n)
		keys = append(keys, key)
		wantNames = append(wantNames, name)
	}
	if len(pointers) > 0 {
		// load shares the fetch with concurrent reads and checks the
		// cache (a shared tier included) first.
		// The loop runs on its own goroutine so that the store is read
		// meanwhile (g.Go blocks at the limit).
		var g errgroup.Group
		g.SetLimit(pointerPrefetch)
		started := make(chan struct{})
		go func() {
			defer close(started)
			for i, n := range pointers {
				g.Go(func() error {
					data, err := s.load(ctx, n)
					if err == nil && loaded != nil {
						loaded(pointerNames[i], data)
					}
					return err
				})
			}
		}()
		defer func() {
			<-started
			if err := g.Wait(); err != nil && retErr == nil {
				retErr = fmt.Errorf("chromafs: prefetch %d lazy pointers: %w", len(pointers), err)
			}
		}()
	}
	if len(want) == 0 {
		return nil
	}
	s.fg.enter()
	defer s.fg.leave()
	var each func(int, []byte)
	if loaded != nil {
		each = func(i int, data []byte) { loaded(wantNames[i], data) }
	}
	_, err := s.loadMany(ctx, want, keys, each)
	return err
}

// loadMany loads the pages want (no lazy pointers), whose cache keys are
// keys, into the cache, and returns the bytes it fetched from the store.
// It returns the first error met; pages loaded before it stay cached.
// loaded, when not nil, is called with the index in want and the content
// of each page fetched, as soon as it is assembled.
func (s *session) loadMany(ctx context.Context, want []*tree.Node, keys []string, loaded func(i int, data []byte)) (int64, error) {
	// What the cache has (a shared tier, such as Redis, copies it into
	// memory as it answers) is not fetched again.
	have, err := s.cache.GetMany(ctx, keys)
	if err != nil {
		s.log.Warn("chromafs: page cache read failed; reading from the store", "err", err)
	}
	var need []*tree.Node
	var needKeys []string
	var needAt []int
	for i, n := range want {
		data, ok := have[keys[i]]
		if !ok {
			need = append(need, n)
			needKeys = append(needKeys, keys[i])
			needAt = append(needAt, i)
		} else if loaded != nil {
			s.learnSize(n, len(data))
			loaded(i, data)
		}
	}
	if len(need) == 0 {
		return 0, nil
	}
	var each func(int, []byte)
	workers := 1
	if loaded != nil {
		each = func(i int, data []byte) { loaded(needAt[i], data) }
		workers = assemblers()
	}
	size, readErr, pageErr := newBulkLoad(s, need, needKeys, each, workers).load(ctx)
	if readErr != nil {
		return size, fmt.Errorf("chromafs: prefetch %d pages: %w", len(need), readErr)
	}
	return size, pageErr
}
