// Package chromafs is a read-only, access-controlled filesystem over a
// Chroma collection of chunked documentation.
//
// A collection holds one record per chunk of a page (metadata page_slug
// and chunk_index) and one path tree record (id __path_tree__) whose
// document maps every page slug to its access rules. New fetches the tree
// once, prunes it for the user's groups and indexes it in memory; after
// that, listing never touches the network, and a page is fetched (all its
// chunks, sorted and joined) on its first read and cached.
//
//	store, err := chromastore.Open(ctx, chromastore.Config{URL: "http://localhost:8000", Collection: "example-docs"})
//	if err != nil { ... }
//	defer store.Close()
//	fsys, err := chromafs.New(ctx, store, chromafs.WithGroups("staff"))
//	data, err := fs.ReadFile(fsys, "guides/auth/oauth.mdx") // examples/docs, as make demo ingests it
//
// *FS is a standard fs.FS (with ReadDirFS, ReadFileFS, StatFS, GlobFS and
// SubFS), so it works with fs.WalkDir, fs.Glob, template.ParseFS, http.FS
// and testing/fstest.
//
// # Stores
//
// The filesystem reads a collection through the small collection.Store
// interface; package collection holds the whole data contract (records,
// layout, metadata keys, sharded trees). Package chromastore implements
// it over a Chroma server (it is the only package that imports the Chroma
// client); package memstore implements it in memory for tests and
// examples.
//
// # Access control
//
// A page is visible iff its tree entry has isPublic true or its groups
// intersect the groups given with WithGroups. An entry without isPublic is
// private. A hidden page behaves exactly like a page that does not exist:
// every operation on it fails with fs.ErrNotExist, and a directory that
// holds no visible page does not exist. The filesystem only ever asks the
// store for the chunks of visible pages.
//
// # Reading
//
// Open does no I/O. The first Read, ReadAt or Seek from the end of a file
// loads the page: every chunk in as few requests as the store allows,
// sorted by chunk index and joined with the separator (WithSeparator,
// default ""). Chunk indexes must be exactly 0..n-1: a gap, a duplicate, a
// chunk without an index, or a chunk count, size or sha256 hash that
// disagrees with the tree is an error wrapping collection.ErrCorruptPage, never
// partial content. When the tree record declares collection.ChunkIDScheme (chromafs
// ingest writes it) and the store implements collection.IDReader, chunks are fetched
// by id, a lookup, instead of by slug, which makes Chroma filter the whole
// collection; the slug query remains the fallback. Concurrent reads
// of one page cost one fetch, and pages are kept in a byte-bounded cache
// (WithCache) keyed by collection, page version and path.
//
// Stat reports a page's size from the tree when the tree records it;
// otherwise it reads the page once and remembers the size.
//
// # Lazy file pointers
//
// A tree entry with a url field is a lazy file pointer: its content is
// stored outside the collection (a large OpenAPI spec in an object store,
// for example). It is listed, pruned for access and stat'ed like any page
// (with the declared size and modTime, without any request), and fetched
// through a pointer.Resolver only when read: by default the zero
// pointer.HTTPResolver, which fetches http and https URLs with the read's
// context; WithResolver sets another, and WithResolver(nil) fetches none
// (reads fail with pointer.ErrLazy). The content must match the entry's
// declared size and hash, else the read fails with an error wrapping
// pointer.ErrBroken (a 404 included), never partial content. Pointer
// content is cached and shared between concurrent readers like any page
// (keyed by the entry's hash, or by its URL and the tree version). The
// whole content is fetched on the first read from the start (ReadFile,
// Read at offset 0); for a pointer over 256 KiB whose size is declared,
// ReadAt and Read after a Seek fetch only a window around the bytes read
// when the resolver is a pointer.RangeResolver (HTTPResolver sends Range
// requests), checked for the declared total size but not the hash.
// Prefetch (grep's bulk read) fetches pointers up to four at a time, and
// grep searches their content unless told to leave them out (IsLazy,
// fscap.IsLazyFS, grepx.Query.SkipLazy).
//
// Whoever writes the tree chooses the URLs, so HTTPResolver fetches them
// under a pointer.Policy: by default only public addresses, redirects
// only to allowed targets, and a deadline on every fetch; see package
// pointer. A refused pointer fails with an error wrapping
// pointer.ErrBlocked (and pointer.ErrLazy) that names the reason.
//
// # Sharded trees
//
// A store may limit a document's size (Chroma Cloud: 16 KiB), and a tree
// of a few hundred pages is larger. collection.ShardTree cuts such a tree
// into shard records plus a manifest in the tree record;
// collection.ReadTree, which New uses, joins the shards back and checks
// them against the manifest's size and sha256 (collection.ErrShard
// otherwise). The joined document has the version it would have in one
// record, so the layouts are interchangeable.
//
// # Errors
//
// Operations return *fs.PathError with the standard operation names
// (open, stat, read, readdir, seek, sub). Missing and hidden paths wrap
// fs.ErrNotExist; paths that are not valid fs paths wrap fs.ErrInvalid.
// The adapters' writes return fscap.ErrReadOnly, which matches both
// fs.ErrPermission and syscall.EROFS. Store failures are wrapped with the
// operation that failed, so errors.Is and errors.As reach the cause:
// fscap.IsUnavailable tells an unreachable store, and errors of content
// (collection.ErrNoTree, collection.ErrCorruptPage, tree.ErrMalformed, the pointer errors)
// match fscap.ErrContent.
package chromafs
