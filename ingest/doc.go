// Package ingest writes a folder of docs into a collection, in the layout
// that chromafs reads: one record per chunk, with the page's slug and the
// chunk's index in its metadata, and one tree record that lists every
// page with its access, size, mod time, content hash and content type.
//
//	rules, err := ingest.LoadRules("docs/.access")
//	...
//	report, err := ingest.RunDir(ctx, collection, "docs", ingest.Options{Rules: rules})
//
// A page's slug is the file's path relative to the folder, with forward
// slashes. [Run] skips, and lists in its [Report], the files it cannot
// represent faithfully: symbolic links, files that are not regular,
// files whose name is not valid UTF-8 or contains a backslash or a
// control character, and files whose content is not valid UTF-8 (a
// collection stores text; bytes that are not UTF-8 would not read back
// unchanged). It always skips ".git", and [RunDir] skips the access
// rules file when it lies inside the folder.
//
// # Chunking
//
// A page is cut at line ends: a chunk is a run of whole lines (each with
// its "\n") of at most Options.MaxChunk bytes, 1024 by default. A line
// longer than that on its own is cut at UTF-8 rune boundaries into pieces
// of at most MaxChunk bytes (the last piece starts the next chunk, which
// goes on with whole lines), and the page's tree entry gets SplitLines:
// only such a page can have a line that straddles two chunks. No chunk is
// empty, except that an empty file is one empty chunk. Joined with ""
// (chromafs's default separator) the chunks are the file, byte for byte.
// The tree record's metadata says chromafs_line_aligned: true,
// chromafs_writer: "chromafs-ingest/1", and chromafs_chunk_ids:
// "slug#index" (collection.ChunkIDsKey), which lets readers fetch a page's
// chunks by id instead of filtering by slug.
//
// A chunk's record id is "<slug>#<index>" (for example "auth/oauth.md#0"),
// so ids are deterministic and unique (the index is the digits after the
// last "#"), and re-ingesting a page overwrites its records in place. A
// chunk's metadata holds the layout's slug and index fields and
// chromafs_line (collection.LineKey): the 1-based page line on which the
// chunk starts, which semantic search reports without reading the page.
//
// # Access rules
//
// Access rules give each page its isPublic flag and groups. They are
// read by [ParseRules] or [LoadRules], one rule per line:
//
//	# comment; blank lines ignored; the LAST matching rule wins
//	default public             # optional: what unmatched pages get
//	**                  public
//	internal/**         private groups=staff,admins
//	billing/*.md        groups=finance          # groups without "public" = private
//	billing/rates.md    public groups=finance   # public; groups kept in the tree
//
// A rule is a glob followed by "public" or "private" and/or
// "groups=a,b", in any order: "public" makes a page visible to everyone,
// "private" or a groups list alone restricts it to the listed groups
// (private without groups hides the page from everyone). Globs use
// [github.com/bmatcuk/doublestar/v4] syntax and match the whole slug:
// "*" stays within one directory, "**" matches any depth, so "*.md"
// matches only top-level pages and "**/*.md" all of them. Patterns are
// relative: a leading "/" or "./" is an error. A "#" that starts a word
// starts a comment, so a name that begins with "#" is written "[#]name";
// a file called "default" is matched by "[d]efault".
//
// A page that no rule matches is public. A "default private" line (at
// most one, anywhere in the file) makes unmatched pages private with no
// groups instead, which fails closed when a rule is forgotten. A bad
// line is an error that names its line number and the problem, for
// example
//
//	docs/.access:3: unknown word "publc" (want public, private or groups=a,b)
//
// Without rules, every page is public.
//
// # Re-ingest
//
// Run is idempotent. It first reads the collection's tree. A page whose
// content hash equals the one in that tree keeps its chunks (nothing is
// written for it) and only its tree entry is refreshed, so access rules
// and mod times may change freely; such pages count as Unchanged. The
// hashes are trusted only when the tree was written by this package
// (chromafs_writer), since other writers may chunk differently; with a
// foreign tree, or with Options.Force, every page is rewritten and counts
// as Updated. An unchanged page keeps its chunks even when MaxChunk
// changed; Force re-chunks every page. A new or changed page has its chunks upserted, then any
// other record of that page (stale chunks of a longer version, chunks
// another writer gave other ids) deleted. The tree record is written
// after all chunks, then the chunks of pages that are gone from the
// folder are deleted; so a reader never finds a tree that names chunks
// not yet written, or chunks already deleted.
//
// When a run fails part way, its error says how far it got and the
// collection keeps its previous tree; running again completes the work.
// Until then, a page that changed may read as its new content, or as a
// mix of new and old chunks (chromafs detects that with the tree's
// content hash only if it checks it). So that the next run does not trust
// hashes that no longer describe the chunks (a page edited back to its old
// content would keep the failed run's chunks), a run that is about to
// write its first chunk first writes the previous tree record back
// unchanged but for chromafs_dirty: true in its metadata, and its own tree
// says chromafs_dirty: false; a run that finds a dirty tree rewrites every
// page. If a run fails after writing the tree but before deleting the
// chunks of removed pages, those chunks stay as orphans that no tree
// names; Options.Prune finds and deletes them.
//
// Options.DryRun reads the collection (the tree, and chunk ids) to
// compute the same report, but writes and deletes nothing.
package ingest
