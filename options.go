package chromafs

import (
	"log/slog"
	"slices"
	"time"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// An Option configures New.
type Option func(*config)

type config struct {
	layout     collection.Layout
	groups     []string
	separator  string
	cache      cachepkg.Cache
	logger     *slog.Logger
	treeMaxAge time.Duration
	treeLimits tree.Limits
	maxStale   time.Duration
	resolver   pointer.Resolver
	shared     *Shared

	preloadBytes int64
}

// defaultResolver is the resolver of an FS made without WithResolver.
var defaultResolver pointer.Resolver = &pointer.HTTPResolver{}

func defaultConfig() config {
	return config{layout: collection.DefaultLayout(), resolver: defaultResolver}
}

// WithResolver sets the resolver that fetches lazy file pointers (tree
// entries with a URL instead of chunks) when they are read. The default
// is the zero pointer.HTTPResolver, which fetches http and https URLs from
// public addresses only (its default pointer.Policy), with its default
// client and limits; WithResolver(nil) fetches no pointer, so that reading
// one fails with an error wrapping pointer.ErrLazy (listing them still
// works). Pointer content is checked against the entry's declared size
// and hash, and cached like any page; see pointer.Resolver.
func WithResolver(r pointer.Resolver) Option {
	return func(c *config) { c.resolver = r }
}

// WithTreeMaxAge lets New reuse the tree that an earlier session of the
// same Shared (see WithShared) fetched from the same collection, without
// any request, while that fetch is younger than d and the Shared still
// keeps the tree. After d, New fetches the tree record again (and parses
// it only if it changed). The default, 0, fetches the tree record on
// every New, so a new session always sees the current tree; a server that
// creates many sessions trades up to d of staleness for sessions that
// cost no network round trip (see BENCHMARKS.md).
func WithTreeMaxAge(d time.Duration) Option {
	return func(c *config) { c.treeMaxAge = d }
}

// WithTreeLimits sets the limits within which New parses the tree
// document (see tree.Limits): by default a decoded (inflated) document of
// at most 1 GiB, and at most 1 MiB plus 16 KiB per valid entry. A
// compressed tree record that inflates beyond them (a "zip bomb") fails
// with an error wrapping tree.ErrTooLarge after about 1 MiB of inflating.
// Raise MaxBytes for a tree of more than about four million entries.
func WithTreeLimits(l tree.Limits) Option {
	return func(c *config) { c.treeLimits = l }
}

// WithStaleTree lets New serve the tree that was fetched last for the
// same collection with the same Shared (by an earlier New, with any
// options, while the Shared still keeps the tree), when the store cannot
// be reached now (fscap.IsUnavailable: a refused connection, a timeout)
// and that fetch is younger than maxStale (stale-if-error). The sessions so
// made list and stat as before, and read every page that their cache
// holds; a page that is not cached fails to read with the store's error
// (never fs.ErrNotExist). While it serves a stale tree, New asks the
// store again at most once a second (other News meanwhile serve the stale
// tree at once); the first stale New of an episode logs a warning
// (WithLogger), and the episode ends when a fetch succeeds. Without this
// option (or with maxStale <= 0) New fails with the store's error. Errors
// of content (collection.ErrNoTree, tree.ErrMalformed) are never papered over.
func WithStaleTree(maxStale time.Duration) Option {
	return func(c *config) { c.maxStale = maxStale }
}

// WithGroups sets the groups of the user the filesystem is for. A page is
// visible iff it is public or its groups intersect these. Without this
// option only public pages are visible.
func WithGroups(groups ...string) Option {
	return func(c *config) {
		c.groups = slices.Clone(groups)
	}
}

// WithLayout sets the collection's layout: the metadata fields that hold
// a chunk's page slug and index, and the id of the path tree record. An
// empty field keeps its default (collection.DefaultLayout: "page_slug",
// "chunk_index" and "__path_tree__"), so that
// WithLayout(collection.Layout{TreeID: "docs-tree"}) changes the tree id
// only. Without this option the layout is collection.DefaultLayout(). The
// last WithLayout given wins whole.
func WithLayout(l collection.Layout) Option {
	return func(c *config) { c.layout = l.WithDefaults() }
}

// WithSeparator sets the string placed between consecutive chunks when a
// page is reassembled. The default is "" (chunks are concatenated), which
// is what collections cut at arbitrary offsets need; collections written
// by tools that strip the newline at each cut need "\n".
func WithSeparator(sep string) Option {
	return func(c *config) { c.separator = sep }
}

// WithCache sets the page cache. Without this option each FS gets a
// private in-memory cache of cachepkg.DefaultMemoryBytes. Pass one cache
// to many New calls to share pages between sessions; keys carry the
// collection id and page version, so sharing is safe across collections
// and groups.
func WithCache(c cachepkg.Cache) Option {
	return func(cfg *config) { cfg.cache = c }
}

// WithLogger sets the logger for warnings (for example a failing cache).
// The default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithPreload sets the budget of FS.Preload: the most content, in bytes,
// that it loads into the page cache. A session whose visible pages hold
// more is not preloaded (its searches still remember the store's answers:
// see FS.Candidates). 0 means the default, 64 MiB; a negative maxBytes
// turns Preload off. The page cache (WithCache) should hold at least the
// budget, or preloaded pages push each other out.
func WithPreload(maxBytes int64) Option {
	return func(c *config) { c.preloadBytes = maxBytes }
}
