package chromafs

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/coarse"
	"github.com/chromafs/chromafs/internal/pageload"
	"github.com/chromafs/chromafs/internal/treeload"
	"github.com/chromafs/chromafs/tree"
)

// FS is a read-only filesystem over one collection, as seen by one user.
// It implements fs.FS, fs.ReadDirFS, fs.ReadFileFS, fs.StatFS, fs.GlobFS
// and fs.SubFS, and is safe for concurrent use.
//
// Listing operations (Open, Stat, ReadDir, Glob, Sub) work on the
// in-memory tree and never touch the network, except that Stat and
// DirEntry.Info of a page whose size the tree does not record read the
// page once to learn it. Content is fetched on the first Read, ReadAt or
// Seek from the end of an open file, and by ReadFile.
//
// # Directory times
//
// A page's ModTime is its tree entry's modTime (the zero time if it has
// none). A directory's ModTime is the newest modTime of the pages below
// it, at any depth, that this FS's groups may see (a hidden page never
// counts, so the time reveals nothing about it); when none of them has
// one, the tree record's collection.TreeModTimeKey; else the zero time, which
// adapters must present as "unknown" (http.FileServer omits
// Last-Modified for it). Stat, ReadDir's Info, an open directory's Stat
// and Sub views give the same value; it is computed once per view.
type FS struct {
	s      *session
	ctx    context.Context
	bound  bool   // ctx was set by WithContext
	prefix string // "" or a directory path, for Sub views
}

// session is what the views of one New call share.
type session struct {
	store   collection.Store
	layout  collection.Layout
	groups  []string
	sep     string
	cache   cachepkg.Cache
	log     *slog.Logger
	tree    *tree.Tree
	view    *tree.View
	version string              // tree version: a digest of the tree document
	byID    collection.IDReader // non-nil when chunk ids follow collection.ChunkID
	// lineAligned: the tree record says collection.LineAlignedKey: true.
	lineAligned bool
	treeTime    time.Time        // the tree record's collection.TreeModTimeKey, or zero
	shared      *Shared          // where sessions meet
	pages       *pageload.Loader // reads the pages
	coarse      *coarse.Filter   // Candidates' engine

	scopesMu sync.Mutex
	scopes   map[string]*queryScope // Query's filters, by directory

	fg gate // requests of the session's own reads, searches and prefetches
}

// gate is the session's pageload.Gate, which its Loader enters for reads
// and prefetches, its coarse.Filter for its searches and Query for its
// own.
type gate struct{ pageload.Gate }

func (g *gate) enter() { g.Enter() }
func (g *gate) leave() { g.Leave() }

var _ interface {
	fs.ReadDirFS
	fs.ReadFileFS
	fs.StatFS
	fs.GlobFS
	fs.SubFS
} = (*FS)(nil)

// New bootstraps a filesystem from the collection behind store: it fetches
// the path tree record, parses it (or reuses a tree parsed earlier for the
// same collection and version: see Shared and WithShared), and prunes it
// for the groups given with WithGroups. ctx bounds the bootstrap only; later reads use the context
// of WithContext (context.Background by default).
//
// Invalid slugs in the tree are skipped, never served; Problems lists
// them. A missing tree record gives an error wrapping collection.ErrNoTree, a
// malformed one (see tree.Parse, and WithTreeLimits for its limits) an
// error wrapping tree.ErrMalformed. A tree version that failed to parse
// is remembered: New returns the same error without a request for a
// while (1 s after the first failure, doubling up to 30 s while the
// record is unchanged), and after that fetches the record again but
// parses it only if it changed. An unreachable store is an error for
// which fscap.IsUnavailable reports true, unless WithStaleTree lets New
// serve the tree fetched last with the same Shared.
func New(ctx context.Context, store collection.Store, opts ...Option) (*FS, error) {
	if store == nil {
		return nil, errors.New("chromafs: nil store")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	cfg.layout = cfg.layout.WithDefaults()
	if cfg.cache == nil {
		cfg.cache = cachepkg.NewMemory(0)
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	sh := cfg.shared
	if sh == nil {
		sh = defaultShared()
	}
	st, t, err := sh.trees.Current(ctx, store, cfg.layout.TreeID, &treeload.Options{
		MaxAge:   cfg.treeMaxAge,
		MaxStale: cfg.maxStale,
		Limits:   cfg.treeLimits,
		Cache:    cfg.cache,
		Log:      cfg.logger,
	})
	if err != nil {
		return nil, err
	}
	s := &session{
		store:       store,
		layout:      cfg.layout,
		groups:      cfg.groups,
		sep:         cfg.separator,
		cache:       cfg.cache,
		log:         cfg.logger,
		tree:        t,
		view:        t.View(cfg.groups),
		version:     st.Version,
		lineAligned: st.LineAligned,
		treeTime:    st.ModTime,
		shared:      sh,
	}
	if ir, ok := store.(collection.IDReader); ok && st.ChunkIDs {
		s.byID = ir
	}
	s.pages = pageload.New(pageload.Config{
		Store:        store,
		Layout:       cfg.layout,
		Sep:          cfg.separator,
		Cache:        cfg.cache,
		Log:          cfg.logger,
		Resolver:     cfg.resolver,
		ByID:         s.byID,
		Version:      st.Version,
		PreloadBytes: cfg.preloadBytes,
		Flights:      &sh.flights,
		Gate:         &s.fg.Gate,
	})
	s.coarse = coarse.NewFilter(coarse.Config{
		Store:       store,
		Layout:      cfg.layout,
		Sep:         cfg.separator,
		LineAligned: st.LineAligned,
		IDsOnly:     s.byID != nil,
		Tree:        t,
		View:        s.view,
		Version:     st.Version,
		Cache:       cfg.cache,
		Keys:        s.pages,
		SharedTier:  treeload.SharedCache(cfg.cache),
		Shared:      sh.coarse,
		Log:         cfg.logger,
		Gate:        &s.fg.Gate,
	})
	return &FS{s: s, ctx: context.Background()}, nil
}

// WithContext returns a view of fsys whose network calls (page reads) use
// ctx. Use it to bind a request's deadline and cancellation.
func (fsys *FS) WithContext(ctx context.Context) *FS {
	if ctx == nil {
		panic("chromafs: nil context")
	}
	c := *fsys
	c.ctx = ctx
	c.bound = true
	return &c
}

// BindContext is how the adapters (httpfs, webdavfs) bind a request's
// context: it returns fsys.WithContext(ctx), unless fsys (or the view it
// was derived from) was made by WithContext, whose binding (a deadline
// its creator chose, say) then stands and fsys itself is returned. A nil
// ctx returns fsys. It implements the one interface by which the adapters
// bind any fs.FS, fscap.BindContextFS (see fscap.Bind).
func (fsys *FS) BindContext(ctx context.Context) fs.FS {
	if ctx == nil || fsys.bound {
		return fsys
	}
	return fsys.WithContext(ctx)
}

// Context returns the context that fsys's network calls use.
func (fsys *FS) Context() context.Context { return fsys.ctx }

// Groups returns the groups the filesystem was created for.
func (fsys *FS) Groups() []string { return slices.Clone(fsys.s.groups) }

// Problems returns the tree entries that were skipped because their slugs
// are unsafe, clash or are malformed. It is the same for every user.
func (fsys *FS) Problems() []tree.Problem { return fsys.s.tree.Problems() }

// TreeVersion returns a digest of the path tree document the filesystem
// was built from.
func (fsys *FS) TreeVersion() string { return fsys.s.version }

// full maps a name of this view to a path of the whole collection.
func (fsys *FS) full(name string) string {
	if fsys.prefix == "" {
		return name
	}
	if name == "." {
		return fsys.prefix
	}
	return fsys.prefix + "/" + name
}

// lookup finds a visible node. op and name are for the error.
func (fsys *FS) lookup(op, name string) (*tree.Node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n, ok := fsys.s.view.Lookup(fsys.full(name))
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// Open opens the named file or directory. It does no I/O: a file's content
// is fetched on its first read.
func (fsys *FS) Open(name string) (fs.File, error) {
	n, err := fsys.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.IsDir {
		return &dir{fsys: fsys, node: n, name: name}, nil
	}
	return &file{fsys: fsys, node: n, name: name}, nil
}

// Stat returns a FileInfo describing the named file or directory. For a
// page whose size the tree does not record, it reads the page once.
func (fsys *FS) Stat(name string) (fs.FileInfo, error) {
	n, err := fsys.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := fsys.info(n)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return fi, nil
}

// ReadFile returns the content of the named file. The caller owns the
// returned slice.
func (fsys *FS) ReadFile(name string) ([]byte, error) {
	data, err := fsys.ReadFileShared(name)
	if err != nil {
		return nil, err
	}
	return slices.Clone(data), nil
}

// ReadFileShared is ReadFile without the copy: the returned slice is
// shared with the page cache and must not be modified. Package grepx uses
// it to search cached pages without copying them.
//
// ReadFileShared implements fscap.ReadFileSharedFS, through which grepx,
// search and webdavfs find it by type assertion, as io/fs finds
// fs.ReadFileFS; other callers rarely need it.
func (fsys *FS) ReadFileShared(name string) ([]byte, error) {
	n, err := fsys.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.IsDir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	data, err := fsys.s.pages.Load(fsys.ctx, n)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// ReadDir returns the entries of the named directory, sorted by name.
func (fsys *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := fsys.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.IsDir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
	}
	kids, _ := fsys.s.view.ReadDir(n.Path)
	return fsys.dirEntries(kids), nil
}

// dirEntries wraps nodes as DirEntry values, with two allocations in all
// rather than one per entry.
func (fsys *FS) dirEntries(nodes []*tree.Node) []fs.DirEntry {
	ents := make([]dirEntry, len(nodes))
	out := make([]fs.DirEntry, len(nodes))
	for i, k := range nodes {
		ents[i] = dirEntry{fsys: fsys, node: k}
		out[i] = &ents[i]
	}
	return out
}

// Sub returns the filesystem rooted at dir. It shares fsys's session,
// cache and context.
func (fsys *FS) Sub(dir string) (fs.FS, error) {
	n, err := fsys.lookup("sub", dir)
	if err != nil {
		return nil, err
	}
	if !n.IsDir {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: errNotDir}
	}
	if dir == "." {
		return fsys, nil
	}
	c := *fsys
	c.prefix = n.Path
	return &c, nil
}

// info builds the FileInfo of a node, reading the page if its size is not
// known.
func (fsys *FS) info(n *tree.Node) (*fileInfo, error) {
	if n.IsDir {
		return fsys.s.nodeInfo(n, 0), nil
	}
	size, err := fsys.s.pages.Size(fsys.ctx, n)
	if err != nil {
		return nil, err
	}
	return fsys.s.nodeInfo(n, size), nil
}

// nodeInfo returns the FileInfo of a node of the session's view whose
// size (0 for a directory) is known.
func (s *session) nodeInfo(n *tree.Node, size int64) *fileInfo {
	return &fileInfo{node: n, size: size, mod: s.modTime(n)}
}

// fileInfo is the fs.FileInfo of a node. Make it with session.nodeInfo,
// which sets mod.
type fileInfo struct {
	node *tree.Node
	size int64
	mod  time.Time
}

func (fi *fileInfo) Name() string { return fi.node.Name }
func (fi *fileInfo) Size() int64  { return fi.size }
func (fi *fileInfo) IsDir() bool  { return fi.node.IsDir }
func (fi *fileInfo) Mode() fs.FileMode {
	if fi.node.IsDir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// ModTime returns a page's modification time from the tree, or the zero
// time when the tree does not record one; for a directory, the time that
// session.modTime describes.
func (fi *fileInfo) ModTime() time.Time { return fi.mod }

// Sys returns the page's *tree.Entry (nil for a directory), which carries
// the optional fields of the tree such as Hash and ContentType, and
// implements fscap.Attributer: fscap.AttributesOf reads them from any
// FileInfo of this package, or from a wrapper that forwards Sys.
func (fi *fileInfo) Sys() any {
	if fi.node.IsDir {
		return (*tree.Entry)(nil)
	}
	return fi.node.Entry
}

func (fi *fileInfo) String() string { return fs.FormatFileInfo(fi) }

// dirEntry is the fs.DirEntry of a node.
type dirEntry struct {
	fsys *FS
	node *tree.Node
}

func (d dirEntry) Name() string { return d.node.Name }
func (d dirEntry) IsDir() bool  { return d.node.IsDir }
func (d dirEntry) Type() fs.FileMode {
	if d.node.IsDir {
		return fs.ModeDir
	}
	return 0
}

// Info returns the entry's FileInfo. For a page whose size the tree does
// not record, it reads the page once.
func (d dirEntry) Info() (fs.FileInfo, error) {
	fi, err := d.fsys.info(d.node)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: d.node.Path, Err: err}
	}
	return fi, nil
}

func (d dirEntry) String() string { return fs.FormatDirEntry(d) }

// Glob returns the names of the visible files and directories that match
// pattern, with the syntax of path.Match. It never touches the network.
func (fsys *FS) Glob(pattern string) ([]string, error) {
	return fsys.glob(pattern, 0, false)
}

// glob follows fs.Glob step by step (so errors and results are the
// same), reading directories from the in-memory tree. With dirsOnly it
// returns only directories, which is all that the levels above the last
// element of a pattern can use.
func (fsys *FS) glob(pattern string, depth int, dirsOnly bool) ([]string, error) {
	if depth > 10000 {
		return nil, path.ErrBadPattern
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, err
	}
	if !hasMeta(pattern) {
		if n, err := fsys.lookup("glob", pattern); err != nil || (dirsOnly && !n.IsDir) {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	d, file := path.Split(pattern)
	d = cleanGlobPath(d)
	if !hasMeta(d) {
		return fsys.globDir(d, file, nil, dirsOnly)
	}
	if d == pattern {
		return nil, path.ErrBadPattern
	}
	dirs, err := fsys.glob(d, depth+1, true)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		if out, err = fsys.globDir(d, file, out, dirsOnly); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (fsys *FS) globDir(dir, pattern string, out []string, dirsOnly bool) ([]string, error) {
	n, err := fsys.lookup("glob", dir)
	if err != nil || !n.IsDir {
		return out, nil
	}
	kids, _ := fsys.s.view.ReadDir(n.Path)
	for _, k := range kids {
		if dirsOnly && !k.IsDir {
			// Still check the pattern, so that a bad pattern is an
			// error exactly when fs.Glob reports one.
			if _, err := path.Match(pattern, k.Name); err != nil {
				return out, err
			}
			continue
		}
		ok, err := path.Match(pattern, k.Name)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, path.Join(dir, k.Name))
		}
	}
	return out, nil
}

func cleanGlobPath(p string) string {
	switch p {
	case "":
		return "."
	default:
		return p[:len(p)-1]
	}
}

func hasMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\':
			return true
		}
	}
	return false
}
