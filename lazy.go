package chromafs

// IsLazy reports whether name is a lazy file pointer visible to the
// session: a page whose content is fetched through the pointer.Resolver
// when read.
// It does no I/O. Package grepx uses it to leave pointers out of a search
// (grepx.Query.SkipLazy, chromafs grep --no-pointers).
//
// IsLazy implements fscap.IsLazyFS, through which grepx and search find it
// by type assertion, as io/fs finds fs.ReadFileFS; other callers rarely
// need it.
func (fsys *FS) IsLazy(name string) bool {
	n, err := fsys.lookup("stat", name)
	return err == nil && !n.IsDir && n.Entry != nil && n.Entry.URL != ""
}
