package chromastore

// SetSearchPageSize sets the page size of Search answers, so that tests
// can exercise paging on small collections, and returns a function that
// restores it.
func SetSearchPageSize(n int) (restore func()) {
	return set(&searchPageSize, n)
}

// SetChunksPageSize sets the page size of Chunks answers, and returns a
// function that restores it.
func SetChunksPageSize(n int) (restore func()) {
	return set(&chunksPageSize, n)
}

// SetSearchIDsDirect sets the most ids a Search by id asks for by id,
// and returns a function that restores it.
func SetSearchIDsDirect(n int) (restore func()) {
	return set(&searchIDsDirect, n)
}

func set(v *int, n int) (restore func()) {
	old := *v
	*v = n
	return func() { *v = old }
}
