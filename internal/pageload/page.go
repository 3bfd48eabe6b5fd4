package pageload

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// Config is what a Loader reads a session's pages with. Store, Cache and
// Log must not be nil; the others may be zero.
type Config struct {
	Store  collection.Store
	Layout collection.Layout // with its defaults filled in
	Sep    string            // placed between consecutive chunks
	Cache  cachepkg.Cache    // the page cache
	Log    *slog.Logger      // for warnings
	// Resolver fetches lazy pointers; nil: none is fetched, reading one
	// fails with pointer.ErrLazy.
	Resolver pointer.Resolver
	// ByID is the store when the tree record declares
	// collection.ChunkIDScheme (chunk ids follow collection.ChunkID); nil
	// otherwise, and pages are read by slug.
	ByID collection.IDReader
	// Version is the tree version: it names a page's content when the
	// page has no hash (see CacheKey).
	Version string
	// PreloadBytes is Preload's budget: 0 means DefaultPreloadBytes, a
	// negative value turns Preload off.
	PreloadBytes int64
	// Flights is where the loads of the sessions of one root Shared meet;
	// nil: a Flights of this Loader's own.
	Flights *Flights
	// Gate counts the session's foreground requests (Preload waits for
	// it); nil: a Gate of this Loader's own.
	Gate *Gate
}

// Flights is what the Loaders of one root Shared share: page fetches in
// flight (concurrent loads of one page, in any of them, cost one fetch)
// and the preloads in progress. The zero value is ready; a Flights holds
// nothing once its work is done, so it needs no bound and nothing to drop.
type Flights struct {
	pages    singleflight.Group // by page cache key and layout
	preloads sync.Map           // preloadKey -> *preloadRun in progress
}

// A Loader reads the pages of one session. It is safe for concurrent use.
type Loader struct {
	c     Config
	sizes sync.Map // slug -> int64, sizes learned by reading
}

// New returns the Loader of one session.
func New(c Config) *Loader {
	if c.Flights == nil {
		c.Flights = &Flights{}
	}
	if c.Gate == nil {
		c.Gate = &Gate{}
	}
	return &Loader{c: c}
}

// Resolver returns the resolver of lazy pointers, or nil.
func (l *Loader) Resolver() pointer.Resolver { return l.c.Resolver }

// CacheKey identifies one version of one page of one collection. A lazy
// pointer without a hash is keyed by its URL and the tree version.
func (l *Loader) CacheKey(n *tree.Node) string {
	v := n.Entry.Hash
	if v == "" {
		v = "t:" + l.c.Version
		if n.Entry.URL != "" {
			v = "u:" + n.Entry.URL + "\x00" + v
		}
	}
	return l.c.Store.CollectionID() + "\x00" + v + "\x00" + l.c.Sep + "\x00" + n.Path
}

// Load returns a page's content from the cache or the store. Concurrent
// loads of one page cost one fetch. The returned slice is shared and must
// not be modified.
func (l *Loader) Load(ctx context.Context, n *tree.Node) ([]byte, error) {
	if n.Entry.URL != "" && l.c.Resolver == nil {
		return nil, fmt.Errorf("%w: %s", pointer.ErrLazy, pointer.RedactURL(n.Entry.URL))
	}
	key := l.CacheKey(n)
	if data, ok := l.cacheGet(ctx, key); ok {
		l.learnSize(n, len(data))
		return data, nil
	}
	// A caller that has given up starts no fetch (and does not race one
	// that would end at once against its own end, below).
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Concurrent loads of one page, in any session of its Flights, share
	// one fetch. The fetch runs detached from the cancellation of the
	// caller that started it (keeping its deadline), so that one reader
	// giving up does not fail the others; each caller still stops waiting
	// when its own context ends.
	l.c.Gate.Enter()
	defer l.c.Gate.Leave()
	fkey := key + "\x00" + l.c.Layout.SlugField + "\x00" + l.c.Layout.IndexField
	ch := l.c.Flights.pages.DoChan(fkey, func() (any, error) {
		fctx := context.WithoutCancel(ctx)
		if d, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			fctx, cancel = context.WithDeadline(fctx, d)
			defer cancel()
		}
		if data, ok := l.cacheGet(fctx, key); ok {
			return data, nil
		}
		if n.Entry.URL != "" {
			data, err := l.resolve(fctx, n)
			if err != nil {
				return nil, err
			}
			l.cachePut(fctx, key, data)
			return data, nil
		}
		chunks, err := l.Fetch(fctx, []*tree.Node{n})
		if err != nil {
			return nil, err
		}
		data, err := l.assemble(n, chunks[n.Path])
		if err != nil {
			return nil, err
		}
		l.cachePut(fctx, key, data)
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
		if local, ok := l.c.Cache.(cachepkg.Local); !ok || !local.HasLocal(key) {
			l.cachePut(ctx, key, data)
		}
	}
	l.learnSize(n, len(data))
	return data, nil
}

func (l *Loader) cacheGet(ctx context.Context, key string) ([]byte, bool) {
	data, ok, err := l.c.Cache.Get(ctx, key)
	if err != nil {
		l.c.Log.Warn("chromafs: page cache read failed; reading from the store", "err", err)
		return nil, false
	}
	return data, ok
}

func (l *Loader) cachePut(ctx context.Context, key string, data []byte) {
	if err := l.c.Cache.Put(ctx, key, data); err != nil {
		l.c.Log.Warn("chromafs: page cache write failed", "err", err)
	}
}

// Fetch returns the chunks of pages, by slug, from the store (never the
// cache). Pages whose chunk ids are known (Config.ByID is set and the
// tree records the chunk count) are read by id, a direct lookup; if that
// does not give exactly the chunks the tree expects, or for any other
// page, they are read by slug, which filters the collection's metadata.
func (l *Loader) Fetch(ctx context.Context, pages []*tree.Node) (map[string][]collection.Chunk, error) {
	out := make(map[string][]collection.Chunk, len(pages))
	if slices.ContainsFunc(pages, adopted) {
		// Pages of an adopted collection are read by id, with their
		// parts; the others as ever.
		var own, adoptedPages []*tree.Node
		for _, n := range pages {
			if adopted(n) {
				adoptedPages = append(adoptedPages, n)
			} else {
				own = append(own, n)
			}
		}
		if err := l.fetchAdopted(ctx, adoptedPages, out); err != nil {
			return nil, err
		}
		if len(own) == 0 {
			return out, nil
		}
		rest, err := l.Fetch(ctx, own)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, rest)
		return out, nil
	}
	var slugs []string
	var refetch []*tree.Node
	if l.c.ByID != nil {
		var ids []string
		for _, n := range pages {
			for i := range n.Entry.Chunks {
				ids = append(ids, collection.ChunkID(n.Path, i))
			}
		}
		if len(ids) > 0 {
			chunks, err := l.c.ByID.ChunksByID(ctx, l.c.Layout, ids)
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
	chunks, err := l.c.Store.Chunks(ctx, l.c.Layout, slugs)
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

// assemble makes the content of page n from its chunks, as they came from
// the store in any order, and checks it against n's entry (size, chunk
// count, indexes, hash: see collection.Assemble). It is the one place
// where chunks become a page: Load and the bulk reads (PrefetchEach,
// Preload) all call it, so that a page layout other than chunks joined by
// the separator plugs in here.
func (l *Loader) assemble(n *tree.Node, chunks []collection.Chunk) ([]byte, error) {
	if adopted(n) {
		return assembleAdopted(n, chunks)
	}
	return collection.Assemble(n.Entry, chunks, l.c.Sep)
}

// Lookup returns the page that name names in a view, and whether name is
// visible there: the root's FS gives the node of its view (below its Sub
// prefix). A directory may be returned; the loader skips it.
type Lookup func(name string) (*tree.Node, bool)

// pointerPrefetch bounds the lazy pointers that one PrefetchEach fetches
// at a time.
const pointerPrefetch = 4

// PrefetchEach loads the pages that names name (through lookup) into the
// cache with as few store requests as possible, as the root's
// FS.PrefetchEach documents: names that are not visible files are
// ignored, lazy pointers are fetched through the resolver up to
// pointerPrefetch (4) at a time while the store is read (with no resolver
// they are skipped), and pages that the cache's memory holds are not read.
// loaded, when not nil, is called with the name and the content of each
// page loaded, as soon as it is assembled and checked, possibly from
// several goroutines at once. It returns the first error met; pages
// loaded before it stay cached.
func (l *Loader) PrefetchEach(ctx context.Context, names []string, lookup Lookup, loaded func(name string, data []byte)) (retErr error) {
	local, _ := l.c.Cache.(cachepkg.Local)
	var want, pointers []*tree.Node
	var keys, wantNames, pointerNames []string
	for _, name := range names {
		// No fs.ValidPath check, as in Candidates: the view holds only
		// valid, clean paths, which an invalid name never matches.
		n, ok := lookup(name)
		if !ok || n.IsDir || (n.Entry.URL != "" && l.c.Resolver == nil) {
			continue
		}
		key := l.CacheKey(n)
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
		// Load shares the fetch with concurrent reads and checks the
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
					data, err := l.Load(ctx, n)
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
	l.c.Gate.Enter()
	defer l.c.Gate.Leave()
	var each func(int, []byte)
	if loaded != nil {
		each = func(i int, data []byte) { loaded(wantNames[i], data) }
	}
	_, err := l.loadMany(ctx, want, keys, each)
	return err
}

// loadMany loads the pages want (no lazy pointers), whose cache keys are
// keys, into the cache, and returns the bytes it fetched from the store.
// It returns the first error met; pages loaded before it stay cached.
// loaded, when not nil, is called with the index in want and the content
// of each page fetched, as soon as it is assembled.
func (l *Loader) loadMany(ctx context.Context, want []*tree.Node, keys []string, loaded func(i int, data []byte)) (fetched int64, err error) {
	// What the cache has (a shared tier, such as Redis, copies it into
	// memory as it answers) is not fetched again.
	have, err := l.c.Cache.GetMany(ctx, keys)
	if err != nil {
		l.c.Log.Warn("chromafs: page cache read failed; reading from the store", "err", err)
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
			l.learnSize(n, len(data))
			loaded(i, data)
		}
	}
	if len(need) == 0 {
		return 0, nil
	}
	if slices.ContainsFunc(need, adopted) {
		// Pages of an adopted collection: read by id with their parts.
		var own, ad []*tree.Node
		var ownKeys, adKeys []string
		var ownAt, adAt []int
		for k, n := range need {
			if adopted(n) {
				ad, adKeys, adAt = append(ad, n), append(adKeys, needKeys[k]), append(adAt, needAt[k])
			} else {
				own, ownKeys, ownAt = append(own, n), append(ownKeys, needKeys[k]), append(ownAt, needAt[k])
			}
		}
		var each func(int, []byte)
		if loaded != nil {
			each = func(i int, data []byte) { loaded(adAt[i], data) }
		}
		size, err := l.loadAdopted(ctx, ad, adKeys, each)
		if err != nil || len(own) == 0 {
			return size, err
		}
		need, needKeys, needAt = own, ownKeys, ownAt
		defer func() { fetched += size }()
	}
	var each func(int, []byte)
	workers := 1
	if loaded != nil {
		each = func(i int, data []byte) { loaded(needAt[i], data) }
		workers = assemblers()
	}
	size, readErr, pageErr := newBulkLoad(l, need, needKeys, each, workers).load(ctx)
	if readErr != nil {
		return size, fmt.Errorf("chromafs: prefetch %d pages: %w", len(need), readErr)
	}
	return size, pageErr
}
